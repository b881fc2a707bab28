"""A handler never silently loses its code or its tool: a rename is named with the exact move (and
`--rename` makes it), `generate --check` fails while a tool, resource or prompt is still failwell's stub,
and an import of what `_generated/` does not have is named at FILE:LINE, by `generate` and by the server,
which exits 2 with one line instead of taking every tool down behind "Connection closed"."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from conftest import EXAMPLES, copy_project, failwell, tree
from failwell import FailwellError, generate, new
from failwell.render.handlers import is_stub

TASKS = EXAMPLES / "tasks"
HANDLERS = "src/tasks_mcp/handlers"


def renamed(project: Path, old: str, new_name: str) -> None:
    """Rename a tool (resource, prompt) in the project's spec, as a person does in their editor."""
    spec = project / "failwell.yaml"
    spec.write_text(spec.read_text().replace(old, new_name))


def test_a_renamed_tool_is_named_with_its_move_and_check_fails_on_the_new_stub(tmp_path: Path) -> None:
    project = copy_project(TASKS, tmp_path / "tasks")
    renamed(project, "tasks_close", "tasks_finish")
    result = generate(project)
    assert f"{HANDLERS}/tasks_close.py" in result.plan.orphans
    note = next(n for n in result.orphan_notes if n.startswith(f"kept {HANDLERS}/tasks_close.py"))
    assert "`failwell generate --rename tasks_close=tasks_finish`" in note, note
    assert result.stubs == (("tool", "tasks_finish", f"{HANDLERS}/tasks_finish.py"),)
    assert result.errors == (), "an orphan is not imported by the server, so its stale import is not an error"
    checked = generate(project, check=True)
    assert checked.plan.stale == [] and checked.stubs, "up to date, yet --check fails: the tool has only its stub"


def test_rename_moves_handler_test_and_imports_and_then_check_passes(tmp_path: Path) -> None:
    project = copy_project(TASKS, tmp_path / "tasks")
    old_handler = (project / HANDLERS / "tasks_close.py").read_text()
    old_test = (project / "tests" / "test_tasks_close.py").read_text()
    renamed(project, "tasks_close", "tasks_finish")
    generate(project)  # as a person would first: the new tool gets its stub, the old handler is kept
    result = generate(project, renames=(("tasks_close", "tasks_finish"),))
    assert not (project / HANDLERS / "tasks_close.py").exists()
    assert not (project / "tests" / "test_tasks_close.py").exists()
    moved = (project / HANDLERS / "tasks_finish.py").read_text()
    assert moved == old_handler.replace("tasks_close", "tasks_finish")
    assert "from .._generated.tools.tasks_finish import AlreadyClosed" in moved
    test = (project / "tests" / "test_tasks_finish.py").read_text()
    assert "tasks_close" not in test and test.count("tasks_finish") == old_test.count("tasks_close")
    assert f"moved {HANDLERS}/tasks_close.py to {HANDLERS}/tasks_finish.py" in result.warnings
    checked = generate(project, check=True)
    assert (checked.plan.stale, checked.stubs, checked.errors, checked.plan.orphans) == ([], (), (), [])


def test_rename_refuses_a_target_with_code_and_changes_nothing(tmp_path: Path) -> None:
    project = copy_project(TASKS, tmp_path / "tasks")
    renamed(project, "tasks_close", "tasks_finish")
    generate(project)
    target = project / HANDLERS / "tasks_finish.py"
    target.write_text(target.read_text().replace('raise NotImplementedError("tasks_finish', 'return Output("x'))
    before = tree(project)
    with pytest.raises(FailwellError, match=r"tasks_finish.py exists and has code of its own.*nothing was changed"):
        generate(project, renames=(("tasks_close", "tasks_finish"),))
    assert tree(project) == before
    with pytest.raises(FailwellError, match=r"`tasks_get` is still a tool of failwell.yaml"):
        generate(project, renames=(("tasks_get", "tasks_finish"),))
    with pytest.raises(FailwellError, match=r"`tasks_end` is not a tool, resource or prompt"):
        generate(project, renames=(("tasks_close", "tasks_end"),))
    assert tree(project) == before


def test_rename_refuses_a_committed_symlink_and_changes_nothing(tmp_path: Path) -> None:
    project = copy_project(TASKS, tmp_path / "tasks")
    outside = tmp_path / "outside.py"
    outside.write_text("# not the project's\n")
    renamed(project, "tasks_close", "tasks_finish")
    (project / "tests" / "test_tasks_finish.py").symlink_to(outside)
    before = tree(project)
    with pytest.raises(FailwellError, match=r"tests/test_tasks_finish.py is a symbolic link"):
        generate(project, renames=(("tasks_close", "tasks_finish"),))
    assert tree(project) == before and outside.read_text() == "# not the project's\n"


