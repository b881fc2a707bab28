"""Tasks through real faults: servers SIGKILLed while their tasks run, on SQLite and on two replicas sharing a real
redis-server (AOF, appendfsync always).

tests/tasking/failwell.yaml, generated with the CLI, served over streamable HTTP on 127.0.0.1 and spoken to in raw
JSON-RPC at 2026-07-28 (tests/test_tasks.py says why). Every run of export_run's handler appends one line to a file,
counted outside the server processes. Each round starts keyed export_run tasks that take a random time, kills the
server that runs them at a random moment, starts it again, and polls every task through a server that is alive
until it ends. Then every task must have exactly one terminal state, kept on every later read; the same call sent
again with its key must answer that same task; no key's side effect may happen twice; a `completed` task's effect
happened exactly once; and a task its process took down must say so (`failed`, outcome unknown), never run again.

FAILWELL_TASK_CRASH_ROUNDS sets the rounds per store (4 in the suite; more for a longer run). The figures of a run
are printed (run with -s to see them).
"""

from __future__ import annotations

import json
import os
import random
import shutil
import signal
import time
from collections import Counter
from contextlib import ExitStack
from pathlib import Path
from typing import Any

import httpx
import pytest
from httpserver import Running, free_port, http_server
from ledger import running_redis
from test_tasks import ADA, PACKAGE, TASKING, TASKS, TOKENS, Raw, created, effects

from conftest import failwell

pytestmark = pytest.mark.slow

ROUNDS = int(os.environ.get("FAILWELL_TASK_CRASH_ROUNDS", "4"))
"""Kill-and-restart rounds per store."""
TASKS_PER_ROUND = 4
STALE_S = 3
"""The servers' FAILWELL_TASK_STALE_S: how soon a killed server's tasks are counted as stopped."""
STATE_KEYS = "tasks-crash-test-key-0123456789abcdef0123456789abcdef"


def project(tmp_path_factory: pytest.TempPathFactory, store: str) -> Path:
    spec = (TASKING / "failwell.yaml").read_text().replace("  store: sqlite\n", f"  store: {store}\n")
    folder = tmp_path_factory.mktemp(f"tasks-crash-{store}")
    (folder / "failwell.yaml").write_text(spec)
    dest = folder / "tasking"
    made = failwell("new", dest, "--spec", folder / "failwell.yaml")
    assert made.returncode == 0, made.stdout + made.stderr
    for handler in sorted((TASKING / "handlers").glob("*.py")):
        shutil.copy(handler, dest / "src" / PACKAGE / "handlers" / handler.name)
    return dest / "src"


def environment(folder: Path, **more: str) -> dict[str, str]:
    return {
        "FAILWELL_SQLITE_PATH": str(folder / "tasking.sqlite3"),
        "TASKING_EFFECTS": str(folder / "effects.txt"),
        "TASKING_TOKENS": json.dumps(TOKENS),
        "FAILWELL_TASK_STALE_S": str(STALE_S),
        "MCP_STATE_KEYS": STATE_KEYS,
        **more,
    }


class Replica:
    """One server process that can be killed and started again on the same port."""

    def __init__(self, src: Path, folder: Path, env: dict[str, str], name: str) -> None:
        self.src, self.folder, self.env, self.name = src, folder, env, name
        self.port = free_port()
        self.stack = ExitStack()
        self.running: Running | None = None
        self.kills = 0

    def start(self) -> None:
        log = self.folder / f"{self.name}-{self.kills}.log"
        self.running = self.stack.enter_context(http_server(PACKAGE, self.src, log, self.env, port=self.port))

    def kill(self) -> None:
        assert self.running is not None
        self.running.process.send_signal(signal.SIGKILL)
        self.running.process.wait(timeout=10)
        self.kills += 1
        self.stack.close()
        self.stack = ExitStack()

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}/mcp"

    def close(self) -> None:
        self.stack.close()


