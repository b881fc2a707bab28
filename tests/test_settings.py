"""`server.settings` (issue 26, points 1 and 5's `{settings.<name>}`): a generated project run as a subprocess by
the real `mcp` client reads each setting from its flag, else its variable, else its default; refuses a missing or
invalid one, or an unknown flag, before serving (exit 2, one stderr line, nothing on stdout); hands handlers
`ctx.settings` typed (the project's own mypy --strict); fills `{settings.<name>}` into descriptions; never shows a
secret. `failwell install` carries settings and refuses a missing required one."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import anyio
import pytest
from mcp import Client, StdioServerParameters
from mcp.client.stdio import stdio_client

from conftest import REPO, failwell

pytestmark = pytest.mark.slow

SECRET = "zq8Kx2LmW4vT9pNa7RcY"
"""The `api_key` setting's value: never in a log line, a message or a description."""

SPEC = """\
failwell: 1
server:
  name: cfg
  description: A server configured the way real servers are.
  settings:
    repository:
      {type: string, flag: --repository, required: true, minLength: 1, description: The repository., example: /srv/repo}
    max_count: {type: integer, minimum: 1, maximum: 100, default: 10, description: How many commits a log shows.}
    read_only: {type: boolean, default: false, description: Refuse writes.}
    api_key: {type: string, secret: true, minLength: 16, env: CFG_TOKEN_FOR_API, description: The API key.}
    mode: {enum: [fast, slow], default: fast, description: How hard to look.}
    checks:
      type: string
      pattern: "^[a-z]+(,[a-z]+)*$"
      pattern_name: a comma-separated list of health checks
      default: db
      description: The checks to run.
tools:
  info:
    description: "Configuration of {settings.repository}: at most {settings.max_count} commits, mode {settings.mode}."
    effect: read
    input:
      detail: {type: boolean, default: false, description: More detail.}
      only: {type: string, pattern: "^[a-z]+(,[a-z]+)*$", pattern_name: a comma-separated list of health checks,
             required: false, description: The checks to show.}
    output:
      repository: {type: string}
      max_count: {type: integer}
      read_only: {type: boolean}
      has_key: {type: boolean}
resources:
  config:
    uri: "cfg://config"
    description: "The configuration of {settings.repository}."
    mime_type: text/plain
prompts:
  review:
    description: "Review {settings.repository} in {settings.mode} mode."
"""

HANDLERS = {
    "handlers/info.py": '''"""`info`: the configuration."""

import logging

from .._generated.tools.info import Context, Input, Output


async def handle(params: Input, ctx: Context) -> Output:
    """The configuration."""
    settings = ctx.settings
    count: int = settings.max_count
    logging.getLogger("cfg").info("info called with key %s", settings.api_key)  # a careless handler
    return Output(
        repository=settings.repository,
        max_count=count,
        read_only=settings.read_only,
        has_key=settings.api_key is not None,
    )
''',
    "handlers/resources/config.py": '''"""The `config` resource."""

from ..._generated.resources.config import Context, Output, Params


async def handle(params: Params, ctx: Context) -> Output:
    """The configuration of the repository."""
    return f"{ctx.settings.repository} {ctx.settings.mode}"
''',
    "handlers/prompts/review.py": '''"""The `review` prompt."""

from ..._generated.prompts.review import Context, Output, Params


async def handle(params: Params, ctx: Context) -> Output:
    """Review the repository."""
    return f"Review {ctx.settings.repository}."
''',
}


@pytest.fixture(scope="module")
def project(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("settings")
    (root / "spec.yaml").write_text(SPEC)
    failwell("new", str(root / "cfg"), "--spec", str(root / "spec.yaml"))
    package = root / "cfg" / "src" / "cfg_mcp"
    for path, source in HANDLERS.items():
        (package / path).write_text(source)
    return root / "cfg"


def _env(project: Path, env: dict[str, str]) -> dict[str, str]:
    base = {k: v for k, v in os.environ.items() if not k.startswith("CFG_")}
    return {**base, "PYTHONPATH": str(project / "src"), **env}


def start(project: Path, *args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "cfg_mcp", *args],
        input="",
        capture_output=True,
        text=True,
        timeout=60,
        env=_env(project, env or {}),
    )


