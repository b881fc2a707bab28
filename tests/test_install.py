"""`failwell install CLIENT`, in-process: each client's file at its place per platform, in a temporary home,
in each client's documented format; every other key kept; a different entry refused unless forced; an atomic
write with a backup; a dry run that writes nothing; a needed variable with no value named."""

from __future__ import annotations

import importlib.util
import json
import os
import re
import stat
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from conftest import EXAMPLES, REPO
from failwell import FailwellError, new
from failwell.cli import app
from failwell.client.clients import config_path, entry, portability_notes
from failwell.client.install import differences, document, install
from failwell.client.launch import STORE_ENV, Launch, launch

HOME = Path("/home/ada")
PROJECT = Path("/work/notes")

WHERE = {
    ("claude-desktop", "darwin", None): "/home/ada/Library/Application Support/Claude/claude_desktop_config.json",
    ("claude-desktop", "linux", None): "/home/ada/.config/Claude/claude_desktop_config.json",
    ("claude-desktop", "win32", None): "/appdata/Claude/claude_desktop_config.json",
    ("claude-code", "linux", None): "/home/ada/.claude.json",
    ("claude-code", "win32", "user"): "/home/ada/.claude.json",
    ("claude-code", "darwin", "project"): "/work/notes/.mcp.json",
    ("cursor", "darwin", None): "/home/ada/.cursor/mcp.json",
    ("cursor", "win32", None): "/home/ada/.cursor/mcp.json",
    ("cursor", "linux", "project"): "/work/notes/.cursor/mcp.json",
    ("vscode", "linux", None): "/work/notes/.vscode/mcp.json",
    ("vscode", "darwin", "user"): "/home/ada/Library/Application Support/Code/User/mcp.json",
    ("vscode", "linux", "user"): "/home/ada/.config/Code/User/mcp.json",
    ("vscode", "win32", "user"): "/appdata/Code/User/mcp.json",
}


@pytest.mark.parametrize(("client", "platform", "scope"), sorted(WHERE, key=str))
def test_each_clients_file_is_where_it_looks(client: str, platform: str, scope: str | None) -> None:
    environ = {"APPDATA": "/appdata"} if platform == "win32" else {}
    where = config_path(client, platform, HOME, environ, PROJECT, scope)  # type: ignore[arg-type]
    assert where.as_posix() == WHERE[(client, platform, scope)]


def test_the_platform_folders_follow_the_environment() -> None:
    xdg = config_path("claude-desktop", "linux", HOME, {"XDG_CONFIG_HOME": "/xdg"}, PROJECT)
    assert xdg.as_posix() == "/xdg/Claude/claude_desktop_config.json"
    roaming = config_path("claude-desktop", "win32", HOME, {}, PROJECT)
    assert roaming.as_posix() == "/home/ada/AppData/Roaming/Claude/claude_desktop_config.json"
    with pytest.raises(FailwellError, match="Claude Desktop has no project configuration"):
        config_path("claude-desktop", "darwin", HOME, {}, PROJECT, "project")
    with pytest.raises(FailwellError, match="--scope 'global': pick user or project"):
        config_path("cursor", "linux", HOME, {}, PROJECT, "global")


SERVER = Launch("notes", "/work/notes/.venv/bin/notes-mcp", (), {STORE_ENV: "/work/notes/.failwell/notes.sqlite3"})


def test_entries_follow_each_clients_format() -> None:
    plain = {"command": SERVER.command, "args": [], "env": SERVER.env}
    assert entry("claude-desktop", SERVER) == entry("cursor", SERVER) == plain
    assert entry("claude-code", SERVER) == entry("vscode", SERVER) == {"type": "stdio", **plain}


@pytest.mark.parametrize("platform", ["darwin", "linux", "win32"])
def test_install_keeps_every_other_key_and_backs_up(tmp_path: Path, platform: str) -> None:
    home = tmp_path / "home"
    path = config_path("claude-desktop", platform, home, {"APPDATA": str(home / "AppData" / "Roaming")}, PROJECT)  # type: ignore[arg-type]
    path.parent.mkdir(parents=True)
    mine = {"globalShortcut": "Ctrl+Space", "mcpServers": {"other": {"command": "npx", "args": ["-y", "x"]}}}
    path.write_text(json.dumps(mine, indent=4))
    path.chmod(0o600)
    before = path.read_bytes()

    change = install("claude-desktop", SERVER, path)
    assert change.status == "updated" and change.backup == path.with_name(path.name + ".bak")
    assert change.backup.read_bytes() == before
    written = json.loads(path.read_text())
    assert list(written) == ["globalShortcut", "mcpServers"] and written["globalShortcut"] == "Ctrl+Space"
    assert written["mcpServers"] == {**mine["mcpServers"], "notes": entry("claude-desktop", SERVER)}
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    assert [p.name for p in path.parent.iterdir() if p.name.endswith(".tmp")] == []
    assert install("claude-desktop", SERVER, path).status == "unchanged"


