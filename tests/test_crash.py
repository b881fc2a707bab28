"""The crash harness: a keyed write's handler runs at most once per key, whatever dies when.

A generated server whose one write appends a line to a local file and fsyncs it: a side effect that
nothing deduplicates, counted from outside the process. Servers are SIGKILLed at random moments while
several keyed writes are in flight, restarted, and the same keys retried until each is answered:
applied, replayed, or told that its outcome is unknown. On Redis, two replicas share a real
redis-server (AOF, appendfsync always) that is itself SIGKILLed and restarted mid-run. With
`rerun_safe` and a handler that deduplicates by `ctx.idempotency_key`, every key is applied once.
"""

from __future__ import annotations

import json
import os
import random
import signal
import subprocess
import threading
import time
from collections import Counter
from contextlib import ExitStack
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest
from httpserver import free_port
from ledger import receive, running_redis, send, stdio_server

pytestmark = pytest.mark.slow

SQLITE_KEYS = int(os.environ.get("FAILWELL_CRASH_KEYS", "140"))
"""Keys per SQLite run (140 in the suite, which kills its servers a dozen times or more; set more for a longer run)."""
REDIS_KEYS = SQLITE_KEYS * 2 // 3
"""Keys per Redis run, whose servers and Redis are killed more often per key."""

SPEC = """\
failwell: 1
server:
  name: journal
  store: {store}
tools:
  journal_add:
    description: Append an entry to the journal, once per idempotency key.
    effect: write
    idempotency: required
    check_with: journal_count{rerun}
    deadline_s: 2
    input:
      amount: {{type: integer, minimum: 1, example: 5}}
    output:
      line: {{type: string}}
  journal_count:
    description: Count the journal's entries.
    effect: read
    output:
      entries: {{type: integer}}
"""
RERUN = "\n    rerun_safe: true"

ADD = """\
import asyncio
import fcntl
import os
import random

from .._generated.tools.journal_add import Context, Input, Output

DEDUP = {dedup}


async def handle(params: Input, ctx: Context) -> Output:
    await asyncio.sleep(random.uniform(0, 0.02))
    line = f"{{params.idempotency_key}} {{ctx.idempotency_key}} {{params.amount}}\\n"
    with open(os.environ["JOURNAL_FILE"], "a+") as journal:
        fcntl.flock(journal, fcntl.LOCK_EX)
        journal.seek(0)
        if not (DEDUP and f" {{ctx.idempotency_key}} " in journal.read()):
            journal.write(line)
            journal.flush()
            os.fsync(journal.fileno())
    await asyncio.sleep(random.uniform(0, 0.02))
    return Output(line=line.strip())
"""
RECONCILE = """\


async def reconcile(params: Input, ctx: Context) -> Output | None:
    with open(os.environ["JOURNAL_FILE"], "a+") as journal:
        journal.seek(0)
        for line in journal.read().splitlines():
            if line.startswith(f"{params.idempotency_key} "):
                return Output(line=line)
    return None
"""
COUNT = """\
import os

from .._generated.tools.journal_count import Context, Input, Output


async def handle(params: Input, ctx: Context) -> Output:
    with open(os.environ["JOURNAL_FILE"], "a+") as journal:
        journal.seek(0)
        return Output(entries=len(journal.read().splitlines()))
"""


def make_journal(root: Path, store: str, *, rerun: bool, reconcile: bool = False) -> Path:
    """The journal project on `store`; with `rerun`, `rerun_safe` and a handler that deduplicates by the derived key;
    with `reconcile`, a handler module whose `reconcile` looks for the key's line."""
    from failwell import new

    spec = root / "journal.yaml"
    spec.write_text(SPEC.format(store=store, rerun=RERUN if rerun else ""))
    project = root / "journal"
    new(project, spec)
    handlers = project / "src" / "journal_mcp" / "handlers"
    (handlers / "journal_add.py").write_text(ADD.format(dedup=rerun) + (RECONCILE if reconcile else ""))
    (handlers / "journal_count.py").write_text(COUNT)
    return project / "src"


