"""The generated runtime's shape: one concern per module, no import cycles, short functions, and every
use of the SDK's internals in one module, checked against the installed `mcp`."""

from __future__ import annotations

import ast
import importlib.util
import json
import os
import re
import subprocess
import sys
import tomllib
from importlib.metadata import version
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest
from mcp.server.mcpserver import MCPServer

from conftest import EXAMPLES, GOLDEN, REPO

RUNTIME = REPO / "template" / "src" / "{{ package }}" / "_generated" / "runtime"
MAX_LINES = 450
"""The most lines one runtime module holds: past it, a module holds more than one concern and is split."""
SDK_INTERNALS = ("_lowlevel_server", "_tool_input_schema", "auth_context_var", "last_context")
"""The SDK internals the runtime uses; only sdk.py may name them."""


def sources() -> list[Path]:
    """The runtime's module files (not the bytecode the generator's own imports of it may leave beside them)."""
    return sorted(path for path in RUNTIME.iterdir() if path.is_file())


def modules() -> dict[str, ast.Module]:
    """Every runtime module of the template by name, parsed (conditional file names unwrapped)."""
    found = {}
    for path in sources():
        name = re.sub(r"\{%.*?%\}", "", path.name).removesuffix(".jinja")
        text = path.read_text(encoding="utf-8")
        if path.name.endswith(".jinja"):
            assert "{{" not in text and "{%" not in text, f"{path.name}: the runtime is the same in every project"
        found[name.removesuffix(".py")] = ast.parse(text, path.name)
    return found


def imported(tree: ast.Module) -> set[str]:
    """The sibling modules a runtime module imports, at the top or inside a function."""
    names = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.level == 1:
            names |= {node.module} if node.module else {alias.name for alias in node.names}
        if isinstance(node, ast.ImportFrom):
            assert node.level <= 1, "the runtime imports nothing spec-derived (server.py, tools/)"
    return names


def test_no_runtime_module_imports_one_that_imports_it_back() -> None:
    graph = {name: imported(tree) for name, tree in modules().items()}
    assert {name for deps in graph.values() for name in deps} <= set(graph), "every import is a runtime module"

    def cycle_from(start: str, path: tuple[str, ...]) -> tuple[str, ...] | None:
        for following in sorted(graph[start]):
            if following in path:
                return (*path[path.index(following) :], following)
            found = cycle_from(following, (*path, following))
            if found:
                return found
        return None

    for name in graph:
        cycle = cycle_from(name, (name,))
        assert cycle is None, " -> ".join(cycle or ())
    assert graph["call"] >= {"results", "idempotency", "limits", "batches", "callers"}, "the graph is read"


def test_no_runtime_module_runs_over_the_bound() -> None:
    """Issue 40: tasks.py (833 lines), scrub.py (836), server.py (579) and contracts.py (480) were split by concern."""
    long = {path.name: n for path in sources() if (n := len(path.read_text(encoding="utf-8").splitlines())) > MAX_LINES}
    assert long == {}, f"runtime modules over {MAX_LINES} lines: {long}"


def test_every_runtime_module_says_its_one_job_and_no_function_runs_over_60_lines() -> None:
    for name, tree in modules().items():
        assert ast.get_docstring(tree), f"{name}.py has no docstring saying what it is for"
        for node in ast.walk(tree):
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
                length = (node.end_lineno or node.lineno) - node.lineno + 1
                assert length <= 60, f"{name}.py: {node.name} is {length} lines"


def test_the_packages_map_names_every_runtime_module() -> None:
    """runtime/__init__.py maps the modules by what each is for: none is left out of it."""
    mapped = ast.get_docstring(modules()["__init__"]) or ""
    named = set(re.findall(r"\b([a-z_]+)\.py\b", mapped))
    assert set(modules()) - {"__init__"} - named == set()


def test_the_sdk_internals_are_named_in_sdk_py_only() -> None:
    for path in sources():
        if path.name == "sdk.py":
            continue
        text = path.read_text(encoding="utf-8")
        for internal in SDK_INTERNALS:
            assert internal not in text, f"{path.name} uses the SDK's {internal}; only sdk.py may"
        private = re.findall(r"from mcp[\w.]* import [^\n]*\b_\w+", text)
        assert not private, f"{path.name} imports a private SDK name: {private}"
    sdk = (RUNTIME / "sdk.py").read_text(encoding="utf-8")
    assert all(internal in sdk for internal in SDK_INTERNALS)


