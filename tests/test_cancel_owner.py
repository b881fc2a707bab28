"""Only the one who sent a call can cancel it, over real streamable HTTP on 127.0.0.1 (issue 24, finding 5).

A stranger who guesses request ids (0-50) and posts a cancel for each stops nothing: over stateless HTTP
without auth (where nothing proves who posted a cancel, so a posted cancel stops no call; the owner closes its
call's stream instead), over stateless HTTP with auth (another token's subject), and with `--stateful` (a
cancel posted with no session id). A keyed write the stranger aimed at completes, once, and its retry replays.
The owner's own cancel still stops its call in each mode, resource and prompt reads included. Cancels that
name nothing are logged in one aggregated line, not one each; hostile notes on the Redis cancel channel do not
pause the relay between replicas. Side effects are counted from a file the handler appends to."""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Iterator
from contextlib import ExitStack
from pathlib import Path
from typing import Any

import httpx
import pytest
from httpserver import Running, http_server
from ledger import redis_server
from test_cancel import LEGACY, cancel, events, wait_for

from failwell import new

pytestmark = pytest.mark.slow

TOKENS = {"ada-token-5d1c9e7b3a2f": {"subject": "ada"}, "bob-token-8e2a6c4f1d9b": {"subject": "bob"}}
ADA, BOB = list(TOKENS)
SPEC = """\
failwell: 1
server:
  name: waits
  store: {store}
{auth}tools:
  waits_read:
    description: Wait a while, then say done.
    effect: read
    deadline_s: 30
{scopes}    output:
      done: {{type: boolean}}
  waits_write:
    description: Wait a while, then write one line to the journal, once per idempotency key.
    effect: write
    idempotency: required
    deadline_s: 30
{scopes}    input:
      line: {{type: string, example: hello}}
    output:
      written: {{type: boolean}}
resources:
  slow:
    title: A slow page
    uri: "waits://{{name}}"
    description: A page that takes a while to read.
    mime_type: text/plain
    deadline_s: 30
{scopes}    params:
      name: {{type: string, pattern: "^[a-z]+$", description: The page's name., example: home}}
prompts:
  slowly:
    title: Slowly
    description: A prompt that takes a while to write.
    deadline_s: 30
{scopes}    arguments:
      topic: {{type: string, description: What about., example: rain}}
"""
_WAIT = """\
import logging
import os

import anyio


async def wait(ctx: object) -> None:
    logging.getLogger("waits").warning("handler started", extra={{"request": getattr(ctx, "request_id", None)}})
    try:
        await anyio.sleep(float(os.environ.get("WAITS_SLEEP_S", "25")))
    finally:
        logging.getLogger("waits").warning("handler released")
"""
HANDLERS = {
    "wait.py": _WAIT.replace("{{", "{").replace("}}", "}"),
    "handlers/waits_read.py": """\
from .._generated.tools.waits_read import Context, Input, Output
from ..wait import wait


async def handle(params: Input, ctx: Context) -> Output:
    await wait(ctx)
    return Output(done=True)
""",
    "handlers/waits_write.py": """\
import os

from .._generated.tools.waits_write import Context, Input, Output
from ..wait import wait


async def handle(params: Input, ctx: Context) -> Output:
    await wait(ctx)
    with open(os.environ["WAITS_JOURNAL"], "a") as journal:
        journal.write(params.line + "\\n")
    return Output(written=True)
""",
    "handlers/resources/slow.py": """\
from ..._generated.resources.slow import Context, Output, Params
from ...wait import wait


async def handle(params: Params, ctx: Context) -> Output:
    await wait(ctx)
    return "page " + params.name
""",
    "handlers/prompts/slowly.py": """\
from ..._generated.prompts.slowly import Context, Output, Params
from ...wait import wait


async def handle(params: Params, ctx: Context) -> Output:
    await wait(ctx)
    return "Write about " + params.topic
""",
}


