"""Exactly once across replicas, with real processes: two server processes sharing one real
redis-server with every duplicate split between them (the crashes are in test_crash.py)."""

from __future__ import annotations

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
