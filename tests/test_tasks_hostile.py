"""Tasks attacked as a hostile tester would: tests/tasking/failwell.yaml served by two real server processes on one
SQLite file (and, for the store going down, two replicas on a real redis-server), spoken to in raw JSON-RPC at
2026-07-28, with SIGSTOP/SIGCONT, concurrent keyed calls and cancels. Every run of export_run's handler appends one
line to the file TASKING_EFFECTS names, counted outside the server processes.

Failing on the `tasks` branch when written (defects, each passes once fixed): a cancelled keyed write not saying its
change may have happened (also after a paused owner's race, where the change did happen: fails about one run in two);
a task ended as stopped while its owner was SIGSTOPped whose handler then writes its effect; a store blip at a
task's end losing its outcome; one caller's flood forgetting another's task in the memory store; a keyed retry at the
running cap refused instead of answering its task. The running cap's refusal read "Retry after (not given) s"
(fixed in runtime/tasks.py). The other tests are attacks that held, kept because they are cheap.
"""

from __future__ import annotations

import json
import os
import signal
import sqlite3
import subprocess
import sys
import time
import uuid
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import httpx
import pytest
from ledger import running_redis
from test_tasks import ASKING, BOB, CAROL, PACKAGE, Raw, accept, created, effects, waiting
from test_tasks_crash import Replica, environment, project

pytestmark = pytest.mark.slow

STALE_S = 3
"""The servers' FAILWELL_TASK_STALE_S (test_tasks_crash.environment)."""


@pytest.fixture(scope="module")
def pair(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Replica, Replica, Path]]:
    """Two server processes on one SQLite file (as two replicas of one machine would be)."""
    src = project(tmp_path_factory, "sqlite")
    folder = tmp_path_factory.mktemp("tasks-hostile")
    env = environment(folder)
    a, b = Replica(src, folder, env, "a"), Replica(src, folder, env, "b")
    a.start()
    b.start()
    try:
        yield a, b, folder
    finally:
        for replica in (a, b):
            if replica.running is not None and replica.running.process.poll() is None:
                replica.running.process.send_signal(signal.SIGCONT)
            replica.close()


@pytest.fixture
def raws(pair: tuple[Replica, Replica, Path]) -> Iterator[tuple[Raw, Raw]]:
    a, b, _ = pair
    with httpx.Client(timeout=30) as one, httpx.Client(timeout=30) as two:
        yield Raw(one, a.url), Raw(two, b.url)


def lines(folder: Path, key: str) -> int:
    return sum(1 for line in effects(folder) if line.endswith(f" {key}"))


def test_twenty_concurrent_keyed_calls_on_two_processes_make_one_task_and_one_run(
    pair: tuple[Replica, Replica, Path], raws: tuple[Raw, Raw]
) -> None:
    _, _, folder = pair
    key = f"hostile-{uuid.uuid4().hex}"
    arguments = {"seconds": 1, "name": "monthly", "idempotency_key": key}

    def send(index: int) -> dict[str, Any]:
        with httpx.Client(timeout=30) as http:
            raw = Raw(http, (pair[0] if index % 2 else pair[1]).url)
            return raw.call("export_run", arguments)

    with ThreadPoolExecutor(20) as pool:
        answers = list(pool.map(send, range(20)))
    ids = {answer["result"]["taskId"] for answer in answers if answer.get("result", {}).get("resultType") == "task"}
    assert len(ids) == 1, answers
    done = raws[0].settled(ids.pop())
    assert done["status"] == "completed", done
    time.sleep(0.5)
    assert lines(folder, key) == 1


