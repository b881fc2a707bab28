"""From a generated project to a server running in a real client: a project made with `failwell new` and
installed into its own venv, its entry written by `failwell install` into a temporary home, and that very
entry launched by the MCP Inspector's CLI as a desktop client launches it (its command, args and env and
nothing else: an empty environment, a short PATH, another working folder), which lists and calls its tools.
(`@modelcontextprotocol/inspector-cli` 1.0.3 has no `--config`; the Inspector launcher that reads one,
which `failwell dev` runs, needs Node 22.)"""

from __future__ import annotations

import json
import os
import subprocess
import venv
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from test_conformance import inspect

from conftest import failwell

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def project(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    """A starter project called notes, installed as its README says (`.venv`, `pip install -e .`)."""
    root = tmp_path_factory.mktemp("clients") / "notes"
    assert failwell("new", root).returncode == 0
    venv.EnvBuilder(with_pip=True).create(root / ".venv")
    pip = [str(root / ".venv" / "bin" / "python"), "-m", "pip", "install", "-q", "-e", str(root)]
    installed = subprocess.run(pip, capture_output=True, text=True, timeout=600)
    assert installed.returncode == 0, installed.stderr[-3000:]
    yield root


def home_env(home: Path) -> dict[str, str]:
    """A user whose home is `home`: every client's file lands inside it."""
    env = {key: value for key, value in os.environ.items() if key not in ("XDG_CONFIG_HOME", "APPDATA")}
    return {**env, "HOME": str(home)}


def run_failwell(*args: str | Path, env: dict[str, str], cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
    from conftest import BIN

    return subprocess.run(
        [str(BIN / "failwell"), *map(str, args)], cwd=cwd, env=env, capture_output=True, text=True, timeout=300
    )


def as_a_client_starts_it(entry: dict[str, Any], home: Path) -> list[str]:
    """The inspector's target for a configuration entry: its command, args and env, in an emptied environment."""
    assert Path(entry["command"]).is_absolute()
    env = [f"{key}={value}" for key, value in entry.get("env", {}).items()]
    return ["env", "-i", "PATH=/usr/bin:/bin", f"HOME={home}", *env, entry["command"], *entry.get("args", [])]


def tools_of(listed: Any) -> list[str]:
    return sorted(tool["name"] for tool in listed["tools"])


@pytest.mark.parametrize("client", ["claude-desktop", "claude-code", "cursor", "vscode"])
def test_the_written_file_starts_the_server_in_the_inspector(project: Path, tmp_path: Path, client: str) -> None:
    home = tmp_path / "home"
    done = run_failwell("install", client, env=home_env(home), cwd=project / "src")
    assert done.returncode == 0, done.stderr
    written = {
        "claude-desktop": home / ".config" / "Claude" / "claude_desktop_config.json",
        "claude-code": home / ".claude.json",
        "cursor": home / ".cursor" / "mcp.json",
        "vscode": project / ".vscode" / "mcp.json",
    }[client]
    entry = json.loads(written.read_text())["servers" if client == "vscode" else "mcpServers"]["notes"]
    assert entry["command"] == str(project.resolve() / ".venv" / "bin" / "notes-mcp")
    assert entry["env"]["FAILWELL_SQLITE_PATH"] == str(project.resolve() / ".failwell" / "notes.sqlite3")

    target = as_a_client_starts_it(entry, home)
    code, listed = inspect(target, "--method", "tools/list")
    assert code == 0, listed
    assert tools_of(listed) == ["notes_add", "notes_get"]
    code, failed = inspect(target, "--method", "tools/call", "--tool-name", "notes_get", "--tool-arg", "note_id=X")
    assert code == 0 and failed["isError"] is True
    assert failed["_meta"]["dev.failwell/error"]["class"] == "invalid_input"
    assert '`note_id` received "X"' in failed["content"][0]["text"]
