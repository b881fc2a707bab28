"""Issue 40 point 6: `rate_limit: {calls: "{settings.x}" | N, per_s: N, per: ARGUMENT}`, as a client meets it: a
generated server in a real subprocess over stdio, driven by the real `mcp` client. The budget is read from a
setting given as a flag (`--search-rpm`, as the original server takes it), and a fetch tool's budget is per host
of its `format: uri` argument (lower-cased, port included). The stores keep at most MAX_BUCKETS buckets, the
longest unused forgotten first (checked on the generated project's real memory and SQLite stores)."""

from __future__ import annotations

import importlib
import os
import sqlite3
import sys
from contextlib import closing
from pathlib import Path
from typing import Any

import pytest
from mcp import Client, StdioServerParameters
from mcp.types import CallToolResult

from failwell import FailwellError, new, validate

pytestmark = [pytest.mark.anyio]

SPEC = """\
failwell: 1
server:
  name: finder
  version: 0.1.0
  description: Searches and fetches pages.
  store: memory
  settings:
    search_rpm: {type: integer, minimum: 1, description: Searches allowed per hour.}
tools:
  search:
    description: Search the pages for a query, such as release notes.
    effect: read
    rate_limit: {calls: "{settings.search_rpm}", per_s: 3600}
    input:
      query: {type: string, minLength: 1, description: The words to look for., example: release notes}
    output:
      hits: {type: integer, description: How many pages match.}
  fetch:
    description: Fetch one page by its URL, such as https://example.com/.
    effect: read
    rate_limit: {calls: 2, per_s: 3600, per: url}
    input:
      url: {type: string, format: uri, description: The page's address., example: "https://example.com/"}
    output:
      size: {type: integer, description: The page's length.}
  lookup:
    description: Look up one word in a dictionary, such as apple.
    effect: read
    rate_limit: {calls: 1, per_s: 3600, per: word}
    input:
      word: {type: string, minLength: 1, description: The word., example: apple}
    output:
      found: {type: boolean, description: Whether it is there.}
"""

HANDLERS = {
    "search.py": """\
from .._generated.tools.search import Context, Input, Output


async def handle(params: Input, ctx: Context) -> Output:
    return Output(hits=len(params.query))
""",
    "fetch.py": """\
from .._generated.tools.fetch import Context, Input, Output


async def handle(params: Input, ctx: Context) -> Output:
    return Output(size=len(params.url))
""",
    "lookup.py": """\
from .._generated.tools.lookup import Context, Input, Output


async def handle(params: Input, ctx: Context) -> Output:
    return Output(found=True)
""",
}