def test_a_renamed_resource_and_prompt_are_named_and_moved(tmp_path: Path) -> None:
    project = copy_project(TASKS, tmp_path / "tasks")
    spec = project / "failwell.yaml"
    text = spec.read_text()
    spec.write_text(
        text.replace("\n  task:\n    title: A task", "\n  card:\n    title: A task").replace(
            "\n  triage:\n", "\n  sort_out:\n"
        )
    )
    result = generate(project)
    notes = " ".join(result.orphan_notes)
    assert "`failwell generate --rename task=card`" in notes and "`failwell generate --rename triage=sort_out`" in notes
    assert {(kind, name) for kind, name, _ in result.stubs} == {("resource", "card"), ("prompt", "sort_out")}
    generate(project, renames=(("task", "card"), ("triage", "sort_out")))
    assert "from ..._generated.resources.card import" in (project / HANDLERS / "resources" / "card.py").read_text()
    assert not (project / HANDLERS / "prompts" / "triage.py").exists()
    checked = generate(project, check=True)
    assert (checked.stubs, checked.errors, checked.plan.orphans) == ((), (), [])


def test_check_fails_while_any_tool_resource_or_prompt_is_its_untouched_stub(tmp_path: Path) -> None:
    project = tmp_path / "fresh"
    new(project, TASKS / "failwell.yaml")
    checked = generate(project, check=True)
    assert checked.plan.stale == []
    assert [(kind, name) for kind, name, _ in checked.stubs] == [
        ("tool", "tasks_close"),
        ("tool", "tasks_create"),
        ("tool", "tasks_get"),
        ("tool", "tasks_search"),
        ("resource", "task"),
        ("prompt", "triage"),
    ]
    handler = project / HANDLERS / "tasks_get.py"
    handler.write_text(handler.read_text() + "\n# a comment changes nothing: it still only raises\n")
    assert ("tool", "tasks_get", f"{HANDLERS}/tasks_get.py") in generate(project, check=True).stubs
    for example in ("tasks", "weather", "refunds", "records"):
        assert generate(EXAMPLES / example, check=True).stubs == (), f"{example}'s handlers are implemented"


def test_is_stub_knows_the_stub_from_an_implementation() -> None:
    stub = 'async def handle(params, ctx):\n    """Doc."""\n    raise NotImplementedError("x is not implemented yet")\n'
    assert is_stub(stub)
    assert is_stub("async def handle(params, ctx):\n    raise NotImplementedError\n")
    assert not is_stub('async def handle(params, ctx):\n    """Doc."""\n    return "done"\n')
    assert not is_stub(
        "async def handle(params, ctx):\n    if params.x:\n        raise NotImplementedError\n    return 1\n"
    )
    assert not is_stub("def other():\n    raise NotImplementedError\n")


def test_an_import_of_a_name_generated_does_not_have_is_named_at_file_line(tmp_path: Path) -> None:
    project = copy_project(TASKS, tmp_path / "tasks")
    handler = project / HANDLERS / "tasks_get.py"
    handler.write_text(
        handler.read_text().replace(
            "from .._generated.tools.tasks_get import ", "from .._generated.tools.tasks_get import IssueNotFound, "
        )
    )
    helper = project / "src" / "tasks_mcp" / "helper.py"
    helper.write_text(
        "from tasks_mcp._generated.tools.tasks_gone import Input\nimport tasks_mcp._generated.tools.tasks_lost\n"
        "import tasks_mcp._generated.tools.tasks_get\n"
    )
    for checked in (True, False):
        errors = generate(project, check=checked).errors
        assert errors[0].startswith(
            f"{HANDLERS}/tasks_get.py:3: `IssueNotFound` is not in "
            "`tasks_mcp._generated.tools.tasks_get`; it has: Context, Handler, Input, "
            "Output, TaskMissing"
        ), errors
        assert errors[1].startswith(
            "src/tasks_mcp/helper.py:1: imports from `tasks_mcp._generated.tools.tasks_gone`,"
            " which failwell does not generate"
        ), errors
        assert "tasks_close, tasks_create, tasks_get, tasks_search" in errors[1]
        assert errors[2].startswith("src/tasks_mcp/helper.py:2: `tasks_lost` is not in `tasks_mcp._generated.tools`;")
        assert "it has: tasks_close, tasks_create, tasks_get, tasks_search." in errors[2]
        assert len(errors) == 3


