"""Resource subscriptions (issue 40 point 3, `subscribe: true`): the notes server of tests/subscriptions, generated
with its real handlers (notes_put writes a note, then calls `ctx.notify_updated` for it and for the board), driven by
the real `mcp` client over a real stdio subprocess and over streamable HTTP on 127.0.0.1, in both eras.

Whether a client that did not subscribe to a URI heard of its update is told without waiting for silence: a client
subscribes to a second URI after the first update, and the first thing it has heard of is the second URI's update
(one session's notifications arrive in the order they were sent). The spec's checks (schema, FW186, `failwell
messages`) are fast; the servers are slow-marked."""

from __future__ import annotations

import os
import shutil
import sys
from collections.abc import AsyncIterator
from contextlib import ExitStack, asynccontextmanager
from pathlib import Path
from typing import Any, ClassVar

import anyio
import pytest
from httpserver import client, http_server
from ledger import importable, redis_server
from mcp import Client, StdioServerParameters
from mcp.shared.exceptions import MCPError
from mcp.types import ResourceUpdatedNotification

from conftest import REPO
from failwell import new
from failwell.render.pipeline import diagnose
from failwell.spec import wording

HERE = REPO / "tests" / "subscriptions"
SPEC = (HERE / "notes.yaml").read_text(encoding="utf-8")
LEGACY_ONLY = pytest.mark.filterwarnings("ignore:resources/(un)?subscribe is removed")


def make_project(root: Path, store: str = "memory") -> Path:
    """The notes project with `store` and its real handlers; returns its `src` folder."""
    spec = root / "notes.yaml"
    spec.write_text(SPEC.replace("store: memory", f"store: {store}"), encoding="utf-8")
    project = root / "notes"
    new(project, spec)
    handlers = project / "src" / "notes_mcp" / "handlers"
    for source in HERE.joinpath("handlers").rglob("*.py"):
        shutil.copyfile(source, handlers / source.relative_to(HERE / "handlers"))
    return project / "src"


class Heard:
    """The URIs one client heard changed, in order."""

    def __init__(self) -> None:
        self.uris: list[str] = []
        self._changed = anyio.Event()

    def add(self, uri: str) -> None:
        self.uris.append(uri)
        self._changed.set()

    async def until(self, count: int) -> list[str]:
        """The URIs once at least `count` were heard (a test that hears fewer fails after 30 s, not on timing)."""
        with anyio.fail_after(30):
            while len(self.uris) < count:
                self._changed = anyio.Event()
                await self._changed.wait()
        return self.uris

    async def handler(self, message: Any) -> None:
        if isinstance(message, ResourceUpdatedNotification):
            self.add(message.params.uri)


@asynccontextmanager
async def listening(session: Client, uris: list[str], heard: Heard) -> AsyncIterator[None]:
    """A 2026-07-28 `subscriptions/listen` stream for `uris`, read into `heard` while the block runs."""
    async with session.listen(resource_subscriptions=uris) as stream, anyio.create_task_group() as group:

        async def read() -> None:
            async for event in stream:
                heard.add(getattr(event, "uri", ""))

        group.start_soon(read)
        yield
        group.cancel_scope.cancel()


async def put(session: Client, note: str) -> None:
    result = await session.call_tool("notes_put", {"note_id": note, "text": f"text of {note}"})
    assert not result.is_error, result


def stdio(src: Path) -> StdioServerParameters:
    return StdioServerParameters(
        command=sys.executable, args=["-m", "notes_mcp"], env={**os.environ, "PYTHONPATH": str(src)}
    )


# The spec ---------------------------------------------------------------------------------------------------


def test_subscribe_is_a_boolean_of_a_resource_and_a_server_of_reads_is_warned() -> None:
    assert [str(d) for d in diagnose(SPEC, "notes.yaml")] == []
    wrong = [str(d) for d in diagnose(SPEC.replace("subscribe: true", "subscribe: yes please", 1), "notes.yaml")]
    assert len(wrong) == 1 and "FW011" in wrong[0] and ":22:" in wrong[0], wrong
    reads = SPEC.replace("effect: write", "effect: read").replace("    idempotency: none\n", "")
    reads = "\n".join(line for line in reads.splitlines() if "idempotency_reason" not in line)
    warned = [str(d) for d in diagnose(reads, "notes.yaml")]
    assert [line.split(" ", 2)[:2] for line in warned] == [
        ["notes.yaml:20:16:", "FW186"],
        ["notes.yaml:26:16:", "FW186"],
    ], warned
    assert "every tool of this server is a read" in warned[0]


