"""The wording lint on real domains (issue 25.6): seven specs written as ports of real, popular MCP servers
(modelcontextprotocol/servers fetch, git, time, filesystem and the archived sqlite; crystaldba/postgres-mcp;
upstash/context7) pass `failwell validate --strict` with the words such servers need (SQL keywords in a
message about SQL, library ids such as /vercel/next.js, time zones, conflicts caused by the server's own
state), while the mistakes each rule exists for are still caught in the same specs."""

from __future__ import annotations

from pathlib import Path

import pytest
from ruamel.yaml import YAML

from conftest import REPO, failwell
from failwell.render.pipeline import diagnose

PORTS = REPO / "tests" / "ports"
NAMES = ("fetch", "git", "time", "sqlite", "postgres", "context7", "filesystem")


def _problems(spec: Path | str, text: str | None = None) -> list[tuple[str, str]]:
    raw = text if text is not None else Path(spec).read_text()
    return [(d.code, d.message) for d in diagnose(raw, "spec.yaml")]


def _with_message(port: str, owner: str, failure: str, message: str) -> str:
    """The port's spec with one declared failure's message replaced (the rest untouched)."""
    yaml = YAML()
    data = yaml.load((PORTS / f"{port}.yaml").read_text())
    data["tools"][owner]["failures"][failure]["message"] = message
    from io import StringIO

    out = StringIO()
    yaml.dump(data, out)
    return out.getvalue()


def test_every_port_is_one_of_the_seven() -> None:
    assert sorted(p.stem for p in PORTS.glob("*.yaml")) == sorted(NAMES)


@pytest.mark.parametrize("port", NAMES)
def test_real_wording_passes_strict(port: str) -> None:
    assert _problems(PORTS / f"{port}.yaml") == []
    result = failwell("validate", "--strict", str(PORTS / f"{port}.yaml"))
    assert result.returncode == 0, result.stdout + result.stderr


DOMAIN_WORDS = [
    # SQL keywords named in a message about SQL, with `from` later in the sentence
    (
        "sqlite",
        "read_query",
        "not_a_select",
        "The query starts with {keyword}; only SELECT is accepted. Remove INSERT, UPDATE and DELETE from the query, "
        "or call write_query.",
    ),
    (
        "postgres",
        "execute_sql",
        "write_in_restricted_mode",
        "Restricted mode: only SELECT, EXPLAIN and SHOW run. Ask the user to allow writes, or select rows from a view.",
    ),
    # slash-separated names of a domain: library ids, time zones
    (
        "context7",
        "query-docs",
        "library_missing",
        "No library has the id {libraryId}. Ids look like /vercel/next.js/v14.3.0 or /mongodb/docs; "
        "call resolve-library-id.",
    ),
    (
        "time",
        "get_current_time",
        "unknown_timezone",
        "{timezone} is not a zone this server knows. Use a name such as America/Argentina/Buenos_Aires.",
    ),
    # a conflict caused by the server's state: there is no argument to show
    (
        "git",
        "git_commit",
        "merge_in_progress",
        "The repository is locked by another git process. Wait for it to end, then call git_commit again.",
    ),
]


@pytest.mark.parametrize(("port", "tool", "failure", "message"), DOMAIN_WORDS)
def test_domain_words_pass(port: str, tool: str, failure: str, message: str) -> None:
    assert _problems(PORTS / f"{port}.yaml", _with_message(port, tool, failure, message)) == []


MISTAKES = [
    (
        "sqlite",
        "read_query",
        "table_missing",
        "Query failed: SELECT * FROM {table} WHERE id = 1. Call list_tables.",
        "FW204",
    ),
    (
        "sqlite",
        "write_query",
        "constraint_failed",
        "INSERT INTO products broke {constraint} on {table}. Call describe_table to see the rules.",
        "FW204",
    ),
    (
        "sqlite",
        "describe_table",
        "table_missing",
        "select name from sqlite_master found no {table_name}. Call list_tables to see the tables.",
        "FW204",
    ),
    (
        "postgres",
        "list_objects",
        "schema_missing",
        "No schema {schema_name} under /var/lib/postgresql/data. Names look like public; call list_schemas.",
        "FW204",
    ),
    (
        "context7",
        "query-docs",
        "library_missing",
        "No library {libraryId} in ~/.cache/context7/index. Ids look like /vercel/next.js; call resolve-library-id.",
        "FW204",
    ),
    (
        "context7",
        "query-docs",
        "library_missing",
        "No library {libraryId} in /srv/context7/libraries.json. Ids look like /vercel/next.js; call "
        "resolve_library_id.",
        "FW204",
    ),
    (
        "fetch",
        "fetch",
        "page_missing",
        "The proxy http://10.0.0.5:3128 got HTTP {status} for {url}. Fetch a page such as the home page.",
        "FW204",
    ),
    (
        "fetch",
        "fetch",
        "page_missing",
        "cache-3.prod.internal answered HTTP {status} for {url}. Fetch a page such as the home page.",
        "FW204",
    ),
    (
        "git",
        "git_status",
        "not_a_repository",
        "Traceback: InvalidGitRepositoryError for {repo_path}. Pass a folder such as the project's top folder.",
        "FW204",
    ),
    # a conflict that shows neither a value nor the state that caused it
    ("git", "git_commit", "nothing_staged", "The commit cannot be made. Call git_status and try again.", "FW202"),
    # the sentences the runtime appends, repeated by the author
    (
        "git",
        "git_commit",
        "nothing_staged",
        "There is nothing to commit: no change is staged. Nothing was changed. Stage files with git_add first.",
        "FW208",
    ),
    (
        "git",
        "git_checkout",
        "uncommitted_changes",
        "The working tree has uncommitted changes. No changes were made. Commit them with git_commit.",
        "FW208",
    ),
    (
        "time",
        "convert_time",
        "impossible_time",
        "{time} is not a valid time of day. Pass a time such as 09:05. Retrying the same call will not help.",
        "FW208",
    ),
]


@pytest.mark.parametrize(("port", "tool", "failure", "message", "code"), MISTAKES)
def test_real_mistakes_are_still_caught(port: str, tool: str, failure: str, message: str, code: str) -> None:
    found = _problems(PORTS / f"{port}.yaml", _with_message(port, tool, failure, message))
    assert code in {c for c, _ in found}, found


def test_fw208_says_what_to_remove() -> None:
    text = _with_message("git", "git_commit", "nothing_staged", MISTAKES[-3][3])
    [message] = [m for c, m in _problems("", text) if c == "FW208"]
    assert message.startswith("git_commit.nothing_staged: says whether anything changed")
    assert "remove that sentence" in message