@pytest.mark.slow
def test_the_cli_exits_1_on_stubs_and_imports_and_names_the_rename(tmp_path: Path) -> None:
    project = copy_project(TASKS, tmp_path / "tasks")
    renamed(project, "tasks_close", "tasks_finish")
    written = failwell("generate", project)
    assert written.returncode == 0, written.stderr
    assert "run `failwell generate --rename tasks_close=tasks_finish`" in written.stderr
    checked = failwell("generate", "--check", project)
    assert checked.returncode == 1
    assert checked.stdout == f"stub: {HANDLERS}/tasks_finish.py (tool tasks_finish)\n"
    assert "still only raise NotImplementedError" in checked.stderr
    moved = failwell("generate", "--rename", "tasks_close=tasks_finish", project)
    assert moved.returncode == 0, moved.stderr
    assert failwell("generate", "--check", project).returncode == 0
    handler = project / HANDLERS / "tasks_get.py"
    handler.write_text(handler.read_text().replace("import Context", "import IssueNotFound, Context"))
    broken = failwell("generate", "--check", project)
    assert broken.returncode == 1 and f"{HANDLERS}/tasks_get.py:3: `IssueNotFound`" in broken.stdout
    written = failwell("generate", project)  # not only --check: a plain generate exits 1 and names it too
    assert written.returncode == 1, written.stdout + written.stderr
    assert f"{HANDLERS}/tasks_get.py:3: `IssueNotFound` is not in" in written.stdout + written.stderr
    assert "it has: Context, Handler, Input, Output, TaskMissing" in written.stdout + written.stderr


def console_script(project: Path, package: str, script: str) -> Path:
    """The console script `pip install -e .` would put in the project's .venv: this interpreter (which has the
    project's dependencies) running `<package>.__main__:main` from the project's src/."""
    path = project / ".venv" / "bin" / script
    path.parent.mkdir(parents=True)
    path.write_text(
        f"#!{sys.executable}\nimport sys\nsys.path.insert(0, {str(project / 'src')!r})\n"
        f"from {package}.__main__ import main\nsys.exit(main())\n"
    )
    path.chmod(0o755)
    return path


@pytest.mark.slow
def test_a_server_whose_handler_cannot_import_exits_2_and_call_says_why(tmp_path: Path) -> None:
    project = copy_project(TASKS, tmp_path / "tasks")
    script = console_script(project, "tasks_mcp", "tasks-mcp")
    env = {**os.environ, "FAILWELL_SQLITE_PATH": str(tmp_path / "store.db")}
    good = failwell("call", "tasks_get", "ref=T-1", "--project", project)
    assert good.returncode == 0, good.stderr
    unknown = failwell("call", "tasks_nope", "--project", project)
    assert "JSON-RPC error -32602: Unknown tool: tasks_nope" in unknown.stderr, "a server that answered is not 'exited'"
    handler = project / HANDLERS / "tasks_get.py"
    handler.write_text(handler.read_text().replace("import Context", "import IssueNotFound, Context"))

    started = subprocess.run([script], input="", capture_output=True, text=True, timeout=60, env=env)
    assert started.returncode == 2, started.stderr
    lines = started.stderr.splitlines()
    assert len(lines) == 1 and "Traceback" not in started.stderr, started.stderr
    assert (
        "the handler module tasks_mcp.handlers.tasks_get (line 3) imports IssueNotFound from "
        "tasks_mcp._generated.tools.tasks_get, which has no such name" in lines[0]
    )
    module = subprocess.run(
        [sys.executable, "-m", "tasks_mcp"],
        input="",
        capture_output=True,
        text=True,
        timeout=60,
        env={**env, "PYTHONPATH": str(project / "src")},
        cwd=tmp_path,
    )
    assert module.returncode == 2 and len(module.stderr.splitlines()) == 1, module.stderr

    for command in (
        ["call", "tasks_get", "ref=T-1"],
        ["tools"],
        ["read", "tasks://T-1"],
        ["prompt", "triage", "ref=T-1"],
    ):
        answered = failwell(*command, "--project", project)
        assert answered.returncode == 1
        said = answered.stderr.splitlines()[-1]
        assert said.startswith(
            "failwell: the server exited (status 2) before answering; it said: cannot start: "
            "the handler module tasks_mcp.handlers.tasks_get (line 3) imports IssueNotFound"
        ), said
        assert "Connection closed" not in answered.stderr
