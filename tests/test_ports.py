"""Servers shaped like six real, popular MCP servers (issue 26): the specs in tests/ports hold the 32 tools of
modelcontextprotocol/servers `fetch`, `git`, `time` and the archived `sqlite`, crystaldba/postgres-mcp and
upstash/context7, under the names and with the arguments the originals publish, configured by the originals' flags
and variables (`server.settings`) and reaching what they open at start through `dependencies:`.

Each port generates a project whose ruff, format check, mypy --strict and own generated tests pass. The sqlite port
is then written out in full (its handlers and its dependency, on the standard library's sqlite3) and run as the
original's client entry runs it (`--db-path PATH`) by the real `mcp` client: its dependency's `open` is given the
typed settings, a database that cannot be opened stops it with one line, and a file gone mid-run answers
upstream_unavailable in failwell's words."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from mcp import Client, StdioServerParameters
from mcp.shared.exceptions import MCPError
from ruamel.yaml import YAML

from conftest import REPO
from failwell import new
from failwell.render.pipeline import load_project

PORTS = REPO / "tests" / "ports"

ORIGINAL_TOOLS = {
    "fetch": ["fetch"],
    "git": [
        "git_status", "git_diff_unstaged", "git_diff_staged", "git_diff", "git_commit", "git_add", "git_reset",
        "git_log", "git_create_branch", "git_checkout", "git_show", "git_branch",
    ],
    "time": ["get_current_time", "convert_time"],
    "sqlite": ["read_query", "write_query", "create_table", "list_tables", "describe_table", "append_insight"],
    "postgres": [
        "list_schemas", "list_objects", "get_object_details", "explain_query", "execute_sql",
        "analyze_workload_indexes", "analyze_query_indexes", "analyze_db_health", "get_top_queries",
    ],
    "context7": ["resolve-library-id", "query-docs"],
}  # fmt: skip
"""Each original's tools, by the names its `tools/list` publishes (32 in all)."""

ORIGINAL_FLAGS = {
    "fetch": {"--user-agent", "--ignore-robots-txt", "--proxy-url"},
    "git": {"--repository"},
    "time": {"--local-timezone"},
    "sqlite": {"--db-path"},
    "postgres": {"--access-mode"},
    "context7": {"--api-key"},
}
"""The flags each original documents for its client entry (postgres-mcp's URL comes from DATABASE_URI)."""


def _spec(port: str) -> dict[str, Any]:
    data: dict[str, Any] = YAML(typ="safe").load((PORTS / f"{port}.yaml").read_text())
    return data


def test_the_six_ports_hold_the_originals_32_tools_flags_and_dependencies() -> None:
    assert sum(len(tools) for tools in ORIGINAL_TOOLS.values()) == 32
    for port, tools in ORIGINAL_TOOLS.items():
        spec = _spec(port)
        assert sorted(spec["tools"]) == sorted(tools), port
        settings = spec["server"].get("settings") or {}
        flags = {setting.get("flag", "--" + name.replace("_", "-")) for name, setting in settings.items()}
        assert ORIGINAL_FLAGS[port] <= flags, port
    assert _spec("postgres")["server"]["settings"]["database_uri"]["env"] == "DATABASE_URI"
    for port, dependency in (("git", "repo"), ("sqlite", "db"), ("postgres", "pool"), ("fetch", "web")):
        spec = _spec(port)
        assert list(spec["dependencies"]) == [dependency]
        users = [name for name, tool in spec["tools"].items() if dependency in (tool.get("uses") or ())]
        assert users == list(spec["tools"]), f"every {port} tool uses {dependency}"


