"""Rate limits count exactly, and upstream Retry-After values are bounded.

Limits: a burst of parallel calls by one caller over a tool's own limit and the server-wide one admits
exactly the limit's number, a call one limit refuses uses up nothing of the other, and the `retry_after_s`
each refused call is told is within 10% of the real wait (read from the bucket's state, and checked by
ageing the bucket to just before and to the told time), on the memory, SQLite and Redis stores.

Retry-After: a real HTTP upstream on 127.0.0.1 answers 429/503 with hostile Retry-After values; the call
fails as rate_limited/upstream_unavailable (never internal), it shows the wait the upstream asked for (bounded
to a day), and no retry comes sooner than the wait shown.
"""

from __future__ import annotations

import asyncio
import dataclasses
import email.utils
import sqlite3
import time
from collections.abc import Callable, Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import anyio
import pytest
from httpserver import in_thread
from ledger import importable, make_project, redis_server

pytestmark = pytest.mark.anyio
EXAMPLES = Path(__file__).resolve().parents[1] / "examples"
N = 40
"""Parallel calls in each burst."""


@pytest.fixture(scope="module")
def tasks() -> Iterator[Any]:
    with importable(EXAMPLES / "tasks" / "src", "tasks_mcp"):
        import tasks_mcp._generated.runtime.calls.contracts
        import tasks_mcp._generated.runtime.calls.limits
        import tasks_mcp._generated.runtime.stores.store_memory
        import tasks_mcp._generated.runtime.stores.store_sqlite

        yield tasks_mcp._generated.runtime


@pytest.fixture(scope="module")
def weather() -> Iterator[None]:
    with importable(EXAMPLES / "weather" / "src", "weather_mcp"):
        yield


async def burst(runtime: Any, stores: list[Any], tool: Any, server_limit: Any) -> list[tuple[float | None, float]]:
    """N parallel calls of `tool` by one caller, spread over `stores` (one store, or two on the same data as
    two processes would be): each call's told retry_after_s (None when admitted) and when it was answered."""

    async def one(store: Any) -> tuple[float | None, float]:
        result = await runtime.calls.limits.rate_limited(store, tool, "caller-1", server_limit, "Too many calls.")
        answered = time.time()
        if result is None:
            return None, answered
        envelope = result.meta["dev.failwell/error"]
        assert envelope["class"] == "rate_limited"
        assert f"Retry after {envelope['retry_after_s']:g} s" in result.content[0].text
        return float(envelope["retry_after_s"]), answered

    return await asyncio.gather(*(one(stores[i % len(stores)]) for i in range(N)))


def worst_error(answers: list[tuple[float | None, float]], free_at: float) -> float:
    """The largest relative error of a refused call's told wait against the real one (until `free_at`)."""
    refused = [(told, answered) for told, answered in answers if told is not None]
    errors = [abs(told - (free_at - answered)) / (free_at - answered) for told, answered in refused]
    assert all(told >= free_at - answered for told, answered in refused), "told to retry before a token is free"
    return max(errors)


async def check_exact(
    runtime: Any,
    tool: Any,
    stores: list[Any],
    state: Callable[[str], tuple[float, float]],
    age: Callable[[float], None],
) -> None:
    """The scenario on any store, with two copies of `tool`: `limited` (its own limit, 3 calls every 300 s)
    and `unlimited`. `state(bucket)` reads a bucket's (tokens, updated); `age(s)` moves every bucket `s`
    seconds into the past, as if that much time had gone by."""
    server_limit = runtime.calls.contracts.RateLimit(calls=5, per_s=600)  # a token every 120 s
    own = runtime.calls.contracts.RateLimit(calls=3, per_s=300)  # a token every 100 s
    limited = dataclasses.replace(tool, name="limited", rate_limit=own)
    unlimited = dataclasses.replace(tool, name="unlimited", rate_limit=None)

    first = await burst(runtime, stores, limited, server_limit)  # its own limit: 3 calls every 300 s
    assert sum(told is None for told, _ in first) == 3
    tokens, updated = state(f"caller-1\x1f{limited.name}")
    error_own = worst_error(first, updated + (1 - tokens) * 100)

    second = await burst(runtime, stores, unlimited, server_limit)  # the server's 5, of which 3 are used
    assert sum(told is None for told, _ in second) == 2, "a call refused by the tool's own limit used server budget"
    tokens, updated = state("caller-1")
    error_server = worst_error(second, updated + (1 - tokens) * 120)
    assert max(error_own, error_server) < 0.10
    print(f"\nN={N}: admitted 3 (own limit 3) then 2 (server's 2 left); worst error {error_own:.4f} {error_server:.4f}")

    told = max(told for told, _ in second if told is not None)
    age(told * 0.9)
    assert await runtime.calls.limits.rate_limited(stores[0], unlimited, "caller-1", server_limit, "x") is not None
    age(told * 0.1)
    assert await runtime.calls.limits.rate_limited(stores[0], unlimited, "caller-1", server_limit, "x") is None


