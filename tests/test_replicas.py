"""Load and faults over streamable HTTP: two replicas of the generated ledger server on 127.0.0.1 share
one real redis-server, behind bearer tokens, and write to a real ledger API on 127.0.0.1.

CALLS concurrent tool calls (each key sent twice, once to each replica): every call is answered and
each write reaches the ledger exactly once. Then CALLS more while one replica is killed with SIGKILL:
its callers retry on the other with the same idempotency keys, and no write is lost or done twice.
CALLS is 400 in the suite (`FAILWELL_REPLICA_CALLS` sets it: 1000 is the load the docs quote).
"""

from __future__ import annotations

import json
import os
import signal
import time
from collections import Counter
from collections.abc import Iterator
from contextlib import ExitStack
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import anyio
import httpx
import pytest
from httpserver import Running, http_server
from ledger import Ledger, make_project, redis_server

pytestmark = pytest.mark.slow

CALLS = int(os.environ.get("FAILWELL_REPLICA_CALLS", "400"))
"""Calls per phase; an even number, at least 8."""
TOKEN = "replica-token-8c1e4a7f3b"
HEADERS = {
    "accept": "application/json, text/event-stream",
    "content-type": "application/json",
    "mcp-protocol-version": "2025-11-25",
    "authorization": f"Bearer {TOKEN}",
}


@dataclass
class Tally:
    """What the callers saw."""

    results: dict[str, list[int]] = field(default_factory=dict)
    attempts: Counter[str] = field(default_factory=Counter)


def answer(response: httpx.Response) -> dict[str, Any]:
    """The JSON-RPC message of a response, sent as JSON or as one SSE event."""
    if response.headers.get("content-type", "").startswith("application/json"):
        return dict(response.json())
    data = [line[len("data: ") :] for line in response.text.splitlines() if line.startswith("data: ")]
    return dict(json.loads(data[-1]))


async def write(http: httpx.AsyncClient, urls: list[str], first: int, key: str, amount: int, tally: Tally) -> None:
    """One caller: send the write, retry on the other replica when this one is gone, wait when told to."""
    replica = first
    request = {
        "jsonrpc": "2.0",
        "id": 1,
        "method": "tools/call",
        "params": {"name": "ledger_add", "arguments": {"account": "acct-1", "amount": amount, "idempotency_key": key}},
    }
    deadline = time.monotonic() + 300  # generous: a loaded 2-core machine serves the burst slowly
    while time.monotonic() < deadline:
        try:
            response = await http.post(urls[replica], json=request, headers=HEADERS)
        except httpx.TransportError:
            tally.attempts["replica gone"] += 1
            replica = 1 - replica
            continue
        assert response.status_code == 200, response.text
        result = answer(response)["result"]
        if not result.get("isError"):
            tally.results.setdefault(key, []).append(result["structuredContent"]["entry"])
            tally.attempts["answered"] += 1
            return
        envelope = result["_meta"]["dev.failwell/error"]
        assert envelope["retryable"], result
        tally.attempts[f"retried after {envelope['failure']}"] += 1
        await anyio.sleep(envelope["retry_after_s"] or 0.5)
    raise AssertionError(f"{key} was never answered")


async def storm(urls: list[str], calls: list[tuple[int, str, int]], tally: Tally, kill: Any = None) -> None:
    limits = httpx.Limits(max_connections=CALLS, max_keepalive_connections=CALLS)
    timeout = httpx.Timeout(60, connect=5)
    async with httpx.AsyncClient(limits=limits, timeout=timeout) as http, anyio.create_task_group() as group:
        for first, key, amount in calls:
            group.start_soon(write, http, urls, first, key, amount, tally)
        if kill is not None:
            group.start_soon(kill)


