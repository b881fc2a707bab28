"""`resources/list` against a hostile client and a huge listing (issue 24, the read-side low findings).

A generated project whose `items://{n}` template lists `MANY_ITEMS` resources, served in a real subprocess over
streamable HTTP on 127.0.0.1 (and stdio) and driven by the real `mcp` client and raw JSON-RPC:

- cursors are signed: a forged, altered or deeply nested cursor, a cursor given to another caller, and a cursor
  from another server process, are -32602 naming the cursor and telling the client to list from the start;
  never code 0 or Python's text;
- a `listing` handler returning the wrong type is -32603 with a reference only;
- paging 100,000 resources computes the listing once, off the event loop: another caller's `ping` is answered
  while six clients page it (a generous liveness bound; the figure is printed)."""

from __future__ import annotations

import base64
import json
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import anyio
import pytest
from httpserver import client, http_server
from mcp.shared.exceptions import MCPError
from test_readers import raw

from failwell import new

pytestmark = [pytest.mark.slow]

SPEC = """\
failwell: 1
server:
  name: many
  auth: {tokens_env: MANY_TOKENS}
resources:
  item:
    uri: "items://{n}"
    description: One item by its number.
    scopes: []
    params:
      n: {type: integer, minimum: 0, example: 0}
"""
HANDLER = '''\
"""Items by number: `MANY_ITEMS` of them, listed; with `MANY_BROKEN` set, the listing returns dicts."""

import os
from collections.abc import Sequence

from ..._generated.resources.item import Context, Output, Params

ITEMS = [Params(n=n) for n in range(int(os.environ.get("MANY_ITEMS", "250")))]


async def handle(params: Params, ctx: Context) -> Output:
    return f"item {params.n}"


async def listing(ctx: Context) -> Sequence[Params]:
    if os.environ.get("MANY_BROKEN"):
        return [{"n": 1}]  # type: ignore[list-item]
    return ITEMS
'''