def refused(ran: subprocess.CompletedProcess[str]) -> str:
    """The one line a server that would not start writes: exit 2, nothing on stdout, no usage text."""
    assert ran.returncode == 2, ran.stderr
    assert ran.stdout == "", "nothing reaches stdout"
    lines = ran.stderr.splitlines()
    assert len(lines) == 1, ran.stderr
    assert "usage:" not in ran.stderr and "Traceback" not in ran.stderr
    line = json.loads(lines[0])
    assert line["event"] == "cannot start"
    return str(line["reason"])


async def served(project: Path, *args: str, env: dict[str, str] | None = None) -> dict[str, Any]:
    """What a real `mcp` client sees of the server started with `args` and `env` over stdio: the listed
    descriptions, the `info` tool's structured result, the resource's text, and the server's stderr."""
    errlog = project.parent / "stderr.log"
    params = StdioServerParameters(
        command=sys.executable, args=["-m", "cfg_mcp", *args], env=_env(project, env or {}), cwd=str(project)
    )
    with errlog.open("w") as err:
        async with Client(stdio_client(params, errlog=err)) as client:
            tools = (await client.list_tools()).tools
            resources = (await client.list_resources()).resources
            prompts = (await client.list_prompts()).prompts
            result = await client.call_tool("info", {})
            read = await client.read_resource("cfg://config")
    assert not result.is_error, result
    return {
        "tool": tools[0].description,
        "resource": resources[0].description,
        "prompt": prompts[0].description,
        "info": result.structured_content,
        "text": read.contents[0].text,  # type: ignore[union-attr]
        "stderr": errlog.read_text(),
    }


@pytest.mark.anyio
async def test_settings_from_flags_reach_handlers_typed_and_fill_descriptions(project: Path) -> None:
    seen = await served(project, "--repository", "/srv/one", "--max-count=7", "--read-only", "--mode", "slow")
    assert seen["info"] == {"repository": "/srv/one", "max_count": 7, "read_only": True, "has_key": False}
    assert seen["tool"] == "Configuration of /srv/one: at most 7 commits, mode slow."
    assert seen["resource"] == "The configuration of /srv/one."
    assert seen["prompt"] == "Review /srv/one in slow mode."
    assert seen["text"] == "/srv/one slow"


@pytest.mark.anyio
async def test_settings_from_the_environment(project: Path) -> None:
    env = {"CFG_REPOSITORY": "/srv/env", "CFG_MAX_COUNT": "3", "CFG_READ_ONLY": "true", "CFG_TOKEN_FOR_API": SECRET}
    seen = await served(project, env=env)
    assert seen["info"] == {"repository": "/srv/env", "max_count": 3, "read_only": True, "has_key": True}
    assert seen["tool"] == "Configuration of /srv/env: at most 3 commits, mode fast."


@pytest.mark.anyio
async def test_a_flag_wins_over_its_variable_which_wins_over_the_default(project: Path) -> None:
    both = await served(
        project, "--repository=/srv/flag", "--max-count", "9", env={"CFG_MAX_COUNT": "3", "CFG_REPOSITORY": "/srv/env"}
    )
    assert (both["info"]["repository"], both["info"]["max_count"]) == ("/srv/flag", 9)
    default = await served(project, env={"CFG_REPOSITORY": "/srv/env", "CFG_MAX_COUNT": ""})
    assert (default["info"]["repository"], default["info"]["max_count"]) == ("/srv/env", 10)


@pytest.mark.anyio
async def test_a_setting_holding_a_credential_is_masked_in_every_listing(project: Path) -> None:
    """A non-secret setting holding a URL with a password, named in descriptions: tools/list, resources/list and
    prompts/list show it masked, as the log would, and the author's words around it whole (issue 39, point 6: before
    the fix every client listed `https://alice:pass@...`)."""
    seen = await served(project, "--repository", "https://alice:Pa55-w0rd-x@git.example.com/r")
    assert seen["tool"] == "Configuration of https://[redacted]@git.example.com/r: at most 10 commits, mode fast."
    assert seen["resource"] == "The configuration of https://[redacted]@git.example.com/r."
    assert seen["prompt"] == "Review https://[redacted]@git.example.com/r in fast mode."
    assert seen["info"]["repository"] == "https://alice:Pa55-w0rd-x@git.example.com/r", "the handler gets it whole"