def search_tool() -> Any:
    from tasks_mcp._generated.tools import tasks_search
    from tasks_mcp.handlers.tasks_search import handle

    return tasks_search.definition(handle)  # its handler is never run here


async def test_memory_limits_are_exact(tasks: Any) -> None:
    store = tasks.stores.store_memory.MemoryStore()

    def age(seconds: float) -> None:
        store.buckets = {name: (tokens, updated - seconds) for name, (tokens, updated) in store.buckets.items()}

    await check_exact(tasks, search_tool(), [store], lambda name: store.buckets[name], age)


async def test_sqlite_limits_are_exact_across_two_stores_on_one_file(tasks: Any, tmp_path: Path) -> None:
    path = tmp_path / "state.sqlite3"
    stores = [tasks.stores.store_sqlite.SQLiteStore(path), tasks.stores.store_sqlite.SQLiteStore(path)]

    def state(name: str) -> tuple[float, float]:
        with sqlite3.connect(path) as db:
            row = db.execute("SELECT tokens, updated FROM buckets WHERE bucket = ?", (name,)).fetchone()
        return float(row[0]), float(row[1])

    def age(seconds: float) -> None:
        with sqlite3.connect(path) as db:
            db.execute("UPDATE buckets SET updated = updated - ?", (seconds,))

    try:
        await check_exact(tasks, search_tool(), stores, state, age)
    finally:
        for store in stores:
            await store.aclose()


KEYS_PER_ROUND = 100
ROUNDS = 5


@pytest.mark.parametrize("kind", ["memory", "sqlite"])
async def test_buckets_of_callers_gone_quiet_are_forgotten(tasks: Any, tmp_path: Path, kind: str) -> None:
    """500 distinct callers, 100 at a time with a pause longer than the limit's period between: the store keeps
    only the buckets not yet full again (at most one round's), not one per caller ever seen (before: 500).
    SQLite's are counted from outside, in the file."""
    path = tmp_path / "state.sqlite3"
    store = tasks.stores.store_memory.MemoryStore() if kind == "memory" else tasks.stores.store_sqlite.SQLiteStore(path)
    limit = tasks.calls.contracts.RateLimit(calls=5, per_s=0.2)

    def stored() -> int:
        if kind == "memory":
            return len(store.buckets)
        with sqlite3.connect(path) as db:
            return int(db.execute("SELECT COUNT(*) FROM buckets").fetchone()[0])

    counts = []
    try:
        for round_ in range(ROUNDS):
            for n in range(KEYS_PER_ROUND):
                assert await store.take_all([(f"token:caller-{round_}-{n}", limit)]) == [0.0]
            counts.append(stored())
            await anyio.sleep(0.3)
    finally:
        await store.aclose()
    assert max(counts) <= KEYS_PER_ROUND, f"{kind}: buckets kept after each round of {KEYS_PER_ROUND}: {counts}"