@pytest.fixture(scope="module")
def finder(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("finder")
    spec = root / "finder.yaml"
    spec.write_text(SPEC)
    project = root / "finder"
    new(project, spec)
    for relative, source in HANDLERS.items():
        (project / "src" / "finder_mcp" / "handlers" / relative).write_text(source)
    return project


def stdio(project: Path, *flags: str) -> StdioServerParameters:
    env = {**os.environ, "PYTHONPATH": str(project / "src")}
    env.pop("FINDER_SEARCH_RPM", None)
    return StdioServerParameters(command=sys.executable, args=["-m", "finder_mcp", *flags], env=env)


def refused(result: CallToolResult) -> str:
    assert result.is_error, result
    assert (result.meta or {})["dev.failwell/error"]["class"] == "rate_limited"
    return "".join(getattr(block, "text", "") for block in result.content)


async def test_the_budget_comes_from_a_setting(finder: Path) -> None:
    async with Client(stdio(finder, "--search-rpm", "2")) as client:
        for query in ("a", "b"):
            assert not (await client.call_tool("search", {"query": query})).is_error
        said = refused(await client.call_tool("search", {"query": "c"}))
        assert "It allows 2 calls every 3600 s." in said, said
    async with Client(stdio(finder, "--search-rpm", "3")) as client:
        for query in ("a", "b", "c"):
            assert not (await client.call_tool("search", {"query": query})).is_error
        assert "It allows 3 calls" in refused(await client.call_tool("search", {"query": "d"}))


async def test_an_unset_setting_sets_no_limit(finder: Path) -> None:
    async with Client(stdio(finder)) as client:
        for index in range(5):
            assert not (await client.call_tool("search", {"query": f"q{index}"})).is_error


async def test_one_budget_per_host_lowercased_port_included(finder: Path) -> None:
    async with Client(stdio(finder, "--search-rpm", "1")) as client:
        for url in ("https://Example.com/a", "https://example.com/b?x=1"):
            assert not (await client.call_tool("fetch", {"url": url})).is_error
        said = refused(await client.call_tool("fetch", {"url": "https://EXAMPLE.COM/c"}))
        assert "It allows 2 calls every 3600 s for each host." in said, said
        assert "example" not in said.lower()
        for url in ("https://example.com:8443/", "https://other.org/", "http://user@[::1]:80/"):
            assert not (await client.call_tool("fetch", {"url": url})).is_error, url
        assert refused(await client.call_tool("fetch", {"url": "https://example.com/d"}))


async def test_one_budget_per_value_of_a_plain_argument(finder: Path) -> None:
    async with Client(stdio(finder, "--search-rpm", "1")) as client:
        assert not (await client.call_tool("lookup", {"word": "apple"})).is_error
        assert not (await client.call_tool("lookup", {"word": "pear"})).is_error
        said = refused(await client.call_tool("lookup", {"word": "apple"}))
        assert "It allows 1 calls every 3600 s for each value of word." in said, said


def runtime(project: Path, module: str) -> Any:
    sys.path.insert(0, str(project / "src"))
    try:
        return importlib.import_module(f"finder_mcp._generated.runtime.{module}")
    finally:
        sys.path.remove(str(project / "src"))


async def test_the_stores_keep_at_most_max_buckets_the_longest_unused_forgotten(
    finder: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    contracts = runtime(finder, "calls.contracts")
    limit = contracts.RateLimit(calls=1, per_s=3600, per="url", per_host=True)
    store_memory, store_sqlite = runtime(finder, "stores.store_memory"), runtime(finder, "stores.store_sqlite")
    monkeypatch.setattr(store_memory, "MAX_BUCKETS", 20)
    monkeypatch.setattr(store_sqlite, "MAX_BUCKETS", 20)
    sqlite = store_sqlite.SQLiteStore(tmp_path / "limits.sqlite3")
    for store in (store_memory.MemoryStore(), sqlite):
        assert await store.take_all([("host-0", limit)]) == [0.0]
        assert (await store.take_all([("host-0", limit)]))[0] > 0  # its one token is taken
        for index in range(1, 40):
            assert await store.take_all([(f"host-{index}", limit)]) == [0.0]
        assert (await store.take_all([("host-39", limit)]))[0] > 0, "the newest buckets are kept"
        assert await store.take_all([("host-0", limit)]) == [0.0], "the oldest was forgotten: it starts full"
    with closing(sqlite3.connect(tmp_path / "limits.sqlite3")) as db:
        assert db.execute("SELECT count(*) FROM buckets").fetchone()[0] <= 20


def test_a_calls_setting_must_be_a_declared_integer_and_per_an_argument(tmp_path: Path) -> None:
    spec = tmp_path / "failwell.yaml"
    spec.write_text(
        SPEC.replace('"{settings.search_rpm}"', '"{settings.search_rate}"')
        .replace("per: word}", "per: words}")
        .replace("  store: memory\n", "  store: memory\n  rate_limit: {calls: 100, per_s: 60, per: url}\n")
    )
    with pytest.raises(FailwellError) as refused_spec:
        validate(spec)
    said = sorted((d.code, d.line) for d in refused_spec.value.diagnostics)
    assert said == [("FW166", 14), ("FW167", 7), ("FW167", 30)], refused_spec.value.diagnostics
    spec.write_text(SPEC.replace("search_rpm: {type: integer, minimum: 1,", "search_rpm: {type: string,"))
    with pytest.raises(FailwellError) as not_integer:
        validate(spec)
    assert [d.code for d in not_integer.value.diagnostics] == ["FW166"]
