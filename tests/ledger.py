"""A generated project whose one write tool posts to a ledger, a real HTTP server on 127.0.0.1 that
counts what it receives, and a real redis-server: the parts of the exactly-once tests."""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import socket
import subprocess
import sys
import threading
import time
from collections import Counter
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

from httpserver import free_port, in_thread

SPEC = """\
failwell: 1
server:
  name: ledger
  store: {store}
  rate_limit: {{calls: 1000000, per_s: 1}}{auth}
upstreams:
  ledger_api: {{base_url_env: LEDGER_API_URL, timeout_s: 2, retries: 2}}
tools:
  ledger_add:
    description: Add an amount to the ledger, once per idempotency key.
    effect: write
    idempotency: required
    rerun_safe: true
    scopes: []
    deadline_s: 5
    upstreams: [ledger_api]
    input:
      account: {{type: string, example: acct-1}}
      amount: {{type: integer, minimum: 1, example: 5}}
    output:
      entry: {{type: integer}}
  ledger_ping:
    description: Answer quickly, at most twice a second.
    effect: read
    scopes: []
    rate_limit: {{calls: 2, per_s: 1}}
    output:
      ok: {{type: boolean}}
"""

HANDLERS = {
    "ledger_add": """\
from .._generated.tools.ledger_add import Context, Input, Output


async def handle(params: Input, ctx: Context) -> Output:
    entry = {"account": params.account, "amount": params.amount}
    response = await ctx.upstreams.ledger_api.post("/entries", json=entry)
    return Output(entry=int(response.json()["entry"]))
""",
    "ledger_ping": """\
from .._generated.tools.ledger_ping import Context, Input, Output


async def handle(params: Input, ctx: Context) -> Output:
    return Output(ok=True)
""",
}


AUTH = "\n  auth: {tokens_env: LEDGER_TOKENS}"


def make_project(root: Path, store: str, *, auth: bool = False) -> Path:
    """Generate the ledger project with `store` (and bearer tokens from LEDGER_TOKENS with `auth`) and real
    handlers; returns its `src` folder."""
    from failwell import new

    spec = root / f"ledger-{store}.yaml"
    spec.write_text(SPEC.format(store=store, auth=AUTH if auth else ""))
    project = root / f"ledger-{store}"
    new(project, spec)
    for name, source in HANDLERS.items():
        (project / "src" / "ledger_mcp" / "handlers" / f"{name}.py").write_text(source)
    return project / "src"


class _Listening(ThreadingHTTPServer):
    request_queue_size = 1024
    """Room for a thousand connections at once (the default backlog of 5 refuses most of a burst)."""


class Ledger:
    """The ledger API. Every POST is counted by its Idempotency-Key. With `dedup` (as payment APIs do),
    a key's second POST replays its first entry; without, every POST adds an entry."""

    def __init__(self, *, dedup: bool, delay_s: float = 0.0) -> None:
        self.dedup = dedup
        self.delay_s = delay_s
        self.posts: Counter[str] = Counter()
        self.applied: list[str] = []
        self.amounts: list[int] = []
        """The amount of every entry applied, in order."""
        self.entry_of: dict[str, int] = {}
        self.authorizations: list[str] = []
        """Every Authorization header that arrived (none should: tokens are never sent upstream)."""
        self.lock = threading.Lock()
        ledger = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:
                try:
                    body = json.loads(self.rfile.read(int(self.headers.get("content-length") or 0)))
                    amount = int(body["amount"])
                except (ValueError, KeyError, TypeError):
                    with contextlib.suppress(OSError):
                        self.send_error(400)  # a request cut short by a killed client
                    return
                key = self.headers.get("idempotency-key") or ""
                with ledger.lock:
                    ledger.authorizations += self.headers.get_all("authorization") or []
                    ledger.posts[key] += 1
                    if not (ledger.dedup and key in ledger.entry_of):
                        ledger.applied.append(key)
                        ledger.amounts.append(amount)
                        ledger.entry_of[key] = len(ledger.applied)
                    entry = ledger.entry_of[key]
                time.sleep(ledger.delay_s)
                reply = json.dumps({"entry": entry}).encode()
                try:
                    self.send_response(201)
                    self.send_header("content-type", "application/json")
                    self.send_header("content-length", str(len(reply)))
                    self.end_headers()
                    self.wfile.write(reply)
                except (BrokenPipeError, ConnectionResetError):
                    pass

            def log_message(self, format: str, *args: Any) -> None:
                pass

        self.server = _Listening(("127.0.0.1", 0), Handler)
        self.server.daemon_threads = True
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}"

    def effects(self) -> Counter[str]:
        """Entries applied, per Idempotency-Key."""
        return Counter(self.applied)

    @contextmanager
    def running(self) -> Iterator[Ledger]:
        with in_thread(self.server):
            yield self


