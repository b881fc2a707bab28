"""End to end, as a new user: install the failwell wheel into a fresh venv, generate the tasks
example outside the source tree, install it, run its generated tests, and drive it with the real
`mcp` client over a stdio subprocess and over streamable HTTP on 127.0.0.1."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import time
import venv
from collections.abc import Iterator
from pathlib import Path
from typing import IO

import httpx
import pytest
from httpserver import client, free_port, wait_for_port
from mcp import Client, StdioServerParameters
from mcp.shared.exceptions import MCPError
from mcp.types import CallToolResult, TextContent

from conftest import EXAMPLES, REPO

pytestmark = pytest.mark.slow


def run(*args: str | Path, cwd: Path | None = None) -> str:
    result = subprocess.run(list(map(str, args)), cwd=cwd, capture_output=True, text=True, timeout=900)
    assert result.returncode == 0, f"{args}\n{result.stdout[-3000:]}\n{result.stderr[-3000:]}"
    return result.stdout


@pytest.fixture(scope="module")
def installed(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Path, Path]]:
    """(python of a fresh venv holding the failwell wheel and the generated tasks project, the project)."""
    root = tmp_path_factory.mktemp("e2e")
    wheels = root / "wheels"
    run(sys.executable, "-m", "pip", "wheel", "--no-deps", "-q", "-w", wheels, REPO)
    venv.EnvBuilder(with_pip=True).create(root / "venv")
    python = root / "venv" / "bin" / "python"
    (wheel,) = wheels.glob("failwell-*.whl")
    run(python, "-m", "pip", "install", "-q", wheel)
    project = root / "tasks"
    run(root / "venv" / "bin" / "failwell", "new", project, "--spec", EXAMPLES / "tasks" / "failwell.yaml", cwd=root)
    source = EXAMPLES / "tasks"
    for relative in ("src/tasks_mcp/board.py", "src/tasks_mcp/handlers", "tests"):
        target = project / relative
        if (source / relative).is_dir():
            shutil.rmtree(target)
            shutil.copytree(source / relative, target, ignore=shutil.ignore_patterns("__pycache__"))
        else:
            shutil.copyfile(source / relative, target)
    # As the generated CI workflow installs it: the dev extra, failwell pinned, its wheel from wheels/.
    workflow = (project / ".github" / "workflows" / "failwell.yml").read_text(encoding="utf-8")
    assert "      - run: pip install --find-links wheels -e '.[dev]'\n" in workflow
    shutil.copytree(wheels, project / "wheels")
    run(python, "-m", "pip", "install", "-q", "--find-links", "wheels", "-e", ".[dev]", cwd=project)
    yield python, project


def test_the_workflow_check_passes_with_the_pinned_failwell(installed: tuple[Path, Path]) -> None:
    python, project = installed
    check = subprocess.run(
        [python.parent / "failwell", "generate", "--check", "--diff"],
        cwd=project,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert check.returncode == 0, check.stdout + check.stderr


def test_wheel_carries_the_template(installed: tuple[Path, Path]) -> None:
    python, _ = installed
    out = run(python, "-c", "from failwell.templates import template_root; print(template_root())")
    assert "site-packages" in out


def test_generated_project_passes_its_own_tests_ruff_and_mypy(installed: tuple[Path, Path]) -> None:
    python, project = installed
    assert " passed" in run(python, "-m", "pytest", "-q", "-p", "no:cacheprovider", cwd=project)
    run(python, "-m", "ruff", "check", "--no-cache", ".", cwd=project)
    run(python, "-m", "ruff", "format", "--check", "--no-cache", ".", cwd=project)
    run(python, "-m", "mypy", "--no-incremental", "--cache-dir", os.devnull, cwd=project)


def text(result: CallToolResult) -> str:
    return "\n".join(block.text for block in result.content if isinstance(block, TextContent))


async def exercise(client: Client) -> None:
    tools = await client.list_tools()
    assert sorted(tool.name for tool in tools.tools) == ["tasks_close", "tasks_create", "tasks_get", "tasks_search"]
    good = await client.call_tool("tasks_get", {"ref": "T-1"})
    assert not good.is_error
    assert good.structured_content == {
        "ref": "T-1",
        "title": "Draft the release notes",
        "status": "open",
        "assignee": "@ada",
    }
    missing = await client.call_tool("tasks_get", {"ref": "T-404"})
    assert missing.is_error
    assert text(missing).startswith("No task T-404. Refs look like T-1. Call tasks_search to find a task by its title.")
    bad = await client.call_tool("tasks_search", {"query": "x", "limit": "ten", "colour": "red"})
    assert bad.is_error
    assert '`query` received "x" (a string), but it accepts a string of 2 to 100 characters' in text(bad)
    assert '`limit` received "ten" (a string), but it accepts an integer from 1 to 50' in text(bad)
    assert "`colour` is not an argument of tasks_search" in text(bad)
    with pytest.raises(MCPError) as raised:
        await client.call_tool("tasks_delete", {"ref": "T-1"})
    assert raised.value.error.code == -32602
    assert raised.value.error.data["available"] == ["tasks_close", "tasks_create", "tasks_get", "tasks_search"]


@pytest.mark.anyio
@pytest.mark.parametrize("mode", ["auto", "legacy"])
async def test_real_client_over_stdio(installed: tuple[Path, Path], mode: str) -> None:
    python, project = installed
    params = StdioServerParameters(command=str(python), args=["-m", "tasks_mcp"], cwd=str(project))
    async with Client(params, mode=mode) as client:  # type: ignore[arg-type]
        await exercise(client)


@pytest.mark.anyio
@pytest.mark.parametrize("mode", ["auto", "legacy"])
async def test_real_client_over_streamable_http(installed: tuple[Path, Path], mode: str) -> None:
    python, project = installed
    port = free_port()
    token = "e2e-token-9a7c5e3b1d"
    server = subprocess.Popen(
        [python, "-m", "tasks_mcp", "--http", "--port", str(port)],
        cwd=project,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        env={**os.environ, "TASKS_TOKENS": token},
    )
    try:
        wait_for_port(port, server)
        async with client(f"http://127.0.0.1:{port}/mcp", token, mode) as session:
            await exercise(session)
    finally:
        server.terminate()
        server.wait(timeout=30)


@pytest.mark.parametrize("version", ["2025-11-25", "2026-07-28"])
def test_an_http_disconnect_cancels_the_handler(installed: tuple[Path, Path], tmp_path: Path, version: str) -> None:
    python, project = installed
    port = free_port()
    log = (tmp_path / "stderr.log").open("w+")
    server = subprocess.Popen(
        [python, "-m", "tasks_mcp._generated.testing", "slow", "--http", "--port", str(port)],
        cwd=project,
        stdout=subprocess.DEVNULL,
        stderr=log,
    )
    try:
        wait_for_port(port, server)
        params: dict[str, object] = {"name": "tasks_get", "arguments": {"ref": "T-1"}}
        headers = {
            "accept": "application/json, text/event-stream",
            "mcp-protocol-version": version,
            "mcp-method": "tools/call",
            "mcp-name": "tasks_get",
        }
        if version == "2026-07-28":
            params["_meta"] = {
                "io.modelcontextprotocol/protocolVersion": version,
                "io.modelcontextprotocol/clientInfo": {"name": "e2e", "version": "0"},
                "io.modelcontextprotocol/clientCapabilities": {},
            }
        request = {"jsonrpc": "2.0", "id": 7, "method": "tools/call", "params": params}
        with httpx.Client(timeout=1.5) as client:
            try:
                with client.stream("POST", f"http://127.0.0.1:{port}/mcp", json=request, headers=headers) as response:
                    assert response.status_code == 200
                    wait_for(log, "handler started")
            except httpx.ReadTimeout:
                pass  # the 2026-07-28 answer is one JSON body: the client gives up waiting for it and disconnects
        wait_for(log, "handler released")
    finally:
        server.terminate()
        server.wait(timeout=30)
    log.seek(0)
    lines = [line for line in log.read().splitlines() if line.strip()]
    assert all(line.startswith("{") for line in lines), "every log line on stderr is JSON"


def wait_for(log: IO[str], text: str) -> None:
    deadline = time.monotonic() + 20
    while time.monotonic() < deadline:
        log.seek(0)
        if text in log.read():
            return
        time.sleep(0.05)
    raise AssertionError(f"the server never logged {text!r}")
