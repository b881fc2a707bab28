"""Settings as real command lines take them (issue 40, point 5): a generated project run as a real subprocess,
read by the real `mcp` client over stdio and streamable HTTP, takes `type: array` (a repeated flag; a comma list in
its variable, `\\,` for a comma inside an item), `type: json` (checked by its `schema:`, a refusal naming the path),
`positional: 1` and `positional: rest` (`server DATABASE_URL DIR...`), `flag_value: false` (`--no-ssl-verify`),
`conflicts` (a start-up refusal naming both), and `server.transport_flags` (`--transport sse --sse-port N`, a client
entry written for the original starting the port unchanged, while a setting keeps `--port` for itself). `failwell
validate` refuses what cannot be built (FW194, FW190) at FILE:LINE:COL."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from httpserver import client, free_port, wait_for_port
from mcp import Client, StdioServerParameters
from mcp.client.stdio import stdio_client
from ruamel.yaml import YAML

from conftest import REPO, failwell

pytestmark = pytest.mark.slow

SPEC = """\
failwell: 1
server:
  name: kinds
  description: A server configured the way real command lines are.
  transport_flags:
    http: [--transport sse, --transport streamable-http]
    host: --sse-host
    port: --sse-port
  settings:
    database_url: {type: string, positional: 1, required: true, description: The database., example: "postgresql://h/db"}
    dirs: {type: array, items: {type: string}, positional: rest, flag: --dir, description: Folders it may read.}
    counts: {type: array, items: {type: integer}, description: Some numbers.}
    filters:
      type: json
      description: Filters.
      schema: {type: object, properties: {limit: {type: integer, maximum: 10}}, additionalProperties: false}
    ssl_verify: {type: boolean, default: true, flag_value: false, description: Check TLS certificates.}
    read_only: {type: boolean, default: false, description: Refuse writes.}
    allow_writes: {type: boolean, default: false, description: Allow writes.}
    port: {type: integer, default: 5432, description: The database port.}
    conflicts: [[read_only, allow_writes]]
tools:
  info:
    description: "Settings of {settings.database_url}."
    effect: read
    input:
      detail: {type: boolean, default: false, description: "More detail on {settings.dirs} and {settings.filters}."}
    output:
      database_url: {type: string}
      dirs: {type: array, items: {type: string}}
      counts: {type: array, items: {type: integer}}
      limit: {type: integer, required: false}
      ssl_verify: {type: boolean}
      port: {type: integer}
"""

HANDLER = '''"""`info`: the settings."""

from .._generated.tools.info import Context, Input, Output


async def handle(params: Input, ctx: Context) -> Output:
    """The settings as the server read them."""
    settings = ctx.settings
    limit = settings.filters.get("limit") if settings.filters is not None else None
    return Output(
        database_url=settings.database_url,
        dirs=settings.dirs or [],
        counts=settings.counts or [],
        limit=limit,
        ssl_verify=settings.ssl_verify,
        port=settings.port,
    )
'''

WHERE = '; a client entry passes flags in its "args" and variables in its "env"'


@pytest.fixture(scope="module")
def project(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("kinds")
    (root / "spec.yaml").write_text(SPEC)
    created = failwell("new", str(root / "kinds"), "--spec", str(root / "spec.yaml"))
    assert created.returncode == 0, created.stdout + created.stderr
    (root / "kinds" / "src" / "kinds_mcp" / "handlers" / "info.py").write_text(HANDLER)
    return root / "kinds"


def _env(project: Path, env: dict[str, str] | None = None) -> dict[str, str]:
    base = {k: v for k, v in os.environ.items() if not k.startswith(("KINDS_", "MCP_"))}
    return {**base, "PYTHONPATH": str(project / "src"), **(env or {})}


def start(project: Path, *args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "kinds_mcp", *args],
        input="",
        capture_output=True,
        text=True,
        timeout=60,
        env=_env(project, env),
    )


def refused(ran: subprocess.CompletedProcess[str]) -> str:
    """The one line a server that would not start writes: exit 2, nothing on stdout."""
    assert ran.returncode == 2, ran.stderr
    assert ran.stdout == ""
    lines = ran.stderr.splitlines()
    assert len(lines) == 1, ran.stderr
    line = json.loads(lines[0])
    assert line["event"] == "cannot start"
    return str(line["reason"])


async def info(project: Path, *args: str, env: dict[str, str] | None = None) -> dict[str, Any]:
    """The `info` tool's structured result, the server started over stdio with `args` and `env`."""
    params = StdioServerParameters(command=sys.executable, args=["-m", "kinds_mcp", *args], env=_env(project, env))
    with (project.parent / "stderr.log").open("w") as err:
        async with Client(stdio_client(params, errlog=err)) as session:
            result = await session.call_tool("info", {})
    assert not result.is_error, result
    assert isinstance(result.structured_content, dict)
    return result.structured_content


