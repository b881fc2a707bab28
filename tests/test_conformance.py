"""The MCP project's own tools against generated servers over streamable HTTP on 127.0.0.1: the official
conformance suite (with a committed baseline of the scenarios that need out-of-scope features) and the
inspector CLI listing and calling tools over HTTP, with a bearer token, and over stdio."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from fixture_server import generate_fixture_server
from httpserver import Running, http_server

from conftest import EXAMPLES, REPO

pytestmark = pytest.mark.slow

NODE_TOOLS = REPO / "tests" / "node"
CONFORMANCE = NODE_TOOLS / "node_modules" / "@modelcontextprotocol" / "conformance" / "dist" / "index.js"
INSPECTOR = NODE_TOOLS / "node_modules" / "@modelcontextprotocol" / "inspector-cli" / "build" / "index.js"
BASELINE = REPO / "tests" / "conformance" / "expected-failures.yml"
GENERIC = (
    "server-initialize",
    "logging-set-level",
    "ping",
    "tools-list",
    "resources-list",
    "prompts-list",
    "dns-rebinding-protection",
)
"""The scenarios that need no fixture of a fixed name: each must pass with every check a success."""
TOKEN = "inspector-token-4b8d2f6a1c"


def node(script: Path, *args: str, cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
    if not script.is_file() or shutil.which("node") is None:
        pytest.fail(f"{script.name} is missing: run `(cd tests/node && npm ci)` (bash .ci/test does)")
    return subprocess.run(["node", str(script), *args], cwd=cwd, capture_output=True, text=True, timeout=300)


@pytest.fixture(scope="module")
def fixture_src(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The server the suite's scenarios expect: the fixture spec's tools, resources and prompts."""
    return generate_fixture_server(tmp_path_factory.mktemp("fixture") / "conformance")


STATELESS_ONLY = [
    "server-sse-multiple-streams",
    "tools-call-sampling",
    "tools-call-elicitation",
    "elicitation-sep1034-defaults",
]
"""A stateless server (the default, for replicas) issues no Mcp-Session-Id, and the first scenario warns without
one; on the 2025 protocol a stateless server has no back-channel, so its tools cannot ask the client (the other
three: they pass on a stateful server, where the fixture tools ask on the session's back-channel)."""


@pytest.mark.parametrize("stateful", [False, True], ids=["stateless", "stateful"])
def test_the_conformance_suite_passes_but_for_the_baseline(tmp_path: Path, fixture_src: Path, stateful: bool) -> None:
    baseline = BASELINE.read_text() + "".join(f"  - {name}\n" for name in STATELESS_ONLY if not stateful)
    (tmp_path / "baseline.yml").write_text(baseline)
    env = {"FAILWELL_SQLITE_PATH": str(tmp_path / "records.sqlite3"), "MCP_STATEFUL": "1" if stateful else "0"}
    with http_server("conformance_mcp", fixture_src, tmp_path / "stderr.log", env) as records:
        url = f"http://localhost:{records.port}/mcp"  # dns-rebinding-protection needs a localhost URL
        out = tmp_path / "results"
        args = ("server", "--url", url, "--expected-failures", str(tmp_path / "baseline.yml"), "-o", str(out))
        run = node(CONFORMANCE, *args)
    assert run.returncode == 0, run.stdout[-3000:] + run.stderr[-2000:]
    checks = {folder.name: json.loads((folder / "checks.json").read_text()) for folder in out.iterdir()}
    for scenario in GENERIC + (() if not stateful else tuple(STATELESS_ONLY)):
        found = [checks[name] for name in checks if name.startswith(f"server-{scenario}-")]
        assert len(found) == 1, f"{scenario} did not run"
        assert found[0] and all(check["status"] == "SUCCESS" for check in found[0]), (scenario, found[0])
    listed = [line.strip()[2:] for line in baseline.splitlines() if line.strip().startswith("- ")]
    assert not set(GENERIC) & set(listed)


def inspect(target: list[str], *args: str) -> tuple[int, Any]:
    """Run the inspector CLI (from inside tests/node, which it needs to find its own package.json)."""
    run = node(INSPECTOR, *target, *args, cwd=NODE_TOOLS / "node_modules")
    return run.returncode, (json.loads(run.stdout) if run.returncode == 0 else run.stdout + run.stderr)


@pytest.fixture
def tasks(tmp_path: Path) -> Iterator[Running]:
    env = {"TASKS_TOKENS": TOKEN, "FAILWELL_SQLITE_PATH": str(tmp_path / "tasks.sqlite3")}
    with http_server("tasks_mcp", EXAMPLES / "tasks" / "src", tmp_path / "stderr.log", env) as running:
        yield running


def test_the_inspector_lists_and_calls_tools_over_http_with_a_token(tasks: Running) -> None:
    target = [tasks.url, "--header", f"Authorization: Bearer {TOKEN}"]
    code, listed = inspect(target, "--method", "tools/list")
    assert code == 0
    assert [tool["name"] for tool in listed["tools"]] == ["tasks_close", "tasks_create", "tasks_get", "tasks_search"]
    code, good = inspect(target, "--method", "tools/call", "--tool-name", "tasks_get", "--tool-arg", "ref=T-1")
    assert code == 0 and good.get("isError") is not True
    assert good["structuredContent"]["title"] == "Draft the release notes"
    code, failed = inspect(target, "--method", "tools/call", "--tool-name", "tasks_get", "--tool-arg", "ref=T-404")
    assert code == 0 and failed["isError"] is True
    assert failed["content"][0]["text"].startswith("No task T-404. Refs look like T-1.")
    assert failed["_meta"]["dev.failwell/error"]["class"] == "not_found"
    code, output = inspect([tasks.url], "--method", "tools/list")
    assert code == 1 and '"code":-31001' in output, "without a token the inspector cannot connect"


def test_the_inspector_lists_and_calls_tools_over_stdio(tmp_path: Path) -> None:
    command = ["env", f"PYTHONPATH={EXAMPLES / 'tasks' / 'src'}", f"FAILWELL_SQLITE_PATH={tmp_path / 'tasks.sqlite3'}"]
    target = [*command, sys.executable, "-m", "tasks_mcp"]
    code, listed = inspect(target, "--method", "tools/list")
    assert code == 0 and len(listed["tools"]) == 4
    code, failed = inspect(target, "--method", "tools/call", "--tool-name", "tasks_search", "--tool-arg", "query=x")
    assert code == 0 and failed["isError"] is True
    expected = '`query` received "x" (a string), but it accepts a string of 2 to 100 characters'
    assert expected in failed["content"][0]["text"]
