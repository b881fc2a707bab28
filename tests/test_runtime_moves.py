"""Issue 40 (Where it goes): the runtime's modules are grouped into packages by concern. A project generated
before names them flat in the person's own code (`from .._generated.runtime.upstream import UpstreamError`):
`failwell generate` rewrites those imports to each module's home, and the project runs."""

from __future__ import annotations

import json
import os
import re
from pathlib import Path

from test_handler_fit import console_script
from test_runtime_layout import TOP, modules

from conftest import EXAMPLES, copy_project, failwell
from failwell.render import handlers, runtime_moves


def flattened(text: str) -> str:
    """`text` with every runtime module named as it was before the grouping (`_generated.runtime.tokens`)."""
    for flat, home in runtime_moves.HOMES.items():
        text = re.sub(rf"_generated\.runtime\.{re.escape(home)}\b", f"_generated.runtime.{flat}", text)
    return text


def test_every_module_a_project_may_name_has_its_home_in_the_template() -> None:
    """Each flat name maps to a module of the template of the same name, and each name `MOVED` points to is one."""
    template = set(modules())
    assert set(runtime_moves.HOMES.values()) <= template
    assert set(handlers.MOVED.values()) <= template
    assert {home.rpartition(".")[2] for home in runtime_moves.HOMES.values()} == set(runtime_moves.HOMES)
    assert {name.rpartition(".")[2] for name in template} - {"__init__"} == set(runtime_moves.HOMES) | TOP - {
        "__init__"
    }, "every module that was flat has its home"


def test_a_project_whose_code_imports_the_flat_runtime_modules_regenerates_and_runs(tmp_path: Path) -> None:
    project = copy_project(EXAMPLES / "tasks", tmp_path / "tasks")
    auth = project / "src" / "tasks_mcp" / "auth.py"
    create_test = project / "tests" / "test_tasks_create.py"
    handler = project / "src" / "tasks_mcp" / "handlers" / "tasks_get.py"
    for path in (auth, create_test):
        path.write_text(flattened(path.read_text()))
    # `wording` and `tasks` were modules and are packages now: the flat name is the module of the same name
    handler.write_text(
        "from .._generated.runtime.wording import compose  # noqa: F401\n"
        "from .._generated.runtime.contracts import ToolContext as _Context  # noqa: F401\n"
        "from tasks_mcp._generated.runtime.tasks import TaskExtension  # noqa: F401\n" + handler.read_text()
    )
    assert "_generated.runtime.tokens import StaticTokens" in auth.read_text(), "the project names them flat"
    assert "_generated.runtime.store_memory import MemoryStore" in create_test.read_text()
    console_script(project, "tasks_mcp", "tasks-mcp")
    env = {**os.environ, "FAILWELL_SQLITE_PATH": str(tmp_path / "store.db")}
    before = failwell("call", "tasks_get", "ref=T-1", "--project", project, env=env)
    assert before.returncode != 0 and "imports compose from" in before.stderr, before.stderr

    result = failwell("generate", project)
    assert result.returncode == 0, result.stderr
    for relative in ("src/tasks_mcp/auth.py", "src/tasks_mcp/handlers/tasks_get.py", "tests/test_tasks_create.py"):
        assert f"rewrote the runtime imports of {relative}" in result.stderr, result.stderr
    assert "from ._generated.runtime.transport.tokens import StaticTokens, TokenVerifier" in auth.read_text()
    assert "from tasks_mcp._generated.runtime.stores.store_memory import MemoryStore" in create_test.read_text()
    assert "from .._generated.runtime.wording.wording import compose" in handler.read_text()
    assert "from .._generated.runtime.calls.contracts import ToolContext as _Context" in handler.read_text()
    assert "from tasks_mcp._generated.runtime.tasks.tasks import TaskExtension" in handler.read_text()

    again = failwell("generate", project)
    assert "rewrote" not in again.stderr, "a rewritten project is left alone"
    checked = failwell("generate", "--check", project)
    assert checked.returncode == 0 and "up to date" in checked.stderr, checked.stdout + checked.stderr
    called = failwell("call", "tasks_get", "ref=T-1", "--project", project, "--json", env=env)
    assert called.returncode == 0, called.stderr
    assert json.loads(called.stdout)["isError"] is False


def test_check_names_the_flat_imports_and_writes_nothing(tmp_path: Path) -> None:
    project = copy_project(EXAMPLES / "weather", tmp_path / "weather")
    handler = project / "src" / "weather_mcp" / "handlers" / "weather_forecast.py"
    handler.write_text(flattened(handler.read_text()))
    flat = handler.read_text()
    assert "from .._generated.runtime.upstream import UpstreamError" in flat
    checked = failwell("generate", "--check", project)
    assert (
        "src/weather_mcp/handlers/weather_forecast.py imports runtime modules by their old flat names; "
        "`failwell generate` rewrites them"
    ) in checked.stderr + checked.stdout
    assert handler.read_text() == flat
