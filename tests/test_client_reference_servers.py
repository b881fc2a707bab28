"""The SEP-3313 client reference against real servers over stdio, both sides of the conformance scenario:

- server side: every error result a failwell-generated server sends conforms to the draft (`conforms`);
- client side: `failwell.client.call_tool` obeys it, proved by counting the requests a fake upstream on
  127.0.0.1 received (the examples' own `FakeUpstream`): the weather example (read-only tools, upstream retries
  inside the server: 3 requests per call) and the refunds example (a keyed write, `rerun_safe`), and a server
  that sends neither object (an `MCPServer` script counting its calls in a file).
Each server is a real subprocess started with the test venv and PYTHONPATH=<example>/src (no new venv)."""

from __future__ import annotations

import re
import sys
import textwrap
import time
from collections.abc import AsyncIterator, Iterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import anyio
import pytest
from ledger import importable
from mcp import Client, StdioServerParameters
from mcp.types import CallToolResult

from conftest import REPO
from failwell.client import CapabilityFailure, ReliabilityFailure, ToolFailure, call_tool
from failwell.client.reference import ENVELOPE_KEY, TOOL_FAILURE_KEY

pytestmark = [pytest.mark.anyio, pytest.mark.slow]

FORECAST = b'{"place": "Lisbon", "days": [{"date": "2026-12-02", "summary": "sun", "high_c": 18, "low_c": 9}]}'
REFUND = b'{"refund_id": "re_1a2b3c", "order_id": "ord_8813ab", "amount_cents": 4000, "status": "succeeded"}'
DOWN = b'{"error": "db 10.0.0.7 down"}'
SEP_CLASS_OF = {
    "invalid_input": "capability",
    "not_found": "capability",
    "conflict": "capability",
    "internal": "capability",
    "permission_denied": "governance",
    "rate_limited": "reliability",
    "upstream_unavailable": "reliability",
    "timeout": "reliability",
}


def conforms(result: CallToolResult) -> None:
    """The draft's server-side MUSTs for one result from a failwell server."""
    meta = result.meta or {}
    if not result.is_error:
        assert TOOL_FAILURE_KEY not in meta, "present only on error results"
        return
    failure, envelope = meta[TOOL_FAILURE_KEY], meta[ENVELOPE_KEY]
    assert failure["class"] in ("capability", "reliability", "governance")
    assert isinstance(failure["code"], str) and failure["code"]
    assert isinstance(failure["correlationId"], str), "correlationId is required"
    assert re.fullmatch(r"ERR-[0-9A-F]{8}", failure["correlationId"]), "no token, user id or payload in it"
    assert failure["correlationId"] == envelope["reference"], "the same id the log line and the envelope carry"
    if failure["class"] != "reliability":
        assert failure.get("retryable") in (None, False), "retryable only for reliability"
    if "retryNotBefore" in failure:
        assert failure["retryable"] is True and isinstance(failure["retryNotBefore"], int)
    if failure["retryable"] is False:
        assert failure["class"] == SEP_CLASS_OF[envelope["class"]]


@asynccontextmanager
async def example(name: str, env: dict[str, str]) -> AsyncIterator[Client]:
    src = REPO / "examples" / name / "src"
    params = StdioServerParameters(
        command=sys.executable, args=["-m", f"{name}_mcp"], env={"PYTHONPATH": str(src), **env}
    )
    async with Client(params) as session:  # type: ignore[arg-type]
        yield session


async def attempt(session: Client, name: str, arguments: dict[str, Any], **options: Any) -> Any:
    """`call_tool`'s result, or the `ToolFailure` it raised (returned, so it leaves the session's task group as
    itself)."""
    try:
        return await call_tool(session, name, arguments, **options)
    except ToolFailure as failure:
        return failure


@pytest.fixture(scope="module")
def fake_upstream() -> Iterator[Any]:
    with importable(REPO / "examples" / "weather" / "src", "weather_mcp"):
        from weather_mcp._generated.testing import FakeUpstream, Reply

        with FakeUpstream(default=Reply(200, FORECAST)) as fake:
            fake.reply = Reply
            yield fake