def test_a_different_entry_is_refused_unless_forced(tmp_path: Path) -> None:
    path = tmp_path / ".cursor" / "mcp.json"
    path.parent.mkdir()
    path.write_text('{"mcpServers": {"notes": {"command": "/opt/other/notes"}}}\n')
    before = path.read_bytes()
    with pytest.raises(FailwellError, match=r"already has a server called 'notes', and it differs from this one"):
        install("cursor", SERVER, path)
    assert path.read_bytes() == before and not path.with_name("mcp.json.bak").exists()
    install("cursor", SERVER, path, force=True)
    assert json.loads(path.read_text())["mcpServers"]["notes"]["command"] == SERVER.command
    assert path.with_name("mcp.json.bak").read_bytes() == before


def test_a_dry_run_writes_nothing_and_shows_the_diff(tmp_path: Path) -> None:
    path = tmp_path / ".vscode" / "mcp.json"
    change = install("vscode", SERVER, path, dry_run=True)
    assert change.status == "created" and not path.exists()
    assert '+  "servers": {' in change.diff and '+      "type": "stdio",' in change.diff


@pytest.mark.parametrize("text", ["{ // a comment\n}", "[1]", '{"servers": []}'])
def test_a_file_it_cannot_read_as_json_is_never_overwritten(tmp_path: Path, text: str) -> None:
    path = tmp_path / "mcp.json"
    path.write_text(text)
    with pytest.raises(FailwellError, match="nothing was written"):
        install("vscode", SERVER, path)
    assert path.read_text() == text


def installed(project: Path, script: str) -> Path:
    """Where `pip install -e .` puts the project's console script (an empty stand-in: only its path is read)."""
    path = project / ".venv" / "bin" / script
    path.parent.mkdir(parents=True)
    path.write_text("")
    return path


def test_launch_names_a_needed_variable_and_writes_nothing(tmp_path: Path) -> None:
    new(tmp_path / "weather", EXAMPLES / "weather" / "failwell.yaml")
    installed(tmp_path / "weather", "weather-mcp")
    with pytest.raises(FailwellError, match=r"needs FORECAST_API_URL \(the base URL of the `forecast_api` upstream\)"):
        launch(tmp_path / "weather", environ={})
    found = launch(tmp_path / "weather", {"FORECAST_API_URL": "http://127.0.0.1:9"}, environ={})
    assert found.env == {"FORECAST_API_URL": "http://127.0.0.1:9"}
    assert launch(tmp_path / "weather", environ={"FORECAST_API_URL": "http://x"}).env["FORECAST_API_URL"] == "http://x"


def test_launch_is_absolute_with_the_store_in_the_project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    new(tmp_path / "notes", name="notes")
    script = installed(tmp_path / "notes", "notes-mcp")
    monkeypatch.chdir(tmp_path / "notes" / "src")
    found = launch(Path("."), environ={})
    assert (found.name, found.command, found.args) == ("notes", str(script.resolve()), ())
    assert found.env == {STORE_ENV: str((tmp_path / "notes" / ".failwell" / "notes.sqlite3").resolve())}
    assert ".failwell/" in (tmp_path / "notes" / ".gitignore").read_text().splitlines()


def test_the_cli_writes_into_the_home_and_prints_mcp_json(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    new(tmp_path / "notes", name="notes")
    installed(tmp_path / "notes", "notes-mcp")
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "home" / ".config"))
    runner = CliRunner()
    printed = runner.invoke(app, ["install", "mcp-json", "--project", str(tmp_path / "notes")])
    assert printed.exit_code == 0, printed.stderr
    assert list(json.loads(printed.stdout)["mcpServers"]) == ["notes"]
    dry = runner.invoke(app, ["install", "claude-code", "--project", str(tmp_path / "notes"), "--dry-run"])
    assert dry.exit_code == 0 and "+++ b/.claude.json" in dry.stdout and "nothing was written" in dry.stderr
    assert not (tmp_path / "home" / ".claude.json").exists()
    done = runner.invoke(app, ["install", "claude-code", "--project", str(tmp_path / "notes"), "--name", "mine"])
    assert done.exit_code == 0, done.stderr
    assert "restart Claude Code" in done.stderr
    assert list(json.loads((tmp_path / "home" / ".claude.json").read_text())["mcpServers"]) == ["mine"]
    bad = runner.invoke(app, ["install", "zed", "--project", str(tmp_path / "notes")])
    assert bad.exit_code == 1 and "unknown client 'zed'" in bad.stderr
    assert os.environ["HOME"] == str(tmp_path / "home")


