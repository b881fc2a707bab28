"""`changed` is accurate for upstreams: a write whose upstream failed before it sent anything but GET, HEAD
or OPTIONS says nothing was changed; once it sent a POST, the change may have been applied; a handler may
say exactly what changed with `changed=`. In-process, against a real HTTP server on 127.0.0.1."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from ledger import importable, make_project

pytestmark = [pytest.mark.anyio, pytest.mark.slow]

ARGUMENTS = {"account": "acct-1", "amount": 5, "idempotency_key": "changed-key-0001-abc"}


@pytest.fixture(scope="module")
def ledger_src(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    src = make_project(tmp_path_factory.mktemp("changed"), "sqlite")
    with importable(src, "ledger_mcp"):
        yield src


async def answer(handler: Any, monkeypatch: pytest.MonkeyPatch, status: int) -> dict[str, Any]:
    from ledger_mcp._generated.runtime.stores.store_memory import MemoryStore
    from ledger_mcp._generated.server import build_server
    from ledger_mcp._generated.testing import FakeUpstream, Reply

    with FakeUpstream(default=Reply(status)) as fake:
        monkeypatch.setenv("LEDGER_API_URL", fake.url)
        server = build_server({"ledger_add": handler}, store=MemoryStore())
        result = await server.call_tool("ledger_add", dict(ARGUMENTS))
        await server.aclose()
    return {"text": result.content[0].text, **(result.meta or {})["dev.failwell/error"]}  # type: ignore[union-attr]


async def test_a_failure_after_only_reads_changed_nothing(ledger_src: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    async def reads_first(params: Any, ctx: Any) -> Any:
        await ctx.upstreams.ledger_api.request("HEAD", "/entries")
        await ctx.upstreams.ledger_api.get("/entries")

    found = await answer(reads_first, monkeypatch, 503)
    assert (found["class"], found["changed"]) == ("upstream_unavailable", "none")
    assert "Nothing was changed." in found["text"]


async def test_a_failure_after_a_post_may_have_changed_something(
    ledger_src: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    async def posts(params: Any, ctx: Any) -> Any:
        await ctx.upstreams.ledger_api.post("/entries", json={"amount": 5})

    found = await answer(posts, monkeypatch, 503)
    assert (found["class"], found["changed"]) == ("upstream_unavailable", "possible")
    assert "The change may have been applied." in found["text"]


async def test_a_handler_says_exactly_what_changed(ledger_src: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from ledger_mcp._generated.runtime.upstreams.upstream import UpstreamError

    async def partial(params: Any, ctx: Any) -> Any:
        try:
            await ctx.upstreams.ledger_api.post("/entries", json={"amount": 5})
        except UpstreamError as error:
            raise type(error)("ledger_api", status=error.status, detail="half", changed="partial") from None

    found = await answer(partial, monkeypatch, 503)
    assert found["changed"] == "partial" and "Part of the change was applied." in found["text"]