def make_project(root: Path, store: str = "sqlite", auth: bool = False) -> Path:
    spec = root / "waits.yaml"
    auth_line = "  auth: {tokens_env: WAITS_TOKENS}\n" if auth else ""
    spec.write_text(SPEC.format(store=store, auth=auth_line, scopes="    scopes: []\n" if auth else ""))
    project = root / "waits"
    new(project, spec)
    for name, source in HANDLERS.items():
        (project / "src" / "waits_mcp" / name).write_text(source)
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
def open_src(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return make_project(tmp_path_factory.mktemp("open"), auth=False)


@pytest.fixture(scope="module")
def auth_src(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return make_project(tmp_path_factory.mktemp("auth"), auth=True)


def request(request_id: int, method: str, params: dict[str, Any]) -> dict[str, Any]:
    return {"jsonrpc": "2.0", "id": request_id, "method": method, "params": params}


def tool(request_id: int, name: str = "waits_read", **arguments: Any) -> dict[str, Any]:
    return request(request_id, "tools/call", {"name": name, "arguments": arguments})


def headers(token: str | None = None, session: str | None = None) -> dict[str, str]:
    return {
        **LEGACY,
        **({"authorization": f"Bearer {token}"} if token else {}),
        **({"mcp-session-id": session} if session else {}),
    }


def data_lines(stream: httpx.Response) -> list[dict[str, Any]]:
    return [json.loads(line[5:]) for line in stream.iter_lines() if line.startswith("data:") and line != "data:"]


def guess_ids(url: str, token: str | None = None, session: str | None = None) -> None:
    """The stranger: a cancel for every request id from 0 to 50, each answered 202 (or refused), none applied."""
    with httpx.Client(timeout=10) as http:
        for guessed in range(51):
            sent = http.post(url, json=cancel(guessed), headers=headers(token, session))
            assert sent.status_code in (202, 400, 404), sent.text


def test_a_strangers_guessed_cancels_stop_no_keyed_write_without_auth(open_src: Path, tmp_path: Path) -> None:
    write = tool(17, "waits_write", line="once", idempotency_key="stranger-proof-0001")
    more = {"WAITS_SLEEP_S": "3"}
    with (
        http_server("waits_mcp", open_src, tmp_path / "stderr.log", env(tmp_path, **more)) as server,
        httpx.Client(timeout=30) as http,
        http.stream("POST", server.url, json=write, headers=headers()) as stream,
    ):
        assert stream.status_code == 200
        wait_for(server, "handler started")
        guess_ids(server.url)
        (answer,) = data_lines(stream)
        assert answer["result"]["structuredContent"] == {"written": True}, answer
        assert not events(server, "call cancelled by the client"), "a stranger's cancel stopped the write"
        retry = http.post(server.url, json={**write, "id": 18}, headers=headers())
        (replayed,) = [json.loads(line[5:]) for line in retry.text.splitlines() if line.startswith("data:")]
        assert replayed["result"]["structuredContent"] == {"written": True}, replayed
        assert len(events(server, "handler started")) == 1, "the retry replayed, it did not run again"
    assert (tmp_path / "journal.txt").read_text() == "once\n"


def test_the_owner_without_auth_cancels_by_closing_its_calls_stream(open_src: Path, tmp_path: Path) -> None:
    with (
        http_server("waits_mcp", open_src, tmp_path / "stderr.log", env(tmp_path)) as server,
        httpx.Client(timeout=30) as http,
    ):
        with http.stream("POST", server.url, json=tool(4), headers=headers()) as stream:
            assert stream.status_code == 200
            wait_for(server, "handler started")
        wait_for(server, "handler released")  # within 20 s, not the handler's 25


@pytest.mark.parametrize("auth", [True, False], ids=["auth", "no-auth"])
def test_a_cancel_outside_the_session_stops_nothing_with_stateful(
    auth: bool, auth_src: Path, open_src: Path, tmp_path: Path
) -> None:
    token = ADA if auth else None
    src = auth_src if auth else open_src
    more = {"MCP_STATEFUL": "1", "WAITS_SLEEP_S": "3"}
    with (
        http_server("waits_mcp", src, tmp_path / "stderr.log", env(tmp_path, **more)) as server,
        httpx.Client(timeout=30) as http,
    ):
        hello = {"protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "t", "version": "0"}}
        opened = http.post(server.url, json=request(1, "initialize", hello), headers=headers(token))
        session = opened.headers["mcp-session-id"]
        ready = {"jsonrpc": "2.0", "method": "notifications/initialized"}
        assert http.post(server.url, json=ready, headers=headers(token, session)).status_code == 202
        with http.stream("POST", server.url, json=tool(5), headers=headers(token, session)) as stream:
            wait_for(server, "handler started")
            guess_ids(server.url, BOB if auth else None)  # no session id
            if auth:
                guess_ids(server.url, BOB, session)  # another token in ada's session: refused as unknown
            (answer,) = data_lines(stream)
        assert answer["result"]["structuredContent"] == {"done": True}, answer
        # The owner's cancel, in its own session, still stops its call, and nothing is sent for it.
        with http.stream("POST", server.url, json=tool(6), headers=headers(token, session)) as stream:
            wait_for(server, "handler started", 2)
            assert http.post(server.url, json=cancel(6), headers=headers(token, session)).status_code == 202
            assert data_lines(stream) == []
        wait_for(server, "handler released", 2)


@pytest.fixture
def with_auth(auth_src: Path, tmp_path: Path) -> Iterator[Running]:
    with http_server("waits_mcp", auth_src, tmp_path / "stderr.log", env(tmp_path, WAITS_SLEEP_S="3")) as running:
        yield running


CANCELLABLE = {
    "tool": tool(7),
    "resource": request(7, "resources/read", {"uri": "waits://home"}),
    "prompt": request(7, "prompts/get", {"name": "slowly", "arguments": {"topic": "rain"}}),
}


@pytest.mark.parametrize("kind", ["resource", "prompt"])
def test_without_auth_the_owner_stops_a_read_by_closing_its_stream(kind: str, open_src: Path, tmp_path: Path) -> None:
    """The low finding without auth: a resource or prompt read over stateless HTTP is stopped by the one way its
    sender has there (closing the read's own response stream), as a tool call is."""
    with (
        http_server("waits_mcp", open_src, tmp_path / "stderr.log", env(tmp_path)) as server,
        httpx.Client(timeout=30) as http,
    ):
        with http.stream("POST", server.url, json=CANCELLABLE[kind], headers=headers()) as stream:
            assert stream.status_code == 200
            wait_for(server, "handler started")
        wait_for(server, "handler released")  # within 20 s, not the handler's 25
        assert "Traceback" not in server.logged()


@pytest.mark.parametrize("kind", list(CANCELLABLE))
def test_with_auth_a_strangers_cancels_stop_nothing_and_the_owners_stops_the_read(
    kind: str, with_auth: Running
) -> None:
    url = with_auth.url
    with httpx.Client(timeout=30) as http:
        with http.stream("POST", url, json=CANCELLABLE[kind], headers=headers(ADA)) as stream:
            wait_for(with_auth, "handler started")
            guess_ids(url, BOB)
            (answer,) = data_lines(stream)
        assert "result" in answer, answer
        with http.stream("POST", url, json={**CANCELLABLE[kind], "id": 8}, headers=headers(ADA)) as stream:
            wait_for(with_auth, "handler started", 2)
            assert http.post(url, json=cancel(8), headers=headers(ADA)).status_code == 202
            assert data_lines(stream) == [], "a cancelled read is answered with nothing"
    assert [line["request_id"] for line in events(with_auth, "call cancelled by the client")] == ["8"]


def test_cancels_that_name_nothing_are_logged_in_one_line_not_one_each(with_auth: Running) -> None:
    time.sleep(0.5)
    before = len(with_auth.logged().splitlines())
    sent = 2000
    with httpx.Client(timeout=10) as http:
        for number in range(sent):
            assert http.post(with_auth.url, json=cancel(10_000 + number), headers=headers(ADA)).status_code == 202
    time.sleep(0.5)
    lines = with_auth.logged().splitlines()[before:]
    access = [line for line in lines if '"failwell.http.access"' in line]
    assert len(access) == sent
    others = [line for line in lines if line not in access]
    assert len(others) <= 3, f"{len(others)} lines besides the access log for {sent} cancels: {others[:3]}"
    (first, *_) = events(with_auth, "cancel not applied")
    assert first["calls"] == "absent"


def test_hostile_notes_on_the_redis_channel_do_not_pause_the_relay(tmp_path: Path) -> None:
    import redis as redis_client

    src = make_project(tmp_path, "redis", auth=True)
    hostile: list[str | bytes] = [
        "[" * 100_000 + "]" * 100_000,
        "[" * 2_000 + "]" * 2_000,
        b"\xff\xfe{",
        '{"caller": ' * 50_000 + "1" + "}" * 50_000,
        '{"caller": {"a": [1]}, "request_id": [], "from": {}}',
        "not json",
        '{"caller": "token:ada", "request_id": "3"}',
        json.dumps({"caller": "token:ada", "request_id": "x" * 100_000, "from": "elsewhere"}),
        "\x00\xff",
    ]
    with ExitStack() as stack:
        url = stack.enter_context(redis_server())
        logs = [tmp_path / f"replica-{number}.log" for number in (0, 1)]
        runs, other = (
            stack.enter_context(http_server("waits_mcp", src, log, env(tmp_path, REDIS_URL=url))) for log in logs
        )
        publisher = redis_client.Redis.from_url(url)
        stack.callback(publisher.close)
        http = stack.enter_context(httpx.Client(timeout=30))
        stream = stack.enter_context(http.stream("POST", runs.url, json=tool(3), headers=headers(ADA)))
        wait_for(runs, "handler started")
        for note in hostile:
            assert publisher.publish("failwell:cancel:waits", note) == 2
        sent = threading.Thread(target=lambda: http.post(other.url, json=cancel(3), headers=headers(ADA)))
        sent.start()
        assert data_lines(stream) == [], "the cancel relayed after the hostile notes: nothing sent"
        sent.join(timeout=10)
        wait_for(runs, "handler released")
        assert [line["request_id"] for line in events(runs, "call cancelled by the client")] == ["3"]
        assert not events(runs, "cancels from other replicas paused"), runs.logged()[-2000:]