def test_validate_refuses_a_secret_setting_in_a_description(tmp_path: Path) -> None:
    """`failwell validate`: `{settings.api_key}` (a `secret: true` setting) or `{settings.db_password}` (named like
    one) in a description is an error, FW192, with nothing written."""
    for name in ("api_key", "db_password"):
        spec = tmp_path / f"{name}.yaml"
        text = SPEC.replace("Review {settings.repository}", f"Review with {{settings.{name}}}")
        spec.write_text(text.replace("  settings:\n", "  settings:\n    db_password: {type: string}\n"))
        ran = failwell("validate", str(spec))
        assert ran.returncode == 1, ran.stdout + ran.stderr
        lines = [line for line in (ran.stdout + ran.stderr).splitlines() if "FW192" in line]
        assert len(lines) == 1 and f"{{settings.{name}}}" in lines[0], ran.stdout + ran.stderr


def test_a_missing_required_setting_stops_the_server_naming_its_flag_and_variable(project: Path) -> None:
    reason = refused(start(project))
    assert reason.startswith("setting repository is missing: pass --repository or set CFG_REPOSITORY, a string")
    assert 'a client entry passes flags in its "args" and variables in its "env"' in reason


@pytest.mark.parametrize(
    ("args", "env", "source", "accepts"),
    [
        (
            ["--max-count", "500"],
            {},
            "from --max-count",
            "--max-count (or CFG_MAX_COUNT) takes an integer from 1 to 100",
        ),
        ([], {"CFG_MAX_COUNT": "many"}, "from CFG_MAX_COUNT", "takes an integer from 1 to 100"),
        (["--mode", "fastest"], {}, "from --mode", 'takes one of "fast", "slow"'),
        (["--read-only=perhaps"], {}, "from --read-only", "takes true or false"),
    ],
)
def test_an_invalid_setting_stops_the_server_saying_what_it_accepts(
    project: Path, args: list[str], env: dict[str, str], source: str, accepts: str
) -> None:
    reason = refused(start(project, "--repository", "/srv/r", *args, env=env))
    assert source in reason and accepts in reason, reason
    assert "500" not in reason and "many" not in reason and "fastest" not in reason and "perhaps" not in reason


def test_a_named_pattern_is_refused_in_its_words_not_as_a_regex(project: Path) -> None:
    """`pattern_name` (issue 42.14): the setting's one line at start and the model's refusal of an argument say
    what the pattern accepts in the spec's words; neither shows the regular expression."""
    reason = refused(start(project, "--repository", "/srv/r", "--checks", "DB;cache"))
    assert "--checks (or CFG_CHECKS) takes a comma-separated list of health checks" in reason, reason
    assert "[a-z]" not in reason and "DB;cache" not in reason

    async def call() -> str:
        params = StdioServerParameters(
            command=sys.executable, args=["-m", "cfg_mcp", "--repository", "/srv/r"], env=_env(project, {})
        )
        with (project.parent / "named.log").open("w") as err:
            async with Client(stdio_client(params, errlog=err)) as client:
                tools = (await client.list_tools()).tools
                assert tools[0].input_schema["properties"]["only"]["pattern"] == "^[a-z]+(,[a-z]+)*$"
                assert "pattern_name" not in json.dumps(tools[0].input_schema)
                result = await client.call_tool("info", {"only": "DB;cache"})
        assert result.is_error
        return "\n".join(getattr(block, "text", "") for block in result.content)

    text = anyio.run(call)
    assert "a comma-separated list of health checks" in text and "[a-z]" not in text, text


def test_an_unknown_flag_is_one_line_not_argparse_usage(project: Path) -> None:
    reason = refused(start(project, "--repository", "/srv/r", "--repo-path", "/x"))
    assert reason.startswith("unknown flag --repo-path: this server takes --help, --http")
    assert "--repository, --max-count, --read-only, --api-key, --mode" in reason
    assert refused(start(project, "--repo", "/srv/r")).startswith("unknown flag --repo:"), "no abbreviations"