@pytest.mark.anyio
async def test_positional_arguments_and_a_repeated_flag(project: Path) -> None:
    """`server DATABASE_URL DIR...`: the first argument, then every remaining one; a flag between them is read as
    a flag (`--counts 1 --counts 2`), and a repeated flag's values each whole, a comma kept."""
    seen = await info(project, "postgresql://h/db", "/srv/a", "--counts", "1", "/srv/b,c", "--counts=2")
    assert seen == {
        "database_url": "postgresql://h/db",
        "dirs": ["/srv/a", "/srv/b,c"],
        "counts": [1, 2],
        "ssl_verify": True,
        "port": 5432,
    }
    flagged = await info(project, "postgresql://h/db", "--dir", "/x", "--dir", "/y")
    assert flagged["dirs"] == ["/x", "/y"], "the rest setting's own flag, repeated"


@pytest.mark.anyio
async def test_an_array_and_a_json_setting_read_in_a_description_as_a_list_and_as_json(project: Path) -> None:
    """`{settings.dirs}` reads `/srv/a, /srv/b` and `{settings.filters}` reads `{"limit": 3}`, not Python's
    `['/srv/a', '/srv/b']` and `{'limit': 3}`."""
    args = ["-m", "kinds_mcp", "postgresql://h/db", "/srv/a", "/srv/b", "--filters", '{"limit": 3}']
    params = StdioServerParameters(command=sys.executable, args=args, env=_env(project))
    with (project.parent / "stderr.log").open("w") as err:
        async with Client(stdio_client(params, errlog=err)) as session:
            tools = (await session.list_tools()).tools
    detail = tools[0].input_schema["properties"]["detail"]["description"]
    assert detail == 'More detail on /srv/a, /srv/b and {"limit": 3}.', detail


@pytest.mark.anyio
async def test_an_array_from_its_variable_is_a_comma_list_with_escaped_commas(project: Path) -> None:
    env = {"KINDS_DATABASE_URL": "postgresql://e/db", "KINDS_DIRS": r"one\,two, three,,four\\", "KINDS_COUNTS": "3,4"}
    seen = await info(project, env=env)
    assert (seen["database_url"], seen["dirs"], seen["counts"]) == (
        "postgresql://e/db",
        ["one,two", "three", "four\\"],
        [3, 4],
    )
    flag_wins = await info(project, "postgresql://h/db", "--counts", "9", env=env)
    assert (flag_wins["database_url"], flag_wins["counts"]) == ("postgresql://h/db", [9])


@pytest.mark.anyio
async def test_a_json_setting_is_decoded_and_checked_by_its_schema(project: Path) -> None:
    assert (await info(project, "db", "--filters", '{"limit": 5}'))["limit"] == 5
    assert (await info(project, "db", env={"KINDS_FILTERS": '{"limit": 7}'}))["limit"] == 7
    assert refused(start(project, "db", "--filters", '{"limit": 50}')) == (
        "setting filters from --filters is not accepted: filters.limit takes an integer at most 10" + WHERE
    )
    assert refused(start(project, "db", env={"KINDS_FILTERS": '{"lim": 5}'})) == (
        "setting filters from KINDS_FILTERS is not accepted: filters.lim is not a key it takes (it takes limit)" + WHERE
    )
    not_json = start(project, "db", "--filters", "{limit: s3cr3t-v4lue}")
    assert refused(not_json) == (
        "setting filters from --filters is not JSON: --filters (or KINDS_FILTERS) takes an object with limit "
        "(optional)" + WHERE
    )
    assert "s3cr3t-v4lue" not in not_json.stderr, "the value is never quoted"


@pytest.mark.anyio
async def test_an_inverted_boolean_flag_sets_it_false(project: Path) -> None:
    assert (await info(project, "db"))["ssl_verify"] is True
    assert (await info(project, "db", "--no-ssl-verify"))["ssl_verify"] is False
    assert (await info(project, "db", env={"KINDS_SSL_VERIFY": "false"}))["ssl_verify"] is False
    assert refused(start(project, "db", "--no-ssl-verify=true")) == (
        "argument --no-ssl-verify: ignored explicit argument 'true'" + WHERE.split(" and variables")[0]
    )


