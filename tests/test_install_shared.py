"""`failwell install` as a team uses it, with real processes: the weather example over a real fake forecast API
on 127.0.0.1, its server started over stdio by the official `mcp` client.

- A project-scope file (`.vscode/mcp.json`, `.cursor/mcp.json`, `.mcp.json`) is committed with `git`, the
  repository cloned by `git clone` to another path (a teammate's checkout, set up as its README says), and the
  server started from the committed entry with the client's variables expanded as that client documents it
  (VS Code and Cursor: `${workspaceFolder}` is the opened folder; Claude Code: `${VAR:-default}` from its
  environment, CLAUDE_PROJECT_DIR being the project root), from another working folder.
- `failwell call` with no `--env` answers through the upstream `install --env` recorded in
  `.failwell/mcp.json`; the shell's environment beats the recording, and `--env` beats both. `failwell read`
  and `failwell prompt` do the same, for a resource and a prompt that read an upstream.

The projects' `.venv` holds the project and the `mcp` SDK through a `.pth` file (what `pip install -e .`
leaves, without a download): the console script is the one `pip` writes for `[project.scripts]`.
"""

from __future__ import annotations

import json
import os
import re
import stat
import subprocess
import sys
import threading
import venv
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any, ClassVar

import pytest
from test_read_upstreams import PROMPT, RESOURCE
from test_read_upstreams import SPEC as DOCS

from conftest import BIN, EXAMPLES, copy_project
from failwell import new
from failwell.client.launch import Launch
from failwell.client.session import list_tools

pytestmark = pytest.mark.slow

TOOLS = ["weather_forecast", "weather_places"]


class Forecast(BaseHTTPRequestHandler):
    """The forecast API: `/places` answers one place; every request path is counted."""

    seen: ClassVar[list[str]] = []

    def do_GET(self) -> None:
        Forecast.seen.append(self.path)
        body = json.dumps({"places": [{"name": "Lisbon", "country": "PT"}]}).encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, format: str, *args: Any) -> None:
        return None


@pytest.fixture
def upstream() -> Iterator[str]:
    """The base URL of a real HTTP forecast API on 127.0.0.1, stopped after the test."""
    server = ThreadingHTTPServer(("127.0.0.1", 0), Forecast)
    thread = threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.1}, daemon=True)
    thread.start()
    Forecast.seen.clear()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()
        server.server_close()
        thread.join(timeout=10)


def set_up(project: Path, package: str = "weather_mcp") -> None:
    """`python -m venv .venv && pip install -e .`, offline: the venv sees the project's `src` and the SDK this
    test runs on, and gets the console script pip writes for `weather-mcp = "weather_mcp.__main__:main"`."""
    venv.EnvBuilder(with_pip=False).create(project / ".venv")
    (site,) = (project / ".venv" / "lib").glob("python3*/site-packages")
    here = [path for path in sys.path if path.endswith("site-packages")]
    (site / "_project.pth").write_text("\n".join([str(project / "src"), *here]) + "\n")
    script = project / ".venv" / "bin" / package.replace("_", "-")
    script.write_text(
        f"#!{project / '.venv' / 'bin' / 'python'}\nimport sys\nfrom {package}.__main__ import main\nsys.exit(main())\n"
    )
    script.chmod(0o755)


def run(*args: str | Path, cwd: Path, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [*map(str, args)], cwd=cwd, env=env or shell(), capture_output=True, text=True, timeout=300, check=False
    )


def shell(home: Path | None = None, **extra: str) -> dict[str, str]:
    """This process's environment without the forecast API's variable (and with `home` as HOME)."""
    env = {key: value for key, value in os.environ.items() if key not in ("FORECAST_API_URL", "XDG_CONFIG_HOME")}
    if home is not None:
        env["HOME"] = str(home)
    return {**env, "GIT_CONFIG_NOSYSTEM": "1", **extra}


def git(*args: str | Path, cwd: Path) -> None:
    ident = ["-c", "user.name=Ada", "-c", "user.email=ada@example.com", "-c", "init.defaultBranch=main"]
    done = run("git", *ident, *args, cwd=cwd)
    assert done.returncode == 0, done.stderr


FILES = {"vscode": (".vscode/mcp.json", "servers"), "cursor": (".cursor/mcp.json", "mcpServers")}
FILES["claude-code"] = (".mcp.json", "mcpServers")


def expanded(client: str, value: str, checkout: Path, claude_env: dict[str, str]) -> str:
    """`value` as `client` expands it for a project opened at `checkout` (sources: failwell/clients.py)."""
    if client in ("vscode", "cursor"):
        return value.replace("${workspaceFolder}", str(checkout))

    def variable(found: re.Match[str]) -> str:  # Claude Code: ${VAR} and ${VAR:-default}
        return claude_env.get(found.group(1)) or (found.group(2) or "")

    return re.sub(r"\$\{([A-Za-z_][A-Za-z0-9_]*)(?::-([^}]*))?\}", variable, value)