@pytest.fixture(scope="module")
def many(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("many")
    (root / "many.yaml").write_text(SPEC)
    new(root / "many", root / "many.yaml")
    (root / "many" / "src" / "many_mcp" / "handlers" / "resources" / "item.py").write_text(HANDLER)
    return root / "many" / "src"


ADA = "ada-token-2f8c1e6b9d4a"
BOB = "bob-token-7a3d5f0c2e8b"
TOKENS = json.dumps({ADA: {"subject": "ada"}, BOB: {"subject": "bob"}})


@pytest.fixture
def serving(many: Path, tmp_path: Path, request: pytest.FixtureRequest) -> Iterator[Any]:
    env = {"MANY_ITEMS": str(getattr(request, "param", 250)), "MANY_TOKENS": TOKENS}
    with http_server("many_mcp", many, tmp_path / "stderr.log", env) as running:
        yield running


def forged(payload: Any) -> str:
    return base64.urlsafe_b64encode(json.dumps(payload).encode()).decode()


NESTED = "[" * 100_000 + "]" * 100_000


@pytest.mark.anyio
async def test_a_forged_or_foreign_cursor_is_a_named_32602(many: Path, tmp_path: Path) -> None:
    env = {"MANY_ITEMS": "250", "MANY_TOKENS": TOKENS}
    with http_server("many_mcp", many, tmp_path / "first.log", env) as first:
        async with client(first.url, ADA) as session:
            page = await session.list_resources()
            assert [each.uri for each in page.resources] == [f"items://{n}" for n in range(100)]
            cursor = page.next_cursor
            assert cursor is not None
            second = await session.list_resources(cursor=cursor)
            assert [each.uri for each in second.resources] == [f"items://{n}" for n in range(100, 200)]
            third = await session.list_resources(cursor=second.next_cursor)
            assert [each.uri for each in third.resources] == [f"items://{n}" for n in range(200, 250)]
            assert third.next_cursor is None
            listing, offset, signature = cursor.split(".")
            hostile = [
                f"{listing}.{int(offset) + 50}.{signature}",  # an altered offset, signature kept
                f"{listing}.1.{signature}",
                f"{'0' * 16}.{offset}.{signature}",  # another listing
                forged({"offset": 100}),  # what the unsigned cursor looked like
                forged({"offset": 5}),
                base64.urlsafe_b64encode(NESTED.encode()).decode(),  # deeply nested JSON
                NESTED,
                cursor + "A",
                cursor[:-2],
            ]
            for bad in hostile:
                with pytest.raises(MCPError) as raised:
                    await session.list_resources(cursor=bad)
                error = raised.value.error
                assert error.code == -32602, (bad[:80], error)
                assert error.message.startswith("Invalid cursor: resources/list takes only a nextCursor this server")
                assert "list again from the start, without a cursor" in error.message
                assert error.data["method"] == "resources/list" and bad.startswith(error.data["cursor"])
        async with client(first.url, BOB) as other:
            with pytest.raises(MCPError) as raised:
                await other.list_resources(cursor=cursor)  # given to another caller
            assert raised.value.error.code == -32602
            assert "list again from the start" in raised.value.error.message
            assert len((await other.list_resources(cursor=None)).resources) == 100
        assert "Traceback" not in first.logged()
    with http_server("many_mcp", many, tmp_path / "second.log", env) as restarted:
        async with client(restarted.url, ADA) as session:
            with pytest.raises(MCPError) as raised:
                await session.list_resources(cursor=cursor)  # given out by the process that stopped
            assert raised.value.error.code == -32602
            assert "list again from the start" in raised.value.error.message
            assert len((await session.list_resources()).resources) == 100


def test_a_nested_cursor_over_stdio_is_a_named_32602_not_code_0(many: Path, tmp_path: Path) -> None:
    requests = [
        {
            "jsonrpc": "2.0",
            "id": 1,
            "method": "resources/list",
            "params": {"cursor": forged(json.loads("[" * 900 + "]" * 900))},
        },
        {
            "jsonrpc": "2.0",
            "id": 2,
            "method": "resources/list",
            "params": {"cursor": base64.urlsafe_b64encode(NESTED.encode()).decode()},
        },
    ]
    answers, log = raw(requests, "many_mcp", many, tmp_path)
    for number in (1, 2):
        error = answers[number]["error"]
        assert error["code"] == -32602 and error["message"].startswith("Invalid cursor"), error
        assert "recursion" not in json.dumps(error).lower()
    assert "Traceback" not in log


@pytest.mark.anyio
async def test_a_listing_of_the_wrong_type_is_32603_with_a_reference_only(many: Path, tmp_path: Path) -> None:
    env = {"MANY_BROKEN": "1", "MANY_TOKENS": TOKENS}
    with http_server("many_mcp", many, tmp_path / "stderr.log", env) as running:
        async with client(running.url, ADA) as session:
            with pytest.raises(MCPError) as raised:
                await session.list_resources()
        error = raised.value.error
        assert error.code == -32603, error
        assert error.data["class"] == "internal" and error.data["reference"].startswith("ERR-")
        shown = json.dumps({"message": error.message, "data": error.data})
        for leak in ("dict", "TypeError", "AttributeError", "model_dump", "Params", "Traceback"):
            assert leak not in shown, shown
        assert error.data["reference"] in running.logged(), "the same reference, with the traceback, in the log"


HUGE = 100_000
PAGERS = 6
PAGES = 6
LIVENESS_S = 10.0
"""How long another caller's ping may wait, at most: generous (a page costs milliseconds; before, each page
recomputed the whole listing on the event loop, about a second for 100,000, and six pagers held a ping past
the client's 30 s read timeout)."""


@pytest.mark.anyio
@pytest.mark.parametrize("serving", [HUGE], indirect=True)
async def test_paging_a_huge_listing_leaves_other_callers_answered(serving: Any) -> None:
    """Six clients page 100,000 resources; another pings throughout: every ping is answered within
    `LIVENESS_S`, and each client's pages are one consistent listing."""
    waits: list[float] = []
    done = anyio.Event()

    async def page_through() -> None:
        async with client(serving.url, ADA) as session:
            seen: list[str] = []
            cursor = None
            for _ in range(PAGES):
                page = await session.list_resources(cursor=cursor)
                seen += [each.uri for each in page.resources]
                cursor = page.next_cursor
            assert seen == [f"items://{n}" for n in range(PAGES * 100)]

    async def ping() -> None:
        async with client(serving.url, BOB, mode="legacy") as session:  # 2026-07-28 removed `ping`
            while not done.is_set():
                started = time.monotonic()
                with anyio.fail_after(60):
                    await session.send_ping()
                waits.append(time.monotonic() - started)
                await anyio.sleep(0.05)

    async with anyio.create_task_group() as group:
        group.start_soon(ping)
        async with anyio.create_task_group() as pagers:
            for _ in range(PAGERS):
                pagers.start_soon(page_through)
        done.set()
    assert waits
    print(f"\nping while {PAGERS} clients paged {HUGE:,} resources: {len(waits)} pings, longest {max(waits):.3f} s")
    assert max(waits) < LIVENESS_S, f"another caller's ping waited {max(waits):.1f} s"
    assert "Traceback" not in serving.logged()