def final(raw: Raw, task_id: str, within_s: float = 30) -> dict[str, Any]:
    """The task once it has ended (polled through a live server, within a bound)."""
    end = time.monotonic() + within_s
    while time.monotonic() < end:
        answer = raw.get(task_id)
        assert "result" in answer, answer
        if answer["result"]["status"] not in ("working", "input_required"):
            return dict(answer["result"])
        time.sleep(0.1)
    raise AssertionError(f"task {task_id} never ended")


def rounds(alive: Raw, start: Raw, kill: Any, restart: Any, folder: Path, label: str) -> Counter[str]:
    """Run ROUNDS rounds of tasks started through `start`, killed with `kill` at a random moment, read through
    `alive` after `restart`; check every promise and answer the figures."""
    figures: Counter[str] = Counter()
    chosen = random.Random(f"tasks-crash-{label}")
    seen: dict[str, tuple[dict[str, Any], dict[str, Any]]] = {}
    for number in range(ROUNDS):
        started = []
        for index in range(TASKS_PER_ROUND):
            key = f"crash-{label}-{number:02d}-{index:02d}-key"
            seconds = round(chosen.uniform(0.0, 2.5), 2)
            arguments = {"seconds": seconds, "name": f"n{number}x{index}", "idempotency_key": key}
            task = created(start.call("export_run", arguments))
            started.append((task["taskId"], arguments))
        time.sleep(chosen.uniform(0.2, 2.0))
        kill()
        restart()
        for task_id, arguments in started:
            ended = final(alive, task_id, within_s=STALE_S + 30)
            seen[task_id] = (arguments, ended)
    time.sleep(1.0)  # a handler that somehow still ran would have written by now
    lines = Counter(line.split()[-1] for line in effects(folder))
    for task_id, (arguments, ended) in seen.items():
        key = str(arguments["idempotency_key"])
        again = alive.get(task_id)["result"]
        assert again["status"] == ended["status"], "a terminal state is kept on every later read"
        resent = alive.call("export_run", arguments)["result"]
        assert resent.get("taskId") == task_id, "the same key answers the same task"
        assert lines[key] <= 1, f"{key}'s side effect happened {lines[key]} times"
        if ended["status"] == "completed":
            assert lines[key] == 1 and ended["result"]["structuredContent"] == {"exported": arguments["name"]}
            figures["completed"] += 1
        else:
            assert ended["status"] == "failed", ended
            error = ended["error"]
            assert error["code"] == -32603 and error["data"] == {"failure": "server_stopped", "outcome": "unknown"}
            assert "is not run again: the same idempotency_key answers this task" in error["message"]
            figures["failed_stopped"] += 1
            figures["failed_stopped_but_applied"] += lines[key]
    figures["tasks"] = len(seen)
    figures["effects"] = sum(lines.values())
    assert figures["effects"] == figures["completed"] + figures["failed_stopped_but_applied"]
    print(f"\ntasks crash figures ({label}): {dict(figures)}")
    return figures


def test_sigkill_on_sqlite_ends_each_task_once_and_runs_no_key_twice(tmp_path_factory: pytest.TempPathFactory) -> None:
    src = project(tmp_path_factory, "sqlite")
    folder = tmp_path_factory.mktemp("tasks-crash-sqlite-run")
    server = Replica(src, folder, environment(folder), "sqlite")
    server.start()
    try:
        with httpx.Client(timeout=30) as http:
            raw = Raw(http, server.url)
            figures = rounds(raw, raw, server.kill, server.start, folder, "sqlite")
    finally:
        server.close()
    assert server.kills == ROUNDS
    assert figures["tasks"] == ROUNDS * TASKS_PER_ROUND
    assert figures["failed_stopped"] >= 1, "some task must have been running when its server was killed"