async def test_a_failwell_read_is_retried_and_a_refusal_is_not_counted_at_the_upstream(fake_upstream: Any) -> None:
    fake, reply = fake_upstream, fake_upstream.reply
    async with example("weather", {"FORECAST_API_URL": fake.url}) as session:
        arguments = {"place": "Lisbon", "days": 1}

        fake.script, fake.default = [reply(503, DOWN)] * 3, reply(200, FORECAST)
        sent = len(fake.requests)
        result = await attempt(session, "weather_forecast", arguments, budget_s=40)
        assert isinstance(result, CallToolResult) and not result.is_error, result
        conforms(result)
        assert len(fake.requests) - sent == 4, "3 attempts inside the server's first call, then the retry's one"

        fake.script, fake.default = [], reply(404, b"{}")
        sent = len(fake.requests)
        failure = await attempt(session, "weather_forecast", arguments)
        assert isinstance(failure, CapabilityFailure) and failure.code == "place_unknown"
        assert failure.source == "toolFailure" and failure.agent_guidance
        assert failure.result is not None
        conforms(failure.result)
        assert len(fake.requests) - sent == 1, "not found is never retried"

        fake.default = reply(503, DOWN)
        sent = len(fake.requests)
        failure = await attempt(session, "weather_forecast", arguments, max_attempts=2, budget_s=40)
        assert isinstance(failure, ReliabilityFailure) and failure.code == "upstream"
        assert failure.result is not None
        conforms(failure.result)
        assert len(failure.attempts) == 2 and all(ref.startswith("ERR-") for ref in failure.attempts)
        assert len(set(failure.attempts)) == 2
        # two calls, each up to three upstream attempts (the breaker, at 5 failures in a row, may stop the last)
        assert 3 < len(fake.requests) - sent <= 6, "the second call reached the upstream: a retry happened"
        for leak in ("10.0.0.7", "db "):
            assert leak not in failure.text


async def test_a_keyed_write_that_may_have_changed_is_retried_only_after_its_check(
    fake_upstream: Any, tmp_path: Path
) -> None:
    fake, reply = fake_upstream, fake_upstream.reply
    env = {"PAYMENTS_API_URL": fake.url, "FAILWELL_SQLITE_PATH": str(tmp_path / "refunds.sqlite3")}
    async with example("refunds", env) as session:
        arguments = {"order_id": "ord_8813ab", "amount_cents": 4000, "idempotency_key": "refund-ord_8813ab-1"}
        fake.script, fake.default = [reply(503, DOWN)] * 3, reply(201, REFUND)
        sent = len(fake.requests)
        failure = await attempt(session, "refund_order", arguments, budget_s=40)
        assert isinstance(failure, ReliabilityFailure), failure
        assert failure.changed == "possible" and failure.retryable, "failwell: retryable with the same key"
        assert failure.result is not None
        conforms(failure.result)
        assert "check it" in failure.gave_up
        assert len(fake.requests) - sent == 3, "no retry without the check the message names"

    checks: list[str] = []

    async def check(failure: ToolFailure) -> bool:
        checks.append(failure.text)
        return True

    env["FAILWELL_SQLITE_PATH"] = str(tmp_path / "refunds-2.sqlite3")
    async with example("refunds", env) as session:  # a new process: its circuit breaker starts closed
        fake.script = [reply(503, DOWN)] * 3
        sent = len(fake.requests)
        result = await attempt(session, "refund_order", arguments, budget_s=40, check_possible_change=check)
        assert isinstance(result, CallToolResult) and not result.is_error, result
        assert len(checks) == 1 and "may have been applied" in checks[0]
        keys = {headers.get("Idempotency-Key") for _, _, _, headers in fake.requests[sent:]}
        assert len(fake.requests) - sent == 4 and len(keys) == 1 and None not in keys, "one derived key throughout"


