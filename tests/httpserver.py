"""A generated server over streamable HTTP in a real subprocess on 127.0.0.1, a real MCP client for it, and
the thread that runs the tests' own loopback HTTP servers (the ledger API, the authorization server)."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import threading
import time
from collections.abc import AsyncIterator, Callable, Iterator
from contextlib import asynccontextmanager, contextmanager
from dataclasses import dataclass
from http.server import ThreadingHTTPServer
from pathlib import Path
from typing import IO

import httpx2
from mcp import Client
from mcp.client.streamable_http import streamable_http_client

ACCEPT = {"accept": "application/json, text/event-stream", "content-type": "application/json"}


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


@contextmanager
def in_thread(server: ThreadingHTTPServer) -> Iterator[None]:
    """Serve `server` from a thread until the block ends; then shut it down and close its socket."""
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield
    finally:
        server.shutdown()
        server.server_close()
        thread.join(timeout=5)


@dataclass
class Running:
    """A server process listening on 127.0.0.1, and its stderr log."""

    process: subprocess.Popen[bytes]
    port: int
    log: IO[str]

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}/mcp"

    def logged(self) -> str:
        self.log.seek(0)
        return self.log.read()


@contextmanager
def http_server(
    module: str,
    src: Path,
    log_path: Path,
    env: dict[str, str],
    *args: str,
    port: int | None = None,
    preexec_fn: Callable[[], object] | None = None,
) -> Iterator[Running]:
    """`python -m <module> --http` with `src` on the path (running `preexec_fn` in the child before it starts, to
    set a resource limit); stopped (and waited for) on exit."""
    port = port or free_port()
    log = log_path.open("w+")
    process = subprocess.Popen(
        [sys.executable, "-m", module, "--http", "--port", str(port), *args],
        cwd=log_path.parent,
        stdout=subprocess.DEVNULL,
        stderr=log,
        env={**os.environ, **env, "PYTHONPATH": str(src)},
        preexec_fn=preexec_fn,
    )
    try:
        wait_for_port(port, process)
        yield Running(process, port, log)
    finally:
        process.terminate()
        try:
            process.wait(timeout=30)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()
        log.close()


def wait_for_port(port: int, process: subprocess.Popen[bytes]) -> None:
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise AssertionError(f"the server exited with {process.returncode} before listening")
        try:
            socket.create_connection(("127.0.0.1", port), timeout=0.2).close()
            return
        except OSError:
            time.sleep(0.05)
    raise AssertionError(f"nothing listens on 127.0.0.1:{port}")


@asynccontextmanager
async def client(url: str, token: str | None = None, mode: str = "auto") -> AsyncIterator[Client]:
    """The real MCP client over streamable HTTP, sending `token` as a bearer token."""
    headers = {"Authorization": f"Bearer {token}"} if token else {}
    async with (
        httpx2.AsyncClient(headers=headers, timeout=30) as http,
        Client(streamable_http_client(url, http_client=http), mode=mode) as session,
    ):
        yield session
