"""Exactly once across crashes and replicas, with real processes: the generated ledger server killed
with SIGKILL at random moments during 300 keyed writes on SQLite, and two server processes sharing
one real redis-server with every duplicate split between them."""

from __future__ import annotations

import random
import threading
import time
from collections import Counter
from pathlib import Path
from typing import Any

import pytest
from ledger import Ledger, make_project, receive, redis_server, send, stdio_server

pytestmark = pytest.mark.slow

WRITES = 300


def call(number: int, arguments: dict[str, Any]) -> dict[str, Any]:
    params = {"name": "ledger_add", "arguments": arguments}
    return {"jsonrpc": "2.0", "id": number, "method": "tools/call", "params": params}


def test_sigkill_during_300_keyed_writes_on_sqlite(tmp_path: Path) -> None:
    src = make_project(tmp_path, "sqlite")
    rng = random.Random(20261129)
    entries: dict[int, int] = {}
    kills = restarts = 0
    with Ledger(dedup=True, delay_s=0.01).running() as ledger:
        env = {"LEDGER_API_URL": ledger.url, "FAILWELL_SQLITE_PATH": str(tmp_path / "state.sqlite3")}
        process = stdio_server(src, env)
        number = 0
        try:
            for amount in range(1, WRITES + 1):
                arguments = {"account": "acct-1", "amount": amount, "idempotency_key": f"write-{amount:05d}-sigkill"}
                while amount not in entries:
                    if process.poll() is not None:
                        process = stdio_server(src, env)
                        restarts += 1
                    number += 1
                    killer = threading.Timer(rng.uniform(0, 0.03), process.kill) if rng.random() < 0.3 else None
                    if killer:
                        killer.start()
                    try:
                        send(process, call(number, arguments))
                        answer = receive(process)
                    except (EOFError, BrokenPipeError, ValueError):
                        kills += 1
                        process.wait()
                        continue
                    finally:
                        if killer:
                            killer.cancel()
                    result = answer["result"]
                    assert not result.get("isError"), result
                    entries[amount] = result["structuredContent"]["entry"]
        finally:
            process.kill()
            process.wait()
        applied = Counter(ledger.amounts)
    duplicates = sum(count - 1 for count in applied.values())
    lost = [amount for amount in range(1, WRITES + 1) if amount not in applied]
    print(f"\n[sqlite, SIGKILL] {WRITES} writes, {kills} kills mid-call, {restarts} restarts, "
          f"{sum(ledger.posts.values())} POSTs: {duplicates} duplicates, {len(lost)} lost")  # fmt: skip
    assert kills > 20, "the test must actually kill the server mid-call"
    assert duplicates == 0 and lost == []
    assert sorted(entries) == list(range(1, WRITES + 1))


def test_two_replicas_sharing_redis_run_each_write_once(tmp_path: Path) -> None:
    src = make_project(tmp_path, "redis")
    keys = [f"replica-{number:04d}-exactly-once" for number in range(50)]
    with redis_server() as url, Ledger(dedup=False, delay_s=0.02).running() as ledger:
        env = {"LEDGER_API_URL": ledger.url, "REDIS_URL": url}
        replicas = [stdio_server(src, env), stdio_server(src, env)]
        outcomes: Counter[str] = Counter()
        try:
            for round_ in range(2):
                number = 0
                for replica in replicas:
                    for key in keys:
                        for _ in range(2):
                            number += 1
                            send(replica, call(number, {"account": "acct-1", "amount": 7, "idempotency_key": key}))
                for replica in replicas:
                    for _ in range(len(keys) * 2):
                        result = receive(replica)["result"]
                        envelope = (result.get("_meta") or {}).get("dev.failwell/error") or {}
                        outcomes[envelope.get("failure", "ok")] += 1
                if round_ == 0:
                    time.sleep(0.2)  # the second round arrives after every first call finished: all replays
        finally:
            for replica in replicas:
                replica.kill()
                replica.wait()
        effects = Counter(ledger.posts)
    print(f"\n[redis, 2 replicas] 400 calls for 50 keys: {dict(outcomes)}; POSTs per key: {set(effects.values())}")
    assert len(effects) == 50 and set(effects.values()) == {1}, "each write reached the ledger once"
    assert set(outcomes) <= {"ok", "idempotency_key_in_progress"}