PLAIN_SERVER = """\
import os, sys
from mcp.server.mcpserver import MCPServer
from mcp.server.mcpserver.exceptions import ToolError
from mcp.types import ToolAnnotations

server = MCPServer("plain")


@server.tool(annotations=ToolAnnotations(read_only_hint=True))
def lookup(name: str) -> str:
    with open(os.environ["CALLS_FILE"], "a") as calls:
        calls.write(name + "\\n")
    raise ToolError("Service temporarily unavailable, try again later")


server.run()
"""


async def test_a_server_sending_neither_object_is_read_from_its_text_and_not_retried(tmp_path: Path) -> None:
    script, calls = tmp_path / "plain.py", tmp_path / "calls.txt"
    script.write_text(textwrap.dedent(PLAIN_SERVER))
    params = StdioServerParameters(command=sys.executable, args=[str(script)], env={"CALLS_FILE": str(calls)})
    started = time.monotonic()
    async with Client(params) as session:  # type: ignore[arg-type]
        failure = await attempt(session, "lookup", {"name": "x"}, budget_s=20)
    assert isinstance(failure, ReliabilityFailure), failure
    assert failure.source == "text" and failure.retryable is False and failure.correlation_id is None
    assert "temporarily unavailable" in failure.text
    assert calls.read_text().splitlines() == ["x"], "one call: the server promised nothing about a retry"
    assert time.monotonic() - started < 20


PAGED_SERVER = """\
import os, sys

import anyio
from mcp.server.lowlevel import Server
from mcp.server.stdio import stdio_server
from mcp.types import CallToolResult, ListToolsResult, TextContent, Tool, ToolAnnotations

SCHEMA = {"type": "object", "properties": {"name": {"type": "string"}}}
PAGES = {
    None: ListToolsResult(tools=[Tool(name="other", input_schema=SCHEMA)], next_cursor="page-2"),
    "page-2": ListToolsResult(
        tools=[Tool(name="lookup", input_schema=SCHEMA, annotations=ToolAnnotations(read_only_hint=True))]
    ),
}


async def list_tools(ctx, params):
    cursor = params.cursor if params is not None else None
    with open(os.environ["CALLS_FILE"], "a") as calls:
        calls.write(f"list {cursor}\\n")
    return PAGES[cursor]


async def call_tool(ctx, params):
    with open(os.environ["CALLS_FILE"], "a") as calls:
        calls.write(f"call {params.name}\\n")
    with open(os.environ["CALLS_FILE"]) as calls:
        first = sum(line.startswith("call") for line in calls) == 1
    if first:
        failure = {"class": "reliability", "code": "busy", "retryable": True, "correlationId": "c-1"}
        return CallToolResult(
            content=[TextContent(type="text", text="Busy; try again.")],
            is_error=True,
            _meta={"io.modelcontextprotocol/toolFailure": failure},
        )
    return CallToolResult(content=[TextContent(type="text", text="found")])


server = Server("paged", on_list_tools=list_tools, on_call_tool=call_tool)


async def main():
    async with stdio_server() as (read, write):
        await server.run(read, write, server.create_initialization_options())


anyio.run(main)
"""


@asynccontextmanager
async def session_of(kind: str, params: StdioServerParameters) -> AsyncIterator[Any]:
    """An `mcp.Client`, or an `mcp.ClientSession` over `stdio_client` as its documentation opens one."""
    if kind == "Client":
        async with Client(params) as client:  # type: ignore[arg-type]
            yield client
        return
    from mcp import ClientSession
    from mcp.client.stdio import stdio_client

    async with stdio_client(params) as (read, write), ClientSession(read, write) as session:
        await session.initialize()
        yield session