@pytest.fixture(scope="module")
def redis_src(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return project(tmp_path_factory, "redis")


def test_two_replicas_on_redis_share_tasks_through_sigkill(redis_src: Path, tmp_path: Path) -> None:
    with running_redis(tmp_path) as redis:
        env = environment(tmp_path, REDIS_URL=redis.url)
        a, b = Replica(redis_src, tmp_path, env, "a"), Replica(redis_src, tmp_path, env, "b")
        a.start()
        b.start()
        try:
            with httpx.Client(timeout=30) as http:
                on_a, on_b = Raw(http, a.url), Raw(http, b.url)
                figures = rounds(on_b, on_a, a.kill, a.start, tmp_path, "redis")
        finally:
            a.close()
            b.close()
    assert a.kills == ROUNDS and figures["failed_stopped"] >= 1


def test_a_replica_answers_cancels_and_updates_for_a_task_another_runs(redis_src: Path, tmp_path: Path) -> None:
    with running_redis(tmp_path) as redis:
        env = environment(tmp_path, REDIS_URL=redis.url)
        a, b = Replica(redis_src, tmp_path, env, "a"), Replica(redis_src, tmp_path, env, "b")
        a.start()
        b.start()
        try:
            with httpx.Client(timeout=30) as http:
                on_a, on_b = Raw(http, a.url), Raw(http, b.url)
                arguments = {"seconds": 3, "name": "slow", "idempotency_key": "replica-cancel-key-0001"}
                task = created(on_a.call("export_run", arguments))
                assert on_b.get(task["taskId"])["result"]["status"] == "working", "any replica reads it at once"
                assert on_b.get(task["taskId"], token=list(TOKENS)[1])["error"]["code"] == -32602
                ack = on_b.rpc("tasks/cancel", {"taskId": task["taskId"]})
                assert ack["result"]["resultType"] == "complete"
                assert final(on_b, task["taskId"], within_s=10)["status"] == "cancelled"
                time.sleep(3.5)  # past the handler's own sleep: a handler the cancel missed would have written
                assert not [line for line in effects(tmp_path) if "replica-cancel-key-0001" in line]
                assert on_b.call("export_run", arguments)["result"]["taskId"] == task["taskId"]

                asking: dict[str, Any] = {"extensions": {TASKS: {}}, "elicitation": {"form": {}}}
                survey = created(on_a.call("survey_run", {"topic": "replicas"}, capabilities=asking))
                end = time.monotonic() + 20
                while set(on_b.get(survey["taskId"])["result"].get("inputRequests", {})) != {"name", "colour"}:
                    assert time.monotonic() < end, "the question never showed on the other replica"
                    time.sleep(0.1)
                answers = {
                    "name": {"action": "accept", "content": {"name": "Ada"}},
                    "colour": {"action": "accept", "content": {"colour": "blue"}},
                }
                on_b.rpc("tasks/update", {"taskId": survey["taskId"], "inputResponses": answers}, token=ADA)
                done = final(on_a, survey["taskId"], within_s=20)
                assert done["result"]["structuredContent"] == {"summary": "Ada chose blue for replicas"}
        finally:
            a.close()
            b.close()


def test_a_server_shut_down_under_a_task_ends_it_at_once_and_never_runs_it_again(
    tmp_path_factory: pytest.TempPathFactory,
) -> None:
    """SIGTERM (a restart, a deploy): the server ends the tasks it runs as stopped before it exits, so the next
    `tasks/get` tells so at once, without waiting for the heartbeat to go stale."""
    src = project(tmp_path_factory, "sqlite")
    folder = tmp_path_factory.mktemp("tasks-shutdown")
    env = environment(folder, FAILWELL_TASK_STALE_S="600")  # a stale heartbeat could not end it within the test
    server = Replica(src, folder, env, "sqlite")
    server.start()
    try:
        with httpx.Client(timeout=30) as http:
            raw = Raw(http, server.url)
            arguments = {"seconds": 30, "name": "long", "idempotency_key": "shutdown-key-000000001"}
            task = created(raw.call("export_run", arguments))
            assert server.running is not None
            server.running.process.terminate()
            server.running.process.wait(timeout=30)
            server.stack.close()
            server.stack = ExitStack()
            server.start()
            ended = raw.get(task["taskId"])["result"]
            assert ended["status"] == "failed" and ended["error"]["data"]["failure"] == "server_stopped"
            assert raw.call("export_run", arguments)["result"]["taskId"] == task["taskId"]
            assert effects(folder) == []
    finally:
        server.close()