class Server:
    """One generated server over stdio, initialized, that can be killed at any moment. A server that will not
    start (its store is down: it exits 2) is started again, as a supervisor would, for up to 20 s."""

    def __init__(self, src: Path, env: dict[str, str]) -> None:
        log = open(os.environ["CRASH_LOG"], "a") if "CRASH_LOG" in os.environ else subprocess.DEVNULL  # noqa: SIM115
        until = time.monotonic() + 20
        while True:
            try:
                self.process = stdio_server(src, env, "journal_mcp", log)
                return
            except (EOFError, BrokenPipeError):
                assert time.monotonic() < until, "the server would not start"
                time.sleep(0.2)

    def send(self, message: dict[str, Any]) -> None:
        send(self.process, message)

    def receive(self) -> dict[str, Any]:
        return receive(self.process)

    def stop(self) -> None:
        self.process.kill()
        self.process.wait()


@dataclass
class Tally:
    """What the callers saw, per key, and how often servers died."""

    answers: dict[str, str] = field(default_factory=dict)
    """Each key's final answer: `applied`, or `unknown` (told its outcome is unknown)."""
    kills: int = 0
    restarts: int = 0
    retries: Counter[str] = field(default_factory=Counter)
    """Answers that sent a caller back to retry (a key still running, a store that was down), by failure."""


def hammer(servers: list[Server], start: Any, keys: list[str], rng: random.Random, tally: Tally) -> None:
    """Send every key, several at a time, to servers killed at random; retry each key until it is answered."""
    pending = list(keys)
    not_before: dict[str, float] = {}
    number = 0
    deadline = time.monotonic() + float(os.environ.get("CRASH_S", "240"))
    while pending:
        assert time.monotonic() < deadline, f"{len(pending)} keys never answered: {pending[:5]}, {tally}"
        ready = [key for key in pending if not_before.get(key, 0) <= time.monotonic()]
        if not ready:
            time.sleep(0.05)
            continue
        index = rng.randrange(len(servers))
        if servers[index].process.poll() is not None:
            servers[index] = start()
            tally.restarts += 1
        server = servers[index]
        sent: dict[int, str] = {}
        for key in rng.sample(ready, min(6, len(ready))):
            number += 1
            sent[number] = key
            amount = 1 + keys.index(key) % 9  # a retry sends the same arguments
            params = {"name": "journal_add", "arguments": {"amount": amount, "idempotency_key": key}}
            server.send({"jsonrpc": "2.0", "id": number, "method": "tools/call", "params": params})
        killer = threading.Timer(rng.uniform(0, 0.04), server.process.kill) if rng.random() < 0.6 else None
        if killer:
            killer.start()
        try:
            for _ in sent:
                answer = server.receive()
                wait = _settle(sent[answer["id"]], answer["result"], pending, tally)
                not_before[sent[answer["id"]]] = time.monotonic() + wait
        except (EOFError, BrokenPipeError, ValueError):
            tally.kills += 1
            server.process.wait()
        finally:
            if killer:
                killer.cancel()


def _settle(key: str, result: dict[str, Any], pending: list[str], tally: Tally) -> float:
    """Record one answer; the seconds to wait before retrying a key sent back (still running, store down)."""
    envelope = (result.get("_meta") or {}).get("dev.failwell/error") or {}
    if not result.get("isError"):
        assert result["structuredContent"]["line"].startswith(f"{key} "), result
        tally.answers[key] = "applied"
        pending.remove(key)
        return 0.0
    failure = envelope.get("failure")
    assert failure in ("idempotency_key_outcome_unknown", "idempotency_key_in_progress", "store"), result
    assert envelope["reference"].startswith("ERR-") and "Traceback" not in json.dumps(result)
    if failure != "idempotency_key_outcome_unknown":
        tally.retries[failure] += 1
        return float(envelope.get("retry_after_s") or 0.2)
    assert envelope["changed"] == "possible" and "Check with journal_count" in result["content"][0]["text"]
    tally.answers[key] = "unknown"
    pending.remove(key)
    return 0.0


