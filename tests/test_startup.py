"""Configuration is checked before serving: a missing or malformed setting, or a store that cannot be used,
stops the server with exit status 2 and one stderr line saying what to set and where; the SQLite file lives in
the project's `.failwell/` folder (or, for a server installed without its project, the user's data folder)
whatever folder the server was started from, and by whatever: by hand or through `failwell call`."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from httpserver import free_port
from ledger import make_project, redis_server
from test_faults import tmpfs

from conftest import failwell

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def projects(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    root = tmp_path_factory.mktemp("startup")
    return {store: make_project(root, store) for store in ("sqlite", "redis")}


def start(src: Path, env: dict[str, str], *args: str, cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
    base = {key: value for key, value in os.environ.items() if key not in ("LEDGER_API_URL", "REDIS_URL")}
    return subprocess.run(
        [sys.executable, "-m", "ledger_mcp", *args],
        input="",
        capture_output=True,
        text=True,
        timeout=60,
        cwd=cwd,
        env={**base, "PYTHONPATH": str(src), **env},
    )


def refused(ran: subprocess.CompletedProcess[str]) -> str:
    """The one reason a server that would not start gives."""
    assert ran.returncode == 2, ran.stderr
    assert ran.stdout == "", "nothing reaches stdout"
    lines = [json.loads(line) for line in ran.stderr.splitlines()]
    assert [line["event"] for line in lines] == ["cannot start"], ran.stderr
    assert "Traceback" not in ran.stderr
    return str(lines[0]["reason"])


def test_a_missing_upstream_url_stops_the_server_naming_it(projects: dict[str, Path], tmp_path: Path) -> None:
    env = {"FAILWELL_SQLITE_PATH": str(tmp_path / "s.sqlite3")}
    reason = refused(start(projects["sqlite"], env))
    assert reason.startswith("LEDGER_API_URL is not set; the server needs it to start: the base URL of the")
    assert "the `env` of this server's entry in its MCP configuration" in reason


def test_a_malformed_upstream_url_stops_the_server(projects: dict[str, Path], tmp_path: Path) -> None:
    env = {"LEDGER_API_URL": "ledger.internal:8080", "FAILWELL_SQLITE_PATH": str(tmp_path / "s.sqlite3")}
    reason = refused(start(projects["sqlite"], env))
    assert reason.startswith("LEDGER_API_URL must hold the base URL of the `ledger_api` upstream")


@pytest.mark.parametrize(
    ("env", "expected"),
    [
        ({"MCP_PORT": "abc"}, "MCP_PORT must be a port number from 1 to 65535, not 'abc'"),
        ({"MCP_PORT": "70000"}, "MCP_PORT must be a port number from 1 to 65535, not '70000'"),
        ({"LOG_LEVEL": "loud"}, "LOG_LEVEL must be one of DEBUG, INFO, WARNING, ERROR, not 'loud'"),
    ],
)
def test_a_malformed_option_stops_the_server(
    projects: dict[str, Path], tmp_path: Path, env: dict[str, str], expected: str
) -> None:
    base = {"LEDGER_API_URL": "http://127.0.0.1:9", "FAILWELL_SQLITE_PATH": str(tmp_path / "s.sqlite3")}
    assert refused(start(projects["sqlite"], {**base, **env}, "--http")).startswith(expected)


def test_an_unreachable_redis_stops_the_server_without_its_password(projects: dict[str, Path]) -> None:
    env = {"LEDGER_API_URL": "http://127.0.0.1:9", "REDIS_URL": f"redis://:hunter2-pw@127.0.0.1:{free_port()}/0"}
    ran = start(projects["redis"], env)
    assert refused(ran).startswith("the RedisStore cannot be used")
    assert "hunter2" not in ran.stderr


def test_a_redis_that_could_forget_records_is_served_with_a_warning_naming_the_setting(
    projects: dict[str, Path],
) -> None:
    with redis_server() as url:  # no append-only file
        ran = start(projects["redis"], {"LEDGER_API_URL": "http://127.0.0.1:9", "REDIS_URL": url})
    assert ran.returncode == 0, ran.stderr
    logged = [json.loads(line) for line in ran.stderr.splitlines()]
    [risk] = [line for line in logged if line["event"] == "store risk"]
    assert risk["level"] == "warning" and "appendonly no" in risk["risk"], risk


@pytest.mark.parametrize(
    ("url", "expected"),
    [("", "REDIS_URL is not set"), ("mysql://127.0.0.1/0", "REDIS_URL must hold the Redis URL every replica shares")],
)
def test_a_missing_or_malformed_redis_url_stops_the_server(projects: dict[str, Path], url: str, expected: str) -> None:
    env = {"LEDGER_API_URL": "http://127.0.0.1:9", "REDIS_URL": url}
    assert refused(start(projects["redis"], env)).startswith(expected)


def test_an_unusable_sqlite_location_stops_the_server(projects: dict[str, Path], tmp_path: Path) -> None:
    (tmp_path / "state.sqlite3").mkdir()
    env = {"LEDGER_API_URL": "http://127.0.0.1:9", "FAILWELL_SQLITE_PATH": str(tmp_path / "state.sqlite3")}
    assert refused(start(projects["sqlite"], env)).startswith("the SQLiteStore cannot be used")


HELLO = {"protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "t", "version": "0"}}
PING = [
    {"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": HELLO},
    {"jsonrpc": "2.0", "method": "notifications/initialized"},
    {"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {"name": "ledger_ping", "arguments": {}}},
]


def served_store(src: Path, cwd: Path, data: Path) -> Path:
    """The store a server started by hand (`python -m`, its `src` on the path, from `cwd`) logs at start, with no
    FAILWELL_SQLITE_PATH and `data` as the user's data folder; it answers one call."""
    env = {"LEDGER_API_URL": "http://127.0.0.1:9", "XDG_DATA_HOME": str(data), "HOME": str(data)}
    base = {key: value for key, value in os.environ.items() if key != "FAILWELL_SQLITE_PATH"}
    ran = subprocess.run(
        [sys.executable, "-m", "ledger_mcp"],
        input="\n".join(json.dumps(line) for line in PING) + "\n",
        capture_output=True,
        text=True,
        timeout=60,
        cwd=cwd,
        env={**base, "PYTHONPATH": str(src), **env},
    )
    assert ran.returncode == 0, ran.stderr
    answers = [json.loads(line) for line in ran.stdout.splitlines()]
    assert answers[-1]["result"]["structuredContent"] == {"ok": True}, answers[-1]
    logged = [json.loads(line) for line in ran.stderr.splitlines()]
    serving = [line for line in logged if line["event"] == "serving"]
    assert logged[0] == serving[0], "the first line says what is served, how, and where its store is"
    (transport, store) = (serving[0]["transport"], serving[0]["store"])
    assert transport == "stdio" and store.startswith("SQLiteStore "), serving
    return Path(store.removeprefix("SQLiteStore "))


