"""A client's `notifications/cancelled` stops the call it names, over every transport the server serves, and
nothing at all is sent for the call after it: raw JSON-RPC over streamable HTTP on 127.0.0.1 (stateless, the
default, and stateful), the real `mcp` client in the 2025 era, and two stateless replicas sharing a real
redis-server, where the cancel reaches one replica and the call runs on the other. A cancelled keyed write is
never run again: the retry with its key is told the outcome is unknown. Side effects are counted from a file
the handler appends to, outside the server."""

from __future__ import annotations

import json
import time
from collections.abc import Iterator
from contextlib import ExitStack
from pathlib import Path
from typing import Any

import anyio
import httpx
import pytest
from httpserver import Running, client, http_server
from ledger import redis_server

from failwell import new

pytestmark = pytest.mark.slow

TOKENS = {"ada-token-5d1c9e7b3a2f": {"subject": "ada"}, "bob-token-8e2a6c4f1d9b": {"subject": "bob"}}
ADA, BOB = list(TOKENS)
SPEC = """\
failwell: 1
server:
  name: waits
  store: {store}
  auth: {{tokens_env: WAITS_TOKENS}}
tools:
  waits_read:
    description: Wait a while, then say done.
    effect: read
    scopes: []
    deadline_s: 30
    output:
      done: {{type: boolean}}
  waits_write:
    description: Wait a while, then write one line to the journal, once per idempotency key.
    effect: write
    idempotency: required
    scopes: []
    deadline_s: 30
    input:
      line: {{type: string, example: hello}}
    output:
      written: {{type: boolean}}
"""
HANDLERS = {
    "waits_read": """\
import logging

import anyio

from .._generated.tools.waits_read import Context, Input, Output


async def handle(params: Input, ctx: Context) -> Output:
    logging.getLogger("waits").warning("handler started", extra={"request": ctx.request_id})
    try:
        await anyio.sleep(25)
    finally:
        logging.getLogger("waits").warning("handler released", extra={"request": ctx.request_id})
    return Output(done=True)
""",
    "waits_write": """\
import logging
import os

import anyio

from .._generated.tools.waits_write import Context, Input, Output


async def handle(params: Input, ctx: Context) -> Output:
    logging.getLogger("waits").warning("handler started", extra={"request": ctx.request_id})
    try:
        await anyio.sleep(25)
    finally:
        logging.getLogger("waits").warning("handler released", extra={"request": ctx.request_id})
    with open(os.environ["WAITS_JOURNAL"], "a") as journal:
        journal.write(params.line + "\\n")
    return Output(written=True)
""",
}
LEGACY = {"accept": "application/json, text/event-stream", "mcp-protocol-version": "2025-11-25"}


def make_project(root: Path, store: str) -> Path:
    spec = root / "waits.yaml"
    spec.write_text(SPEC.format(store=store))
    project = root / "waits"
    new(project, spec)
    for name, source in HANDLERS.items():
        (project / "src" / "waits_mcp" / "handlers" / f"{name}.py").write_text(source)
    return project / "src"


def env(root: Path, **more: str) -> dict[str, str]:
    return {
        "WAITS_TOKENS": json.dumps(TOKENS),
        "WAITS_JOURNAL": str(root / "journal.txt"),
        "FAILWELL_SQLITE_PATH": str(root / "records.sqlite3"),
        "LOG_LEVEL": "INFO",
        **more,
    }