def test_a_cancelled_keyed_write_retried_with_its_key_is_told_the_change_may_have_happened(
    pair: tuple[Replica, Replica, Path], raws: tuple[Raw, Raw]
) -> None:
    """docs/how-to/tasks.md: a cancelled keyed write's key is left "its outcome unknown: a retry with the key is told
    the change may have happened". The retry answers the same task, so that task must say so."""
    one, _ = raws
    arguments = {"seconds": 2, "name": "monthly", "idempotency_key": f"hostile-{uuid.uuid4().hex}"}
    task = created(one.call("export_run", arguments))
    time.sleep(0.3)
    assert one.rpc("tasks/cancel", {"taskId": task["taskId"]})["result"]["resultType"] == "complete"
    again = one.call("export_run", arguments)["result"]
    assert again["taskId"] == task["taskId"] and again["status"] == "cancelled"
    told = json.dumps(one.get(task["taskId"])["result"]).lower()
    assert "may have" in again["statusMessage"].lower() or "may have" in told, (again, told)


def test_a_process_paused_past_the_stale_limit_on_this_machine_is_not_counted_gone(
    pair: tuple[Replica, Replica, Path], raws: tuple[Raw, Raw]
) -> None:
    """SIGSTOP the owner past FAILWELL_TASK_STALE_S. Ending its task as stopped ("outcome unknown: check, then use a
    new key") would be an untruth the moment it resumes and writes its effect, and a client that checked and used a
    new key would run the export twice. On one machine the process tells: it lives, so the task stays `working`
    while it is paused, and ends honestly once it resumes."""
    a, _, folder = pair
    one, two = raws
    key = f"hostile-{uuid.uuid4().hex}"
    task = created(one.call("export_run", {"seconds": STALE_S + 1, "name": "monthly", "idempotency_key": key}))
    assert a.running is not None
    process = a.running.process
    time.sleep(0.4)  # past the call's own store writes (a process paused inside one holds SQLite's lock)
    process.send_signal(signal.SIGSTOP)
    try:
        time.sleep(STALE_S + 1.5)
        paused = two.get(task["taskId"])["result"]
        assert paused["status"] == "working", paused
    finally:
        process.send_signal(signal.SIGCONT)
    done = two.settled(task["taskId"], within_s=20)
    assert done["status"] == "completed" and lines(folder, key) == 1


def test_the_store_down_answers_tasks_get_without_its_error_text(tmp_path: Path, redis_project: Path) -> None:
    """Redis killed while a task runs: tasks/get must answer an error of the right class with a reference, never the
    exception's text (the store's address), and the replica's stdout-free logs keep the detail."""
    with running_redis(tmp_path) as redis:
        env = environment(tmp_path, REDIS_URL=redis.url)
        a = Replica(redis_project, tmp_path, env, "a")
        a.start()
        try:
            with httpx.Client(timeout=30) as http:
                raw = Raw(http, a.url)
                arguments = {"seconds": 2, "name": "monthly", "idempotency_key": f"hostile-{uuid.uuid4().hex}"}
                task = created(raw.call("export_run", arguments))
                redis.process.kill()
                redis.process.wait(timeout=10)
                answer = raw.get(task["taskId"])
                text = json.dumps(answer)
                assert answer["error"]["data"]["class"] == "upstream_unavailable", answer
                assert answer["error"]["data"]["reference"].startswith("ERR-"), answer
                assert str(redis.port) not in text and "127.0.0.1" not in text and "Error" not in text, answer
                call = raw.call("export_run", {**arguments, "idempotency_key": f"hostile-{uuid.uuid4().hex}"})
                text = json.dumps(call)
                assert str(redis.port) not in text and "127.0.0.1" not in text, call
        finally:
            a.close()


