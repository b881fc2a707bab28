"""A dependency's `errors:` entries chosen by the exception's text, its module's `classify(exc)`, builtins named
bare, and the driver's exception kept as the `__cause__` of the failure a handler catches (issue 40 point 7).

The regression from the issue: one driver type, sqlite3.OperationalError, covers "unable to open database file"
(an outage) and "no such table" (a bad query). Mapped whole to upstream_unavailable, three typos opened the
circuit breaker and locked out a valid query. A generated server in a real subprocess over stdio, driven by the
real `mcp` client, on a real SQLite file."""

from __future__ import annotations

import os
import sqlite3
import sys
from pathlib import Path
from typing import Any

import pytest
from mcp import Client, StdioServerParameters
from mcp.types import CallToolResult

from failwell import FailwellError, new, validate

pytestmark = [pytest.mark.anyio, pytest.mark.slow]

SPEC = """\
failwell: 1
server:
  name: rows
  version: 0.1.0
  description: Counts the rows of a SQLite file's tables.
dependencies:
  db:
    description: The SQLite file.
    timeout_s: 2
    breaker: {failures: 3, reset_s: 600}
    errors:
      sqlite3.OperationalError:
        - {class: upstream_unavailable, when: "unable to open|disk I/O"}
        - {class: invalid_input, when: "no such (table|column)|syntax error"}
      PermissionError: permission_denied
  files:
    description: The folder of exported files.
    timeout_s: 2
    breaker: {failures: 3, reset_s: 600}
tools:
  rows_count:
    description: Count the rows of one table, such as notes.
    effect: read
    deadline_s: 5
    uses: [db]
    input:
      table: {type: string, pattern: "^[a-z_]+$", description: The table's name., example: notes}
    output:
      rows: {type: integer, description: How many rows it holds.}
  rows_cause:
    description: Say which driver exception a failed count of one table had, such as notes.
    effect: read
    deadline_s: 5
    uses: [db]
    input:
      table: {type: string, pattern: "^[a-z_]+$", description: The table's name., example: notes}
    output:
      cause: {type: string, description: The driver exception's type.}
  files_read:
    description: Read one exported file by its name, such as notes.txt.
    effect: read
    deadline_s: 5
    uses: [files]
    input:
      name: {type: string, pattern: "^[a-z_.]+$", description: The file's name., example: notes.txt}
    output:
      text: {type: string, description: Its text.}
"""

HANDLERS = {
    "dependencies/db.py": """\
import os
import sqlite3


async def open() -> str:
    return os.environ["ROWS_DB"]


def count(path: str, table: str) -> int:
    if table == "locked_out":
        raise PermissionError("the file is not readable")
    # mode=rw: a file that is gone is an error, never a new empty database
    with sqlite3.connect(f"file:{path}?mode=rw", uri=True) as connection:
        return int(connection.execute(f'SELECT count(*) FROM "{table}"').fetchone()[0])
""",
    "dependencies/files.py": """\
import os
from pathlib import Path


async def open() -> Path:
    return Path(os.environ["ROWS_FILES"])


def classify(exc: Exception) -> str | None:
    if isinstance(exc, FileNotFoundError):
        return "not_found"
    if isinstance(exc, IsADirectoryError):
        return None
    return None
""",
    "rows_count.py": """\
from .._generated.tools.rows_count import Context, Input, Output
from .dependencies.db import count


async def handle(params: Input, ctx: Context) -> Output:
    return Output(rows=await ctx.deps.db.run(lambda path: count(path, params.table)))
""",
    "rows_cause.py": """\
from .._generated.runtime.upstreams.dependency import DependencyError
from .._generated.tools.rows_cause import Context, Input, Output
from .dependencies.db import count


async def handle(params: Input, ctx: Context) -> Output:
    try:
        await ctx.deps.db.run(lambda path: count(path, params.table))
    except DependencyError as failure:
        cause = failure.__cause__
        return Output(cause=f"{failure.failure_class} {type(cause).__module__}.{type(cause).__name__}")
    return Output(cause="none")
""",
    "files_read.py": """\
from .._generated.tools.files_read import Context, Input, Output


async def handle(params: Input, ctx: Context) -> Output:
    return Output(text=await ctx.deps.files.run(lambda folder: (folder / params.name).read_text()))
""",
}