@pytest.fixture(scope="module")
def src(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return make_project(tmp_path_factory.mktemp("waits"), "sqlite")


@pytest.fixture
def stateless(src: Path, tmp_path: Path) -> Iterator[Running]:
    with http_server("waits_mcp", src, tmp_path / "stderr.log", env(tmp_path)) as running:
        yield running


def events(server: Running, name: str) -> list[dict[str, Any]]:
    lines = [json.loads(line) for line in server.logged().splitlines() if line.startswith("{")]
    return [line for line in lines if line.get("event") == name]


def wait_for(server: Running, name: str, count: int = 1) -> None:
    deadline = time.monotonic() + 20
    while time.monotonic() < deadline:
        if len(events(server, name)) >= count:
            return
        time.sleep(0.05)
    raise AssertionError(f"the server never logged {name!r} {count} times:\n{server.logged()[-3000:]}")


def call(request_id: int | str, tool: str = "waits_read", **arguments: Any) -> dict[str, Any]:
    params = {"name": tool, "arguments": arguments}
    return {"jsonrpc": "2.0", "id": request_id, "method": "tools/call", "params": params}


def cancel(request_id: int | str) -> dict[str, Any]:
    return {"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"requestId": request_id}}


def headers(token: str, session: str | None = None) -> dict[str, str]:
    return {**LEGACY, "authorization": f"Bearer {token}", **({"mcp-session-id": session} if session else {})}


def cancelled_quietly(
    url: str, request: dict[str, Any], token: str, started: Any, cancel_at: str, session: str | None = None
) -> list[str]:
    """Send `request` and, once `started()` returns, its cancel to `cancel_at`; the call's stream's data lines."""
    with (
        httpx.Client(timeout=20) as http,
        http.stream("POST", url, json=request, headers=headers(token, session)) as stream,
    ):
        assert stream.status_code == 200
        started()
        sent = http.post(cancel_at, json=cancel(request["id"]), headers=headers(token, session))
        assert sent.status_code == 202, sent.text
        return [line for line in stream.iter_lines() if line.startswith("data:") and line != "data:"]


def test_a_cancel_over_stateless_http_stops_the_call_and_nothing_is_sent(stateless: Running) -> None:
    data = cancelled_quietly(stateless.url, call(7), ADA, lambda: wait_for(stateless, "handler started"), stateless.url)
    assert data == [], "the cancelled call's stream ended with no message (no result, no -32800)"
    wait_for(stateless, "handler released")
    assert [line["request_id"] for line in events(stateless, "call cancelled by the client")] == ["7"]
    assert not events(stateless, "tool call failed"), "the call ended by its cancel, not at its deadline"


def test_another_callers_cancel_with_the_same_id_stops_nothing(stateless: Running) -> None:
    with (
        httpx.Client(timeout=30) as http,
        http.stream("POST", stateless.url, json=call(9), headers=headers(ADA)) as stream,
    ):
        wait_for(stateless, "handler started")
        refused = http.post(stateless.url, json=cancel(9), headers=headers(BOB))
        assert refused.status_code == 202
        wait_for(stateless, "cancel not applied")
        assert not events(stateless, "handler released"), "bob's cancel stopped ada's call"
        http.post(stateless.url, json=cancel(9), headers=headers(ADA))
        assert [line for line in stream.iter_lines() if line.startswith("data:") and line != "data:"] == []
    wait_for(stateless, "handler released")


def test_a_cancelled_keyed_write_is_never_run_again(stateless: Running, tmp_path: Path) -> None:
    write = call(11, "waits_write", line="once", idempotency_key="cancelled-write-0001")
    data = cancelled_quietly(stateless.url, write, ADA, lambda: wait_for(stateless, "handler started"), stateless.url)
    assert data == []
    wait_for(stateless, "handler released")
    with httpx.Client(timeout=30) as http:
        retry = http.post(stateless.url, json={**write, "id": 12}, headers=headers(ADA))
    (line,) = [line for line in retry.text.splitlines() if line.startswith("data: ")]
    result = json.loads(line[len("data: ") :])["result"]
    assert result["isError"] and result["_meta"]["dev.failwell/error"]["failure"] == "idempotency_key_outcome_unknown"
    assert len(events(stateless, "handler started")) == 1, "the retry did not run the handler"
    assert not (tmp_path / "journal.txt").exists(), "the cancelled write wrote nothing"


def test_a_cancel_in_a_stateful_session_is_answered_with_nothing(src: Path, tmp_path: Path) -> None:
    with (
        http_server("waits_mcp", src, tmp_path / "stderr.log", env(tmp_path, MCP_STATEFUL="1")) as server,
        httpx.Client(timeout=20) as http,
    ):
        hello = {"protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "t", "version": "0"}}
        opened = http.post(
            server.url, json={"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": hello}, headers=headers(ADA)
        )
        session = opened.headers["mcp-session-id"]
        ready = {"jsonrpc": "2.0", "method": "notifications/initialized"}
        assert http.post(server.url, json=ready, headers=headers(ADA, session)).status_code == 202
        data = cancelled_quietly(
            server.url, call(5), ADA, lambda: wait_for(server, "handler started"), server.url, session
        )
        assert data == [], "no -32800 Request cancelled, no result"
        wait_for(server, "handler released")


@pytest.mark.anyio
async def test_the_mcp_client_cancelling_over_stateless_http_stops_the_handler(stateless: Running) -> None:
    async with client(stateless.url, ADA, "legacy") as session:
        with anyio.move_on_after(20) as waited:
            async with anyio.create_task_group() as group:
                group.start_soon(session.call_tool, "waits_read", {})
                await anyio.to_thread.run_sync(wait_for, stateless, "handler started")
                group.cancel_scope.cancel()  # the client sends notifications/cancelled for the call
            await anyio.to_thread.run_sync(wait_for, stateless, "handler released")
        assert not waited.cancelled_caught
        assert events(stateless, "call cancelled by the client")
        assert (await session.call_tool("waits_read", {"x": 1})).is_error, "the session still serves calls"


def test_a_cancel_sent_to_one_replica_stops_the_call_on_the_other(tmp_path: Path) -> None:
    src = make_project(tmp_path, "redis")
    with ExitStack() as stack:
        redis = stack.enter_context(redis_server())
        logs = [tmp_path / f"replica-{number}.log" for number in (0, 1)]
        runs, other = (
            stack.enter_context(http_server("waits_mcp", src, log, env(tmp_path, REDIS_URL=redis))) for log in logs
        )
        data = cancelled_quietly(runs.url, call(3), ADA, lambda: wait_for(runs, "handler started"), other.url)
        assert data == [], "the call's stream ended with no message"
        wait_for(runs, "handler released")
        assert [line["request_id"] for line in events(runs, "call cancelled by the client")] == ["3"]
        assert [line["calls"] for line in events(other, "cancel not applied")] == ["absent"]
