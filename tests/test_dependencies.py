"""Start-up dependencies (issue 26.2), as clients meet them: a generated server in a real subprocess over stdio
(and streamable HTTP for /healthz), driven by the real `mcp` client, with a dependency on a real SQLite file
(opened at start) and a lazy one on a real redis-server on 127.0.0.1 started by the test.

A dependency that is gone mid-run answers its class (upstream_unavailable, -31503 for a resource or a prompt) with
the class's retry advice, "Nothing was changed", a reference, and none of the driver's words; failures in a row
open its circuit breaker, and it recovers when the dependency returns. One that cannot be opened at start stops
the server with one line naming it (exit 2); a lazy one lets the server start and fails its first use instead."""

from __future__ import annotations

import json
import os
import shutil
import sqlite3
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import httpx
import pytest
from httpserver import http_server
from ledger import running_redis
from mcp import Client, StdioServerParameters
from mcp.shared.exceptions import MCPError
from mcp.types import CallToolResult, TextResourceContents

from failwell import new

pytestmark = [pytest.mark.anyio, pytest.mark.slow]

SPEC = """\
failwell: 1
server:
  name: notes
  version: 0.1.0
  description: Notes kept in a SQLite file, with a count of notes added kept in Redis.
dependencies:
  db:
    description: The SQLite file the notes live in.
    timeout_s: 1
    retries: 1
    breaker: {failures: 3, reset_s: 1}
    errors:
      sqlite3.OperationalError: upstream_unavailable
  cache:
    description: The Redis server that counts notes added.
    timeout_s: 0.5
    lazy: true
    breaker: {failures: 2, reset_s: 1}
    errors:
      redis.exceptions.ConnectionError: upstream_unavailable
      redis.exceptions.TimeoutError: timeout
tools:
  notes_get:
    description: Read one note by its id, such as 1.
    effect: read
    deadline_s: 5
    uses: [db]
    input:
      id: {type: integer, minimum: 1, description: The note's id., example: 1}
    output:
      id: {type: integer, description: The id.}
      text: {type: string, description: The text.}
    failures:
      note_missing:
        class: not_found
        message: "No note {id}. Call notes_get with the id of a note that exists, such as 1."
  notes_count:
    description: How many notes were added since the count began.
    effect: read
    deadline_s: 5
    uses: [cache]
    output:
      added: {type: integer, description: Notes added.}
resources:
  note:
    uri: "notes://{id}"
    description: One note, by its id.
    deadline_s: 5
    uses: [db]
    params:
      id: {type: integer, minimum: 1, description: The note's id., example: 1}
prompts:
  summarize:
    description: Summarize every note.
    deadline_s: 5
    uses: [db]
"""

HANDLERS = {
    "dependencies/db.py": """\
import os
import sqlite3
from dataclasses import dataclass


@dataclass(frozen=True)
class Database:
    path: str

    def connect(self) -> sqlite3.Connection:
        # mode=rw: a file that is gone is an error, never a new empty database
        return sqlite3.connect(f"file:{self.path}?mode=rw", uri=True)


async def open() -> Database:
    database = Database(os.environ["NOTES_DB"])
    with database.connect() as connection:
        connection.execute("SELECT count(*) FROM notes")
    return database
""",
    "dependencies/cache.py": """\
import os

import redis.asyncio as redis


async def open() -> redis.Redis:
    url = os.environ["NOTES_REDIS_URL"]
    client = redis.Redis.from_url(url, socket_timeout=0.3, socket_connect_timeout=0.3)
    await client.ping()
    return client


async def close(value: redis.Redis) -> None:
    await value.aclose()
""",
    "notes_get.py": """\
from .._generated.tools.notes_get import Context, Input, NoteMissing, Output
from .dependencies.db import Database


async def handle(params: Input, ctx: Context) -> Output:
    def read(db: Database) -> tuple[int, str] | None:
        with db.connect() as connection:
            row = connection.execute("SELECT id, text FROM notes WHERE id = ?", (params.id,)).fetchone()
        return None if row is None else (int(row[0]), str(row[1]))

    found = await ctx.deps.db.run(read)
    if found is None:
        raise NoteMissing(id=params.id)
    return Output(id=found[0], text=found[1])
""",
    "notes_count.py": """\
from .._generated.tools.notes_count import Context, Input, Output


async def handle(params: Input, ctx: Context) -> Output:
    added = await ctx.deps.cache.call(lambda client: client.get("notes_added"))
    return Output(added=int(added or 0))
""",
    "resources/note.py": """\
from ..._generated.resources.note import Context, Output, Params
from ..dependencies.db import Database


async def handle(params: Params, ctx: Context) -> Output:
    def read(db: Database) -> str:
        with db.connect() as connection:
            row = connection.execute("SELECT text FROM notes WHERE id = ?", (params.id,)).fetchone()
        return "" if row is None else str(row[0])

    return await ctx.deps.db.run(read)
""",
    "prompts/summarize.py": """\
from ..._generated.prompts.summarize import Context, Output, Params
from ..dependencies.db import Database


async def handle(params: Params, ctx: Context) -> Output:
    def read(db: Database) -> list[str]:
        with db.connect() as connection:
            return [str(row[0]) for row in connection.execute("SELECT text FROM notes ORDER BY id")]

    return "Summarize these notes:\\n" + "\\n".join(await ctx.deps.db.run(read))
""",
}