@pytest.fixture(scope="module")
def rows_src(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("dependency_errors")
    spec = root / "rows.yaml"
    spec.write_text(SPEC)
    project = root / "rows"
    new(project, spec)
    for relative, source in HANDLERS.items():
        (project / "src" / "rows_mcp" / "handlers" / relative).write_text(source)
    return project / "src"


@pytest.fixture
def database(tmp_path: Path) -> Path:
    path = tmp_path / "rows.sqlite3"
    with sqlite3.connect(path) as connection:
        connection.execute("CREATE TABLE notes (id INTEGER PRIMARY KEY, text TEXT NOT NULL)")
        connection.execute("INSERT INTO notes (text) VALUES ('Buy milk'), ('Call Ada')")
    connection.close()
    return path


def stdio(src: Path, database: Path, files: Path) -> StdioServerParameters:
    env = {"ROWS_DB": str(database), "ROWS_FILES": str(files), "PYTHONPATH": str(src)}
    return StdioServerParameters(command=sys.executable, args=["-m", "rows_mcp"], env={**os.environ, **env})


def envelope(result: CallToolResult) -> dict[str, Any]:
    assert result.is_error, result
    data: dict[str, Any] = (result.meta or {})["dev.failwell/error"]
    return data


def text(result: CallToolResult) -> str:
    return "".join(getattr(block, "text", "") for block in result.content)


async def test_three_typos_do_not_open_the_breaker_nor_lock_out_a_valid_query(
    rows_src: Path, database: Path, tmp_path: Path
) -> None:
    async with Client(stdio(rows_src, database, tmp_path)) as client:
        for typo in ("nots", "notse", "ntoes"):
            refused = await client.call_tool("rows_count", {"table": typo})
            assert envelope(refused)["class"] == "invalid_input", text(refused)
            assert "no such table" not in text(refused) and typo not in text(refused).split("rejected")[0]
        valid = await client.call_tool("rows_count", {"table": "notes"})
        assert not valid.is_error, text(valid)
        assert valid.structured_content == {"rows": 2}


async def test_an_unopenable_file_is_upstream_unavailable_and_opens_the_breaker(rows_src: Path, tmp_path: Path) -> None:
    missing = tmp_path / "gone.sqlite3"
    async with Client(stdio(rows_src, missing, tmp_path)) as client:
        for _ in range(3):
            failed = await client.call_tool("rows_count", {"table": "notes"})
            assert envelope(failed)["class"] == "upstream_unavailable", text(failed)
            assert "unable to open" not in text(failed)
        paused = await client.call_tool("rows_count", {"table": "notes"})
        assert envelope(paused)["class"] == "upstream_unavailable"
        assert "failed several times" in text(paused) or envelope(paused)["retry_after_s"] is not None


async def test_a_builtin_named_bare_and_the_cause_kept(rows_src: Path, database: Path, tmp_path: Path) -> None:
    async with Client(stdio(rows_src, database, tmp_path)) as client:
        refused = await client.call_tool("rows_count", {"table": "locked_out"})
        assert envelope(refused)["class"] == "permission_denied", text(refused)
        assert "not readable" not in text(refused)
        caught = await client.call_tool("rows_cause", {"table": "nots"})
        assert caught.structured_content == {"cause": "invalid_input sqlite3.OperationalError"}
        caught = await client.call_tool("rows_cause", {"table": "locked_out"})
        assert caught.structured_content == {"cause": "permission_denied builtins.PermissionError"}


async def test_classify_decides_first_and_none_leaves_it_to_the_handler(rows_src: Path, tmp_path: Path) -> None:
    (tmp_path / "notes.txt").write_text("Buy milk")
    (tmp_path / "sub.txt").mkdir()
    async with Client(stdio(rows_src, tmp_path / "unused.sqlite3", tmp_path)) as client:
        found = await client.call_tool("files_read", {"name": "notes.txt"})
        assert found.structured_content == {"text": "Buy milk"}
        missing = await client.call_tool("files_read", {"name": "gone.txt"})
        assert envelope(missing)["class"] == "not_found", text(missing)
        unclaimed = await client.call_tool("files_read", {"name": "sub.txt"})
        assert envelope(unclaimed)["class"] == "internal", text(unclaimed)


def test_a_bare_name_that_is_not_a_builtin_and_a_when_that_cannot_run_are_refused(tmp_path: Path) -> None:
    spec = tmp_path / "failwell.yaml"
    spec.write_text(
        SPEC.replace("PermissionError: permission_denied", "OperationalError: permission_denied").replace(
            '"no such (table|column)|syntax error"', '"(?<=no such )table"'
        )
    )
    with pytest.raises(FailwellError) as refused:
        validate(spec)
    said = {(d.code, d.line) for d in refused.value.diagnostics}
    assert said == {("FW168", 15), ("FW142", 14)}, refused.value.diagnostics