@pytest.mark.parametrize("client", ["vscode", "cursor", "claude-code"])
def test_a_committed_project_entry_starts_the_server_on_a_teammates_checkout(
    tmp_path: Path, upstream: str, client: str
) -> None:
    mine = copy_project(EXAMPLES / "weather", tmp_path / "ada" / "weather")
    set_up(mine)
    git("init", "-q", cwd=mine)
    done = run(
        BIN / "failwell",
        "install",
        client,
        "--scope",
        "project",
        "--env",
        f"FORECAST_API_URL={upstream}",
        cwd=mine,
        env=shell(tmp_path / "home"),
    )
    assert done.returncode == 0, done.stderr
    name, key = FILES[client]
    text = (mine / name).read_text()
    assert str(mine) not in text and str(tmp_path) not in text, "no path of this machine in a shared file"
    if client == "claude-code":
        assert "Claude Code documents no variable for the project's folder" in done.stderr
    git("add", "-A", cwd=mine)
    git("commit", "-q", "-m", "the server for our clients", cwd=mine)

    theirs = tmp_path / "bob" / "checkouts" / "weather"
    git("clone", "-q", mine, theirs, cwd=tmp_path)
    set_up(theirs)
    committed = json.loads((theirs / name).read_text())[key]["weather"]
    claude = {"CLAUDE_PROJECT_DIR": str(theirs)}
    command = expanded(client, committed["command"], theirs, claude)
    assert command == str(theirs / ".venv" / "bin" / "weather-mcp")
    env = {k: expanded(client, v, theirs, claude) for k, v in committed.get("env", {}).items()}
    args = tuple(expanded(client, arg, theirs, claude) for arg in committed.get("args", []))
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    listed = list_tools(Launch("weather", command, args, env, elsewhere))
    assert sorted(tool["name"] for tool in listed) == TOOLS
    if client == "claude-code":  # CLAUDE_PROJECT_DIR unset: `.`, the folder Claude Code started in
        relative = expanded(client, committed["command"], theirs, {})
        assert relative == "./.venv/bin/weather-mcp"
        listed = list_tools(Launch("weather", relative, args, env, theirs))
        assert sorted(tool["name"] for tool in listed) == TOOLS


def test_call_uses_the_env_install_recorded_below_the_shell_and_env(tmp_path: Path, upstream: str) -> None:
    project = copy_project(EXAMPLES / "weather", tmp_path / "weather")
    set_up(project)
    home = tmp_path / "home"
    done = run(
        BIN / "failwell",
        "install",
        "claude-desktop",
        "--env",
        f"FORECAST_API_URL={upstream}",
        cwd=project,
        env=shell(home),
    )
    assert done.returncode == 0, done.stderr
    recorded = project / ".failwell" / "mcp.json"
    assert json.loads(recorded.read_text())["mcpServers"]["weather"]["env"] == {"FORECAST_API_URL": upstream}
    assert stat.S_IMODE(recorded.stat().st_mode) == 0o600

    called = run(BIN / "failwell", "call", "weather_places", "query=Lis", cwd=project / "src", env=shell(home))
    assert called.returncode == 0, called.stdout + called.stderr
    assert '"name": "Lisbon"' in called.stdout and Forecast.seen == ["/places?prefix=Lis"]

    nothing = "http://127.0.0.1:9"  # the shell's value beats the recorded one: a port nothing listens on
    shadowed = run(
        BIN / "failwell", "call", "weather_places", "query=Lis", cwd=project, env=shell(home, FORECAST_API_URL=nothing)
    )
    assert shadowed.returncode == 1 and shadowed.stdout.startswith("isError: true"), shadowed.stderr
    assert Forecast.seen == ["/places?prefix=Lis"]
    given = run(
        BIN / "failwell",
        "call",
        "weather_places",
        "query=Lis",
        "--env",
        f"FORECAST_API_URL={upstream}",
        cwd=project,
        env=shell(home, FORECAST_API_URL=nothing),
    )
    assert given.returncode == 0, given.stdout + given.stderr
    listed = run(BIN / "failwell", "tools", cwd=project, env=shell(home))
    assert listed.returncode == 0 and [line.split("(")[0] for line in listed.stdout.splitlines()] == TOOLS


def test_read_and_prompt_use_the_env_install_recorded_below_the_shell(tmp_path: Path, upstream: str) -> None:
    """A resource and a prompt that read an upstream whose URL only `install --env` was given: before the install
    `read` says the server needs it; after it, `failwell read` and `failwell prompt` answer through that
    upstream, and the shell's own value still beats the recorded one."""
    spec = tmp_path / "docs.yaml"
    spec.write_text(DOCS)
    project = tmp_path / "docs"
    new(project, spec)
    handlers = project / "src" / "docs_mcp" / "handlers"
    (handlers / "resources" / "library.py").write_text(RESOURCE)
    (handlers / "prompts" / "explain.py").write_text(PROMPT)
    set_up(project, "docs_mcp")
    home = tmp_path / "home"
    unset = run(BIN / "failwell", "read", "docs://next.js", cwd=project, env=shell(home))
    assert unset.returncode == 1 and "the server needs DOCS_API_URL" in unset.stderr, unset.stderr
    done = run(
        BIN / "failwell", "install", "claude-desktop", "--env", f"DOCS_API_URL={upstream}", cwd=project, env=shell(home)
    )
    assert done.returncode == 0, done.stderr

    read = run(BIN / "failwell", "read", "docs://next.js", cwd=project, env=shell(home))
    assert read.returncode == 0, read.stdout + read.stderr
    assert read.stdout.startswith("docs://next.js (") and '"name": "Lisbon"' in read.stdout, read.stdout
    prompt = run(BIN / "failwell", "prompt", "explain", "topic=routing", cwd=project / "src", env=shell(home))
    assert prompt.returncode == 0, prompt.stdout + prompt.stderr
    assert "Explain this: " in prompt.stdout and '"name": "Lisbon"' in prompt.stdout, prompt.stdout
    assert Forecast.seen == ["/docs/next.js", "/docs/topic?topic=routing"]

    nothing = "http://127.0.0.1:9"  # the shell's value beats the recorded one: a port nothing listens on
    for command in (["read", "docs://next.js"], ["prompt", "explain", "topic=routing"]):
        shadowed = run(BIN / "failwell", *command, cwd=project, env=shell(home, DOCS_API_URL=nothing))
        assert shadowed.returncode == 1 and shadowed.stdout.startswith("error: -31503"), shadowed.stdout
    assert len(Forecast.seen) == 2, "the recorded upstream was not asked"