def test_a_dependency_declared_open_world_makes_its_tools_publish_open_world() -> None:
    fetch = {tool.name: tool for tool in load_project((PORTS / "fetch.yaml").read_text(), "fetch.yaml").tools}
    assert '"openWorldHint": True' in fetch["fetch"].annotations, "web is declared open_world: true"
    closed = (PORTS / "fetch.yaml").read_text().replace("    open_world: true\n", "")
    fetch = {tool.name: tool for tool in load_project(closed, "fetch.yaml").tools}
    assert '"openWorldHint": False' in fetch["fetch"].annotations
    git = {tool.name: tool for tool in load_project((PORTS / "git.yaml").read_text(), "git.yaml").tools}
    assert all('"openWorldHint": False' in tool.annotations for tool in git.values()), "a local repository is closed"
    overridden = (PORTS / "fetch.yaml").read_text().replace("    uses: [web]\n    input:", "    uses: [web]\n"
                                                            "    open_world: false\n    input:")  # fmt: skip
    fetch = {tool.name: tool for tool in load_project(overridden, "fetch.yaml").tools}
    assert '"openWorldHint": False' in fetch["fetch"].annotations, "the tool's own open_world wins"


def run(command: list[str], cwd: Path, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(command, cwd=cwd, capture_output=True, text=True, timeout=900, env=env)


def _importable(module: str) -> bool:
    found = run([sys.executable, "-c", f"import {module}"], REPO)
    return found.returncode == 0


@pytest.mark.slow
@pytest.mark.parametrize("port", sorted(p.stem for p in PORTS.glob("*.yaml")))
def test_each_port_generates_a_project_that_passes_its_own_checks(tmp_path: Path, port: str) -> None:
    """ruff, ruff format --check, mypy --strict and the project's own generated tests. The postgres port's
    `errors:` name psycopg's exceptions: where psycopg is not installed, its server refuses to start with the one
    line saying so (what a project that forgot the driver meets), and that is what is checked instead."""
    new(tmp_path / port, PORTS / f"{port}.yaml")
    project = tmp_path / port
    for command in (["ruff", "check", "--no-cache", "."], ["ruff", "format", "--check", "--no-cache", "."]):
        checked = run([sys.executable, "-m", *command], project)
        assert checked.returncode == 0, checked.stdout[-3000:]
    checked = run([sys.executable, "-m", "mypy", "--no-incremental", "--cache-dir", os.devnull], project)
    assert checked.returncode == 0, checked.stdout[-3000:]
    env = {**os.environ, "PYTHONPATH": str(project / "src")}
    if port == "postgres" and not _importable("psycopg"):
        started = run([sys.executable, "-m", "postgres_mcp"], project, {**env, "DATABASE_URI": "postgresql://x"})
        assert started.returncode == 2 and started.stdout == "", started.stderr
        (line,) = started.stderr.splitlines()
        assert "the exception type psycopg.OperationalError in a dependency's `errors:` cannot be imported" in line
        return
    tested = run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "tests/generated"], project, env)
    assert tested.returncode == 0 and " passed" in tested.stdout, tested.stdout[-4000:]


# The sqlite port, written out ----------------------------------------------------------------------------------