def test_from_a_read_only_folder_the_store_lives_in_the_projects_failwell_folder(
    projects: dict[str, Path], tmp_path: Path
) -> None:
    data = tmp_path / "data"
    with tmpfs(tmp_path / "ro", "ro,size=64k") as folder:
        store = served_store(projects["sqlite"], folder, data)
    assert store == projects["sqlite"].parent / ".failwell" / "ledger.sqlite3" and store.is_file()
    assert not data.exists(), "nothing in the user's data folder"


def test_a_server_installed_without_its_project_keeps_its_store_in_the_users_data_folder(
    projects: dict[str, Path], tmp_path: Path
) -> None:
    wheel = tmp_path / "site-packages"  # the package alone, as a wheel installs it: no failwell.yaml beside it
    shutil.copytree(
        projects["sqlite"] / "ledger_mcp", wheel / "ledger_mcp", ignore=shutil.ignore_patterns("__pycache__")
    )
    data = tmp_path / "data"
    store = served_store(wheel, tmp_path, data)
    assert store == data / "failwell" / "ledger.sqlite3" and store.is_file()


def test_by_hand_and_through_failwell_call_the_server_uses_one_store(tmp_path: Path) -> None:
    """Issue 42.13: started by hand (from any folder) and through `failwell call` (as a client starts it), the
    project's server keeps its idempotency records and rate limits in the same file."""
    src = make_project(tmp_path, "sqlite")
    project = src.parent
    told = project / "store-from-call.txt"
    script = project / ".venv" / "bin" / "ledger-mcp"  # the console script, as `pip install -e .` would write it
    script.parent.mkdir(parents=True)
    script.write_text(
        f'#!/bin/sh\nprintf %s "$FAILWELL_SQLITE_PATH" > "{told}"\n'
        f'PYTHONPATH="{src}" exec "{sys.executable}" -m ledger_mcp "$@"\n'
    )
    script.chmod(0o755)
    data = tmp_path / "data"
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    by_hand = served_store(src, elsewhere, data)
    env = {"HOME": str(data), "XDG_DATA_HOME": str(data), "FAILWELL_SQLITE_PATH": ""}
    called = failwell(
        "call", "ledger_ping", "--project", project, "--env", "LEDGER_API_URL=http://127.0.0.1:9", env=env
    )
    assert called.returncode == 0, called.stdout + called.stderr
    assert Path(told.read_text()) == by_hand == project / ".failwell" / "ledger.sqlite3"
    assert not (data / "failwell").exists(), "no second store in the user's data folder"
