"""A generated project's own tests, run as its person runs them (issue 42, points 2 and 10).

A bookmarks server like a new user's (a SQLite file named by `--db-path`, an exports folder, an API URL, a
confirmed delete), its handlers written and the starter tests' xfail markers removed as they would be once the
handlers work: its `pytest` runs with HOME and TMPDIR pointing at empty folders, in order and in reverse order (by
explicit node ids), and must pass both ways writing nothing outside the project's own basetemp. And a spec-only
project whose dependency is still failwell's stub (its `errors:` naming a package not installed yet) gets its stdio
tests marked as expected failures naming the stub, not failures; once the dependency is written, they run."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from failwell import new

pytestmark = pytest.mark.slow

SPEC = """\
failwell: 1
server:
  name: bookmarks
  description: Keep bookmarks in a SQLite file.
  settings:
    db_path: {{type: string, flag: --db-path, required: true, description: The database., example: {db}}}
    exports_dir: {{type: string, flag: --exports-dir, required: true, description: The exports., example: {exports}}}
    api_url: {{type: string, flag: --api-url, default: "https://bookmarks.example.com/v1", description: The API.}}
dependencies:
  db:
    description: The database file named by --db-path, opened at start.
    timeout_s: 10
    errors:
      {errors}: upstream_unavailable
tools:
  add_bookmark:
    description: Add a bookmark.
    effect: write
    idempotency: required
    uses: [db]
    input:
      url: {{type: string, minLength: 1, maxLength: 2000, description: The URL., example: "https://example.com/a"}}
  get_bookmark:
    description: Read bookmark 1, which the database starts with.
    effect: read
    uses: [db]
    input:
      id: {{type: integer, minimum: 1, description: The id., example: 1}}
    failures:
      bookmark_missing:
        class: not_found
        message: "No bookmark {{id}}. Call add_bookmark to add one."
  delete_bookmark:
    description: Delete a bookmark.
    effect: destructive
    idempotency: required
    uses: [db]
    confirm:
      message: "Delete bookmark {{id}}?"
    input:
      id: {{type: integer, minimum: 1, description: The id., example: 1}}
  export_bookmarks:
    description: Write every bookmark into the exports folder.
    effect: write
    idempotency: optional
    uses: [db]
"""

HANDLERS = {
    "handlers/dependencies/db.py": """import sqlite3
from pathlib import Path

from ..._generated.settings import Settings


async def open(settings: Settings) -> sqlite3.Connection:
    Path(settings.db_path).parent.mkdir(parents=True, exist_ok=True)
    fresh = not Path(settings.db_path).exists()
    connection = sqlite3.connect(settings.db_path, check_same_thread=False, isolation_level=None)
    if fresh:  # a new database starts with one bookmark
        connection.execute("CREATE TABLE bookmarks (id INTEGER PRIMARY KEY, url TEXT)")
        connection.execute("INSERT INTO bookmarks VALUES (1, 'https://example.com/first')")
    return connection


async def close(value: sqlite3.Connection) -> None:
    value.close()
""",
    "handlers/add_bookmark.py": """from .._generated.tools.add_bookmark import Context, Input


async def handle(params: Input, ctx: Context) -> str:
    await ctx.deps.db.run(lambda db: db.execute("INSERT INTO bookmarks (url) VALUES (?)", (params.url,)))
    return "added"
""",
    "handlers/get_bookmark.py": """from .._generated.tools.get_bookmark import BookmarkMissing, Context, Input


async def handle(params: Input, ctx: Context) -> str:
    query = "SELECT url FROM bookmarks WHERE id = ?"
    row = await ctx.deps.db.run(lambda db: db.execute(query, (params.id,)).fetchone())
    if row is None:
        raise BookmarkMissing()
    return str(row[0])
""",
    "handlers/delete_bookmark.py": """from .._generated.tools.delete_bookmark import Context, Input


async def handle(params: Input, ctx: Context) -> str:
    await ctx.deps.db.run(lambda db: db.execute("DELETE FROM bookmarks WHERE id = ?", (params.id,)))
    return "deleted"
""",
    "handlers/export_bookmarks.py": """from pathlib import Path

from .._generated.tools.export_bookmarks import Context, Input


async def handle(params: Input, ctx: Context) -> str:
    folder = Path(ctx.settings.exports_dir)
    folder.mkdir(parents=True, exist_ok=True)
    rows = await ctx.deps.db.run(lambda db: db.execute("SELECT url FROM bookmarks").fetchall())
    (folder / "bookmarks.txt").write_text("\\n".join(row[0] for row in rows))
    return "exported"
