"""Configuration is checked before serving: a missing or malformed setting, or a store that cannot be used,
stops the server with exit status 2 and one stderr line saying what to set and where; the SQLite file
lives in the user's data folder whatever folder the server was started from."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from httpserver import free_port
from ledger import make_project, redis_server
from test_faults import tmpfs

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


def test_from_a_read_only_folder_the_store_lives_in_the_users_data_folder(
    projects: dict[str, Path], tmp_path: Path
) -> None:
    data = tmp_path / "data"
    hello = {"protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "t", "version": "0"}}
    lines = [
        {"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": hello},
        {"jsonrpc": "2.0", "method": "notifications/initialized"},
        {"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {"name": "ledger_ping", "arguments": {}}},
    ]
    env = {"LEDGER_API_URL": "http://127.0.0.1:9", "XDG_DATA_HOME": str(data), "FAILWELL_SQLITE_PATH": ""}
    with tmpfs(tmp_path / "ro", "ro,size=64k") as folder:
        ran = subprocess.run(
            [sys.executable, "-m", "ledger_mcp"],
            input="\n".join(json.dumps(line) for line in lines) + "\n",
            capture_output=True,
            text=True,
            timeout=60,
            cwd=folder,
            env={**os.environ, "PYTHONPATH": str(projects["sqlite"]), **env},
        )
    assert ran.returncode == 0, ran.stderr
    answers = [json.loads(line) for line in ran.stdout.splitlines()]
    assert answers[-1]["result"]["structuredContent"] == {"ok": True}, answers[-1]
    store = data / "failwell" / "ledger.sqlite3"
    assert store.is_file(), "the rate limit's bucket was kept in the user's data folder"
    logged = [json.loads(line) for line in ran.stderr.splitlines()]
    serving = [line for line in logged if line["event"] == "serving"]
    assert [(line["transport"], line["store"]) for line in serving] == [("stdio", f"SQLiteStore {store}")]
    assert logged[0] == serving[0], "the first line says what is served, how, and where its store is"