@dataclass(frozen=True)
class Redis:
    """A redis-server the tests started."""

    process: subprocess.Popen[bytes]
    port: int

    @property
    def url(self) -> str:
        return f"redis://127.0.0.1:{self.port}/0"


@contextmanager
def running_redis(folder: Path | None = None, port: int | None = None) -> Iterator[Redis]:
    """A real redis-server on 127.0.0.1, killed after. With `folder`, it keeps its data there in an append-only
    file fsynced on every write (so a record survives its SIGKILL), and logs to `folder/redis.log`."""
    binary = shutil.which("redis-server")
    if binary is None:
        raise RuntimeError("redis-server is not installed: .ci/run installs it (apt-get install redis-server)")
    port = port or free_port()
    persistence = ["--dir", str(folder), "--appendonly", "yes", "--appendfsync", "always"] if folder else []
    log = (folder / "redis.log").open("ab") if folder else subprocess.DEVNULL
    process = subprocess.Popen(
        [binary, "--port", str(port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no", *persistence],
        stdout=log,
        stderr=subprocess.STDOUT,
    )
    try:
        deadline = time.monotonic() + 20
        while not _pong(port):
            if process.poll() is not None or time.monotonic() > deadline:
                raise RuntimeError("redis-server did not start" + (f": see {folder}/redis.log" if folder else ""))
            time.sleep(0.05)
        yield Redis(process, port)
    finally:
        process.kill()
        process.wait(timeout=10)


@contextmanager
def redis_server() -> Iterator[str]:
    """A real redis-server on 127.0.0.1, started for the tests and stopped after; yields its URL."""
    with running_redis() as redis:
        yield redis.url


def _pong(port: int) -> bool:
    try:
        with socket.create_connection(("127.0.0.1", port), timeout=0.5) as conn:
            conn.sendall(b"PING\r\n")
            return conn.recv(16).startswith(b"+PONG")
    except OSError:
        return False


def stdio_server(
    src: Path, env: dict[str, str], package: str = "ledger_mcp", stderr: Any = subprocess.DEVNULL
) -> subprocess.Popen[str]:
    """A generated server (the ledger, by default) over stdio, with its real handlers, initialized."""
    process = subprocess.Popen(
        [sys.executable, "-m", package],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=stderr,
        text=True,
        env={**os.environ, **env, "PYTHONPATH": str(src)},
    )
    hello = {"protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "ledger-test", "version": "0"}}
    try:
        send(process, {"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": hello})
        receive(process)
        send(process, {"jsonrpc": "2.0", "method": "notifications/initialized"})
    except BaseException:
        process.kill()  # it would not start (it exits 2 when its store is down): nothing is left running
        process.wait()
        raise
    return process


@contextmanager
def importable(src: Path, package: str) -> Iterator[Path]:
    """A generated project's `src` importable in this process while inside, that copy and no other: modules of
    `package` imported before (another test's copy) are set aside and put back after, so each test keeps its own."""
    owned = [name for name in sys.modules if name.split(".")[0] == package]
    set_aside = {name: sys.modules.pop(name) for name in owned}
    sys.path.insert(0, str(src))
    try:
        yield src
    finally:
        sys.path.remove(str(src))
        for name in [module for module in sys.modules if module.split(".")[0] == package]:
            del sys.modules[name]
        sys.modules.update(set_aside)


def send(process: subprocess.Popen[str], message: dict[str, Any]) -> None:
    assert process.stdin is not None
    process.stdin.write(json.dumps(message) + "\n")
    process.stdin.flush()


def receive(process: subprocess.Popen[str]) -> dict[str, Any]:
    assert process.stdout is not None
    line = process.stdout.readline()
    if not line:
        raise EOFError("the server's stdout closed")
    answer: dict[str, Any] = json.loads(line)
    return answer
