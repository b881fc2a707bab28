"""Faults around a keyed write, in-process on real stores: a deadline, a cancellation, a locked SQLite
file while recording, and stores that cannot be used at all. A retry with the same key never runs the
side effect a second time, and nothing the store's driver says reaches the model."""

from __future__ import annotations

import asyncio
import json
import os
import sqlite3
import subprocess
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest
from httpserver import free_port
from ledger import importable
from test_crash import make_journal

pytestmark = [pytest.mark.anyio, pytest.mark.slow]

KEY = "fault-key-0001-abcdef"
ARGUMENTS = {"amount": 3, "idempotency_key": KEY}


@pytest.fixture(scope="module")
def journal_src(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    src = make_journal(tmp_path_factory.mktemp("faults"), "redis", rerun=False)  # a redis project has all 3 stores
    with importable(src, "journal_mcp"):
        yield src


class Effects:
    """The side effect, counted: every run of the handler that got past its write."""

    def __init__(self) -> None:
        self.runs = 0


def envelope(result: Any) -> dict[str, Any]:
    return dict((result.meta or {}).get("dev.failwell/error") or {})


def text(result: Any) -> str:
    return str(result.content[0].text)


def server_with(handler: Any, store: Any, deadline_s: float = 0.3) -> Any:
    from journal_mcp._generated.server import build_server

    return build_server({"journal_add": handler}, {"journal_add": deadline_s}, store)


def writer(effects: Effects, *, then_sleep_s: float = 0.0, before: Any = None) -> Any:
    from journal_mcp._generated.tools import journal_add

    async def handle(params: Any, ctx: Any) -> Any:
        effects.runs += 1
        if before is not None:
            before()
        await asyncio.sleep(then_sleep_s)
        return journal_add.Output(line=f"{params.idempotency_key} {effects.runs}")

    return handle


async def call(server: Any) -> Any:
    return await server.call_tool("journal_add", dict(ARGUMENTS))


async def test_a_write_that_outlives_its_grace_is_never_run_again(journal_src: Path, tmp_path: Path) -> None:
    from journal_mcp._generated.runtime.stores.store_sqlite import SQLiteStore

    effects = Effects()
    server = server_with(writer(effects, then_sleep_s=30), SQLiteStore(tmp_path / "s.sqlite3"))
    first = await call(server)
    assert (envelope(first)["class"], envelope(first)["changed"]) == ("timeout", "possible")
    assert "goes on for up to 0.3 s more: retry with the same idempotency_key after 2 s to get its result" in text(
        first
    )
    assert envelope(await call(server))["failure"] == "idempotency_key_in_progress", "the grace period runs"
    await asyncio.sleep(0.5)  # the grace period (0.3 s at a 0.3 s deadline) is over: the run was stopped
    for _ in range(2):
        retry = await call(server)
        assert envelope(retry)["failure"] == "idempotency_key_outcome_unknown", text(retry)
        assert envelope(retry)["changed"] == "possible" and "Check with journal_count" in text(retry)
    assert effects.runs == 1
    await server.aclose()


async def test_a_write_that_finishes_within_its_grace_is_replayed(journal_src: Path, tmp_path: Path) -> None:
    from journal_mcp._generated.runtime.stores.store_sqlite import SQLiteStore

    effects = Effects()
    server = server_with(writer(effects, then_sleep_s=0.45), SQLiteStore(tmp_path / "s.sqlite3"))
    assert envelope(await call(server))["class"] == "timeout"
    await asyncio.sleep(0.4)
    retry = await call(server)
    assert not retry.is_error, text(retry)
    assert retry.structured_content == {"line": f"{KEY} 1"}, "the first run's real result"
    assert effects.runs == 1
    await server.aclose()


async def test_a_cancelled_write_is_never_run_again(journal_src: Path, tmp_path: Path) -> None:
    from journal_mcp._generated.runtime.stores.store_sqlite import SQLiteStore

    effects = Effects()
    server = server_with(writer(effects, then_sleep_s=30), SQLiteStore(tmp_path / "s.sqlite3"), deadline_s=10)
    task = asyncio.create_task(call(server))
    while effects.runs == 0:
        await asyncio.sleep(0.01)
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    await asyncio.sleep(0.1)
    retry = await call(server)
    assert envelope(retry)["failure"] == "idempotency_key_outcome_unknown", text(retry)
    assert effects.runs == 1
    await server.aclose()


async def test_a_locked_sqlite_file_while_recording_returns_the_real_result_and_never_reruns(
    journal_src: Path, tmp_path: Path
) -> None:
    from journal_mcp._generated.runtime.stores.store_sqlite import SQLiteStore

    path = tmp_path / "s.sqlite3"
    locker = sqlite3.connect(path, isolation_level=None, check_same_thread=False)
    effects = Effects()
    server = server_with(writer(effects, before=lambda: locker.execute("BEGIN EXCLUSIVE")), SQLiteStore(path, 0.1))
    first = await call(server)
    assert not first.is_error, text(first)
    assert first.structured_content == {"line": f"{KEY} 1"}, "the change happened: the caller is told so"
    await asyncio.sleep(1.5)  # longer than every attempt to record it
    locker.execute("ROLLBACK")
    locker.close()
    answers = []
    for _ in range(60):
        retry = await call(server)
        answers.append(envelope(retry).get("failure"))
        if answers[-1] == "idempotency_key_outcome_unknown":
            break
        await asyncio.sleep(0.1)
    assert set(answers[:-1]) <= {"idempotency_key_in_progress"} and answers[-1] == "idempotency_key_outcome_unknown"
    assert effects.runs == 1
    await server.aclose()


@contextmanager
def tmpfs(folder: Path, options: str) -> Iterator[Path]:
    """A small tmpfs mounted at `folder`, or the test skipped when this machine cannot mount one."""
    folder.mkdir()
    mounted = subprocess.run(["mount", "-t", "tmpfs", "-o", options, "tmpfs", str(folder)], capture_output=True)
    if mounted.returncode != 0:
        pytest.skip(f"cannot mount a tmpfs here: {mounted.stderr.decode().strip()}")
    try:
        yield folder
    finally:
        subprocess.run(["umount", "-l", str(folder)], check=False)


def corrupt(tmp_path: Path) -> Path:
    path = tmp_path / "internal-db-host-10.1.2.3.sqlite3"
    path.write_bytes(b"this is not a database, it only looks like one " * 100)
    return path


def directory(tmp_path: Path) -> Path:
    path = tmp_path / "internal-db-host-10.1.2.3.sqlite3"
    path.mkdir()
    return path


def mounted(folder: Path, options: str) -> Path:
    """A tmpfs mounted for this test (unmounted after it)."""
    mount = tmpfs(folder, options)
    MOUNTS.append(mount)
    return mount.__enter__()


def read_only(tmp_path: Path) -> Path:
    return mounted(tmp_path / "ro", "ro,size=64k") / "internal-db-host-10.1.2.3.sqlite3"


def full_disk(tmp_path: Path) -> Path:
    folder = mounted(tmp_path / "full", "size=64k")
    (folder / "filler").write_bytes(b"x" * 60_000)
    return folder / "internal-db-host-10.1.2.3.sqlite3"


MOUNTS: list[Any] = []


@pytest.fixture(autouse=True)
def unmount() -> Iterator[None]:
    yield
    while MOUNTS:
        MOUNTS.pop().__exit__(None, None, None)


@pytest.mark.parametrize("make", [corrupt, directory, read_only, full_disk])
async def test_an_unusable_sqlite_store_is_upstream_unavailable_without_its_words(
    journal_src: Path, tmp_path: Path, make: Any
) -> None:
    from journal_mcp._generated.runtime.stores.store_sqlite import SQLiteStore

    path = make(tmp_path)
    effects = Effects()
    server = server_with(writer(effects), SQLiteStore(path, 0.1))
    result = await call(server)
    refused_without_leaking(result, [str(path), "10.1.2.3", "sqlite", "database", "Errno", "disk", "Read-only"])
    assert effects.runs == 0, "the handler never ran"
    await server.aclose()


async def test_a_redis_that_refuses_connections_is_upstream_unavailable_without_its_words(journal_src: Path) -> None:
    from journal_mcp._generated.runtime.stores.store_redis import RedisStore

    port = free_port()
    effects = Effects()
    server = server_with(writer(effects), RedisStore(f"redis://:hunter2-password@127.0.0.1:{port}/0"))
    result = await call(server)
    refused_without_leaking(result, ["127.0.0.1", str(port), "hunter2", "redis", "Redis", "111", "connect"])
    assert effects.runs == 0
    await server.aclose()


def refused_without_leaking(result: Any, words: list[str]) -> None:
    found = envelope(result)
    assert result.is_error
    assert (found["class"], found["failure"], found["changed"], found["retryable"]) == (
        "upstream_unavailable",
        "store",
        "none",
        True,
    ), found
    assert found["reference"].startswith("ERR-")
    blob = json.dumps(result.model_dump(mode="json", by_alias=True))
    leaked = [word for word in words if word in blob]
    assert leaked == [], f"{leaked} reached the client: {blob}"
    assert "could not reach its own store" in text(result) and "Nothing was changed." in text(result)


def test_the_store_failure_is_logged_with_its_reference_and_no_password(journal_src: Path, tmp_path: Path) -> None:
    script = (
        "import anyio, logging, sys\n"
        "from journal_mcp._generated.runtime.setup.logs import configure_logging\n"
        "from journal_mcp._generated.runtime.stores.store_redis import RedisStore\n"
        "from journal_mcp._generated.server import build_server\n"
        "configure_logging()\n"
        f"server = build_server(store=RedisStore('redis://:hunter2-password@127.0.0.1:{free_port()}/0'))\n"
        f"result = anyio.run(server.call_tool, 'journal_add', {ARGUMENTS!r})\n"
        "print(result.meta['dev.failwell/error']['reference'])\n"
    )
    ran = subprocess.run(
        [sys.executable, "-c", script],
        capture_output=True,
        text=True,
        timeout=60,
        env={**os.environ, "PYTHONPATH": str(journal_src)},
    )
    reference = ran.stdout.strip()
    lines = [json.loads(line) for line in ran.stderr.splitlines()]
    logged = [line for line in lines if line.get("reference") == reference]
    assert logged and logged[0]["failure"] == "store" and "ConnectionError" in logged[0]["error_type"]
    assert "hunter2" not in ran.stderr