def test_settings_that_exclude_each_other_are_refused_at_start_naming_both(project: Path) -> None:
    assert refused(start(project, "db", "--read-only", "--allow-writes")) == (
        "settings read_only and allow_writes exclude each other, and both were given (read_only from --read-only, "
        "allow_writes from --allow-writes); give only one of them" + WHERE
    )
    assert refused(start(project, "db", "--allow-writes=false", env={"KINDS_READ_ONLY": "true"})) == (
        "settings read_only and allow_writes exclude each other, and both were given (read_only from "
        "KINDS_READ_ONLY, allow_writes from --allow-writes); give only one of them" + WHERE
    )


def test_a_missing_positional_setting_is_named_by_its_place(project: Path) -> None:
    assert refused(start(project)) == (
        "setting database_url is missing: pass DATABASE_URL (the first argument) or set KINDS_DATABASE_URL, a string, "
        'such as "postgresql://h/db"' + WHERE
    )


def test_help_shows_the_arguments_and_the_originals_transport_flags(project: Path) -> None:
    ran = start(project, "--help")
    assert ran.returncode == 0, ran.stderr
    usage = " ".join(ran.stdout.split())
    assert "[--transport {stdio,sse,streamable-http}]" in usage
    assert "[--host HOST] [--sse-port PORT]" in usage, "--port is the setting's; the server's port is --sse-port"
    assert "[--no-ssl-verify]" in usage and "[--port PORT] [--dir DIRS] [DATABASE_URL] [DIRS ...]" in usage
    assert "--host HOST, --sse-host HOST" in usage
    assert "in the variable separated by commas (a comma inside one written \\,)" in usage


@pytest.mark.anyio
@pytest.mark.parametrize("transport", ["sse", "streamable-http"])
async def test_a_client_entry_written_for_the_original_starts_the_port_over_http(project: Path, transport: str) -> None:
    """`server DATABASE_URL --transport sse --sse-host 127.0.0.1 --sse-port N --port 6543`, as the original took it:
    streamable HTTP on N, and the setting `port` (failwell's own `--port` spelled `--sse-port` here) is 6543."""
    port = free_port()
    args = ["postgresql://h/db", "--transport", transport, "--sse-host", "127.0.0.1", "--sse-port", str(port)]
    log = (project.parent / "http.log").open("w+")
    process = subprocess.Popen(
        [sys.executable, "-m", "kinds_mcp", *args, "--port", "6543"],
        stdout=subprocess.DEVNULL,
        stderr=log,
        env=_env(project),
    )
    try:
        wait_for_port(port, process)
        async with client(f"http://127.0.0.1:{port}/mcp") as session:
            result = await session.call_tool("info", {})
        assert result.structured_content is not None and result.structured_content["port"] == 6543
    finally:
        process.terminate()
        process.wait(timeout=30)
        log.close()
    stdio = await info(project, "postgresql://h/db", "--transport", "stdio")
    assert stdio["database_url"] == "postgresql://h/db", "--transport stdio is stdio"


LINT_SPEC = """\
failwell: 1
server:
  name: lint
  description: Settings that cannot be built.
  transport_flags:
    port: --sse-port
    path: --dir
  settings:
    first: {type: string, positional: 2, description: A.}
    other: {type: string, positional: 2, description: B.}
    many: {type: string, positional: rest, description: C.}
    blob: {type: json, description: D.}
    off: {type: string, flag_value: false, description: E.}
    dirs: {type: array, items: {type: string}, flag: --dir, description: F.}
    port: {type: integer, default: 1, description: G.}
    host: {type: string, default: h, description: H.}
    conflicts: [[first, nothing]]
tools:
  info:
    description: Information.
    effect: read
    input:
      detail: {type: boolean, default: false, description: More detail.}
"""


def test_validate_refuses_settings_that_cannot_be_built(tmp_path: Path) -> None:
    spec = tmp_path / "lint.yaml"
    spec.write_text(LINT_SPEC)
    ran = failwell("validate", str(spec))
    assert ran.returncode == 1
    lines = (ran.stdout + ran.stderr).splitlines()
    found = sorted(line.removeprefix(f"{spec}:") for line in lines if "FW19" in line)
    assert not any("FW131" in line for line in lines), "a JSON setting without a schema is FW194 alone"
    assert found == [
        "10:39: FW194 settings `first` and `other` both take argument 2; give each its own",
        "11:38: FW194 setting `many` takes the remaining arguments, so it is a list: give it `type: array`",
        "12:5: FW194 setting `blob` is JSON and needs a `schema:` (a JSON Schema 2020-12 its value is checked by)",
        "13:25: FW194 setting `off`: `flag_value` goes with `type: boolean` (its flag alone sets that value)",
        "16:5: FW190 setting `host` is read from --host, which the server itself already takes; give it another "
        "`flag`, or spell the server's own --host as the original server does with `server.transport_flags` "
        "(host: --sse-host, say)",
        "17:25: FW194 `conflicts` names `nothing`, which is not a setting (the settings are first, other, many, "
        "blob, off, dirs, port, host)",
        "7:11: FW190 transport_flags.path: --dir is setting `dirs`'s flag; spell it otherwise",
        "9:39: FW194 setting `first` takes argument 2, but no setting takes argument 1; number them 1, 2, ...",
    ], ran.stdout + ran.stderr