def test_failwell_messages_shows_what_a_session_reads_past_its_subscriptions() -> None:
    import yaml

    rows = [row for row in wording.rows(yaml.safe_load(SPEC)) if row.failure == "too_many_subscriptions"]
    assert [row.owner for row in rows] == ["resource all_notes", "resource note"]
    assert rows[0].failure_class == "conflict" and rows[0].missing == () and rows[0].problems == ()
    assert rows[0].text.startswith("This session already listens to 256 resource URIs, the most one session may.")


# Over stdio -------------------------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def src(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return make_project(tmp_path_factory.mktemp("notes"))


@pytest.mark.slow
@pytest.mark.anyio
@LEGACY_ONLY
async def test_stdio_2025_a_session_hears_only_the_uris_it_subscribed_to_until_it_unsubscribes(src: Path) -> None:
    heard = Heard()
    async with Client(stdio(src), mode="legacy", message_handler=heard.handler) as session:
        assert session.server_capabilities.resources.subscribe is True  # type: ignore[union-attr]
        await session.subscribe_resource("notes://N-1")
        await put(session, "N-2")  # notes://N-2 and board://all: neither subscribed
        await put(session, "N-1")
        assert await heard.until(1) == ["notes://N-1"]
        await session.unsubscribe_resource("notes://N-1")
        await session.subscribe_resource("notes://N-3")
        await put(session, "N-1")  # unsubscribed: not heard
        await put(session, "N-3")
        assert await heard.until(2) == ["notes://N-1", "notes://N-3"]
        for uri, code in (("about://notes", -32602), ("notes://X-1", -32602), ("nope://x", -32602)):
            with pytest.raises(MCPError) as refused:
                await session.subscribe_resource(uri)
            assert refused.value.error.code == code, uri
        with pytest.raises(MCPError) as about:
            await session.subscribe_resource("about://notes")
        assert about.value.error.message.startswith("The about resource (about://notes) takes no subscriptions")
        assert about.value.error.data == {"uri": "about://notes", "subscribable": ["board://all", "notes://{note_id}"]}


@pytest.mark.slow
@pytest.mark.anyio
@LEGACY_ONLY
async def test_stdio_2025_a_session_holds_at_most_256_uris_and_the_next_is_a_conflict(src: Path) -> None:
    async with Client(stdio(src), mode="legacy") as session:
        for number in range(256):
            await session.subscribe_resource(f"notes://N-{number}")
        await session.subscribe_resource("notes://N-0")  # already held: no more room needed
        with pytest.raises(MCPError) as full:
            await session.subscribe_resource("notes://N-999")
        assert full.value.error.code == -31409
        assert full.value.error.data["failure"] == "too_many_subscriptions"
        await session.unsubscribe_resource("notes://N-0")
        await session.subscribe_resource("notes://N-999")


@pytest.mark.slow
@pytest.mark.anyio
async def test_stdio_2026_a_listen_stream_hears_only_its_uris_and_a_closed_one_nothing(src: Path) -> None:
    async with Client(stdio(src)) as session:
        assert session.server_capabilities.resources.subscribe is True  # type: ignore[union-attr]
        first, second = Heard(), Heard()
        async with listening(session, ["notes://N-1"], first):
            await put(session, "N-2")
            await put(session, "N-1")
            assert await first.until(1) == ["notes://N-1"]
        async with listening(session, ["board://all"], second):
            await put(session, "N-1")  # the board's update, and N-1's, which no open stream asked for
            assert await second.until(1) == ["board://all"]
        assert first.uris == ["notes://N-1"], "a closed stream heard on"
        with pytest.raises(MCPError) as refused:
            async with listening(session, ["about://notes"], Heard()):
                pass
        assert refused.value.error.code == -32602


# Over streamable HTTP ---------------------------------------------------------------------------------------


@pytest.mark.slow
@pytest.mark.anyio
async def test_http_2026_two_clients_the_listener_hears_and_one_not_listening_then_did_not(
    src: Path, tmp_path: Path
) -> None:
    with http_server("notes_mcp", src, tmp_path / "notes.log", {}) as running:
        async with client(running.url) as a, client(running.url) as b:
            heard_a, heard_b = Heard(), Heard()
            async with listening(a, ["notes://N-1"], heard_a):
                await put(b, "N-1")  # B writes; A listens
                assert await heard_a.until(1) == ["notes://N-1"]
                async with listening(b, ["notes://N-2"], heard_b):
                    await put(a, "N-1")
                    await put(a, "N-2")
                    assert await heard_b.until(1) == ["notes://N-2"], "B heard of a URI it never listened to"
                    assert await heard_a.until(2) == ["notes://N-1", "notes://N-1"]