def load_sdk() -> ModuleType:
    """The generated sdk.py (it imports only `mcp`), as a module of its own."""
    spec = importlib.util.spec_from_file_location("failwell_generated_sdk", RUNTIME / "sdk.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_every_sdk_internal_the_runtime_uses_is_in_the_installed_mcp() -> None:
    missing = load_sdk().missing_internals()
    assert missing == [], "\n".join(missing)


def test_an_internal_a_newer_mcp_moved_is_named(monkeypatch: pytest.MonkeyPatch) -> None:
    sdk = load_sdk()
    monkeypatch.delattr(MCPServer, "_tool_input_schema")
    missing = sdk.missing_internals()
    assert missing[0] == (
        f"mcp {version('mcp')} has no MCPServer._tool_input_schema, which failwell's runtime uses (checked against "
        f"mcp {sdk.CHECKED_AGAINST}): keep mcp below the next minor release, or update runtime/sdk.py"
    )
    assert "Server.run" not in " ".join(missing), "only what is missing is named"


def test_projects_require_the_mcp_minor_the_internals_were_checked_against() -> None:
    checked = load_sdk().CHECKED_AGAINST
    major, minor = checked.split(".")
    pin = f"mcp>={checked},<{major}.{int(minor) + 1}"
    generated = tomllib.loads((GOLDEN / "tasks" / "pyproject.toml").read_text(encoding="utf-8"))
    assert pin in generated["project"]["dependencies"]
    failwell = tomllib.loads((REPO / "pyproject.toml").read_text(encoding="utf-8"))
    assert pin in failwell["project"]["optional-dependencies"]["test"], "failwell tests the SDK projects get"
    assert version("mcp").startswith(f"{checked}.")


START_PROBE = """
import atexit, json, os, re, sys
from {package}._generated.runtime.cli import serve
from {package}._generated.server import build_server

def report():
    scrubbing = ("scrub", "secret_names", "secret_texts", "formats")
    runtime = [sys.modules[f"{package}._generated.runtime.{{name}}"] for name in scrubbing]
    compiled = [
        f"{{module.__name__}}.{{name}}"
        for module in runtime
        for name, value in vars(module).items()
        if isinstance(value, re.Pattern) or "_compiled" in getattr(value, "__dict__", {{}})
    ]
    with open(os.environ["PROBE_OUT"], "w") as out:
        json.dump({{"modules": sorted(sys.modules), "compiled": compiled}}, out)

atexit.register(report)
serve(build_server, [])
"""
"""A generated server's stdio start (what `python -m <package>` runs), reporting at exit what it imported and which
of the scrubber's and formats.py's module-level regular expressions (scrub.py, secret_names.py, secret_texts.py) it
compiled."""
FIRST_REQUESTS = [
    {"jsonrpc": "2.0", "id": 0, "method": "initialize",
     "params": {"protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "probe", "version": "0"}}},
    {"jsonrpc": "2.0", "method": "notifications/initialized"},
    {"jsonrpc": "2.0", "id": 1, "method": "tools/list"},
]  # fmt: skip
ONLY_LATER = {
    "http": "streamable HTTP (`--http`)",
    "http_envelope": "HTTP bodies",
    "http_limits": "HTTP bounds",
    "rebinding": "Host and Origin checks",
    "bearer": "bearer tokens",
    "tokens": "bearer tokens",
    "oauth": "the OAuth resource URL",
}
"""Runtime modules only `--http` needs."""


def first_requests_answered(code: str, env: dict[str, str], folder: Path) -> dict[int, Any]:
    """Run `code` (a server's stdio start) fed FIRST_REQUESTS and end of input; its answers by id, once it exited 0."""
    ran = subprocess.run(
        [sys.executable, "-c", code],
        input="".join(json.dumps(request) + "\n" for request in FIRST_REQUESTS),
        capture_output=True,
        text=True,
        timeout=60,
        env=env,
        cwd=folder,
    )
    assert ran.returncode == 0, ran.stderr
    return {answer["id"]: answer for answer in map(json.loads, ran.stdout.splitlines())}


@pytest.mark.parametrize("example", ["tasks", "weather"])
def test_a_stdio_start_imports_and_compiles_only_what_the_first_requests_need(example: str, tmp_path: Path) -> None:
    """Desktop clients start every stdio server when they launch: initialize and tools/list need no HTTP stack,
    no upstream client (httpx, with the rich and pygments its CLI imports), and none of the scrubber's or the string
    formats' regular expressions (compiled on first use: 140M instructions of a 3,300M start, counted)."""
    package = f"{example}_mcp"
    env = {
        **os.environ,
        "PYTHONPATH": str(EXAMPLES / example / "src"),
        "PROBE_OUT": str(tmp_path / "probe.json"),
        "LOG_LEVEL": "WARNING",  # as bench/run.py starts it: an INFO start line is scrubbed, compiling what it needs
        "FAILWELL_SQLITE_PATH": str(tmp_path / "store.sqlite3"),
        "FORECAST_API_URL": "https://forecast-api.example.com",
    }
    answers = first_requests_answered(START_PROBE.format(package=package), env, tmp_path)
    assert answers[1]["result"]["tools"], "the start is real: tools/list was answered"
    probe = json.loads((tmp_path / "probe.json").read_text(encoding="utf-8"))
    assert probe["compiled"] == []
    runtime = f"{package}._generated.runtime."
    loaded = {name.removeprefix(runtime) for name in probe["modules"] if name.startswith(runtime)}
    assert loaded & set(ONLY_LATER) == set()
    assert "httpx" not in probe["modules"]
    assert {"scrub", "secret_names", "secret_texts", "formats"} <= loaded, "what these hold at import is read"
    if example == "weather":
        assert "upstream" in loaded, "the upstream module is imported, without its HTTP client"


GC_PROBE = """
import atexit, gc, json, os, runpy, sys

def report():
    with open(os.environ["PROBE_OUT"], "w") as out:
        json.dump({{"enabled": gc.isenabled(), "frozen": gc.get_freeze_count(),
                    "collections": [generation["collections"] for generation in gc.get_stats()]}}, out)

atexit.register(report)
if os.environ["PROBE_HOW"] == "command":
    runpy.run_module("{package}", run_name="__main__", alter_sys=True)  # as `python -m {package}` runs it
else:
    from {package}._generated.runtime.cli import serve
    from {package}._generated.server import build_server
    serve(build_server, [])
"""
"""A stdio start to end of input, as `python -m <package>` (`command`) or from code importing the server
(`embedded`), reporting at exit whether the collector runs, how many objects are frozen and its collections."""


def test_a_command_pauses_the_collector_while_it_starts_and_an_embedding_process_is_left_alone(tmp_path: Path) -> None:
    """The collector walks every object start-up makes, again and again while the SDK loads: a server started as
    a command pauses it until the server is built, then freezes what start-up made and runs it again (startup.py).
    A process that imports the server (a test, an embedding program) keeps its collector as it was."""
    found = {}
    for how in ("command", "embedded"):
        out = tmp_path / f"{how}.json"
        env = {**os.environ, "PYTHONPATH": str(EXAMPLES / "tasks" / "src"), "PROBE_OUT": str(out), "PROBE_HOW": how}
        env["LOG_LEVEL"] = "WARNING"
        env["FAILWELL_SQLITE_PATH"] = str(tmp_path / f"{how}.sqlite3")
        assert first_requests_answered(GC_PROBE.format(package="tasks_mcp"), env, tmp_path)[1]["result"]["tools"]
        found[how] = json.loads(out.read_text(encoding="utf-8"))
    command, embedded = found["command"], found["embedded"]
    assert command["enabled"] and embedded["enabled"], "the collector runs while the server serves"
    assert command["frozen"] > 50_000, "what start-up made is frozen, out of the collector's walks"
    assert embedded["frozen"] == 0, "a process importing the server keeps its collector as it was"
    assert command["collections"][2] < embedded["collections"][2], "no full collection walked the SDK as it loaded"


def test_another_mcp_program_that_imports_the_server_keeps_its_collector(tmp_path: Path) -> None:
    """Only this server's own console script pauses the collector: another `-mcp` program that imports the server
    and never serves it (so never resumes the collector) keeps it running."""
    probe = (
        "import gc, sys\n"
        "sys.argv[0] = '/usr/local/bin/other-mcp'\n"
        "from tasks_mcp._generated.server import build_server\n"
        "build_server()\n"
        "print(gc.isenabled(), gc.get_freeze_count())\n"
    )
    env = {**os.environ, "PYTHONPATH": str(EXAMPLES / "tasks" / "src"), "FAILWELL_SQLITE_PATH": str(tmp_path / "s.db")}
    ran = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, timeout=60, env=env)
    assert ran.returncode == 0, ran.stderr
    assert ran.stdout.split() == ["True", "0"]