@pytest.fixture
def replicas(tmp_path: Path) -> Iterator[tuple[list[Running], Ledger]]:
    src = make_project(tmp_path, "redis", auth=True)
    with ExitStack() as stack:
        url = stack.enter_context(redis_server())
        ledger = stack.enter_context(Ledger(dedup=True, delay_s=0.005).running())
        env = {"LEDGER_API_URL": ledger.url, "REDIS_URL": url, "LEDGER_TOKENS": TOKEN, "LOG_LEVEL": "INFO"}
        logs = [tmp_path / f"replica-{number}.log" for number in (0, 1)]
        running = [stack.enter_context(http_server("ledger_mcp", src, log, env)) for log in logs]
        yield running, ledger
        for replica in running:
            assert TOKEN not in replica.logged(), "a token reached the log"


def event(replica: Running, name: str) -> int:
    """How many times the replica logged the event `name`."""
    return sum(json.loads(line).get("event") == name for line in replica.logged().splitlines() if line.startswith("{"))


def test_concurrent_calls_on_two_replicas_then_one_killed(replicas: tuple[list[Running], Ledger]) -> None:
    running, ledger = replicas
    urls = [replica.url for replica in running]

    # Each of 500 keys sent twice at once, once to each replica: Redis lets one run, the other replays it.
    calm = Tally()
    calls = [(copy, f"calm-{number:04d}-two-replicas", number + 1) for number in range(CALLS // 2) for copy in (0, 1)]
    started = time.monotonic()
    anyio.run(storm, urls, calls, calm)
    calm_s = time.monotonic() - started
    assert calm.attempts["answered"] == CALLS, calm.attempts
    assert all(len(set(entries)) == 1 for entries in calm.results.values()), "both callers of a key saw one entry"
    calm_posts = {key: count for key, count in ledger.posts.items()}
    assert len(calm_posts) == CALLS // 2 and set(ledger.effects().values()) == {1}, "each write applied exactly once"
    # Redis let one replica run each key: every POST past the first of a key is explained by a logged upstream
    # retry (same Idempotency-Key, after a slow answer on this loaded machine) or by a failed run the caller
    # was told to retry. Without the shared store each key would run on both replicas: 1,000 runs.
    retries = sum(event(replica, "upstream retry") for replica in running)
    failed_runs = (
        sum(count for name, count in calm.attempts.items() if name.startswith("retried after"))
        - calm.attempts["retried after idempotency_key_in_progress"]
    )
    runs = sum(calm_posts.values()) - retries
    assert CALLS // 2 <= runs <= CALLS // 2 + failed_runs, (runs, retries, dict(calm.attempts))

    # CALLS new keys, alternating replicas; replica 1 is killed once a quarter of them reached the ledger.
    stormy = Tally()
    keys = [(number % 2, f"storm-{number:04d}-one-killed", number + 1) for number in range(CALLS)]

    async def kill() -> None:
        while sum(ledger.posts.values()) - len(calm_posts) < CALLS // 4:
            await anyio.sleep(0.005)
        os.kill(running[1].process.pid, signal.SIGKILL)

    started = time.monotonic()
    anyio.run(storm, urls, keys, stormy, kill)
    stormy_s = time.monotonic() - started
    assert running[1].process.poll() is not None, "replica 1 was killed"
    assert stormy.attempts["answered"] == CALLS, stormy.attempts
    assert stormy.attempts["replica gone"] > 0, "some callers had to move to the other replica"
    applied = ledger.effects()
    storm_keys = {key for key in applied if key not in calm_posts}
    assert len(storm_keys) == CALLS, "no write was lost"
    assert set(applied.values()) == {1}, "no write was applied twice"
    assert all(len(set(entries)) == 1 for entries in stormy.results.values())
    assert ledger.authorizations == [], "the caller's token never went upstream"
    posts = sum(ledger.posts.values()) - len(calm_posts)
    print(
        f"\n[2 replicas, Redis] calm: {CALLS} calls for {CALLS // 2} keys in {calm_s:.1f} s, "
        f"{dict(calm.attempts)}, {sum(calm_posts.values())} POSTs ({retries} upstream retries); "
        f"storm: {CALLS} calls in {stormy_s:.1f} s, replica killed, {stormy.attempts['replica gone']} moved, "
        f"{dict(stormy.attempts)}, {posts} POSTs, {len(storm_keys)} applied once each"
    )