@pytest.mark.slow
@pytest.mark.anyio
@LEGACY_ONLY
async def test_http_2025_stateful_sessions_hear_only_their_own_subscriptions(src: Path, tmp_path: Path) -> None:
    with http_server("notes_mcp", src, tmp_path / "notes.log", {}, "--stateful") as running:
        heard_a, heard_b = Heard(), Heard()
        async with legacy_http(running.url, heard_a) as a, legacy_http(running.url, heard_b) as b:
            assert a.server_capabilities.resources.subscribe is True  # type: ignore[union-attr]
            await a.subscribe_resource("notes://N-1")
            await put(b, "N-1")
            assert await heard_a.until(1) == ["notes://N-1"]
            await b.subscribe_resource("notes://N-2")
            await put(a, "N-1")
            await put(a, "N-2")
            assert await heard_b.until(1) == ["notes://N-2"], "B's session heard of a URI only A subscribed to"
            await a.unsubscribe_resource("notes://N-1")
            await a.subscribe_resource("notes://N-3")
            await put(b, "N-1")
            await put(b, "N-3")
            assert await heard_a.until(3) == ["notes://N-1", "notes://N-1", "notes://N-3"]


@pytest.mark.slow
@pytest.mark.anyio
@LEGACY_ONLY
async def test_http_2025_stateless_answers_32601_naming_stateful_and_does_not_advertise_subscribe(
    src: Path, tmp_path: Path
) -> None:
    with http_server("notes_mcp", src, tmp_path / "notes.log", {}) as running:
        async with client(running.url, mode="legacy") as session:
            assert session.server_capabilities.resources.subscribe is None  # type: ignore[union-attr]
            for call in (session.subscribe_resource, session.unsubscribe_resource):
                with pytest.raises(MCPError) as refused:
                    await call("notes://N-1")
                assert refused.value.error.code == -32601
                assert "--stateful" in refused.value.error.message
                assert refused.value.error.data["needs"] == "--stateful"


@asynccontextmanager
async def legacy_http(url: str, heard: Heard) -> AsyncIterator[Client]:
    import httpx2
    from mcp.client.streamable_http import streamable_http_client

    async with (
        httpx2.AsyncClient(timeout=30) as http,
        Client(streamable_http_client(url, http_client=http), mode="legacy", message_handler=heard.handler) as session,
    ):
        yield session


# Two replicas sharing a real redis-server --------------------------------------------------------------------


@pytest.mark.slow
@pytest.mark.anyio
async def test_redis_a_write_on_replica_a_reaches_a_listener_on_replica_b_and_only_the_uris_it_asked(
    tmp_path: Path,
) -> None:
    src = make_project(tmp_path, "redis")
    with ExitStack() as stack:
        env = {"REDIS_URL": stack.enter_context(redis_server())}
        a = stack.enter_context(http_server("notes_mcp", src, tmp_path / "a.log", env))
        b = stack.enter_context(http_server("notes_mcp", src, tmp_path / "b.log", env))
        async with client(a.url) as on_a, client(b.url) as on_b:
            heard_b, heard_a = Heard(), Heard()
            async with listening(on_b, ["notes://N-1"], heard_b):
                await put(on_a, "N-1")
                assert await heard_b.until(1) == ["notes://N-1"]
                async with listening(on_a, ["notes://N-2"], heard_a):
                    await put(on_b, "N-1")
                    await put(on_b, "N-2")
                    assert await heard_a.until(1) == ["notes://N-2"], "replica A's listener heard N-1's update"
                    assert await heard_b.until(2) == ["notes://N-1", "notes://N-1"]


# Bounded ----------------------------------------------------------------------------------------------------


@pytest.mark.anyio
async def test_a_session_that_stops_reading_holds_one_waiting_update_per_uri(tmp_path: Path) -> None:
    src = make_project(tmp_path)
    with importable(src, "notes_mcp"):
        from mcp.server.subscriptions import ResourceUpdated
        from notes_mcp._generated.runtime.subscriptions import SessionListener, UpdateBus

        class Stuck:
            sent: ClassVar[list[str]] = []

            async def send_resource_updated(self, uri: str) -> None:
                self.sent.append(uri)
                await anyio.sleep_forever()  # a client that stopped reading

        bus = UpdateBus("notes")
        listener = SessionListener(Stuck(), bus)
        listener.uris |= {"notes://N-1", "notes://N-2", "notes://N-3"}
        async with anyio.create_task_group() as group:
            group.start_soon(listener.send)
            for number in range(10_000):
                await bus.publish(ResourceUpdated(uri=f"notes://N-{number % 5}"))
            assert len(listener.waiting) <= 3 and set(listener.waiting) <= listener.uris
            assert Stuck.sent == ["notes://N-1"]  # the first, on which the session is stuck
            listener.close()
            group.cancel_scope.cancel()
        assert listener.waiting == {}