def applied_per_key(journal: Path) -> Counter[str]:
    """How many times each caller key's line reached the journal file."""
    lines = journal.read_text().splitlines() if journal.exists() else []
    return Counter(line.split(" ")[0] for line in lines)


def report(name: str, keys: list[str], tally: Tally, applied: Counter[str]) -> tuple[int, list[str]]:
    """Print the harness's figures; (keys applied twice or more, keys answered `applied` but not in the file)."""
    twice = sum(1 for key in keys if applied[key] > 1)
    lost = [key for key in keys if tally.answers.get(key) == "applied" and applied[key] == 0]
    unknown = [key for key in keys if tally.answers.get(key) == "unknown"]
    print(f"\n[{name}] {len(keys)} keys, {tally.kills} kills mid-call, {tally.restarts} restarts, "
          f"retry-later answers {dict(tally.retries)}: applied twice {twice}, lost {len(lost)}, "
          f"unknown-outcome answers {len(unknown)} (of which applied {sum(applied[k] for k in unknown)})")  # fmt: skip
    return twice, lost


@pytest.mark.parametrize("policy", ["refuse", "rerun_safe", "reconcile"])
def test_sigkill_during_concurrent_keyed_writes_on_sqlite(tmp_path: Path, policy: str) -> None:
    src = make_journal(tmp_path, "sqlite", rerun=policy == "rerun_safe", reconcile=policy == "reconcile")
    journal = tmp_path / "journal.txt"
    env = {"JOURNAL_FILE": str(journal), "FAILWELL_SQLITE_PATH": str(tmp_path / "state.sqlite3")}
    keys = [f"sqlite-{number:05d}-{policy}" for number in range(SQLITE_KEYS)]
    tally = Tally()
    servers = [Server(src, env)]
    try:
        hammer(servers, lambda: Server(src, env), keys, random.Random(f"20261201-{policy}"), tally)
    finally:
        for server in servers:
            server.stop()
    applied = applied_per_key(journal)
    twice, lost = report(f"sqlite, SIGKILL, {policy}", keys, tally, applied)
    assert tally.kills > 10, "the harness must actually kill servers mid-call"
    assert twice == 0 and lost == []
    assert set(tally.answers) == set(keys), "every key was answered"
    if policy == "refuse":
        assert "unknown" in tally.answers.values(), "some kills landed after the write and before its record"
    else:
        assert set(tally.answers.values()) == {"applied"} and all(applied[key] == 1 for key in keys), "none lost"


@pytest.mark.parametrize("rerun", [False, True], ids=["refuse", "rerun_safe"])
def test_two_replicas_and_redis_sigkilled_during_keyed_writes(tmp_path: Path, rerun: bool) -> None:
    src = make_journal(tmp_path, "redis", rerun=rerun)
    journal = tmp_path / "journal.txt"
    port = free_port()
    env = {"JOURNAL_FILE": str(journal), "REDIS_URL": f"redis://127.0.0.1:{port}/0"}
    keys = [f"redis-{number:05d}-{'rerun' if rerun else 'refuse'}" for number in range(REDIS_KEYS)]
    tally = Tally()
    rng = random.Random(20261202 + rerun)
    redis_kills = 0
    with ExitStack() as running:
        redis = [running.enter_context(running_redis(tmp_path, port)).process]
        servers = [Server(src, env), Server(src, env)]
        stop = threading.Event()

        def kill_redis() -> None:
            nonlocal redis_kills
            while not stop.wait(rng.uniform(1.0, 2.0)) and redis_kills < 3:
                redis[-1].send_signal(signal.SIGKILL)
                redis[-1].wait()
                redis_kills += 1
                time.sleep(0.3)
                redis.append(running.enter_context(running_redis(tmp_path, port)).process)

        chaos = threading.Thread(target=kill_redis)
        chaos.start()
        try:
            hammer(servers, lambda: Server(src, env), keys, rng, tally)
        finally:
            stop.set()
            chaos.join()
            for server in servers:
                server.stop()
    applied = applied_per_key(journal)
    name = f"redis AOF, 2 replicas, {redis_kills} Redis kills, {'rerun_safe' if rerun else 'refuse'}"
    twice, lost = report(name, keys, tally, applied)
    assert redis_kills >= 1 and tally.kills > 10
    assert twice == 0 and lost == []
    assert set(tally.answers) == set(keys), "every key was answered"
    if rerun:
        assert all(applied[key] == 1 for key in keys), "with downstream dedup and re-runs, none is lost"