DRIVER_WORDS = ("unable to open", "database file", "Connection refused", "Error 111", "OperationalError", "6379")


@pytest.fixture(scope="module")
def notes_src(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("dependencies")
    spec = root / "notes.yaml"
    spec.write_text(SPEC)
    project = root / "notes"
    new(project, spec)
    for relative, source in HANDLERS.items():
        (project / "src" / "notes_mcp" / "handlers" / relative).write_text(source)
    return project / "src"


@pytest.fixture
def database(tmp_path: Path) -> Path:
    path = tmp_path / "notes.sqlite3"
    with sqlite3.connect(path) as connection:
        connection.execute("CREATE TABLE notes (id INTEGER PRIMARY KEY, text TEXT NOT NULL)")
        connection.execute("INSERT INTO notes (text) VALUES ('Buy milk')")
    connection.close()
    return path


def stdio(src: Path, env: dict[str, str]) -> StdioServerParameters:
    return StdioServerParameters(
        command=sys.executable, args=["-m", "notes_mcp"], env={**os.environ, **env, "PYTHONPATH": str(src)}
    )


def envelope(result: CallToolResult) -> dict[str, Any]:
    assert result.is_error
    data: dict[str, Any] = (result.meta or {})["dev.failwell/error"]
    return data


def check_text(text: str, dependency: str) -> None:
    assert f"The {dependency} service is unavailable" in text, text
    assert "Nothing was changed." in text
    for word in DRIVER_WORDS:
        assert word not in text, text


async def failed(call: Any) -> MCPError:
    with pytest.raises(MCPError) as error:
        await call
    return error.value


async def test_a_sqlite_file_removed_mid_run_is_unavailable_then_recovers(notes_src: Path, database: Path) -> None:
    env = {"NOTES_DB": str(database), "NOTES_REDIS_URL": "redis://127.0.0.1:1/0"}
    async with Client(stdio(notes_src, env)) as session:  # type: ignore[arg-type]
        ok = await session.call_tool("notes_get", {"id": 1})
        assert not ok.is_error and ok.structured_content == {"id": 1, "text": "Buy milk"}
        read = await session.read_resource("notes://1")
        (contents,) = read.contents
        assert isinstance(contents, TextResourceContents) and contents.text == "Buy milk"

        moved = database.with_suffix(".away")
        database.rename(moved)  # the file is gone mid-run
        gone = await session.call_tool("notes_get", {"id": 1})
        found = envelope(gone)
        assert (found["class"], found["changed"], found["retryable"]) == ("upstream_unavailable", "none", True)
        assert found["reference"].startswith("ERR-")
        check_text(gone.content[0].text, "db")  # type: ignore[union-attr]

        error = await failed(session.read_resource("notes://1"))
        assert error.error.code == -31503 and error.error.data["class"] == "upstream_unavailable"
        check_text(error.error.message, "db")

        # 3 failures in a row (a retried read counts two) opened the circuit: the prompt is refused at once
        error = await failed(session.get_prompt("summarize", {}))
        assert error.error.code == -31503
        assert "paused" in error.error.message
        check_text(error.error.message, "db")

        moved.rename(database)  # it returns; after reset_s one use is let through, and it closes the circuit
        time.sleep(1.1)
        back = await session.call_tool("notes_get", {"id": 1})
        assert not back.is_error and back.structured_content == {"id": 1, "text": "Buy milk"}
        prompt = await session.get_prompt("summarize", {})
        assert "Buy milk" in prompt.messages[0].content.text  # type: ignore[union-attr]


async def test_redis_stopped_mid_run_opens_the_breaker_and_recovers(notes_src: Path, database: Path) -> None:
    with running_redis() as redis:
        env = {"NOTES_DB": str(database), "NOTES_REDIS_URL": redis.url}
        subprocess.run(["redis-cli", "-p", str(redis.port), "SET", "notes_added", "7"], check=True, capture_output=True)
        async with Client(stdio(notes_src, env)) as session:  # type: ignore[arg-type]
            ok = await session.call_tool("notes_count", {})  # the lazy cache opens here
            assert ok.structured_content == {"added": 7}

            redis.process.kill()
            redis.process.wait(timeout=10)
            for _ in range(2):  # breaker: 2 failures in a row
                down = await session.call_tool("notes_count", {})
                found = envelope(down)
                assert (found["class"], found["changed"]) == ("upstream_unavailable", "none")
                check_text(down.content[0].text, "cache")
                assert "paused" not in down.content[0].text  # type: ignore[union-attr]
            started = time.monotonic()
            paused = await session.call_tool("notes_count", {})
            assert envelope(paused)["class"] == "upstream_unavailable"
            assert "paused" in paused.content[0].text  # type: ignore[union-attr]
            assert envelope(paused)["retry_after_s"] is not None
            assert time.monotonic() - started < 0.5, "an open circuit answers at once"

            with running_redis(port=redis.port) as again:
                subprocess.run(["redis-cli", "-p", str(again.port), "SET", "notes_added", "8"], check=True)
                time.sleep(1.1)
                back = await session.call_tool("notes_count", {})
                assert not back.is_error and back.structured_content == {"added": 8}

                # a use slower than the dependency's timeout_s (0.5 s) is a timeout, answered within it
                sleeper = subprocess.Popen(["redis-cli", "-p", str(again.port), "CLIENT", "PAUSE", "1500", "ALL"])
                try:
                    time.sleep(0.2)
                    started = time.monotonic()
                    slow = await session.call_tool("notes_count", {})
                    assert time.monotonic() - started < 1.2
                    found = envelope(slow)
                    assert (found["class"], found["changed"]) == ("timeout", "none")
                    assert "The cache service did not answer in time" in slow.content[0].text  # type: ignore[union-attr]
                finally:
                    sleeper.wait(timeout=10)


def test_a_dependency_that_cannot_open_stops_the_server_with_one_line(notes_src: Path, tmp_path: Path) -> None:
    missing = tmp_path / "nowhere.sqlite3"
    env = {**os.environ, "NOTES_DB": str(missing), "NOTES_REDIS_URL": "redis://127.0.0.1:1/0"}
    done = subprocess.run(
        [sys.executable, "-m", "notes_mcp"],
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        timeout=60,
        env={**env, "PYTHONPATH": str(notes_src)},
    )
    assert done.returncode == 2
    assert done.stdout == ""
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1, done.stderr
    line = json.loads(lines[0])
    assert line["event"] == "cannot start"
    assert line["reason"].startswith("dependency `db` could not be opened (OperationalError")
    assert "lazy: true" in line["reason"]
    assert not missing.exists(), "mode=rw: nothing was created"


async def test_a_lazy_dependency_that_is_down_lets_the_server_start_and_fails_its_first_use(
    notes_src: Path, database: Path
) -> None:
    env = {"NOTES_DB": str(database), "NOTES_REDIS_URL": "redis://127.0.0.1:1/0"}
    async with Client(stdio(notes_src, env)) as session:  # type: ignore[arg-type]
        down = await session.call_tool("notes_count", {})
        found = envelope(down)
        assert (found["class"], found["changed"], found["retryable"]) == ("upstream_unavailable", "none", True)
        check_text(down.content[0].text, "cache")  # type: ignore[union-attr]
        ok = await session.call_tool("notes_get", {"id": 1})
        assert not ok.is_error


def test_healthz_reports_each_dependency(notes_src: Path, database: Path, tmp_path: Path) -> None:
    env = {"NOTES_DB": str(database), "NOTES_REDIS_URL": "redis://127.0.0.1:1/0"}
    with http_server("notes_mcp", notes_src, tmp_path / "server.log", env) as running:
        health = httpx.get(f"http://127.0.0.1:{running.port}/healthz", timeout=10)
    assert health.status_code == 200
    assert health.json() == {"status": "ok", "dependencies": {"cache": "not_opened", "db": "ok"}}


PROBE = """\
from .._generated.tools.notes_get import Context


async def probe(ctx: Context) -> int:
    return await ctx.deps.db.run(lambda db: db)  # a Database, not an int: mypy must say so
"""


def test_the_generated_project_is_strictly_typed_and_deps_carry_the_type_open_returns(
    notes_src: Path, tmp_path: Path
) -> None:
    project = tmp_path / "copy"
    shutil.copytree(notes_src.parent, project)
    src = project / "src"
    lint = subprocess.run(
        [sys.executable, "-m", "ruff", "check", "src", "tests"], cwd=project, capture_output=True, text=True
    )
    assert lint.returncode == 0, lint.stdout
    (src / "notes_mcp" / "handlers" / "typing_probe.py").write_text(PROBE)
    checked = subprocess.run(
        [sys.executable, "-m", "mypy", "--strict", "--no-incremental", "src"],
        cwd=project,
        capture_output=True,
        text=True,
        env={**os.environ, "MYPYPATH": str(src)},
        timeout=600,
    )
    errors = [line for line in checked.stdout.splitlines() if ": error:" in line]
    assert errors, "mypy saw nothing wrong: ctx.deps.db is not typed as open() returns"
    assert all("typing_probe.py:5:" in line for line in errors), checked.stdout  # the rest is clean
    assert any('(got "Database", expected "int")' in line for line in errors), checked.stdout


@pytest.fixture(scope="module")
def eager_src(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The same project with its Redis `cache` opened at start (not lazy)."""
    root = tmp_path_factory.mktemp("eager-dependencies")
    spec = root / "notes.yaml"
    eager = SPEC.replace("    lazy: true\n", "")
    assert eager != SPEC
    spec.write_text(eager)
    new(root / "notes", spec)
    for relative, source in HANDLERS.items():
        (root / "notes" / "src" / "notes_mcp" / "handlers" / relative).write_text(source)
    return root / "notes" / "src"


async def test_a_redis_dependency_opened_at_start_or_the_server_stops_naming_it(
    eager_src: Path, database: Path, tmp_path: Path
) -> None:
    """A real redis-server as a dependency that is not lazy: down, the server stops before serving with one line
    naming `cache` (exit 2); up, it is opened before the first request (/healthz says ok before any use), answers,
    and stopped mid-run it answers upstream_unavailable in failwell's words."""
    with running_redis() as redis:
        url = redis.url
    down = subprocess.run(
        [sys.executable, "-m", "notes_mcp"],
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        timeout=60,
        env={**os.environ, "NOTES_DB": str(database), "NOTES_REDIS_URL": url, "PYTHONPATH": str(eager_src)},
    )
    assert down.returncode == 2 and down.stdout == "", down.stderr
    (line,) = down.stderr.strip().splitlines()
    assert json.loads(line)["reason"].startswith("dependency `cache` could not be opened (ConnectionError"), line

    with running_redis() as redis:
        env = {"NOTES_DB": str(database), "NOTES_REDIS_URL": redis.url}
        with http_server("notes_mcp", eager_src, tmp_path / "server.log", env) as running:
            health = httpx.get(f"http://127.0.0.1:{running.port}/healthz", timeout=10)
        assert health.json() == {"status": "ok", "dependencies": {"cache": "ok", "db": "ok"}}, "opened at start"
        subprocess.run(["redis-cli", "-p", str(redis.port), "SET", "notes_added", "3"], check=True, capture_output=True)
        async with Client(stdio(eager_src, env)) as session:  # type: ignore[arg-type]
            ok = await session.call_tool("notes_count", {})
            assert ok.structured_content == {"added": 3}
            redis.process.kill()
            redis.process.wait(timeout=10)
            down_now = await session.call_tool("notes_count", {})
            found = envelope(down_now)
            assert (found["class"], found["changed"], found["retryable"]) == ("upstream_unavailable", "none", True)
            check_text(down_now.content[0].text, "cache")  # type: ignore[union-attr]
