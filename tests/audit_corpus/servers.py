"""The audit corpus (issue 41): real MCP servers from PyPI and npm at pinned versions, each started the way its
README says, with what it needs (a database file, a folder, a repository) made in a scratch folder. Installs are
cached under $FAILWELL_TEST_CACHE (default ~/.cache/failwell-tests), as tests/test_audit_registry.py does: only
the first run pays. PyPI servers go to `pip install --target` and run with this Python and PYTHONPATH (no venv);
two written for the 1.x SDK are installed with `mcp==1.30.0`, the SDK they were released against (with 2.x they
die at start: `'Server' object has no attribute 'list_resources'`)."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from failwell.audit.run import Options, Target

CACHE = Path(os.environ.get("FAILWELL_TEST_CACHE") or Path.home() / ".cache" / "failwell-tests")
HERE = Path(__file__).parent


@dataclass(frozen=True)
class Server:
    key: str
    registry: str
    package: str
    version: str
    start: Callable[[Path, Path], tuple[list[str], dict[str, str]]]
    """(install folder, scratch folder) -> (command, env)."""
    pins: tuple[str, ...] = ()
    options: dict[str, bool] = field(default_factory=dict)

    @property
    def requirement(self) -> str:
        return f"{self.package}=={self.version}" if self.registry == "pypi" else f"{self.package}@{self.version}"


def _module(module: str, *args: str) -> Callable[[Path, Path], tuple[list[str], dict[str, str]]]:
    def start(installed: Path, scratch: Path) -> tuple[list[str], dict[str, str]]:
        words = [arg.replace("{scratch}", str(scratch)) for arg in args]
        return [sys.executable, "-m", module, *words], {"PYTHONPATH": str(installed)}

    return start


def _main(module: str, *args: str) -> Callable[[Path, Path], tuple[list[str], dict[str, str]]]:
    """A package with no `__main__`: its console script's `main()`, with `args` as its command line."""

    def start(installed: Path, scratch: Path) -> tuple[list[str], dict[str, str]]:
        argv = ["server", *[arg.replace("{scratch}", str(scratch)) for arg in args]]
        code = f"import sys; sys.argv = {argv!r}; from {module} import main; sys.exit(main())"
        return [sys.executable, "-c", code], {"PYTHONPATH": str(installed)}

    return start


Start = Callable[[Path, Path], tuple[list[str], dict[str, str]]]


def _bin(name: str, *args: str, env: dict[str, str] | None = None) -> Start:
    def start(installed: Path, scratch: Path) -> tuple[list[str], dict[str, str]]:
        words = [arg.replace("{scratch}", str(scratch)) for arg in args]
        variables = {key: value.replace("{scratch}", str(scratch)) for key, value in (env or {}).items()}
        return [str(installed / name), *words], variables

    return start


def _git(installed: Path, scratch: Path) -> tuple[list[str], dict[str, str]]:
    subprocess.run(["git", "init", "-q", str(scratch / "repo")], check=True, timeout=30)
    return _module("mcp_server_git", "--repository", "{scratch}/repo")(installed, scratch)


def _filesystem(installed: Path, scratch: Path) -> tuple[list[str], dict[str, str]]:
    (scratch / "allowed").mkdir(exist_ok=True)
    return _bin("mcp-server-filesystem", "{scratch}/allowed")(installed, scratch)


READS = {"call_reads": True}
SERVERS = [
    Server("mcp-server-time", "pypi", "mcp-server-time", "2026.10.19", _module("mcp_server_time"), options=READS),
    Server("mcp-server-fetch", "pypi", "mcp-server-fetch", "2026.10.24", _module("mcp_server_fetch")),
    Server("mcp-server-git", "pypi", "mcp-server-git", "2026.10.19", _git),
    Server(
        "mcp-server-sqlite",
        "pypi",
        "mcp-server-sqlite",
        "2025.4.25",
        _main("mcp_server_sqlite", "--db-path", "{scratch}/db.sqlite"),
        pins=("mcp==1.30.0",),
    ),
    Server("mcp-server-calculator", "pypi", "mcp-server-calculator", "0.2.1", _module("mcp_server_calculator")),
    Server("excel-mcp-server", "pypi", "excel-mcp-server", "2.2.2", _main("excel_mcp.cli", "stdio")),
    Server(
        "mcp-server-duckdb",
        "pypi",
        "mcp-server-duckdb",
        "1.1.0",
        _main("mcp_server_duckdb", "--db-path", "{scratch}/db.duckdb"),
        pins=("mcp==1.30.0",),
    ),
    Server(
        "server-everything",
        "npm",
        "@modelcontextprotocol/server-everything",
        "2026.8.31",
        _bin("mcp-server-everything"),
        options=READS,
    ),
    Server("server-filesystem", "npm", "@modelcontextprotocol/server-filesystem", "2026.8.31", _filesystem),
    Server(
        "server-memory",
        "npm",
        "@modelcontextprotocol/server-memory",
        "2026.8.31",
        _bin("mcp-server-memory", env={"MEMORY_FILE_PATH": "{scratch}/memory.jsonl"}),
    ),
    Server(
        "server-sequential-thinking",
        "npm",
        "@modelcontextprotocol/server-sequential-thinking",
        "2026.8.31",
        _bin("mcp-server-sequential-thinking"),
    ),
]
BY_KEY = {server.key: server for server in SERVERS}


def install(server: Server) -> Path:
    """The folder the server runs from: a `pip install --target` folder, or the npm prefix's `.bin` (once)."""
    if server.registry == "pypi":
        target = CACHE / "pypi" / "-".join([server.requirement.replace("==", "-"), *server.pins]).replace("==", "-")
        if not (target / ".complete").exists():
            shutil.rmtree(target, ignore_errors=True)
            pip = [sys.executable, "-m", "pip", "install", "-q", "--disable-pip-version-check", "--target", str(target)]
            subprocess.run([*pip, server.requirement, *server.pins], check=True, timeout=900, capture_output=True)
            (target / ".complete").touch()
        return target
    prefix = CACHE / "npm" / server.requirement.replace("/", "+")  # one prefix each: their SDKs differ
    if not (prefix / ".complete").exists():
        if shutil.which("npm") is None:
            raise RuntimeError("npm is not installed: the npm servers cannot be audited")
        prefix.mkdir(parents=True, exist_ok=True)
        command = ["npm", "install", "--silent", "--no-audit", "--no-fund", "--prefix", str(prefix), server.requirement]
        subprocess.run(command, check=True, timeout=900, capture_output=True)
        (prefix / ".complete").touch()
    return prefix / "node_modules" / ".bin"


def target(server: Server, scratch: Path) -> tuple[Target, Options]:
    command, env = server.start(install(server), scratch)
    return Target(command=command, env=env), Options(timeout_s=30, record=True, **server.options)