@pytest.mark.anyio
async def test_a_secret_setting_is_never_logged_nor_in_a_message(project: Path) -> None:
    seen = await served(project, "--repository", "/srv/r", env={"CFG_TOKEN_FOR_API": SECRET, "LOG_LEVEL": "DEBUG"})
    assert seen["info"]["has_key"] is True
    assert "info called with key [redacted]" in seen["stderr"], "masked even where a handler logs it"
    assert SECRET not in seen["stderr"]
    short = SECRET[:10]
    for ran in (
        start(project, "--repository", "/srv/r", env={"CFG_TOKEN_FOR_API": short, "LOG_LEVEL": "DEBUG"}),
        start(project, "--repository", "/srv/r", f"--api-key={short}", env={"LOG_LEVEL": "DEBUG"}),
    ):
        reason = refused(ran)
        assert reason.startswith("setting api_key from ") and "takes a string of at least 16 characters" in reason
        assert short not in ran.stderr


PROBE_SPEC = """\
failwell: 1
server:
  name: probe
  description: A server whose refusals name a flag called like a secret.
  settings:
    offset: {type: integer, minimum: -100, maximum: 100, default: 0, description: An offset.}
    label: {type: string, default: plain, description: A label.}
    api_key: {type: string, secret: true, minLength: 16, description: The API key.}
tools:
  info:
    description: "Offset {settings.offset}, label {settings.label}."
    effect: read
    input:
      detail: {type: boolean, default: false, description: More detail.}
"""

WHERE_FLAGS = '; a client entry passes flags in its "args"'
EVERY_FLAG = (
    "this server takes --help, --http, --host, --port, --path, --allowed-hosts, --allowed-origins, --stateful, "
    "--max-connections, --offset, --label, --api-key (see --help)"
)


@pytest.fixture(scope="module")
def probe(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("probe")
    (root / "probe.yaml").write_text(PROBE_SPEC)
    created = failwell("new", str(root / "probe"), "--spec", str(root / "probe.yaml"))
    assert created.returncode == 0, created.stdout + created.stderr
    return root / "probe"


def start_probe(probe: Path, *args: str) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("PROBE_")}
    return subprocess.run(
        [sys.executable, "-m", "probe_mcp", *args],
        input="",
        capture_output=True,
        text=True,
        timeout=60,
        env={**env, "PYTHONPATH": str(probe / "src")},
    )


def test_a_refusal_masks_the_value_never_the_servers_own_words(probe: Path) -> None:
    """Issue 39, point 11: a flag named like a secret (`--api-key`) no longer garbles the sentence around it (it read
    `--api-key [redacted] PROBE_API_KEY)`, and the list of flags was cut after `--api-key`); the value given is
    still never shown, and a credential in a stray argument is masked."""
    short = "Sh0rt-k3y-9"
    ran = start_probe(probe, "--api-key", short)
    assert refused(ran) == (
        "setting api_key from --api-key is not accepted: --api-key (or PROBE_API_KEY) takes a string of at least 16 "
        'characters; a client entry passes flags in its "args" and variables in its "env"'
    )
    assert short not in ran.stderr
    assert refused(start_probe(probe, "stray")) == f"unexpected argument 'stray': {EVERY_FLAG}{WHERE_FLAGS}"
    assert refused(start_probe(probe, "--nope=x")) == f"unknown flag --nope: {EVERY_FLAG}{WHERE_FLAGS}"
    planted = start_probe(probe, "password=Hx7-secret-Q2")
    assert refused(planted) == f"unexpected argument 'password=[redacted]': {EVERY_FLAG}{WHERE_FLAGS}"
    assert "Hx7-secret-Q2" not in planted.stderr
    assert refused(start_probe(probe, "--port", "x y")) == f"argument --port: invalid int value: 'x y'{WHERE_FLAGS}"


def test_a_stray_argument_is_quoted_whole_escaped_and_cut(probe: Path) -> None:
    """A stray argument is quoted in full, not its first word; its control and direction characters are escaped
    (nothing reaches the terminal raw: an OSC title, a bidi override); one longer than 80 characters is cut."""
    hostile = "two words\x1b]0;pwned\x07 \u202eevil"
    ran = start_probe(probe, hostile)
    assert refused(ran) == f"unexpected argument 'two words\\x1b]0;pwned\\x07 \\u202eevil': {EVERY_FLAG}{WHERE_FLAGS}"
    assert "\x1b" not in ran.stderr and "\u202e" not in ran.stderr and "\x07" not in ran.stderr
    long = "a" * 60 + " " + "b" * 60
    assert refused(start_probe(probe, long)) == (f"unexpected argument '{long[:80]}'...: {EVERY_FLAG}{WHERE_FLAGS}")


