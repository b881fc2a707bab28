"""Stoplight's Prism mock server (tests/node: `prism mock`, static mode, so each answer is the document's own
example) on 127.0.0.1, and a loopback proxy in front of it that forces a documented status per call with Prism's
`Prefer: code=NNN` header (which a generated server's upstream client never sends) and records every request it
forwards (method, path, query, headers, body, when) with Prism's answer, for assertions made from outside the
server under test."""

from __future__ import annotations

import http.client
import subprocess
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

from httpserver import free_port, in_thread

from conftest import REPO

PRISM = REPO / "tests" / "node" / "node_modules" / ".bin" / "prism"
ANSWER_TIMEOUT_S = 12.0
"""Longer than an imported upstream's 10 s attempt: Prism still building an example then (Figma's whole file) has
answered nothing, recorded as status 0."""
HOP_BY_HOP = {"connection", "keep-alive", "transfer-encoding", "content-length", "host", "date"}


@dataclass
class Forwarded:
    """One request the proxy forwarded, and what Prism answered."""

    method: str
    path: str
    query: str
    headers: dict[str, str]
    body: bytes
    at: float
    status: int = 0
    answer_headers: dict[str, str] = field(default_factory=dict)

    def header(self, name: str) -> str | None:
        return next((value for key, value in self.headers.items() if key.lower() == name.lower()), None)

    def answered(self, name: str) -> str | None:
        return next((value for key, value in self.answer_headers.items() if key.lower() == name.lower()), None)


class ForcingProxy:
    """A ThreadingHTTPServer on 127.0.0.1 that forwards to Prism, adding `Prefer: code=<force>` while `force`
    is set, and records each request in `requests`."""

    def __init__(self, upstream_port: int) -> None:
        self.force: int | None = None
        self.strip = ""
        """A base path (the document's server URL's) taken off each request's path: Prism matches `paths` alone."""
        self.requests: list[Forwarded] = []
        self.lock = threading.Lock()
        proxy = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def relay(self) -> None:
                length = int(self.headers.get("content-length") or 0)
                body = self.rfile.read(length) if length else b""
                path, _, query = self.path.partition("?")
                record = Forwarded(self.command, path, query, dict(self.headers.items()), body, time.monotonic())
                with proxy.lock:
                    proxy.requests.append(record)
                    force = proxy.force
                headers = {k: v for k, v in self.headers.items() if k.lower() not in HOP_BY_HOP | {"prefer"}}
                if force is not None:
                    headers["Prefer"] = f"code={force}"
                connection = http.client.HTTPConnection("127.0.0.1", upstream_port, timeout=ANSWER_TIMEOUT_S)
                try:
                    target = self.path
                    if proxy.strip and target.startswith(proxy.strip):
                        target = target[len(proxy.strip) :] or "/"
                    connection.request(self.command, target, body=body or None, headers=headers)
                    answer = connection.getresponse()
                    data = answer.read()
                    record.status = answer.status
                    record.answer_headers = dict(answer.getheaders())
                except (OSError, http.client.HTTPException):
                    self.close_connection = True  # no answer from Prism: none from the proxy either (status 0)
                    return
                finally:
                    connection.close()
                try:
                    self.send_response(answer.status)
                    for name, value in answer.getheaders():
                        if name.lower() not in HOP_BY_HOP:
                            self.send_header(name, value)
                    self.send_header("content-length", str(len(data)))
                    self.end_headers()
                    if self.command != "HEAD":
                        self.wfile.write(data)
                except (BrokenPipeError, ConnectionResetError):
                    pass

            do_GET = do_POST = do_PUT = do_PATCH = do_DELETE = do_HEAD = do_OPTIONS = relay

            def log_message(self, format: str, *args: Any) -> None:
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.server.daemon_threads = True
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}"

    def since(self, mark: int) -> list[Forwarded]:
        with self.lock:
            return list(self.requests[mark:])

    def mark(self) -> int:
        with self.lock:
            return len(self.requests)


@contextmanager
def prism(document: Path, log: Path, start_timeout_s: float = 120.0) -> Iterator[int]:
    """`prism mock DOCUMENT` on a free port of 127.0.0.1 (static answers: the documented examples), stopped (and
    waited for) on exit; yields the port."""
    if not PRISM.exists():
        raise FileNotFoundError(f"{PRISM} is missing: run `npm ci` in tests/node")
    port = free_port()
    with log.open("w") as out:
        process = subprocess.Popen(
            [str(PRISM), "mock", str(document), "-p", str(port), "-h", "127.0.0.1"],
            stdout=out,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )
        try:
            deadline = time.monotonic() + start_timeout_s
            while True:
                if process.poll() is not None:
                    raise RuntimeError(f"prism exited with {process.returncode}: {log.read_text()[-2000:]}")
                if "Prism is listening" in log.read_text(errors="replace"):
                    break
                if time.monotonic() > deadline:
                    raise RuntimeError(f"prism did not listen within {start_timeout_s:g} s: {log.read_text()[-2000:]}")
                time.sleep(0.1)
            yield port
        finally:
            process.terminate()
            try:
                process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait()


@contextmanager
def forcing_proxy(upstream_port: int) -> Iterator[ForcingProxy]:
    proxy = ForcingProxy(upstream_port)
    with in_thread(proxy.server):
        yield proxy