async def test_a_sqlite_file_from_before_pruning_gets_each_buckets_period(tasks: Any, tmp_path: Path) -> None:
    """A file whose buckets table has no `per_s` (made by an earlier release) is upgraded in place: its rows are
    kept as a day's, until used, and are counted on as before."""
    path = tmp_path / "old.sqlite3"
    with sqlite3.connect(path) as db:
        db.execute("CREATE TABLE buckets (bucket TEXT PRIMARY KEY, tokens REAL NOT NULL, updated REAL NOT NULL)")
        db.execute("INSERT INTO buckets VALUES ('token:old', 0.0, ?)", (time.time(),))
    store = tasks.stores.store_sqlite.SQLiteStore(path)
    limit = tasks.calls.contracts.RateLimit(calls=5, per_s=60)
    try:
        (wait,) = await store.take_all([("token:old", limit)])
        assert wait > 0, "the old bucket was empty, and still is"
        assert await store.take_all([("token:new", limit)]) == [0.0]
    finally:
        await store.aclose()
    with sqlite3.connect(path) as db:
        rows = dict(db.execute("SELECT bucket, per_s FROM buckets").fetchall())
    assert rows == {"token:old": 60.0, "token:new": 60.0}


@pytest.mark.slow
async def test_redis_limits_are_exact_across_two_stores(tmp_path: Path) -> None:
    src = make_project(tmp_path, "redis")
    with redis_server() as url, importable(src, "ledger_mcp"):
        import ledger_mcp._generated.runtime.calls.contracts
        import ledger_mcp._generated.runtime.calls.limits
        import ledger_mcp._generated.runtime.stores.store_redis
        import redis
        from ledger_mcp._generated.tools import ledger_ping
        from ledger_mcp.handlers.ledger_ping import handle

        runtime = ledger_mcp._generated.runtime
        stores = [runtime.stores.store_redis.RedisStore(url), runtime.stores.store_redis.RedisStore(url)]
        direct = redis.Redis.from_url(url, decode_responses=True)
        prefix = runtime.stores.store_redis.PREFIX + "bucket:"

        def state(name: str) -> tuple[float, float]:
            tokens, updated = direct.hmget(prefix + name, "tokens", "updated")
            return float(tokens), float(updated)

        def age(seconds: float) -> None:
            for key in direct.scan_iter(prefix + "*"):
                direct.hincrbyfloat(key, "updated", -seconds)

        try:
            await check_exact(runtime, ledger_ping.definition(handle), stores, state, age)
        finally:
            direct.close()
            for store in stores:
                await store.aclose()


class Upstream(ThreadingHTTPServer):
    """A real HTTP upstream on 127.0.0.1 that answers every request `status` with `retry_after`, and records
    when each request arrived."""

    def __init__(self, status: int, retry_after: str) -> None:
        self.arrived: list[float] = []
        upstream = self

        class Handler(BaseHTTPRequestHandler):
            def do_GET(self) -> None:
                upstream.arrived.append(time.monotonic())
                self.send_response(status)
                self.send_header("retry-after", retry_after)
                self.send_header("content-length", "0")
                self.end_headers()

            def log_message(self, format: str, *args: Any) -> None:
                pass

        super().__init__(("127.0.0.1", 0), Handler)

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.server_address[1]}"


async def call_through(
    monkeypatch: pytest.MonkeyPatch, status: int, retry_after: str
) -> tuple[dict[str, Any], Upstream]:
    """weather_forecast, with a handler that GETs the forecast API once, against an upstream answering
    `status` with `retry_after`: the result's text and envelope, and the upstream."""
    from weather_mcp._generated.server import build_server

    async def fetch(params: Any, ctx: Any) -> Any:
        await ctx.upstreams.forecast_api.get("/forecast")

    upstream = Upstream(status, retry_after)
    with in_thread(upstream):
        monkeypatch.setenv("FORECAST_API_URL", upstream.url)
        server = build_server({"weather_forecast": fetch})
        try:
            result = await server.call_tool("weather_forecast", {"place": "Lisbon"})
        finally:
            await server.aclose()
    return {"text": result.content[0].text, **result.meta["dev.failwell/error"]}, upstream