@pytest.mark.anyio
async def test_a_value_starting_with_a_dash_is_taken_where_its_type_allows(probe: Path) -> None:
    """`--offset -5 --label -x`: argparse alone read `-x` as a flag and refused ("expected one argument"); the
    values now reach the settings, which accept what their type allows and refuse the rest in their own words. A
    value that is one of the server's own flags stays a flag."""
    params = StdioServerParameters(
        command=sys.executable,
        args=["-m", "probe_mcp", "--offset", "-5", "--label", "-x"],
        env={**os.environ, "PYTHONPATH": str(probe / "src")},
    )
    with (probe.parent / "stderr.log").open("w") as err:
        async with Client(stdio_client(params, errlog=err)) as client:
            tools = (await client.list_tools()).tools
    assert tools[0].description == "Offset -5, label -x."
    assert refused(start_probe(probe, "--offset", "-500")) == (
        "setting offset from --offset is not accepted: --offset (or PROBE_OFFSET) takes an integer from -100 to 100; "
        'a client entry passes flags in its "args" and variables in its "env"'
    )
    assert refused(start_probe(probe, "--label", "--http")) == f"argument --label: expected one argument{WHERE_FLAGS}"


def test_ctx_settings_is_typed_for_the_project_mypy_strict(project: Path) -> None:
    def mypy() -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [sys.executable, "-m", "mypy", "--strict", "--cache-dir", str(project.parent / "mypy-cache"), "src"],
            cwd=project,
            capture_output=True,
            text=True,
            timeout=300,
            env=_env(project, {}),
        )

    checked = mypy()
    assert checked.returncode == 0, checked.stdout
    for ruff in (["check", "--no-cache", "src"], ["format", "--check", "--no-cache", "src"]):
        linted = subprocess.run([sys.executable, "-m", "ruff", *ruff], cwd=project, capture_output=True, text=True)
        assert linted.returncode == 0, linted.stdout
    wrong = project / "src" / "cfg_mcp" / "handlers" / "wrong.py"
    wrong.write_text(
        '"""Uses a setting as the wrong type."""\n\nfrom .._generated.tools.info import Context\n\n\n'
        "def use(ctx: Context) -> str:\n"
        '    """A count is not a string."""\n'
        "    return ctx.settings.max_count.upper()\n"
    )
    try:
        checked = mypy()
    finally:
        wrong.unlink()
    assert checked.returncode == 1, checked.stdout
    assert '"int" has no attribute "upper"' in checked.stdout


GIT_REPO_DEPENDENCY = '''\
"""The repository --repository names: checked to be a git work tree when the server starts."""

import subprocess
from pathlib import Path

from ..._generated.settings import Settings


async def open(settings: Settings) -> Path:
    path = Path(settings.repository)
    command = ["git", "-C", str(path), "rev-parse", "--show-toplevel"]
    subprocess.run(command, check=True, capture_output=True, timeout=10)
    return path
'''


@pytest.mark.anyio
async def test_a_client_entry_written_for_the_original_git_server_starts_the_port(tmp_path: Path) -> None:
    """The port's `repo` dependency is opened with the typed settings: `--repository` reaches its `open`."""
    failwell("new", str(tmp_path / "git"), "--spec", str(REPO / "tests" / "ports" / "git.yaml"))
    (tmp_path / "git" / "src" / "git_mcp" / "handlers" / "dependencies" / "repo.py").write_text(GIT_REPO_DEPENDENCY)
    repository = tmp_path / "work"
    repository.mkdir()
    entry = {"command": "mcp-server-git", "args": ["--repository", str(repository)]}  # as written for the original
    env = {**os.environ, "PYTHONPATH": str(tmp_path / "git" / "src")}
    not_yet = subprocess.run(
        [sys.executable, "-m", "git_mcp", *entry["args"]], input="", capture_output=True, text=True, env=env, timeout=60
    )
    assert refused(not_yet).startswith("dependency `repo` could not be opened (CalledProcessError"), "not a repository"
    subprocess.run(["git", "init", "-q", str(repository)], check=True)
    params = StdioServerParameters(command=sys.executable, args=["-m", "git_mcp", *entry["args"]], env=env)
    async with Client(params) as client:
        tools = {tool.name: tool for tool in (await client.list_tools()).tools}
    assert len(tools) == 12 and tools["git_status"].description == "Shows the working tree status", "as the original"


