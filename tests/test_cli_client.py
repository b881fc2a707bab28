"""`failwell tools`, `call`, `read`, `prompt`, `dev` and `install` driven as a user drives them (issue 42), against a
real generated project whose server needs a required flag setting (`--db-path`) and takes a secret one
(`PROBE_API_TOKEN`): its console script in `.venv/bin` runs the generated package on this venv's Python, as
`pip install -e .` would, and its one tool echoes what it received, typed, and whether the token reached it."""

from __future__ import annotations

import json
import os
import shlex
import subprocess
import sys
from pathlib import Path

import pytest
from typer.testing import CliRunner

from failwell import new
from failwell.cli import app

SECRET = "zq8Kx2LmW4vT9pNa7RcY"

SPEC = """\
failwell: 1
server:
  name: probe
  description: A server whose settings and arguments a test can see.
  settings:
    db_path: {type: string, required: true, minLength: 1, description: The database file., example: /srv/probe.db}
    log_dir: {type: string, default: "", description: Where to keep logs.}
    api_token: {type: string, secret: true, minLength: 16, env: PROBE_API_TOKEN, description: The API token.}
tools:
  probe_echo:
    description: Echo each argument with its type, and whether the token is set.
    effect: read
    input:
      query: {type: string, description: Text to find., example: release}
      limit: {type: integer, default: 5, minimum: 1, maximum: 5000, description: At most this many.}
      exact: {type: boolean, default: false, description: Match the whole text.}
      topic: {type: string, nullable: true, default: null, description: A topic or null.}
    output:
      seen: {type: string}
resources:
  config:
    uri: "probe://config"
    description: The database file the server opens.
    mime_type: text/plain
prompts:
  quote:
    description: Quote an amount, such as 1.50.
    arguments:
      amount: {type: string, description: The amount., example: "1.50"}
"""

HANDLERS = {
    "handlers/probe_echo.py": '''"""`probe_echo`: what it received."""

import json

from .._generated.tools.probe_echo import Context, Input, Output


async def handle(params: Input, ctx: Context) -> Output:
    """Each argument with its Python type, the database file, and whether the token is set."""
    seen = {
        key: [value, type(value).__name__]
        for key, value in params.model_dump().items()
    }
    seen["db_path"] = [ctx.settings.db_path, "str"]
    seen["has_token"] = [ctx.settings.api_token is not None, "bool"]
    return Output(seen=json.dumps(seen, sort_keys=True))
''',
    "handlers/resources/config.py": '''"""The `config` resource."""

from ..._generated.resources.config import Context, Output, Params


async def handle(params: Params, ctx: Context) -> Output:
    """The database file."""
    return ctx.settings.db_path
''',
    "handlers/prompts/quote.py": '''"""The `quote` prompt."""

from ..._generated.prompts.quote import Context, Output, Params


async def handle(params: Params, ctx: Context) -> Output:
    """The amount, as received."""
    return f"amount={params.amount!r}"
''',
}


def make_project(root: Path) -> Path:
    """The probe project under `root`, its handlers written and its console script in `.venv/bin`."""
    (root / "spec.yaml").write_text(SPEC)
    project = root / "probe"
    new(project, root / "spec.yaml")
    package = project / "src" / "probe_mcp"
    for relative, source in HANDLERS.items():
        (package / relative).write_text(source)
    script = project / ".venv" / "bin" / "probe-mcp"
    script.parent.mkdir(parents=True)
    script.write_text(
        f'#!/bin/sh\nPYTHONPATH="{package.parent}" exec {shlex.quote(sys.executable)} -m probe_mcp "$@"\n'
    )
    script.chmod(0o755)
    return project