def http_date(offset_s: float, form: str) -> str:
    """An HTTP-date `offset_s` from now in one of RFC 9110's three forms."""
    if form == "imf":
        return email.utils.formatdate(time.time() + offset_s, usegmt=True)
    when = time.gmtime(time.time() + offset_s)
    if form == "rfc850":
        return time.strftime("%A, %d-%b-%y %H:%M:%S GMT", when)
    return time.strftime("%a %b %e %H:%M:%S %Y", when)


CAP = 86_400.0
"""The longest wait told (a day); the runtime itself waits at most 60 s, and the weather tool's deadline is 15 s."""
HOSTILE: list[tuple[int, str | tuple[int, str], float | None, int]] = [
    # (status, Retry-After, the wait shown, attempts: retries 2; no retry comes sooner than the wait shown, and a
    # wait past the 15 s deadline is not waited, so the call fails at once). An HTTP-date is (seconds from now,
    # form), written when the case runs: a date in a test's id would differ between the workers that collect the
    # suite.
    (429, "inf", 10.0, 2),  # malformed: the default wait shown, and waited (10 s) before the one retry that fits
    (429, "NaN", 10.0, 2),
    (429, "-5", 10.0, 2),
    (429, "1e308", 10.0, 2),
    (429, "soon, honestly", 10.0, 2),
    (429, "120", 120.0, 1),  # as the API said (issue 41 point 7): past the deadline, so not waited
    (503, "120", 120.0, 1),
    (429, "9" * 400, CAP, 1),  # huge: the cap, which the 15 s deadline cannot fit
    (429, "100000000", CAP, 1),
    (503, "inf", None, 3),  # malformed: the runtime's backoff between attempts, no wait shown
    (503, "0", 1.0, 3),  # now: the shortest wait the runtime honours and shows, never "Retry after 0 s"
    (503, (-86400, "imf"), 1.0, 3),  # in the past: likewise
    (503, (-86400, "rfc850"), 1.0, 3),
    (503, (10**9, "imf"), CAP, 1),  # decades ahead: the cap
    (429, (10**9, "asctime"), CAP, 1),
    (503, "Sun, 06 Nov 99999 08:49:37 GMT", None, 3),  # a year Python cannot hold: malformed
]


@pytest.mark.slow  # each case waits out the runtime's real backoff between attempts
@pytest.mark.parametrize(
    ("status", "retry_after", "shown", "attempts"),
    HOSTILE,
    ids=[
        f"{status}-{value if isinstance(value, str) else f'{value[1]}{value[0]:+d}s'}"[:40]
        for status, value, _, _ in HOSTILE
    ],
)
async def test_a_hostile_retry_after_is_a_bounded_wait(
    weather: None,
    monkeypatch: pytest.MonkeyPatch,
    status: int,
    retry_after: str | tuple[int, str],
    shown: float | None,
    attempts: int,
) -> None:
    value = retry_after if isinstance(retry_after, str) else http_date(*retry_after)
    found, upstream = await call_through(monkeypatch, status, value)
    assert found["class"] == ("rate_limited" if status == 429 else "upstream_unavailable")
    assert found["retry_after_s"] == shown
    if shown is not None:
        assert f"Retry after {shown:g} s" in found["text"]
    assert len(upstream.arrived) == attempts
    gaps = [later - earlier for earlier, later in zip(upstream.arrived, upstream.arrived[1:], strict=False)]
    assert all(gap >= (shown or 0.0) for gap in gaps), (gaps, shown)  # never retried sooner than it says


@pytest.mark.slow
async def test_the_wait_shown_is_the_wait_honoured(weather: None, monkeypatch: pytest.MonkeyPatch) -> None:
    found, upstream = await call_through(monkeypatch, 503, "1")
    gaps = [later - earlier for earlier, later in zip(upstream.arrived, upstream.arrived[1:], strict=False)]
    assert (found["retry_after_s"], len(gaps)) == (1.0, 2)
    assert all(1.0 <= gap < 1.5 for gap in gaps), gaps
