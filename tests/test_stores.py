"""One suite, three stores: memory, SQLite and a real redis-server keep the same idempotency, task and
rate-limit contract, and a generated server on each runs a side effect once per key under 32
concurrent duplicates for each of 50 keys."""

from __future__ import annotations

import asyncio
import time
from collections import Counter
from collections.abc import AsyncIterator, Iterator
from pathlib import Path
from typing import Any

import pytest
from httpserver import free_port
from ledger import importable, make_project, redis_server

pytestmark = [pytest.mark.anyio, pytest.mark.slow]
STORES = ["memory", "sqlite", "redis"]


@pytest.fixture(scope="module")
def ledger_src(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    src = make_project(tmp_path_factory.mktemp("stores"), "redis")
    with importable(src, "ledger_mcp"):
        yield src


@pytest.fixture(scope="module")
def redis_url() -> Iterator[str]:
    with redis_server() as url:
        yield url


@pytest.fixture(params=STORES)
async def store(request: pytest.FixtureRequest, ledger_src: Path, tmp_path: Path) -> AsyncIterator[Any]:
    from ledger_mcp._generated.runtime.stores.store_memory import MemoryStore
    from ledger_mcp._generated.runtime.stores.store_redis import RedisStore
    from ledger_mcp._generated.runtime.stores.store_sqlite import SQLiteStore

    if request.param == "memory":
        opened: Any = MemoryStore()
    elif request.param == "sqlite":
        opened = SQLiteStore(tmp_path / "state.sqlite3")
    else:
        url = request.getfixturevalue("redis_url")
        opened = RedisStore(url)
        await opened.client.flushdb()
    yield opened
    await opened.aclose()


async def test_a_reachable_store_answers_ping(store: Any) -> None:
    await store.ping()


async def test_an_unreachable_store_fails_ping(ledger_src: Path, tmp_path: Path) -> None:
    from ledger_mcp._generated.runtime.stores.store_redis import RedisStore
    from ledger_mcp._generated.runtime.stores.store_sqlite import SQLiteStore

    (tmp_path / "file").write_text("")
    for store in (SQLiteStore(tmp_path / "file" / "state.sqlite3"), RedisStore(f"redis://127.0.0.1:{free_port()}/0")):
        with pytest.raises(Exception):  # noqa: B017 - whatever the driver raises: the health endpoint says 503
            await store.ping()
        await store.aclose()


async def test_each_store_names_what_could_make_a_key_run_twice(store: Any) -> None:
    risks = await store.risks()
    if type(store).__name__ == "SQLiteStore":
        assert risks == [], "a claim is fsynced before its handler runs; a result lost with the host is unknown"
    elif type(store).__name__ == "MemoryStore":
        assert len(risks) == 1 and "a restart forgets them" in risks[0]
    else:  # the suite's redis-server runs without an append-only file
        assert len(risks) == 1 and "appendonly no" in risks[0] and "set appendonly yes" in risks[0]


async def test_redis_persistence_settings_decide_its_risks(ledger_src: Path, tmp_path: Path) -> None:
    from ledger import running_redis
    from ledger_mcp._generated.runtime.stores.store_redis import RedisStore

    with running_redis(tmp_path) as redis:  # appendonly yes, appendfsync always
        store = RedisStore(redis.url)
        assert await store.risks() == []
        await store.client.config_set("appendfsync", "everysec")
        [risk] = await store.risks()
        assert "appendfsync everysec" in risk and "set appendfsync always" in risk
        await store.client.execute_command("ACL", "SETUSER", "default", "-config")  # as managed services do
        [risk] = await store.risks()
        assert "CONFIG GET is refused" in risk
        await store.aclose()


async def test_a_completed_call_is_replayed(store: Any) -> None:
    first = await store.begin("c\x1ft\x1fk1", "fp", 30, 60)
    assert first.outcome == "started" and not first.takeover
    assert await store.complete("c\x1ft\x1fk1", first.owner, '{"done": 1}', 60)
    again = await store.begin("c\x1ft\x1fk1", "fp", 30, 60)
    assert (again.outcome, again.result) == ("replay", '{"done": 1}')


async def test_the_same_key_with_other_arguments_is_refused(store: Any) -> None:
    first = await store.begin("c\x1ft\x1fk2", "fp-a", 30, 60)
    assert first.outcome == "started"
    assert (await store.begin("c\x1ft\x1fk2", "fp-b", 30, 60)).outcome == "mismatch"
    await store.complete("c\x1ft\x1fk2", first.owner, "{}", 60)
    assert (await store.begin("c\x1ft\x1fk2", "fp-b", 30, 60)).outcome == "mismatch"


async def test_a_duplicate_while_the_first_runs_is_told_when_to_retry(store: Any) -> None:
    await store.begin("c\x1ft\x1fk3", "fp", 30, 60)
    busy = await store.begin("c\x1ft\x1fk3", "fp", 30, 60)
    assert busy.outcome == "in_progress"
    assert 25 < busy.retry_after_s <= 30


async def test_an_expired_lease_leaves_the_outcome_unknown_and_is_never_run_again(store: Any) -> None:
    old = await store.begin("c\x1ft\x1fk4", "fp", 0.2, 60)
    await asyncio.sleep(0.3)
    for _ in range(2):
        assert (await store.begin("c\x1ft\x1fk4", "fp", 30, 60)).outcome == "unknown"
    assert not await store.complete("c\x1ft\x1fk4", old.owner, '{"old": true}', 60), "the old run is fenced out"
    assert (await store.begin("c\x1ft\x1fk4", "fp", 30, 60)).outcome == "unknown"
    assert (await store.begin("c\x1ft\x1fk4", "other", 30, 60)).outcome == "mismatch"


async def test_an_unknown_outcome_is_taken_over_to_reconcile_or_rerun_and_the_old_owner_fenced_out(store: Any) -> None:
    for after, outcome in (("reconcile", "reconcile"), ("rerun", "started")):
        scope = f"c\x1ft\x1f{after}"
        old = await store.begin(scope, "fp", 0.2, 60, after)
        await asyncio.sleep(0.3)
        new = await store.begin(scope, "fp", 30, 60, after)
        assert (new.outcome, new.takeover) == (outcome, True)
        assert (await store.begin(scope, "fp", 30, 60, after)).outcome == "in_progress", "one claim at a time"
        assert not await store.complete(scope, old.owner, '{"old": true}', 60)
        assert await store.complete(scope, new.owner, '{"new": true}', 60)
        assert (await store.begin(scope, "fp", 30, 60, after)).result == '{"new": true}'


async def test_an_abandoned_run_is_unknown_and_only_its_owner_can_abandon_it(store: Any) -> None:
    first = await store.begin("c\x1ft\x1fk7", "fp", 30, 60)
    await store.abandon("c\x1ft\x1fk7", "someone-else")
    assert (await store.begin("c\x1ft\x1fk7", "fp", 30, 60)).outcome == "in_progress"
    await store.abandon("c\x1ft\x1fk7", first.owner)
    assert (await store.begin("c\x1ft\x1fk7", "fp", 30, 60)).outcome == "unknown"
    await store.release("c\x1ft\x1fk7", first.owner)
    assert (await store.begin("c\x1ft\x1fk7", "fp", 30, 60)).outcome == "unknown", "an unknown outcome stays"


async def test_a_released_key_can_run_again(store: Any) -> None:
    first = await store.begin("c\x1ft\x1fk5", "fp", 30, 60)
    await store.release("c\x1ft\x1fk5", first.owner)
    assert (await store.begin("c\x1ft\x1fk5", "fp", 30, 60)).outcome == "started"


async def test_scopes_are_independent(store: Any) -> None:
    assert (await store.begin("alice\x1ft\x1fsame", "fp", 30, 60)).outcome == "started"
    assert (await store.begin("bob\x1ft\x1fsame", "fp", 30, 60)).outcome == "started"


async def test_records_expire_after_their_ttl(store: Any) -> None:
    first = await store.begin("c\x1ft\x1fk6", "fp", 30, 1)
    await store.complete("c\x1ft\x1fk6", first.owner, "{}", 1)
    await asyncio.sleep(1.2)
    assert (await store.begin("c\x1ft\x1fk6", "fp", 30, 60)).outcome == "started"


async def test_a_task_is_readable_once_created_and_its_key_holds_it(store: Any) -> None:
    assert await store.task_create("t1", '{"n": 1}', 60, "ada\x1fexport\x1fk1") == "t1"
    row = await store.task_read("t1")
    assert row is not None and row.record == '{"n": 1}' and row.open and not row.cancel and dict(row.answers) == {}
    assert 0 <= row.age_s < 5
    assert await store.task_create("t2", '{"n": 2}', 60, "ada\x1fexport\x1fk1") == "t1", "the key's task, not a new one"
    assert await store.task_read("t2") is None, "nothing written for the second"
    assert await store.task_create("t3", '{"n": 3}', 60, "bob\x1fexport\x1fk1") == "t3", "keys are per caller"
    assert await store.task_create("t4", '{"n": 4}', 60, None) == "t4"
    assert await store.task_read("unknown") is None
    assert await store.task_held("ada\x1fexport\x1fk1") == "t1"
    assert await store.task_held("ada\x1fexport\x1fk2") is None


async def test_a_task_ends_once_and_is_never_written_after(store: Any) -> None:
    await store.task_create("t1", '{"s": "working"}', 60, None)
    await asyncio.sleep(0.3)
    assert (await store.task_read("t1")).age_s >= 0.25, "the heartbeat is the last write"
    written = await store.task_write("t1", '{"s": "still"}', ended=False)
    assert written is not None and written.open and written.record == '{"s": "still"}' and written.age_s < 0.25
    ended = await store.task_write("t1", '{"s": "done"}', ended=True)
    assert ended is not None and not ended.open
    assert await store.task_write("t1", '{"s": "again"}', ended=True) is None, "a second ending loses"
    assert await store.task_write("t1", '{"s": "again"}', ended=False) is None
    assert (await store.task_read("t1")).record == '{"s": "done"}'
    await store.task_signal("t1", True, {"a": "1"})
    row = await store.task_read("t1")
    assert not row.cancel and dict(row.answers) == {}, "an ended task takes no signal"
    assert await store.task_write("gone", "{}", ended=False) is None


async def test_a_task_is_told_of_a_cancel_and_of_answers_through_the_store(store: Any) -> None:
    await store.task_create("t1", "{}", 60, None)
    await store.task_signal("t1", False, {"confirm": '{"action":"accept"}'})
    await store.task_signal("t1", False, {"name": '"ada"'})
    row = await store.task_write("t1", "{}", ended=False)
    assert row is not None and not row.cancel
    assert dict(row.answers) == {"confirm": '{"action":"accept"}', "name": '"ada"'}
    await store.task_signal("t1", True, {})
    assert (await store.task_read("t1")).cancel


async def test_tasks_and_their_keys_expire_after_their_ttl(store: Any) -> None:
    await store.task_create("t1", "{}", 1, "ada\x1fexport\x1fk9")
    await asyncio.sleep(1.2)
    assert await store.task_read("t1") is None
    assert await store.task_held("ada\x1fexport\x1fk9") is None
    assert await store.task_create("t2", "{}", 60, "ada\x1fexport\x1fk9") == "t2", "an expired task frees its key"


async def test_tasks_in_memory_are_capped_by_forgetting_the_oldest_ended_first(
    ledger_src: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from ledger_mcp._generated.runtime.stores.store_memory import MemoryStore
    from ledger_mcp._generated.runtime.tasks import task_records

    monkeypatch.setattr(task_records, "MAX_KEPT", 5)
    monkeypatch.setattr(task_records, "MAX_KEPT_PER_CALLER", 100)
    store = MemoryStore()
    for n in range(4):
        await store.task_create(f"ended-{n}", "{}", 60, f"k{n}")
        await store.task_write(f"ended-{n}", "{}", ended=True)
    await store.task_create("open-0", "{}", 60, None)
    for n in range(3):
        await store.task_create(f"more-{n}", "{}", 60, None)
    kept = {task_id for task_id in store.rows}
    assert kept == {"ended-3", "open-0", "more-0", "more-1", "more-2"}, "the oldest ended go first, open ones stay"
    assert await store.task_create("again", "{}", 60, "k0") == "again", "a forgotten task frees its key"


async def take(store: Any) -> float:
    """One token from a bucket of two a second, through the one call the runtime makes."""
    from ledger_mcp._generated.runtime.calls.contracts import RateLimit

    (wait,) = await store.take_all([("caller", RateLimit(2, 1.0))])
    return float(wait)


async def test_rate_limit_buckets_say_how_long_to_wait(store: Any) -> None:
    assert await take(store) == 0
    assert await take(store) == 0
    wait = await take(store)
    assert 0 < wait <= 0.5, "two calls a second: the third waits up to half a second"
    await asyncio.sleep(wait + 0.05)
    assert await take(store) == 0


async def test_32_concurrent_duplicates_for_each_of_50_keys_run_once(store: Any, ledger_src: Path) -> None:
    from ledger_mcp._generated.runtime.calls.contracts import ToolContext
    from ledger_mcp._generated.server import build_server
    from ledger_mcp._generated.tools import ledger_add

    runs: Counter[str] = Counter()

    async def add(params: ledger_add.Input, ctx: ToolContext[Any]) -> ledger_add.Output:
        runs[params.idempotency_key] += 1
        await asyncio.sleep(0.05)
        return ledger_add.Output(entry=runs[params.idempotency_key])

    server = build_server({"ledger_add": add}, store=store)
    keys = [f"key-{number:04d}-exactly-once" for number in range(50)]
    answers: list[tuple[str, str]] = []

    async def call(key: str) -> None:
        arguments = {"account": "acct-1", "amount": 5, "idempotency_key": key}
        result = await server.call_tool("ledger_add", arguments)
        envelope = (result.meta or {}).get("dev.failwell/error") or {}
        answers.append((key, envelope.get("failure", "ok")))

    started = time.monotonic()
    async with asyncio.TaskGroup() as group:
        for key in keys:
            for _ in range(32):
                group.create_task(call(key))
    elapsed = time.monotonic() - started
    assert runs == Counter({key: 1 for key in keys}), "the side effect ran exactly once per key"
    outcomes = Counter(outcome for _, outcome in answers)
    assert set(outcomes) <= {"ok", "idempotency_key_in_progress"}
    assert outcomes["ok"] >= 50
    print(f"\n[{type(store).__name__}] 1600 calls, 50 keys: {dict(outcomes)} in {elapsed:.2f} s")


async def test_a_client_that_waits_the_retry_after_succeeds(store: Any, ledger_src: Path) -> None:
    from ledger_mcp._generated.server import build_server

    server = build_server(store=store)
    answers = [await server.call_tool("ledger_ping", {}) for _ in range(3)]
    assert [answer.is_error for answer in answers] == [False, False, True]
    envelope = (answers[2].meta or {})["dev.failwell/error"]
    assert envelope["class"] == "rate_limited" and envelope["retry_after_s"] == 1
    assert "It allows 2 calls every 1 s. Nothing was changed. Retry after 1 s" in answers[2].content[0].text  # type: ignore[union-attr]
    await asyncio.sleep(envelope["retry_after_s"])
    assert not (await server.call_tool("ledger_ping", {})).is_error