SQLITE_HANDLERS = {
    "dependencies/db.py": '''\
"""The database file named by --db-path: created when missing, as the original does."""

import sqlite3
from pathlib import Path

from ..._generated.settings import Settings


async def open(settings: Settings) -> Path:
    """Check the file can be opened (and keep the memo's table in it); every use connects to it anew."""
    path = Path(settings.db_path)
    connection = sqlite3.connect(path)
    try:
        connection.execute("CREATE TABLE IF NOT EXISTS memo_insights (insight TEXT NOT NULL)")
        connection.commit()
    finally:
        connection.close()
    return path


async def close(value: Path) -> None:
    """Called once as the server stops: leaves a mark beside the file, which the test looks for."""
    value.with_name(value.name + ".closed").write_text("closed")
''',
    "sql.py": '''\
"""What the sqlite tools share: a connection to a file that must still exist, and a statement's rows."""

import sqlite3
from pathlib import Path
from typing import Any


def rows(path: Path, statement: str, parameters: tuple[Any, ...] = ()) -> list[dict[str, Any]]:
    """The rows `statement` gives, each as a dict; a file that is gone raises sqlite3.OperationalError."""
    connection = sqlite3.connect(f"file:{path}?mode=rw", uri=True)
    try:
        cursor = connection.execute(statement, parameters)
        names = [column[0] for column in cursor.description or ()]
        found = [dict(zip(names, row, strict=True)) for row in cursor.fetchall()]
        connection.commit()
        return found
    finally:
        connection.close()


def missing_table(error: sqlite3.OperationalError) -> str | None:
    """The table a "no such table" error names, else None (an outage: the dependency's errors map classifies it)."""
    said = str(error)
    return said.removeprefix("no such table: ") if said.startswith("no such table: ") else None
''',
    "read_query.py": """\
import json
import sqlite3
from pathlib import Path
from typing import Any

from .._generated.tools.read_query import Context, Input, NotASelect, TableMissing
from .sql import missing_table, rows


async def handle(params: Input, ctx: Context) -> str:
    keyword = params.query.split(None, 1)[0].upper()
    if keyword not in ("SELECT", "WITH"):
        raise NotASelect(keyword=keyword)

    def read(path: Path) -> list[dict[str, Any]] | str:
        try:
            return rows(path, params.query)
        except sqlite3.OperationalError as error:
            table = missing_table(error)
            if table is None:
                raise
            return table

    found = await ctx.deps.db.run(read)
    if isinstance(found, str):
        raise TableMissing(table=found)
    return json.dumps(found)
""",
    "write_query.py": """\
import sqlite3
from pathlib import Path

from .._generated.tools.write_query import ConstraintFailed, Context, Input, SelectNotAllowed
from .sql import rows


async def handle(params: Input, ctx: Context) -> str:
    keyword = params.query.split(None, 1)[0].upper()
    if keyword not in ("INSERT", "UPDATE", "DELETE"):
        raise SelectNotAllowed(keyword=keyword)

    def write(path: Path) -> tuple[str, str] | None:
        try:
            rows(path, params.query)
        except sqlite3.IntegrityError as error:  # "UNIQUE constraint failed: products.name"
            kind, _, where = str(error).partition(" constraint failed: ")
            return kind, where.split(".", 1)[0]
        return None

    broken = await ctx.deps.db.run(write)
    if broken is not None:
        raise ConstraintFailed(constraint=broken[0], table=broken[1])
    return "Done."
""",
    "create_table.py": """\
from pathlib import Path

from .._generated.tools.create_table import Context, Input, NotACreate, TableExists
from .sql import rows


async def handle(params: Input, ctx: Context) -> str:
    words = params.query.split(None, 3)
    if [word.upper() for word in words[:2]] != ["CREATE", "TABLE"] or len(words) < 3:
        raise NotACreate(keyword=words[0].upper())
    table = words[2].split("(", 1)[0]

    def create(path: Path) -> bool:
        if rows(path, "SELECT name FROM sqlite_master WHERE type = 'table' AND name = ?", (table,)):
            return False
        rows(path, params.query)
        return True

    if not await ctx.deps.db.run(create):
        raise TableExists(table=table)
    return f"Created {table}."
""",
    "list_tables.py": """\
from pathlib import Path

from .._generated.tools.list_tables import Context, Input
from .sql import rows


async def handle(params: Input, ctx: Context) -> str:
    def names(path: Path) -> list[str]:
        found = rows(path, "SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name")
        return [str(row["name"]) for row in found if row["name"] != "memo_insights"]

    return "\\n".join(await ctx.deps.db.run(names))
""",
    "describe_table.py": """\
import json
from pathlib import Path
from typing import Any

from .._generated.tools.describe_table import Context, Input, TableMissing
from .sql import rows


async def handle(params: Input, ctx: Context) -> str:
    def columns(path: Path) -> list[dict[str, Any]]:
        return rows(path, "SELECT name, type FROM pragma_table_info(?)", (params.table_name,))

    found = await ctx.deps.db.run(columns)
    if not found:
        raise TableMissing()
    return json.dumps(found)
""",
    "append_insight.py": """\
from pathlib import Path

from .._generated.tools.append_insight import Context, Input
from .sql import rows


async def handle(params: Input, ctx: Context) -> str:
    def append(path: Path) -> None:
        rows(path, "INSERT INTO memo_insights (insight) VALUES (?)", (params.insight,))

    await ctx.deps.db.run(append)
    return "Insight added to the memo."
""",
    "resources/insights.py": """\
from pathlib import Path

from ..._generated.resources.insights import Context, Output, Params
from ..sql import rows


async def handle(params: Params, ctx: Context) -> Output:
    def memo(path: Path) -> list[str]:
        return [str(row["insight"]) for row in rows(path, "SELECT insight FROM memo_insights ORDER BY rowid")]

    return "\\n".join(await ctx.deps.db.run(memo)) or "No insights yet."
""",
    "prompts/mcp_demo.py": """\
from ..._generated.prompts.mcp_demo import Context, Output, Params


async def handle(params: Params, ctx: Context) -> Output:
    return f"Seed a database about {params.topic} with create_table and write_query, then query it with read_query."
""",
}