@pytest.fixture(scope="module")
def redis_project(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return project(tmp_path_factory, "redis")


def test_cancel_twice_at_once_and_racing_the_finish_ends_each_task_once(
    pair: tuple[Replica, Replica, Path], raws: tuple[Raw, Raw]
) -> None:
    _, _, folder = pair
    one, two = raws
    for seconds in (0.5, 1.0):
        key = f"hostile-{uuid.uuid4().hex}"
        task = created(one.call("export_run", {"seconds": seconds, "name": "monthly", "idempotency_key": key}))
        time.sleep(seconds - 0.02)

        def cancel(index: int, task_id: str = task["taskId"]) -> dict[str, Any]:
            with httpx.Client(timeout=30) as http:
                return Raw(http, (pair[0] if index % 2 else pair[1]).url).rpc("tasks/cancel", {"taskId": task_id})

        with ThreadPoolExecutor(2) as pool:
            acks = list(pool.map(cancel, range(2)))
        assert all(ack.get("result", {}).get("resultType") == "complete" for ack in acks), acks
        first = one.settled(task["taskId"])
        assert first["status"] in ("completed", "cancelled")
        time.sleep(0.3)
        for _ in range(3):
            assert two.get(task["taskId"])["result"]["status"] == first["status"]
        count = lines(folder, key)
        assert count <= 1
        if first["status"] == "completed":
            assert count == 1


def test_another_caller_on_the_other_process_learns_nothing_and_its_same_key_is_its_own(
    pair: tuple[Replica, Replica, Path], raws: tuple[Raw, Raw]
) -> None:
    _, _, folder = pair
    one, two = raws
    key = f"hostile-{uuid.uuid4().hex}"
    arguments = {"seconds": 1, "name": "monthly", "idempotency_key": key}
    task = created(one.call("export_run", arguments))
    unknown = two.rpc("tasks/get", {"taskId": "x" * 43}, token=BOB)["error"]
    for method in ("tasks/get", "tasks/update", "tasks/cancel"):
        answer = two.rpc(method, {"taskId": task["taskId"], "inputResponses": {"a": 1}}, token=BOB)
        assert answer["error"] == unknown, (method, answer)
    theirs = created(two.call("export_run", arguments, token=BOB))  # bob's same key is bob's own task
    assert theirs["taskId"] != task["taskId"]
    assert one.settled(task["taskId"])["status"] == "completed"
    assert two.rpc("tasks/get", {"taskId": theirs["taskId"]}, token=BOB)["result"]["taskId"] == theirs["taskId"]
    time.sleep(1.5)
    assert lines(folder, key) == 2  # one run each: ada's and bob's
    logged = "".join(path.read_text() for path in folder.glob("[ab]-*.log"))
    assert task["taskId"] not in logged and theirs["taskId"] not in logged  # ids are never logged whole


def test_tasks_update_abuse_keeps_nothing_it_was_not_asked_and_nothing_after_the_end(
    pair: tuple[Replica, Replica, Path], raws: tuple[Raw, Raw]
) -> None:
    """Thousands of keys never asked, an answer past 64 KiB, answers after the task ended: none is kept in the store
    (counted in the SQLite file's `answers` column) and none changes the task."""
    _, _, folder = pair
    one, two = raws
    task = created(one.call("survey_run", {"topic": "lunch"}, capabilities=ASKING))
    waiting(one, task["taskId"], {"name", "colour"})
    junk = {f"k{index}": accept(name="x" * 10) for index in range(3000)}
    junk["name"] = accept(name="y" * 70_000)
    answer = two.rpc("tasks/update", {"taskId": task["taskId"], "inputResponses": junk}, capabilities=ASKING)
    assert answer.get("result", {}).get("resultType") == "complete" or answer.get("error"), answer
    assert stored_answers(folder, task["taskId"]) == "{}"
    assert set(waiting(one, task["taskId"], {"name", "colour"})["inputRequests"]) == {"name", "colour"}
    answers = {"name": accept(name="Ada"), "colour": accept(colour="green")}
    two.rpc("tasks/update", {"taskId": task["taskId"], "inputResponses": answers}, capabilities=ASKING)
    done = one.settled(task["taskId"])
    assert done["result"]["structuredContent"] == {"summary": "Ada chose green for lunch"}
    kept = stored_answers(folder, task["taskId"])
    late = {"name": accept(name="Eve"), "colour": accept(colour="red"), "other": accept(name="z" * 1000)}
    two.rpc("tasks/update", {"taskId": task["taskId"], "inputResponses": late}, capabilities=ASKING)
    assert stored_answers(folder, task["taskId"]) == kept
    assert two.get(task["taskId"])["result"]["result"] == done["result"]


def stored_answers(folder: Path, task_id: str) -> str:
    with sqlite3.connect(folder / "tasking.sqlite3", timeout=10) as db:
        row = db.execute("SELECT answers FROM tasks WHERE task_id = ?", (task_id,)).fetchone()
    return str(row[0])


def test_same_key_other_arguments_at_once_on_two_processes_runs_once(pair: tuple[Replica, Replica, Path]) -> None:
    _, _, folder = pair
    key = f"hostile-{uuid.uuid4().hex}"

    def send(index: int) -> dict[str, Any]:
        arguments = {"seconds": 0.3, "name": f"name{index % 4}", "idempotency_key": key}
        with httpx.Client(timeout=30) as http:
            return Raw(http, (pair[0] if index % 2 else pair[1]).url).call("export_run", arguments)

    with ThreadPoolExecutor(20) as pool:
        answers = list(pool.map(send, range(20)))
    tasks = {answer["result"]["taskId"] for answer in answers if answer.get("result", {}).get("resultType") == "task"}
    assert len(tasks) == 1, answers
    time.sleep(1.5)
    assert lines(folder, key) == 1, effects(folder)


def test_cancel_from_the_other_process_while_the_owner_is_paused_is_honest_once_it_resumes(
    pair: tuple[Replica, Replica, Path], raws: tuple[Raw, Raw]
) -> None:
    """The owner SIGSTOPped (shorter than stale) while its handler's work comes due; a cancel through the other
    process. Once it resumes, the task ends once, and a task whose change happened does not say a plain "cancelled".
    The race is won about one try in three on the `tasks` branch: two tries, stopping at the first breach."""
    for _ in range(2):
        end, count = paused_cancel(pair, raws)
        assert end["status"] in ("cancelled", "completed")
        if end["status"] == "completed":
            assert count == 1
        elif count:
            assert "may have" in json.dumps(end).lower(), ("cancelled, its change applied", end)


def paused_cancel(pair: tuple[Replica, Replica, Path], raws: tuple[Raw, Raw]) -> tuple[dict[str, Any], int]:
    a, _, folder = pair
    one, two = raws
    key = f"hostile-{uuid.uuid4().hex}"
    task = created(one.call("export_run", {"seconds": 1.5, "name": "monthly", "idempotency_key": key}))
    assert a.running is not None
    process = a.running.process
    time.sleep(0.4)
    process.send_signal(signal.SIGSTOP)
    try:
        started = time.monotonic()
        with ThreadPoolExecutor(1) as pool:
            pending = pool.submit(two.rpc, "tasks/cancel", {"taskId": task["taskId"]})
            time.sleep(2)
            process.send_signal(signal.SIGCONT)
            ack = pending.result(timeout=30)
        waited = time.monotonic() - started
    finally:
        process.send_signal(signal.SIGCONT)
    assert ack.get("result", {}).get("resultType") == "complete", ack
    end = one.settled(task["taskId"])
    time.sleep(0.5)
    count = lines(folder, key)
    print(f"cancel while paused: ack after {waited:.1f} s, ended {end['status']}, effects {count}")
    assert two.get(task["taskId"])["result"]["status"] == end["status"]
    return end, count


def test_twenty_concurrent_keyed_calls_on_two_redis_replicas_make_one_task_and_one_run(
    tmp_path: Path, redis_project: Path
) -> None:
    with running_redis(tmp_path) as redis:
        env = environment(tmp_path, REDIS_URL=redis.url)
        a, b = Replica(redis_project, tmp_path, env, "a"), Replica(redis_project, tmp_path, env, "b")
        a.start()
        b.start()
        try:
            key = f"hostile-{uuid.uuid4().hex}"
            arguments = {"seconds": 0.5, "name": "monthly", "idempotency_key": key}

            def send(index: int) -> dict[str, Any]:
                with httpx.Client(timeout=30) as http:
                    return Raw(http, (a if index % 2 else b).url).call("export_run", arguments)

            with ThreadPoolExecutor(20) as pool:
                answers = list(pool.map(send, range(20)))
            ids = {answer["result"]["taskId"] for answer in answers if answer["result"].get("resultType") == "task"}
            assert len(ids) == 1, answers
            with httpx.Client(timeout=30) as http:
                assert Raw(http, a.url).settled(ids.pop())["status"] == "completed"
            time.sleep(0.5)
            assert sum(1 for line in effects(tmp_path) if line.endswith(key)) == 1
        finally:
            a.close()
            b.close()


def test_a_store_blip_as_a_task_ends_does_not_lose_its_outcome(tmp_path: Path, redis_project: Path) -> None:
    """Redis down for 2.5 s while a keyed export finishes (its change made), then back (AOF: nothing lost). The process
    is alive and knows the outcome, but its one final write failed: the task must not end `failed` as "the server
    process running it stopped (restarted, killed or crashed)" with the export's result thrown away."""
    with running_redis(tmp_path) as redis:
        port = redis.port
        a = Replica(redis_project, tmp_path, environment(tmp_path, REDIS_URL=redis.url), "a")
        a.start()
        try:
            with httpx.Client(timeout=30) as http:
                raw = Raw(http, a.url)
                key = f"hostile-{uuid.uuid4().hex}"
                task = created(raw.call("export_run", {"seconds": 1.5, "name": "monthly", "idempotency_key": key}))
                time.sleep(0.5)
                redis.process.kill()
                redis.process.wait(timeout=10)
                time.sleep(2.5)
                assert sum(1 for line in effects(tmp_path) if line.endswith(key)) == 1  # the change was made
                with running_redis(tmp_path, port=port):
                    end = time.monotonic() + 10
                    while time.monotonic() < end:
                        answer = raw.get(task["taskId"])
                        if "result" in answer and answer["result"]["status"] != "working":
                            break
                        time.sleep(0.2)
                    assert answer["result"]["status"] == "completed", answer
                    assert answer["result"]["result"]["structuredContent"] == {"exported": "monthly"}
        finally:
            a.close()


EVICTION = """
import asyncio
from tasking_mcp._generated.runtime.task_records import MAX_KEPT, MemoryTasks, Task

async def main() -> None:
    store = MemoryTasks()
    async def ended(task_id: str, owner: str) -> None:
        task = Task(task_id, owner, "report_build", 3_720_000, None, "{}")
        await store.task_create(task_id, task.dumps(), 3720, None)
        task.set("completed", "The task completed.", result={})
        await store.task_write(task_id, task.dumps(), ended=True)
    await ended("victim", "token:bob")
    for index in range(MAX_KEPT + 50):
        await ended(f"flood-{index}", "token:ada")
    print("kept" if await store.task_read("victim") is not None else "forgotten")

asyncio.run(main())
"""


def test_one_callers_flood_does_not_forget_another_callers_task_in_memory(pair: tuple[Replica, Replica, Path]) -> None:
    """The memory store keeps MAX_KEPT tasks, forgetting the oldest ended first whoever made them: one caller's
    10,050 quick tasks (17.6 s through a real server with no rate limit, measured) forget another caller's completed
    task minutes after it ended, an hour before its ttlMs. Run here on the generated runtime's MemoryTasks itself."""
    env = {**os.environ, "PYTHONPATH": str(pair[0].src)}
    ran = subprocess.run([sys.executable, "-c", EVICTION], env=env, capture_output=True, text=True, timeout=60)
    assert ran.returncode == 0, ran.stderr
    assert ran.stdout.strip() == "kept", "bob's completed task was forgotten to make room for ada's flood"


def test_a_keyed_retry_at_the_running_cap_answers_its_own_task(raws: tuple[Raw, Raw]) -> None:
    """A caller with MAX_WORKING (16) tasks running retries one of them with its key (a lost answer): that runs
    nothing, so it must answer the same task, not `rate_limited` (the cap is checked before the key is)."""
    one, _ = raws
    arguments = {"seconds": 30, "name": "monthly", "idempotency_key": f"hostile-{uuid.uuid4().hex}"}
    first = created(one.call("export_run", arguments, token=CAROL))
    others = [created(one.call("report_build", {"seconds": 30, "title": "Sales"}, token=CAROL)) for _ in range(15)]
    try:
        again = one.call("export_run", arguments, token=CAROL)["result"]
        assert again.get("taskId") == first["taskId"], again
    finally:
        for task in [first, *others]:
            one.rpc("tasks/cancel", {"taskId": task["taskId"]}, token=CAROL)


def test_the_running_cap_refusal_says_how_long_to_wait(raws: tuple[Raw, Raw]) -> None:
    """Rule 10: a rate limit answers with how long to wait; the words must agree with the envelope's retry_after_s."""
    one, _ = raws
    tasks = [created(one.call("report_build", {"seconds": 30, "title": "Sales"}, token=CAROL)) for _ in range(16)]
    try:
        refused = one.call("report_build", {"seconds": 30, "title": "Sales"}, token=CAROL)["result"]
        text = refused["content"][0]["text"]
        assert refused["isError"] is True and refused["_meta"]["dev.failwell/error"]["retry_after_s"] == 1.0
        assert "(not given)" not in text and "Retry after 1 s" in text, text
    finally:
        for task in tasks:
            one.rpc("tasks/cancel", {"taskId": task["taskId"]}, token=CAROL)


def test_stdio_a_crashing_task_keeps_stdout_to_json_rpc_and_its_secret_to_stderr(
    pair: tuple[Replica, Replica, Path], tmp_path: Path
) -> None:
    """Raw JSON-RPC lines on a stdio server: a task whose handler crashes with a secret in its text; every stdout line
    is JSON-RPC, none holds the secret or exception text, and the task's reference leads to the traceback on stderr."""
    env = {**os.environ, **environment(tmp_path), "PYTHONPATH": str(pair[0].src)}
    server = subprocess.Popen(
        [sys.executable, "-m", PACKAGE],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=(tmp_path / "stdio.log").open("w"),
        env=env,
        text=True,
    )
    assert server.stdin is not None and server.stdout is not None
    meta = {
        "io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientInfo": {"name": "hostile", "version": "0"},
        "io.modelcontextprotocol/clientCapabilities": {"extensions": {"io.modelcontextprotocol/tasks": {}}},
    }
    seen: list[str] = []

    def ask(number: int, method: str, params: dict[str, Any]) -> dict[str, Any]:
        assert server.stdin is not None and server.stdout is not None
        message = {"jsonrpc": "2.0", "id": number, "method": method, "params": {**params, "_meta": meta}}
        server.stdin.write(json.dumps(message) + "\n")
        server.stdin.flush()
        for _ in range(50):
            line = server.stdout.readline()
            seen.append(line)
            answer = json.loads(line)
            if answer.get("id") == number:
                return dict(answer)
        raise AssertionError(seen)

    try:
        arguments = {"seconds": 0, "title": "Sales", "outcome": "crash"}
        made = ask(1, "tools/call", {"name": "report_build", "arguments": arguments})
        task_id = made["result"]["taskId"]
        for number in range(2, 60):
            got = ask(number, "tasks/get", {"taskId": task_id})["result"]
            if got["status"] not in ("working", "input_required"):
                break
            time.sleep(0.1)
        assert got["status"] == "completed" and got["result"]["isError"] is True, got
        reference = got["result"]["_meta"]["dev.failwell/error"]["reference"]
    finally:
        server.stdin.close()
        try:
            server.wait(timeout=15)
        except subprocess.TimeoutExpired:
            server.kill()
            server.wait()
    out = "".join(seen)
    for secret in ("hunter2", "10.0.0.7", "postgres://", "RuntimeError", "Traceback"):
        assert secret not in out, secret
    logged = (tmp_path / "stdio.log").read_text()
    assert reference in logged and "Traceback" in logged