LOGGED = """\
import os

from .._generated.tools.journal_add import Context, Input, Output


async def handle(params: Input, ctx: Context) -> Output:
    # The key's claim is committed and fsynced by now: the store's write-ahead log is on the disk up to its size.
    synced = os.path.getsize(os.environ["FAILWELL_SQLITE_PATH"] + "-wal")
    with open(os.environ["SYNCED_FILE"], "a") as log:
        log.write(f"{params.idempotency_key} {synced}\\n")
    line = f"{params.idempotency_key} {ctx.idempotency_key} {params.amount}\\n"
    with open(os.environ["JOURNAL_FILE"], "a") as journal:
        journal.write(line)
        journal.flush()
        os.fsync(journal.fileno())
    return Output(line=line.strip())
"""


def test_a_result_recorded_without_fsync_survives_sigkill_and_its_loss_on_power_loss_answers_unknown(
    tmp_path: Path,
) -> None:
    """SQLite records a keyed write's result without waiting for the disk (the claim before the handler runs is
    fsynced). SIGKILL loses nothing the kernel has: the retry replays. A power loss may lose what was written after
    the last fsync: the log is cut back to the size it had when the handler ran (the claim, synced) and the server
    killed; the retry is told the outcome is unknown, changed possibly, and the handler is not run again."""
    src = make_journal(tmp_path, "sqlite", rerun=False)
    (src / "journal_mcp" / "handlers" / "journal_add.py").write_text(LOGGED)
    journal, synced, database = tmp_path / "journal.txt", tmp_path / "synced.txt", tmp_path / "state.sqlite3"
    env = {"JOURNAL_FILE": str(journal), "SYNCED_FILE": str(synced), "FAILWELL_SQLITE_PATH": str(database)}
    replayed, cut = "durable-key-sigkill-0001", "durable-key-powerloss-0001"

    def call(key: str) -> dict[str, Any]:
        server = Server(src, env)
        try:
            params = {"name": "journal_add", "arguments": {"amount": 3, "idempotency_key": key}}
            server.send({"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": params})
            result: dict[str, Any] = server.receive()["result"]
        finally:
            server.stop()  # SIGKILL, right after the answer
        return result

    first = call(replayed)
    assert not first.get("isError") and first["structuredContent"]["line"].startswith(f"{replayed} "), first
    assert call(replayed) == first, "the result recorded without fsync survived SIGKILL: the retry replays it"

    applied = call(cut)
    assert not applied.get("isError"), applied
    size = int(dict(line.split(" ") for line in synced.read_text().splitlines())[cut])
    wal = Path(f"{database}-wal")
    assert wal.stat().st_size > size, "the result was written after the claim's fsync"
    with wal.open("r+b") as log:
        log.truncate(size)  # what a power loss may leave: the log as far as its last fsync
    Path(f"{database}-shm").unlink(missing_ok=True)  # the shared index is rebuilt from the log, as after a reboot
    retry = call(cut)
    envelope = retry["_meta"]["dev.failwell/error"]
    assert retry["isError"] and envelope["failure"] == "idempotency_key_outcome_unknown", retry
    assert envelope["changed"] == "possible" and "Check with journal_count" in retry["content"][0]["text"]
    assert applied_per_key(journal) == Counter({replayed: 1, cut: 1}), "no handler ran twice"