def json_blocks(markdown: str, after: str = "") -> list[Any]:
    """The ```json blocks of a Markdown text (from the heading `after` on), parsed."""
    text = markdown[markdown.index(after) :] if after else markdown
    return [json.loads(block) for block in re.findall(r"```json\n(.*?)```", text, re.S)]


def stand_in_project(tmp_path: Path, example: str) -> Path:
    """A generated example with the console script `pip install -e .` would put in its .venv."""
    project = new_project(tmp_path / example, EXAMPLES / example / "failwell.yaml")
    installed(project, f"{example}-mcp")
    return project


def new_project(dest: Path, spec: Path) -> Path:
    new(dest, spec)
    return dest


def test_the_readmes_show_the_entry_install_writes(tmp_path: Path) -> None:
    project = stand_in_project(tmp_path, "tasks")
    written = json.loads(document("mcp-json", launch(project, environ={})))
    page = (REPO / "docs" / "how-to" / "clients.md").read_text()
    (shown,) = json_blocks(page)
    path = str(project.resolve())
    assert json.loads(json.dumps(shown).replace("/absolute/path/to/tasks", path)) == written
    generated, uv = json_blocks((project / "README.md").read_text(), "## Running it in a client")
    assert json.loads(json.dumps(generated).replace("/absolute/path/to/project", path)) == written
    assert uv["servers"]["tasks"]["args"] == ["run", "--directory", "${workspaceFolder}", "tasks-mcp"]
    assert uv["servers"]["tasks-uvx"]["args"] == ["--from", "${workspaceFolder}", "tasks-mcp"]
    shared = Launch("tasks", "/opt/uv", ("run", "--directory", path, "tasks-mcp"), {}, Path(path))
    assert entry("vscode", shared, "project")["args"] == uv["servers"]["tasks"]["args"]
    assert {entry["type"] for entry in uv["servers"].values()} == {"stdio"}


def test_the_generated_readme_names_the_variables_a_server_needs(tmp_path: Path) -> None:
    project = stand_in_project(tmp_path, "weather")
    (generated, _) = json_blocks((project / "README.md").read_text(), "## Running it in a client")
    env = generated["mcpServers"]["weather"]["env"]
    assert list(env) == ["FORECAST_API_URL"] and env["FORECAST_API_URL"].startswith("https://")
    with pytest.raises(FailwellError) as raised:
        launch(project, environ={})
    readme = " ".join((REPO / "docs" / "how-to" / "clients.md").read_text().split())
    quoted = readme.split('in examples/weather: "', 1)[1].split('; ..."', 1)[0]
    assert raised.value.message.startswith(quoted + ";")


@pytest.fixture
def own_modules() -> Iterator[None]:
    """Forget the generated projects' modules a test imported (`vendored`), so no other test sees them."""
    before = set(sys.modules)
    yield
    for name in set(sys.modules) - before:
        del sys.modules[name]


def vendored_config(project: Path) -> Any:
    """The generated project's own `runtime/setup/config.py` (what its server's preflight runs), imported."""
    return vendored(project, "setup.config")


def vendored(project: Path, module: str) -> Any:
    """The generated project's own `runtime/<module>.py`, imported within its package (its relative imports)."""
    (src,) = (project / "src").glob("*/_generated/runtime/__init__.py")
    package = src.parent.parent.parent.name
    sys.path.insert(0, str(project / "src"))
    try:
        loaded = sys.modules.get(package)
        if loaded is not None and not str(loaded.__file__).startswith(str(project)):  # another test's project
            for name in [n for n in sys.modules if n == package or n.startswith(package + ".")]:
                del sys.modules[name]
        return importlib.import_module(f"{package}._generated.runtime.{module}")
    finally:
        sys.path.remove(str(project / "src"))