def test_install_carries_settings_and_refuses_a_missing_required_one(project: Path, tmp_path: Path) -> None:
    script = project / ".venv" / "bin" / "cfg-mcp"
    script.parent.mkdir(parents=True, exist_ok=True)
    script.write_text(f'#!/bin/sh\nPYTHONPATH="{project / "src"}" exec "{sys.executable}" -m cfg_mcp "$@"\n')
    script.chmod(0o755)
    env = {**_env(project, {}), "HOME": str(tmp_path), "CFG_MAX_COUNT": "4"}

    def install(*args: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [sys.executable, "-m", "failwell", "install", *args, "--project", str(project)],
            capture_output=True,
            text=True,
            timeout=60,
            env=env,
        )

    ran = install(
        "mcp-json", "--arg", "--repository=/srv/r", "--arg", "--read-only", "--env", f"CFG_TOKEN_FOR_API={SECRET}"
    )
    assert ran.returncode == 0, ran.stderr
    entry = json.loads(ran.stdout)["mcpServers"]["cfg"]
    assert entry["args"] == ["--repository=/srv/r", "--read-only"]
    assert entry["env"] == {"CFG_MAX_COUNT": "4", "CFG_TOKEN_FOR_API": SECRET}, "from --env and from the shell"
    missing = install("mcp-json")
    assert missing.returncode == 1 and missing.stdout == ""
    assert "setting repository (--arg --repository=VALUE or --env CFG_REPOSITORY=VALUE" in missing.stderr
    secret_flag = install("mcp-json", "--arg", "--repository=/srv/r", "--arg", f"--api-key={SECRET}")
    assert secret_flag.returncode == 1 and SECRET not in secret_flag.stderr + secret_flag.stdout
    assert "pass it as --env CFG_TOKEN_FOR_API=VALUE" in secret_flag.stderr
    invalid = install("mcp-json", "--arg", "--repository=/srv/r", "--arg", "--max-count=500")
    assert (
        invalid.returncode == 1
        and "--arg --max-count=500: the server would refuse it: it takes an integer" in invalid.stderr
    )
    short = install("mcp-json", "--arg", "--repository=/srv/r", "--env", f"CFG_TOKEN_FOR_API={SECRET[:8]}")
    assert short.returncode == 1 and SECRET[:8] not in short.stderr + short.stdout
    assert "CFG_TOKEN_FOR_API=<a secret of 8 characters, not shown> is refused" in short.stderr
    dry = install("claude-desktop", "--dry-run", "--arg", "--repository=/srv/r", "--env", f"CFG_TOKEN_FOR_API={SECRET}")
    assert dry.returncode == 0, dry.stderr
    assert '"CFG_TOKEN_FOR_API": "<secret, not shown>"' in dry.stdout and SECRET not in dry.stdout + dry.stderr
    assert not (tmp_path / ".config").exists(), "a dry run writes nothing"
    written = install("claude-desktop", "--arg", "--repository=/srv/installed", "--arg", "--max-count=6")
    assert written.returncode == 0, written.stderr
    config = json.loads((tmp_path / ".config" / "Claude" / "claude_desktop_config.json").read_text())
    assert config["mcpServers"]["cfg"]["args"] == ["--repository=/srv/installed", "--max-count=6"]
    listed = subprocess.run(
        [sys.executable, "-m", "failwell", "tools", "--json", "--project", str(project)],
        capture_output=True,
        text=True,
        timeout=60,
        env={k: v for k, v in env.items() if k != "CFG_MAX_COUNT"},
    )
    assert listed.returncode == 0, listed.stderr
    assert "at most 6 commits" in listed.stdout, "`failwell tools` starts the server with the flags install recorded"