def test_install_takes_positional_arguments_repeated_and_inverted_flags(project: Path, tmp_path: Path) -> None:
    """`failwell install --arg`: a positional argument is the next positional setting's (the `rest` one takes the
    others), a repeated flag's values and a JSON value are each checked as the server would, an inverted flag stands
    alone; the entry's args are as given."""
    script = project / ".venv" / "bin" / "kinds-mcp"
    script.parent.mkdir(parents=True, exist_ok=True)
    script.write_text(f'#!/bin/sh\nPYTHONPATH="{project / "src"}" exec "{sys.executable}" -m kinds_mcp "$@"\n')
    script.chmod(0o755)

    def install(*args: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [sys.executable, "-m", "failwell", "install", "mcp-json", *args, "--project", str(project)],
            capture_output=True,
            text=True,
            timeout=60,
            env={**_env(project), "HOME": str(tmp_path)},
        )

    given = ["postgresql://h/db", "/srv/a", "--no-ssl-verify", "--counts", "3", "/srv/b", '--filters={"limit": 2}']
    ran = install(*(f"--arg={arg}" for arg in given))
    assert ran.returncode == 0, ran.stderr
    assert json.loads(ran.stdout)["mcpServers"]["kinds"]["args"] == given
    missing = install("--arg=--no-ssl-verify")
    assert missing.returncode == 1
    assert "setting database_url (--arg VALUE or --env KINDS_DATABASE_URL=VALUE" in missing.stderr, missing.stderr
    for args, said in [
        (["db", "--counts", "x"], "--arg --counts: the server would refuse it: it takes a list, each an integer"),
        (["db", '--filters={"limit": 50}'], '--arg --filters={"limit": 50}: the server would refuse it: it takes'),
        (["db", "--no-ssl-verify=true"], "--arg --no-ssl-verify=true: --no-ssl-verify stands alone"),
    ]:
        refused_install = install(*(f"--arg={arg}" for arg in args))
        assert refused_install.returncode == 1 and said in refused_install.stderr, refused_install.stderr


@pytest.mark.anyio
async def test_the_postgres_ports_server_starts_from_the_originals_command_line(tmp_path: Path) -> None:
    """The postgres port's settings and transport flags (tests/ports/postgres.yaml), with one tool of its own (the
    port's pool needs psycopg): `server DATABASE_URL --access-mode=restricted --transport sse --sse-host H --sse-port
    N`, as postgres-mcp is started, serves streamable HTTP there; the URL's password is never logged."""
    port_spec = YAML(typ="safe").load((REPO / "tests" / "ports" / "postgres.yaml").read_text())
    spec = {
        "failwell": 1,
        "server": port_spec["server"],
        "tools": {
            "mode": {
                "description": "The access mode: {settings.access_mode}.",
                "effect": "read",
                "input": {"detail": {"type": "boolean", "default": False, "description": "More detail."}},
            }
        },
    }
    (tmp_path / "pg.yaml").write_text(json.dumps(spec))
    created = failwell("new", str(tmp_path / "pg"), "--spec", str(tmp_path / "pg.yaml"))
    assert created.returncode == 0, created.stdout + created.stderr
    port = free_port()
    url = "postgresql://ada:Pw-9f8e7d6c5b@db.example.com/shop"
    args = [url, "--access-mode=restricted", "--transport", "sse", "--sse-host", "127.0.0.1", "--sse-port", str(port)]
    log = (tmp_path / "pg.log").open("w+")
    env = {k: v for k, v in os.environ.items() if k != "DATABASE_URI"}
    process = subprocess.Popen(
        [sys.executable, "-m", "postgres_mcp", *args],
        stdout=subprocess.DEVNULL,
        stderr=log,
        env={**env, "PYTHONPATH": str(tmp_path / "pg" / "src"), "LOG_LEVEL": "DEBUG"},
    )
    try:
        wait_for_port(port, process)
        async with client(f"http://127.0.0.1:{port}/mcp") as session:
            tools = (await session.list_tools()).tools
    finally:
        process.terminate()
        process.wait(timeout=30)
        log.seek(0)
        logged = log.read()
        log.close()
    assert [tool.description for tool in tools] == ["The access mode: restricted."]
    assert "Pw-9f8e7d6c5b" not in logged