def shell(home: Path) -> dict[str, str]:
    """This user's shell: a home of its own, and none of the server's variables."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(("PROBE_", "XDG_", "FAILWELL_"))}
    return {**env, "HOME": str(home), "XDG_CONFIG_HOME": str(home / ".config")}


def run(project: Path, home: Path, *args: str) -> subprocess.CompletedProcess[str]:
    """`failwell ARGS` run in the project's folder, as a user types it."""
    return subprocess.run(
        [sys.executable, "-m", "failwell", *args],
        cwd=project,
        env=shell(home),
        capture_output=True,
        text=True,
        timeout=120,
    )


def seen(ran: subprocess.CompletedProcess[str]) -> dict[str, list[object]]:
    """What `probe_echo` received, from `call --json`'s structured content."""
    assert ran.returncode == 0, ran.stderr
    return json.loads(json.loads(ran.stdout)["structuredContent"]["seen"])  # type: ignore[no-any-return]


@pytest.fixture(scope="module")
def project(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return make_project(tmp_path_factory.mktemp("cli-client"))


@pytest.mark.slow
def test_each_command_takes_the_arg_its_hint_names_and_says_nothing_was_written_only_where_it_could_be(
    project: Path, tmp_path: Path
) -> None:
    """Point 1: with no value for the required flag setting, tools, call, read and prompt name `--arg
    --db-path=VALUE`, which each takes; none says "nothing was written" (none writes); install still does."""
    (project / ".failwell" / "mcp.json").unlink(missing_ok=True)
    home = tmp_path / "home"
    commands = {
        "tools": ["tools"],
        "call": ["call", "probe_echo", "query=x"],
        "read": ["read", "probe://config"],
        "prompt": ["prompt", "quote", "amount=1"],
    }
    for name, words in commands.items():
        refused = run(project, home, *words)
        assert refused.returncode == 1, refused.stderr
        (line,) = refused.stderr.splitlines()
        assert "setting db_path (--arg --db-path=VALUE or --env PROBE_DB_PATH=VALUE" in line, line
        assert "nothing was written" not in line, f"{name} writes nothing, so it does not say so"
        given = run(project, home, *words, "--arg", "--db-path=/srv/given.db")
        assert given.returncode == 0, f"{name}: {given.stderr}"
    listed = run(project, home, "tools", "--arg", "--db-path=/srv/given.db")
    assert listed.stdout.startswith("probe_echo(query, limit, exact, topic): ")
    read = run(project, home, "read", "probe://config", "--arg", "--db-path=/srv/given.db", "--quiet")
    assert read.stdout == "/srv/given.db\n"
    install = run(project, home, "install", "claude-desktop")
    assert install.returncode == 1 and "--arg --db-path=VALUE" in install.stderr
    assert install.stderr.rstrip().endswith("; nothing was written")
    assert not (home / ".config").exists()
    unknown = run(project, home, "call", "probe_echo", "query=x", "--arg", "--nope=1")
    assert unknown.returncode == 1 and "the server takes no such flag" in unknown.stderr
    assert "nothing was written" not in unknown.stderr


@pytest.mark.slow
def test_dev_starts_as_install_recorded_and_its_rewrite_keeps_the_secret(project: Path, tmp_path: Path) -> None:
    """Point 4: install with the token and a flag; `dev --print` alone starts with both; `dev --print --arg` with
    another database rewrites the record with that flag and the token kept, and a later call has both."""
    home = tmp_path / "home"
    record = project / ".failwell" / "mcp.json"
    record.unlink(missing_ok=True)
    installed = run(
        project, home, "install", "claude-desktop", "--arg", "--db-path=/srv/a.db", "--arg", "--log-dir=/var/log/p",
        "--env", f"PROBE_API_TOKEN={SECRET}",
    )  # fmt: skip
    assert installed.returncode == 0, installed.stderr
    dev = run(project, home, "dev", "--print")
    assert dev.returncode == 0, dev.stderr
    entry = json.loads(record.read_text())["mcpServers"]["probe"]
    assert entry["args"] == ["--db-path=/srv/a.db", "--log-dir=/var/log/p"], "dev starts with the recorded flags"
    assert entry["env"]["PROBE_API_TOKEN"] == SECRET
    rewritten = run(project, home, "dev", "--print", "--arg", "--db-path=/srv/b.db")
    assert rewritten.returncode == 0, rewritten.stderr
    entry = json.loads(record.read_text())["mcpServers"]["probe"]
    assert entry["env"]["PROBE_API_TOKEN"] == SECRET, "the recorded secret is kept"
    assert entry["args"] == ["--log-dir=/var/log/p", "--db-path=/srv/b.db"], "the flag told replaced, the rest kept"
    called = seen(run(project, home, "call", "probe_echo", "query=x", "--json"))
    assert called["has_token"] == [True, "bool"], "a later call still gets the token"
    assert called["db_path"] == ["/srv/b.db", "str"]


@pytest.mark.slow
def test_call_reads_each_value_by_the_tools_input_schema(project: Path, tmp_path: Path) -> None:
    """Point 5: a string stays a string, an integer and a boolean are read as JSON, and a value a union could
    read two ways is read as JSON with one note on stderr; a prompt's argument is sent as the text given."""
    home = tmp_path / "home"
    flag = ["--arg", "--db-path=/srv/x.db"]
    ran = run(project, home, "call", "probe_echo", "query=2024", "limit=7", "exact=true", "topic=2024", "--json", *flag)
    got = seen(ran)
    assert got["query"] == ["2024", "str"], "the schema says string: 2024 is text"
    assert got["limit"] == [7, "int"] and got["exact"] == [True, "bool"]
    assert got["topic"] == ["2024", "str"], "string or null: 2024 is not null, so text"
    assert ran.stderr == "", "nothing ambiguous, nothing said"
    ran = run(project, home, "call", "probe_echo", "query=true", "topic=null", "--json", *flag)
    got = seen(ran)
    assert got["query"] == ["true", "str"] and got["topic"] == [None, "NoneType"]
    (note,) = ran.stderr.splitlines()
    assert note == (
        "failwell: note: topic=null is sent as null (its schema takes a string or a null); "
        """write topic='"null"' to send the text"""
    )
    quoted = seen(run(project, home, "call", "probe_echo", "query=x", """topic="null\"""", "--json", *flag))
    assert quoted["topic"] == ["null", "str"], "as the note says"
    quiet = run(project, home, "call", "probe_echo", "query=x", "topic=null", "--quiet", *flag)
    assert quiet.returncode == 0 and quiet.stderr == "", "--quiet: no note"
    prompt = run(project, home, "prompt", "quote", "amount=1.50", "--quiet", *flag)
    assert prompt.returncode == 0, prompt.stderr
    assert prompt.stdout == "amount='1.50'\n", "a prompt's argument is text: 1.50 is not read as the number 1.5"


@pytest.mark.slow
def test_server_log_lines_only_with_verbose_or_when_it_cannot_start(project: Path, tmp_path: Path) -> None:
    """Point 9: no `"event": "serving"` line without --verbose; --quiet prints the result alone; --json the raw
    result; a server that cannot start shows its own last stderr lines."""
    home = tmp_path / "home"
    flag = ["--arg", "--db-path=/srv/x.db"]
    for words in (
        ["tools"],
        ["call", "probe_echo", "query=x"],
        ["read", "probe://config"],
        ["prompt", "quote", "amount=1"],
    ):
        plain = run(project, home, *words, *flag)
        assert plain.returncode == 0 and plain.stderr == "", f"{words[0]}: {plain.stderr}"
        verbose = run(project, home, *words, *flag, "--verbose")
        assert verbose.returncode == 0 and '"event": "serving"' in verbose.stderr, verbose.stderr
        assert verbose.stdout == plain.stdout
        as_json = run(project, home, *words, *flag, "--json")
        assert as_json.returncode == 0 and as_json.stderr == ""
        json.loads(as_json.stdout)
    call = run(project, home, "call", "probe_echo", "query=x", *flag)
    assert call.stdout.startswith("isError: false\n") and "structuredContent: " in call.stdout
    quiet = run(project, home, "call", "probe_echo", "query=x", *flag, "--quiet")
    assert json.loads(json.loads(quiet.stdout)["seen"])["query"] == ["x", "str"], "the text alone: no labels"
    assert quiet.stderr == ""
    both = run(project, home, "tools", *flag, "--quiet", "--verbose")
    assert both.returncode == 1 and "--quiet and --verbose contradict" in both.stderr
    broken = make_project(tmp_path)
    (broken / "src" / "probe_mcp" / "handlers" / "probe_echo.py").write_text("import nowhere_at_all\n")
    down = run(broken, home, "call", "probe_echo", "query=x", *flag)
    assert down.returncode == 1
    assert '"event": "cannot start"' in down.stderr, "its own stderr lines, when it could not be spoken to"
    assert down.stderr.rstrip().splitlines()[-1].startswith("failwell: the server exited (status ")


def install_cli(project: Path, home: Path, *args: str) -> tuple[int, str]:
    """`failwell install ARGS` in-process for a user whose home is `home`: its exit code and stderr."""
    runner = CliRunner(env={"HOME": str(home), "XDG_CONFIG_HOME": str(home / ".config")})
    done = runner.invoke(app, ["install", *args, "--project", str(project)])
    return done.exit_code, done.stderr


def test_a_project_scope_file_holds_no_path_of_this_machine_from_arg_or_env(tmp_path: Path) -> None:
    """Point 3: paths inside the project given in --arg (`--flag=PATH` and `--flag PATH`) and --env are written
    from the client's variable for the project's folder; any other absolute path, and a relative one, is warned
    about in one line naming it."""
    project = make_project(tmp_path).resolve()
    home = tmp_path / "home"
    code, said = install_cli(
        project, home, "claude-code", "--scope", "project",
        "--arg", f"--db-path={project}/data/p.db", "--arg", "--log-dir", "--arg", f"{project}/logs",
        "--env", f"PROBE_EXPORTS={project}/exports",
    )  # fmt: skip
    assert code == 0, said
    entry = json.loads((project / ".mcp.json").read_text())["mcpServers"]["probe"]
    assert entry["args"] == [
        "--db-path=${CLAUDE_PROJECT_DIR:-.}/data/p.db",
        "--log-dir",
        "${CLAUDE_PROJECT_DIR:-.}/logs",
    ]
    assert entry["env"]["PROBE_EXPORTS"] == "${CLAUDE_PROJECT_DIR:-.}/exports"
    assert str(project) not in (project / ".mcp.json").read_text(), "no path of this machine"
    assert "a path of this machine" not in said and "relative path" not in said
    code, said = install_cli(project, home, "vscode", "--arg", f"--db-path={project}/data/p.db")
    assert code == 0, said
    vscode = json.loads((project / ".vscode" / "mcp.json").read_text())["servers"]["probe"]
    assert vscode["args"] == ["--db-path=${workspaceFolder}/data/p.db"]
    code, said = install_cli(
        project, home, "cursor", "--scope", "project", "--arg", "--db-path=/var/lib/probe.db",
        "--env", "PROBE_EXPORTS=/srv/exports",
    )  # fmt: skip
    assert code == 0, said
    (outside,) = [line for line in said.splitlines() if "a path of this machine" in line]
    assert "/var/lib/probe.db, /srv/exports is a path of this machine, outside the project" in outside
    code, said = install_cli(project, home, "vscode", "--force", "--arg", "--db-path=data/p.db")
    assert code == 0, said
    (relative,) = [line for line in said.splitlines() if "relative path" in line]
    assert relative.startswith("failwell: mcp.json is made to be shared: data/p.db reads as a relative path")
    assert "(such as $PWD/data/p.db from the project's folder), written as ${workspaceFolder}/..." in relative
    code, said = install_cli(project, home, "claude-desktop", "--arg", "--db-path=data/p.db")
    assert code == 0 and "relative path" not in said, "a user-scope file is this machine's own"