PROBE = """\
from .._generated.tools.read_query import Context


async def probe(ctx: Context) -> int:
    return await ctx.deps.db.run(lambda path: path)  # a Path, not an int: mypy must say so


def flag(ctx: Context) -> int:
    return ctx.settings.db_path  # a str, not an int
"""


@pytest.fixture(scope="module")
def sqlite_port(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("sqlite-port")
    new(root / "sqlite", PORTS / "sqlite.yaml")
    handlers = root / "sqlite" / "src" / "sqlite_mcp" / "handlers"
    for relative, source in SQLITE_HANDLERS.items():
        (handlers / relative).write_text(source)
    return root / "sqlite"


def _params(project: Path, *args: str) -> StdioServerParameters:
    env = {
        "PATH": os.environ.get("PATH", ""),
        "PYTHONPATH": str(project / "src"),
        "FAILWELL_SQLITE_PATH": str(project / "store.sqlite3"),  # the idempotency store: here, not in the home
    }
    return StdioServerParameters(command=sys.executable, args=["-m", "sqlite_mcp", *args], env=env)


def _text(result: Any) -> str:
    return str(result.content[0].text)


@pytest.mark.slow
@pytest.mark.anyio
async def test_the_sqlite_port_runs_from_the_originals_client_entry(sqlite_port: Path, tmp_path: Path) -> None:
    database = tmp_path / "shop.db"
    entry = {"command": "mcp-server-sqlite", "args": ["--db-path", str(database)]}  # as written for the original
    async with Client(_params(sqlite_port, *entry["args"])) as client:
        assert database.is_file(), "open(settings) made the file --db-path names"
        created = await client.call_tool(
            "create_table", {"query": "CREATE TABLE products (id INTEGER PRIMARY KEY, name TEXT UNIQUE NOT NULL)"}
        )
        assert not created.is_error and _text(created) == "Created products.", _text(created)
        again = await client.call_tool("create_table", {"query": "CREATE TABLE products (id INTEGER)"})
        assert again.is_error and _text(again).startswith("A table named products exists already."), _text(again)
        key = "add-coffee-0001-aaaa"
        query = "INSERT INTO products (name) VALUES ('coffee')"
        written = await client.call_tool("write_query", {"query": query, "idempotency_key": key})
        assert not written.is_error, _text(written)
        replayed = await client.call_tool("write_query", {"query": query, "idempotency_key": key})
        assert not replayed.is_error, "the same key is answered from the store, not run twice"
        twice = await client.call_tool("write_query", {"query": query, "idempotency_key": "add-coffee-0002-bbbb"})
        assert twice.is_error and "breaks the UNIQUE constraint" in _text(twice), _text(twice)
        read = await client.call_tool("read_query", {"query": "SELECT name FROM products"})
        assert json.loads(_text(read)) == [{"name": "coffee"}]
        missing = await client.call_tool("read_query", {"query": "SELECT * FROM orders"})
        assert missing.is_error and _text(missing).startswith("The query names a table, orders, that does not")
        assert _text(await client.call_tool("list_tables", {})) == "products"
        described = await client.call_tool("describe_table", {"table_name": "products"})
        assert [column["name"] for column in json.loads(_text(described))] == ["id", "name"]
        added = await client.call_tool("append_insight", {"insight": "Coffee sells."})
        assert not added.is_error
        memo = await client.read_resource("memo://insights")
        assert memo.contents[0].text == "Coffee sells."  # type: ignore[union-attr]
        prompt = await client.get_prompt("mcp-demo", {"topic": "coffee"})
        assert "about coffee" in prompt.messages[0].content.text  # type: ignore[union-attr]

        database.rename(tmp_path / "away.db")  # the file is gone mid-run
        gone = await client.call_tool("read_query", {"query": "SELECT name FROM products"})
        envelope = (gone.meta or {})["dev.failwell/error"]
        assert gone.is_error and (envelope["class"], envelope["changed"]) == ("upstream_unavailable", "none")
        assert _text(gone).startswith("The db service is unavailable"), _text(gone)
        assert "unable to open" not in _text(gone) and str(tmp_path) not in _text(gone)
        with pytest.raises(MCPError) as error:
            await client.read_resource("memo://insights")
        assert error.value.error.code == -31503
    assert (tmp_path / "shop.db.closed").read_text() == "closed", "close(value) ran as the server stopped"


@pytest.mark.slow
def test_the_sqlite_port_that_cannot_open_its_database_stops_with_one_line(sqlite_port: Path, tmp_path: Path) -> None:
    env = {**os.environ, "PYTHONPATH": str(sqlite_port / "src")}
    started = run(
        [sys.executable, "-m", "sqlite_mcp", "--db-path", str(tmp_path / "no" / "such" / "x.db")], tmp_path, env
    )
    assert started.returncode == 2 and started.stdout == "", started.stderr
    (line,) = started.stderr.splitlines()
    assert json.loads(line)["reason"].startswith("dependency `db` could not be opened (OperationalError"), line
    missing = run([sys.executable, "-m", "sqlite_mcp"], tmp_path, env)
    assert missing.returncode == 2
    assert "setting db_path is missing: pass --db-path or set SQLITE_DB_PATH" in missing.stderr


@pytest.mark.slow
def test_the_written_sqlite_port_is_strictly_typed_and_open_gets_typed_settings(sqlite_port: Path) -> None:
    for command in (["ruff", "check", "--no-cache", "src"], ["ruff", "format", "--check", "--no-cache", "src"]):
        checked = run([sys.executable, "-m", *command], sqlite_port)
        assert checked.returncode == 0, checked.stdout[-3000:]
    mypy = [sys.executable, "-m", "mypy", "--strict", "--no-incremental", "--cache-dir", os.devnull, "src"]
    checked = run(mypy, sqlite_port)
    assert checked.returncode == 0, checked.stdout[-3000:]
    probe = sqlite_port / "src" / "sqlite_mcp" / "handlers" / "typing_probe.py"
    probe.write_text(PROBE)
    try:
        checked = run(mypy, sqlite_port)
    finally:
        probe.unlink()
    errors = [line for line in checked.stdout.splitlines() if ": error:" in line]
    assert errors and all("typing_probe.py" in line for line in errors), checked.stdout  # the rest is clean
    assert any("typing_probe.py:5:" in line and '(got "Path", expected "int")' in line for line in errors), errors
    assert any("typing_probe.py:9:" in line and '(got "str", expected "int")' in line for line in errors), errors


LONG_PATTERN = (
    "^(all|index|connection|vacuum|sequence|replication|buffer|constraint)(,(index|connection|vacuum|sequence))*$"
)
USER_AGENT = "ModelContextProtocol/1.0 (Autonomous; +https://github.com/modelcontextprotocol/servers)"
LONG_FIELDS: dict[str, dict[str, Any]] = {
    "with_default": {"type": "string", "pattern": LONG_PATTERN, "default": "all"},
    "required": {"type": "string", "pattern": LONG_PATTERN},
    "two_constraints": {"type": "string", "minLength": 1, "pattern": LONG_PATTERN, "default": "all"},
    "long_default": {"type": "string", "maxLength": 500, "default": USER_AGENT},
    "both_long": {"type": "string", "maxLength": 500, "pattern": LONG_PATTERN, "default": USER_AGENT},
    "optional_fits_in_parentheses": {
        "type": "string", "minLength": 1, "maxLength": 500, "pattern": "^[a-z]+(,[a-z]+)*$", "format": "uri",
        "required": False,
    },
    "optional": {"type": "string", "pattern": LONG_PATTERN, "required": False},
    "nullable": {"type": "string", "pattern": LONG_PATTERN, "nullable": True},
    "nullable_long_default": {"type": "string", "maxLength": 500, "nullable": True, "default": USER_AGENT},
    "ld": {
        "type": "array", "items": {"type": "string", "minLength": 1, "maxLength": 20000}, "minItems": 1,
        "maxItems": 10, "default": ["x"],
    },
    "empty_list_default": {
        "type": "array", "items": {"type": "string", "minLength": 1, "maxLength": 20000, "pattern": "^[a-z]+$"},
        "minItems": 1, "maxItems": 10, "default": [],
    },
    "list_default": {
        "type": "array", "items": {"type": "string", "minLength": 1, "maxLength": 20000}, "minItems": 1,
        "maxItems": 10, "default": ["x"],
    },
    # shapes the corpus of real servers brought (tests/roundtrip: brave-search, excel, firecrawl, mongodb)
    "country": {"type": "string", "enum": [f"C{n:02d}" for n in range(38)], "required": False},
    "chart_type": {"type": "string", "enum": [f"chart_kind_{n}" for n in range(16)]},
    "view": {
        "type": "object", "properties": {f"setting_{n}": {"type": "integer"} for n in range(7)},
        "default": {f"setting_{n}": n for n in range(7)}, "required": False,
    },
    "threadId": {"type": "string", "pattern": "^(" + "|".join(["[0-9a-f]{8}"] * 12) + ")$", "required": False},
    "appliedLimits": {
        "type": "array", "items": {"type": "string", "enum": [f"config.maxDocumentsPerQuery{n}" for n in range(3)]},
    },
}  # fmt: skip
"""Model fields longer than a line (the postgres port's health_type, the fetch port's user_agent setting, and the
shapes real servers' listings bring: long `Literal[...]` unions, a many-item default, an aliased `Annotated[...]`)."""


def test_long_model_fields_are_laid_out_as_ruff_formats_them(tmp_path: Path) -> None:
    from failwell.spec.fields import models

    model = next(model for model in models("Input", LONG_FIELDS) if model.name == "Input")
    lines = ["class Input(BaseModel):"]
    for member in model.fields:
        default = f" = {member.default}" if member.default is not None else ""
        lines.append(member.line or f"    {member.name}: {member.annotation}{default}")
    source = tmp_path / "fields.py"
    source.write_text("\n".join(lines) + "\n")
    checked = run(
        [sys.executable, "-m", "ruff", "format", "--line-length", "120", "--no-cache", "--diff", str(source)], tmp_path
    )
    assert checked.returncode == 0, checked.stdout
    assert max(len(line) for line in lines) > 120, "the cases are long"