def install_cli(project: Path, home: Path, *args: str) -> Any:
    """`failwell install ARGS` in-process, for a user whose home is `home`."""
    env = {"HOME": str(home), "XDG_CONFIG_HOME": str(home / ".config")}
    return CliRunner(env=env).invoke(app, ["install", *args, "--project", str(project)])


@pytest.mark.parametrize(
    ("example", "value", "quoted", "accepts"),
    [
        ("weather", "FORECAST_API_URL=not-a-url", "FORECAST_API_URL='not-a-url'", "absolute http:// or https:// URL"),
        ("weather", "FORECAST_API_URL=ftp://x.example", "FORECAST_API_URL='ftp://x.example'", "http:// or https://"),
        ("weather", "MCP_PORT=99999", "MCP_PORT='99999'", "a port number from 1 to 65535"),
        ("weather", "LOG_LEVEL=loud", "LOG_LEVEL='loud'", "one of DEBUG, INFO, WARNING, ERROR"),
        ("tasks", "TASKS_TOKENS=tiny-tk", "TASKS_TOKENS=<a secret of 7 characters, not shown>", "shorter than 16"),
        ("tasks", 'TASKS_TOKENS={"x"', "TASKS_TOKENS=<a secret of 4 characters, not shown>", "starts with { but"),
        ("redis", "REDIS_URL=http://127.0.0.1:6379", "REDIS_URL='http://127.0.0.1:6379'", "redis://, rediss://"),
        ("tasks", "MCP_RESOURCE_URL=mcp.example.com", "MCP_RESOURCE_URL='mcp.example.com'", "not an absolute http(s)"),
    ],
)
def test_install_refuses_a_value_the_servers_preflight_would_refuse(
    tmp_path: Path, example: str, value: str, quoted: str, accepts: str, own_modules: None
) -> None:
    if example == "redis":
        spec = (EXAMPLES / "tasks" / "failwell.yaml").read_text().replace("store: sqlite", "store: redis")
        assert "store: redis" in spec
        (tmp_path / "redis.yaml").write_text(spec)
        project = new_project(tmp_path / "redis", tmp_path / "redis.yaml")
        installed(project, "tasks-mcp")
    else:
        project = stand_in_project(tmp_path, example)
    home = tmp_path / "home"
    ok = "FORECAST_API_URL=http://127.0.0.1:9" if example == "weather" else "REDIS_URL=redis://127.0.0.1:6379/0"
    done = install_cli(project, home, "claude-desktop", "--env", ok, "--env", value)
    assert done.exit_code == 1, done.output
    (line,) = done.stderr.strip().splitlines()
    assert line.startswith(f"failwell: {quoted} is refused: ") and line.endswith("; nothing was written")
    assert accepts in line
    secret = value.partition("=")[2]
    assert "TOKENS" not in value or secret not in line, "a secret is never printed"
    assert not home.exists(), "nothing was written"
    # the reason is the generated server's own words: its vendored config.py refuses the value the same way
    config = vendored_config(project)
    name, _, given = value.partition("=")
    checks = {
        "FORECAST_API_URL": lambda: config.check_base_url(
            name, given, "the base URL of the `forecast_api` upstream, such as https://api.example.com"
        ),
        "MCP_PORT": lambda: config.check_port(name, given),
        "LOG_LEVEL": lambda: config.check_log_level(given),
        "TASKS_TOKENS": lambda: config.check_tokens(name, given),
        "REDIS_URL": lambda: config.check_redis_url(name, given),
        "MCP_RESOURCE_URL": lambda: vendored(project, "transport.oauth").resource_url(given, "127.0.0.1", 8000, "/mcp"),
    }
    with pytest.raises(config.ConfigurationError) as refused:
        checks[name]()
    assert line.removeprefix(f"failwell: {quoted} is refused: ").removesuffix("; nothing was written") == str(
        refused.value
    ).removesuffix(f"; {config.WHERE}")


def test_install_accepts_what_the_server_accepts(tmp_path: Path) -> None:
    project = stand_in_project(tmp_path, "tasks")
    home = tmp_path / "home"
    tokens = '{"a-long-random-token-for-ada": {"subject": "ada", "scopes": ["tasks:read"]}}'
    done = install_cli(project, home, "claude-desktop", "--env", f"TASKS_TOKENS={tokens}", "--env", "LOG_LEVEL=debug")
    assert done.exit_code == 0, done.output