""",
}


def project(root: Path, errors: str = "sqlite3.OperationalError") -> tuple[Path, Path]:
    """The bookmarks project, generated in `root`, and the folder its spec's example paths name (outside it)."""
    outside = root / "machine"
    spec = root / "spec.yaml"
    spec.write_text(SPEC.format(db=outside / "bookmarks.db", exports=outside / "exports", errors=errors))
    new(root / "bookmarks", spec)
    return root / "bookmarks", outside


def files(folder: Path) -> list[str]:
    return sorted(str(path.relative_to(folder)) for path in folder.rglob("*"))


def pytest_run(folder: Path, home: Path, temp: Path, *args: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "HOME": str(home), "TMPDIR": str(temp), "PYTHONPATH": "src"}
    env.pop("XDG_DATA_HOME", None)
    env.pop("MCP_STORE_PATH", None)
    command = [sys.executable, "-m", "pytest", "-q", "-rxX", "-p", "no:cacheprovider", *args]
    return subprocess.run(command, cwd=folder, env=env, capture_output=True, text=True, timeout=600)


def test_starter_tests_touch_nothing_outside_and_pass_in_any_order(tmp_path: Path) -> None:
    folder, outside = project(tmp_path)
    package = folder / "src" / "bookmarks_mcp"
    for path, source in HANDLERS.items():
        (package / path).write_text(source)
    for test in sorted((folder / "tests").glob("test_*.py")):  # the handlers work: the person removes the xfails
        text = test.read_text()
        test.write_text(re.sub(r"@pytest\.mark\.xfail\(.*\)\n", "", text))
    home, temp = tmp_path / "home", tmp_path / "tmp"
    home.mkdir()
    temp.mkdir()
    starters = sorted(folder.glob("tests/test_*.py"))
    ids = [f"{test.relative_to(folder)}::test_{test.stem[5:]}_answers" for test in starters]
    assert len(ids) == 4 and "tests/test_delete_bookmark.py::test_delete_bookmark_answers" in ids
    before = [name for name in files(folder) if "__pycache__" not in name]
    for order, run_ids in (("forward", ids), ("reversed", ids[::-1])):  # delete before get, and after
        basetemp = folder / f".basetemp-{order}"
        ran = pytest_run(folder, home, temp, f"--basetemp={basetemp}", *run_ids)
        assert ran.returncode == 0 and "4 passed" in ran.stdout, ran.stdout[-3000:] + ran.stderr[-2000:]
        assert files(home) == [] and files(temp) == [], f"written outside the project: {files(home) + files(temp)}"
        assert not outside.exists(), f"the spec's example paths were written: {files(outside)}"
        assert "db_path/bookmarks.db" in files(basetemp / "test_get_bookmark_answers0")
    after = [name for name in files(folder) if "__pycache__" not in name and not name.startswith(".basetemp-")]
    assert after == before, "the tests wrote into the project outside their basetemp"


def test_a_stub_dependency_marks_the_stdio_tests_as_expected_failures_naming_it(tmp_path: Path) -> None:
    folder, _ = project(tmp_path, errors="aiosqlite.OperationalError")  # its package comes with the written code
    ran = pytest_run(folder, tmp_path, tmp_path, "tests")
    assert ran.returncode == 0, ran.stdout[-4000:]
    assert not re.search(r"\d+ failed", ran.stdout) and "7 xfailed" in ran.stdout, ran.stdout[-4000:]  # 3 + 4 starters
    stdio = [line for line in ran.stdout.splitlines() if line.startswith("XFAIL tests/generated/test_stdio.py")]
    assert len(stdio) == 3, ran.stdout[-4000:]
    for line in stdio:
        assert "the db dependency is still failwell's stub (src/bookmarks_mcp/handlers/dependencies/db.py)" in line
        assert "aiosqlite.OperationalError" in line
    # Written (no longer the stub) with its package still missing, the server cannot start: the tests fail, loudly.
    (folder / "src" / "bookmarks_mcp" / "handlers" / "dependencies" / "db.py").write_text(
        HANDLERS["handlers/dependencies/db.py"]
    )
    again = pytest_run(folder, tmp_path, tmp_path, "tests/generated/test_stdio.py")
    assert again.returncode == 1 and "3 failed" in again.stdout, again.stdout[-4000:]