@pytest.mark.parametrize("kind", ["Client", "ClientSession"])
async def test_call_tool_pages_the_annotations_with_a_client_session_as_with_a_client(
    tmp_path: Path, kind: str
) -> None:
    """Issue 42 point 6: a retryable failure makes `call_tool` list the tool's annotations, on the second page of
    `tools/list` here; `ClientSession.list_tools` takes `params=`, `Client.list_tools` takes `cursor=`: both work."""
    script, calls = tmp_path / "paged.py", tmp_path / "calls.txt"
    script.write_text(PAGED_SERVER)
    params = StdioServerParameters(command=sys.executable, args=[str(script)], env={"CALLS_FILE": str(calls)})
    with anyio.fail_after(60):
        async with session_of(kind, params) as session:
            result = await attempt(session, "lookup", {"name": "x"}, budget_s=20, base_delay_s=0.01)
    assert isinstance(result, CallToolResult) and not result.is_error, result
    assert calls.read_text().splitlines() == ["call lookup", "list None", "list page-2", "call lookup"]


ENVELOPE = '{"class": "upstream_unavailable", "failure": "upstream", "retryable": true, "retry_after_s": %s}'
DRAFT = '{"class": "reliability", "code": "upstream", "retryable": true, "retryNotBefore": %s, "correlationId": "c-1"}'


@pytest.mark.parametrize(
    ("meta", "waits"),
    [
        (f'{{"{ENVELOPE_KEY}": {ENVELOPE % "1e308"}}}', True),
        (f'{{"{ENVELOPE_KEY}": {ENVELOPE % "1e999"}}}', False),
        (f'{{"{ENVELOPE_KEY}": {ENVELOPE % "Infinity"}}}', False),
        (f'{{"{ENVELOPE_KEY}": {ENVELOPE % "NaN"}}}', False),
        (f'{{"{ENVELOPE_KEY}": {ENVELOPE % "-5"}}}', False),
        (f'{{"{ENVELOPE_KEY}": {ENVELOPE % "-1e308"}}}', False),
        (f'{{"{TOOL_FAILURE_KEY}": {DRAFT % "1e308"}}}', True),
        (f'{{"{TOOL_FAILURE_KEY}": {DRAFT % "-1"}}}', False),
        (f'{{"{TOOL_FAILURE_KEY}": {DRAFT % "NaN"}}}', False),
        (f'{{"{ENVELOPE_KEY}": {ENVELOPE % ("1" + "0" * 400)}}}', True),
        (f'{{"{TOOL_FAILURE_KEY}": {DRAFT % ("1" + "0" * 400)}}}', True),
    ],
    ids=[
        *("1e308", "1e999", "Infinity", "NaN", "-5", "-1e308", "draft-1e308", "draft--1", "draft-NaN"),
        *("an integer of 401 digits", "draft-an integer of 401 digits"),
    ],
)
async def test_a_wait_no_clock_can_keep_is_capped_or_absent_and_the_failure_is_raised(meta: str, waits: bool) -> None:
    """Issue 39, point 10: a hostile server's numbers, sent verbatim. A huge wait is read as a day at most, past
    the budget, so the failure is raised at once; a negative or non-finite one as absent, so the retries go on
    their backoff. Either way the caller gets a ToolFailure, never OverflowError."""
    from hostile_server import __file__ as hostile

    params = StdioServerParameters(command=sys.executable, args=[hostile, "--meta", meta])
    started = time.time()
    async with Client(params) as session:  # type: ignore[arg-type]
        failure = await attempt(session, "flaky", {}, max_attempts=2, budget_s=15, base_delay_s=0.01)
    assert isinstance(failure, ReliabilityFailure), failure
    assert failure.retryable and failure.text == "Try later."
    if waits:
        assert failure.retry_not_before is not None
        assert started * 1000 < failure.retry_not_before <= (time.time() + 86_400) * 1000, "a day at most"
        assert len(failure.attempts) == 1 and "budget" in failure.gave_up, "raised at once, not waited on"
    else:
        assert failure.retry_not_before is None, "read as absent"
        assert len(failure.attempts) == 2 and failure.gave_up == "2 attempts made", "retried on its backoff"
    assert time.time() - started < 15