def test_reinstalling_with_another_env_says_exactly_what_differs(tmp_path: Path) -> None:
    project = stand_in_project(tmp_path, "weather")
    home = tmp_path / "home"
    first = install_cli(
        project, home, "claude-desktop", "--env", "FORECAST_API_URL=http://127.0.0.1:9", "--env", "OLD=1"
    )
    assert first.exit_code == 0, first.output
    (written,) = (home / ".config" / "Claude").glob("*.json")
    before = written.read_bytes()
    again = install_cli(
        project,
        home,
        "claude-desktop",
        "--env",
        "FORECAST_API_URL=http://127.0.0.1:10",
        "--env",
        "WEATHER_API_KEY=k-0123456789abcdef",
    )
    assert again.exit_code == 1
    (line,) = again.stderr.strip().splitlines()
    assert "already has a server called 'weather', and it differs from this one: " in line
    assert 'env changes FORECAST_API_URL "http://127.0.0.1:9" there, "http://127.0.0.1:10" here' in line
    assert "env adds WEATHER_API_KEY=(a secret, not shown)" in line and "k-0123456789abcdef" not in line
    assert "env drops OLD" in line
    assert "command" not in line.split("differs from this one: ")[1], "the command is the same: not named"
    assert "pass --force to replace it" in line and "--name to add this one beside it" in line
    assert written.read_bytes() == before
    other = {"command": "/opt/uv", "args": ["run", "x"], "env": {"TOKEN": "old-secret-value-123"}, "cwd": "/x"}
    said = differences(other, {"command": "/p/.venv/bin/x", "args": [], "env": {"TOKEN": "new-secret-value-456"}})
    assert said == (
        'command "/opt/uv" there, "/p/.venv/bin/x" here; args ["run", "x"] there, [] here; '
        "env changes TOKEN (a secret, not shown) there, (a secret, not shown) here; the entry there also has cwd"
    )


def test_the_recorded_env_is_read_without_following_a_link(tmp_path: Path) -> None:
    project = stand_in_project(tmp_path, "weather")
    elsewhere = tmp_path / "elsewhere.json"
    elsewhere.write_text('{"mcpServers": {"weather": {"env": {"FORECAST_API_URL": "http://127.0.0.1:9"}}}}')
    (project / ".failwell").mkdir()
    (project / ".failwell" / "mcp.json").symlink_to(elsewhere)
    called = CliRunner().invoke(app, ["call", "weather_places", "query=Lis", "--project", str(project)])
    assert called.exit_code == 1
    assert "is a symbolic link" in called.stderr and "never followed" in called.stderr
    assert "nothing was written" not in called.stderr, "a call writes nothing: it says nothing of writing"
    home = tmp_path / "home"
    done = install_cli(project, home, "claude-desktop", "--env", "FORECAST_API_URL=http://127.0.0.1:9")
    assert done.exit_code == 1 and "symbolic link" in done.stderr, done.output
    assert not home.exists(), "the client's file is not written when the recording cannot be"


def test_a_project_scope_entry_holds_no_path_of_this_machine_and_says_what_stays() -> None:
    root = Path("/work/notes")
    venv_server = Launch(
        "notes", "/work/notes/.venv/bin/notes-mcp", (), {STORE_ENV: "/work/notes/.failwell/n.db"}, root
    )
    assert entry("vscode", venv_server, "project")["command"] == "${workspaceFolder}/.venv/bin/notes-mcp"
    assert entry("cursor", venv_server, "project")["env"] == {STORE_ENV: "${workspaceFolder}/.failwell/n.db"}
    assert entry("claude-code", venv_server, "project")["command"] == "${CLAUDE_PROJECT_DIR:-.}/.venv/bin/notes-mcp"
    assert entry("vscode", venv_server, "user")["command"] == venv_server.command, "a user file keeps the path"
    assert portability_notes("vscode", venv_server) == []
    (note,) = portability_notes("claude-code", venv_server)
    assert note.startswith("Claude Code documents no variable for the project's folder in .mcp.json")
    uv_server = Launch("notes", "/opt/uv/bin/uv", ("run", "--directory", "/work/notes", "notes-mcp"), {}, root)
    assert entry("cursor", uv_server, "project")["args"] == ["run", "--directory", "${workspaceFolder}", "notes-mcp"]
    (note,) = portability_notes("cursor", uv_server)
    assert note.startswith("/opt/uv/bin/uv is a path of this machine, outside the project, and Cursor has no variable")
    assert entry("vscode", Launch("n", "/work/notesbook/x", (), {}, root), "project")["command"] == "/work/notesbook/x"
