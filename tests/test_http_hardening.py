"""The tasks example over streamable HTTP in a real subprocess on 127.0.0.1, against clients that try to starve
or fool it, over raw sockets: stalled and slow headers and bodies are cut off within their bounds while a real
MCP client with a bearer token is answered; oversized headers and bodies are refused; Host and Origin are
matched exactly; and no credential sent in the URL reaches the access log."""

from __future__ import annotations

import json
import os
import resource
import selectors
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import ExitStack
from pathlib import Path

import httpx
import pytest
from httpserver import ACCEPT, Running, client, free_port, http_server

from conftest import EXAMPLES

pytestmark = pytest.mark.slow

SRC = EXAMPLES / "tasks" / "src"
READER = "reader-token-7f3a9c2e5b"
TOKENS = {READER: {"subject": "ada", "scopes": ["tasks:read"]}}
LIST = b'{"jsonrpc": "2.0", "id": 41, "method": "tools/list"}'
DOCUMENTED_HEADER_TIMEOUT_S = 10
"""The documented bound on a request's headers (docs/how-to/http.md, http_limits.py)."""
DOCUMENTED_BODY_TIMEOUT_S = 30
"""The documented bound on a request's body, from its headers."""
HEADER_TIMEOUT_S = int(os.environ.get("FAILWELL_HEADER_TIMEOUT_S", "3"))
"""The bound on headers the server under test runs with (shorter than the shipped one, so the suite waits less;
FAILWELL_HEADER_TIMEOUT_S=10 runs these tests at the shipped bound)."""
BODY_TIMEOUT_S = int(os.environ.get("FAILWELL_BODY_TIMEOUT_S", "5"))
"""The bound on a body the server under test runs with (FAILWELL_BODY_TIMEOUT_S=30: the shipped one)."""
BOUNDED = """\
import os, runpy
from tasks_mcp._generated.runtime.transport import http_limits
http_limits.HEADER_TIMEOUT_S = float(os.environ["BOUNDED_HEADER_TIMEOUT_S"])
http_limits.BODY_TIMEOUT_S = float(os.environ["BOUNDED_BODY_TIMEOUT_S"])
runpy.run_module("tasks_mcp", run_name="__main__", alter_sys=True)
"""
"""`python -m bounded_tasks`: the tasks server with the bounds above (the runtime reads them at each use)."""
GRACE_S = 5
"""What the bounds may run over on a busy machine."""
LOW_SOFT_LIMIT = 256
"""The soft open-file limit the server starts with (macOS's default): 300 stalled clients would exhaust it."""


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Running]:
    """The tasks server, started with a soft open-file limit of 256 (it raises it), allowing two more hosts
    (one on a fixed port) and one more origin."""
    folder = tmp_path_factory.mktemp("hardening")
    (folder / "bounded_tasks.py").write_text(BOUNDED)
    env = {
        "TASKS_TOKENS": json.dumps(TOKENS),
        "FAILWELL_SQLITE_PATH": str(folder / "tasks.sqlite3"),
        "BOUNDED_HEADER_TIMEOUT_S": str(HEADER_TIMEOUT_S),
        "BOUNDED_BODY_TIMEOUT_S": str(BODY_TIMEOUT_S),
    }
    flags = ("--allowed-hosts", "mcp.example.com:8443,docs.example.com", "--allowed-origins", "https://app.example.com")
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    with ExitStack() as stack:
        resource.setrlimit(resource.RLIMIT_NOFILE, (LOW_SOFT_LIMIT, hard))  # inherited by the server process
        try:
            path = Path(f"{SRC}{os.pathsep}{folder}")
            running = stack.enter_context(http_server("bounded_tasks", path, folder / "stderr.log", env, *flags))
        finally:
            resource.setrlimit(resource.RLIMIT_NOFILE, (soft, hard))
        yield running


def request(
    port: int,
    host: str | None = "127.0.0.1:{port}",
    origin: str | None = None,
    headers: tuple[str, ...] = (),
    body: bytes | None = LIST,
) -> bytes:
    """A POST to /mcp with the reader's token, asking the server to close the connection after it; with `body`
    None, the headers only (the caller frames and sends a body of its own)."""
    lines = ["POST /mcp HTTP/1.1", "Content-Type: application/json", "Accept: application/json, text/event-stream"]
    lines += [f"Host: {host.format(port=port)}"] if host is not None else []
    lines += [f"Origin: {origin.format(port=port)}"] if origin is not None else []
    lines += [f"Authorization: Bearer {READER}", "Connection: close", *headers]
    lines += [f"Content-Length: {len(body)}"] if body is not None else []
    return "\r\n".join(lines).encode("latin-1") + b"\r\n\r\n" + (body or b"")


def until_closed(sock: socket.socket, within_s: float) -> bytes:
    """Everything the server sends on `sock` until it closes the connection; fails after `within_s`."""
    sock.settimeout(within_s)
    received = b""
    deadline = time.monotonic() + within_s
    while time.monotonic() < deadline:
        try:
            chunk = sock.recv(65536)
        except ConnectionResetError:
            return received
        if not chunk:
            return received
        received += chunk
    raise AssertionError(f"the connection was still open after {within_s} s")


def exchange(port: int, data: bytes) -> tuple[int, bytes]:
    """Send `data` on a new connection; the status and body of the answer, read until the server closes."""
    with socket.create_connection(("127.0.0.1", port), timeout=10) as sock:
        sock.sendall(data)
        answer = until_closed(sock, 10)
    head, _, body = answer.partition(b"\r\n\r\n")
    return int(head.split(b" ", 2)[1]), body


def opened(port: int, data: bytes, stack: ExitStack) -> socket.socket:
    sock = stack.enter_context(socket.create_connection(("127.0.0.1", port), timeout=10))
    sock.sendall(data)
    return sock


def watch(sockets: dict[socket.socket, float], within_s: float) -> dict[socket.socket, tuple[float, bytes]]:
    """Read every socket until the server closes it: how long after its start each closed, and what it got."""
    received = dict.fromkeys(sockets, b"")
    closed: dict[socket.socket, tuple[float, bytes]] = {}
    with selectors.DefaultSelector() as selector:
        for sock in sockets:
            sock.setblocking(False)
            selector.register(sock, selectors.EVENT_READ, sock)
        deadline = time.monotonic() + within_s
        while len(closed) < len(sockets) and time.monotonic() < deadline:
            for key, _ in selector.select(timeout=0.5):
                ready: socket.socket = key.data
                try:
                    chunk = ready.recv(65536)
                except ConnectionResetError:
                    chunk = b""
                received[ready] += chunk
                if not chunk:
                    closed[ready] = (time.monotonic() - sockets[ready], received[ready])
                    selector.unregister(ready)
    return closed


PARTIAL_HEADERS = b"POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nX-Stalled: wai"
PARTIAL_BODY = (
    b"POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
    b"Accept: application/json, text/event-stream\r\nContent-Length: 1000\r\n\r\n"
    b'{"jsonrpc": "2.0", "id": 1, "method": "tools/'
)


@pytest.mark.anyio
async def test_300_stalled_connections_do_not_lock_a_real_client_out(server: Running) -> None:
    with ExitStack() as stack:
        started = time.monotonic()
        stalled = {opened(server.port, PARTIAL_HEADERS, stack): started for _ in range(150)}
        stalled |= {opened(server.port, PARTIAL_BODY, stack): started for _ in range(150)}
        calling = time.monotonic()
        async with client(server.url, READER) as session:
            tools = await session.list_tools()
            read = await session.call_tool("tasks_get", {"ref": "T-1"})
        waited = time.monotonic() - calling
        assert tools.tools and not read.is_error
        assert waited < 5, f"the client waited {waited:.1f} s behind 300 stalled connections"
        closed = watch(stalled, BODY_TIMEOUT_S + GRACE_S + 5)
    assert len(closed) == 300, f"{300 - len(closed)} stalled connections were still open"
    headers = [closed[sock] for sock in list(stalled)[:150]]
    bodies = [closed[sock] for sock in list(stalled)[150:]]
    assert all(data == b"" for _, data in headers), "a connection without its headers is closed, unanswered"
    assert max(after for after, _ in headers) < HEADER_TIMEOUT_S + GRACE_S
    assert all(data.startswith(b"HTTP/1.1 408 ") for _, data in bodies), "a stalled body gets 408"
    assert all(b"connection: close" in data.lower() for _, data in bodies)
    assert max(after for after, _ in bodies) < BODY_TIMEOUT_S + GRACE_S
    print(
        f"client answered in {waited:.2f} s; stalled headers closed after {min(a for a, _ in headers):.1f}-"
        f"{max(a for a, _ in headers):.1f} s, stalled bodies after {min(a for a, _ in bodies):.1f}-"
        f"{max(a for a, _ in bodies):.1f} s"
    )
    logged = server.logged()
    assert f'"event": "raised the open-file limit", "from": {LOW_SOFT_LIMIT}' in logged
    assert logged.count("no complete request headers in time") >= 150


def test_a_slow_body_gets_408_and_the_connection_closed(server: Running) -> None:
    with socket.create_connection(("127.0.0.1", server.port), timeout=10) as sock:
        sock.sendall(request(server.port, headers=("Content-Length: 1000",), body=None))
        started = time.monotonic()
        with selectors.DefaultSelector() as selector:
            selector.register(sock, selectors.EVENT_READ)
            while not selector.select(timeout=1) and time.monotonic() - started < BODY_TIMEOUT_S + GRACE_S:
                sock.sendall(b" ")  # a byte a second: progress, but far too slow
        answer = until_closed(sock, GRACE_S)
    took = time.monotonic() - started
    assert answer.startswith(b"HTTP/1.1 408 Request Timeout\r\n")
    assert took < BODY_TIMEOUT_S + GRACE_S
    body = json.loads(answer.partition(b"\r\n\r\n")[2])
    assert body["error"]["message"] == f"Request Timeout: the request body did not arrive within {BODY_TIMEOUT_S} s."


def test_the_shipped_bounds_are_the_documented_ones() -> None:
    """The server above runs with shorter bounds; the ones every project ships are those the docs promise."""
    shown = "from tasks_mcp._generated.runtime.transport import http_limits as h; "
    shown += "print(h.HEADER_TIMEOUT_S, h.BODY_TIMEOUT_S)"
    env = {**os.environ, "PYTHONPATH": str(SRC)}
    printed = subprocess.run([sys.executable, "-c", shown], env=env, capture_output=True, text=True, check=True)
    assert printed.stdout.split() == [f"{DOCUMENTED_HEADER_TIMEOUT_S:.1f}", f"{DOCUMENTED_BODY_TIMEOUT_S:.1f}"]


def test_headers_that_never_finish_are_closed_within_the_bound(server: Running) -> None:
    with ExitStack() as stack:
        silent = opened(server.port, b"", stack)
        trickling = opened(server.port, b"GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Slow: ", stack)
        kept_alive = opened(server.port, b"GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n", stack)
        answered = b""
        while b'"ok"}' not in answered and len(answered) < 65536:  # the whole response, or the socket times out
            answered += kept_alive.recv(65536)
        assert answered.startswith(b"HTTP/1.1 200 ")
        kept_alive.sendall(b"GET /healthz HTTP/1.1\r\n")  # the next request, never finished
        started = time.monotonic()
        sockets = {silent: started, trickling: started, kept_alive: started}
        while time.monotonic() - started < HEADER_TIMEOUT_S - 1:  # keeps resetting uvicorn's keep-alive timer
            time.sleep(1)
            for sock in (trickling, kept_alive):
                sock.sendall(b"x")
        closed = watch(sockets, GRACE_S + 2)
    assert set(closed) == set(sockets), "every connection that did not finish its headers is closed"
    assert all(data == b"" for _, data in closed.values())
    assert max(after for after, _ in closed.values()) < HEADER_TIMEOUT_S + GRACE_S


def test_oversized_headers_are_refused_and_the_connection_closed(server: Running) -> None:
    big = "X-Big: " + "a" * 17_000
    status, body = exchange(server.port, request(server.port, headers=(big,)))
    assert status == 431
    assert json.loads(body)["error"]["message"] == ("Request Header Fields Too Large: the headers are over 16 KiB.")
    unfinished = b"GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Big: " + b"a" * 20_000
    status, _ = exchange(server.port, unfinished)
    assert status == 400, "headers still incomplete past 16 KiB are refused by the parser"
    status, _ = exchange(server.port, request(server.port, headers=("X-Token: " + "t" * 8_000,)))
    assert status == 200, "a long token is not an oversized header"


def test_a_chunked_body_over_4_mib_gets_413(server: Running) -> None:
    chunk = b"%x\r\n%s\r\n" % (65536, b" " * 65536)
    with socket.create_connection(("127.0.0.1", server.port), timeout=10) as sock:
        sock.sendall(request(server.port, headers=("Transfer-Encoding: chunked",), body=None))
        for _ in range(64):  # 4 MiB exactly, then one byte more: the server reads all of it before answering
            sock.sendall(chunk)
        sock.sendall(b"1\r\n \r\n")
        answer = until_closed(sock, 10)
    assert answer.startswith(b"HTTP/1.1 413 ")
    assert json.loads(answer.partition(b"\r\n\r\n")[2])["error"]["message"] == (
        "Content Too Large: the request body is over 4 MiB."
    )


@pytest.mark.parametrize(
    ("host", "status"),
    [
        ("localhost", 200),
        ("localhost:{port}", 200),
        ("127.0.0.1:{port}", 200),
        ("[::1]:{port}", 200),
        ("[0:0:0:0:0:0:0:1]:{port}", 200),
        ("LOCALHOST:{port}", 200),
        ("127.0.0.1:{port} ", 200),  # trailing whitespace is not part of a header value (RFC 9110)
        ("mcp.example.com:8443", 200),
        ("MCP.Example.COM:8443", 200),
        ("docs.example.com", 200),
        ("docs.example.com:9000", 200),
        ("127.0.0.1:{port}@evil.com", 421),
        ("localhost:1234.evil.com", 421),
        ("localhost.evil.com", 421),
        ("localhost.evil.com:{port}", 421),
        ("evil.com", 421),
        ("127.0.0.1:{port} junk", 421),
        ("127.0.0.1:{port}junk", 421),
        ("user@127.0.0.1:{port}", 421),
        ("127.0.0.1:{port}/mcp", 421),
        ("127.0.0.1:", 421),
        ("127.0.0.1:99999", 421),
        ("[::1", 421),
        ("[::1]:{port}.evil.com", 421),
        ("mcp.example.com", 421),  # allowed on port 8443 only
        ("mcp.example.com:8444", 421),
        ("mcp.example.com.evil.com:8443", 421),
        ("", 421),
        (None, 421),  # sent as HTTP/1.0, which may leave it out
    ],
)
def test_host_is_matched_exactly(server: Running, host: str | None, status: int) -> None:
    sent = request(server.port, host=host)
    if host is None:
        sent = sent.replace(b"HTTP/1.1", b"HTTP/1.0", 1)
    assert exchange(server.port, sent)[0] == status


@pytest.mark.parametrize(
    ("origin", "status"),
    [
        (None, 200),
        ("http://localhost:{port}", 200),
        ("http://127.0.0.1:{port}", 200),
        ("http://[::1]:{port}", 200),
        ("http://LOCALHOST:5173", 200),  # a local tool's page, on its own port
        ("https://localhost", 200),
        ("https://app.example.com", 200),
        ("https://app.example.com:443", 200),
        ("HTTPS://APP.EXAMPLE.COM", 200),
        ("https://mcp.example.com:8443", 200),
        ("http://localhost:1234.evil.com", 403),
        ("http://localhost.evil.com", 403),
        ("http://127.0.0.1:{port}@evil.com", 403),
        ("http://user@localhost:{port}", 403),
        ("http://localhost:{port}/", 403),
        ("http://localhost:{port} junk", 403),
        ("null", 403),
        ("localhost:{port}", 403),
        ("ftp://localhost:{port}", 403),
        ("https://app.example.com:8443", 403),
        ("http://app.example.com", 403),
        ("https://app.example.com.evil.com", 403),
        ("https://mcp.example.com", 403),  # mcp.example.com is allowed on port 8443 only
        ("", 403),
    ],
)
def test_origin_is_matched_exactly(server: Running, origin: str | None, status: int) -> None:
    assert exchange(server.port, request(server.port, origin=origin))[0] == status


def test_a_refusal_says_what_was_refused_without_echoing_it_raw(server: Running) -> None:
    hostile = "evil.example.com\xe9<script>" + "a" * 200
    status, body = exchange(server.port, request(server.port, host=hostile))
    assert status == 421
    message = json.loads(body)["error"]["message"]
    shown = "evil.example.com??script?" + "a" * (64 - 25) + "..."
    assert message.startswith(f"Misdirected Request: the Host '{shown}' is refused, as this server answers only to")
    assert "--allowed-hosts or MCP_ALLOWED_HOSTS" in message
    status, body = exchange(server.port, request(server.port, headers=("Origin: null", "Origin: null")))
    assert status == 403
    assert json.loads(body)["error"]["message"].startswith("Forbidden: a request with 2 Origin headers is refused")


def test_the_access_log_never_carries_a_credential_from_the_url(server: Running) -> None:
    authorized = {**ACCEPT, "authorization": f"Bearer {READER}"}
    secrets = {
        "access_token": "Qv0x7Lw2Kp9Zr4Mn",
        "token": "Qv1x7Lw2Kp9Zr4Mn",
        "api_key": "Qv2x7Lw2Kp9Zr4Mn",
        "code": "Qv3x7Lw2Kp9Zr4Mn",
        "key": "Qv4x7Lw2Kp9Zr4Mn",
    }
    for name, secret in secrets.items():
        url = f"{server.url}?{name}={secret}&state=s{secret[::-1]}"
        assert httpx.post(url, content=LIST, headers=authorized).status_code == 200
        assert httpx.post(url, content=LIST, headers=ACCEPT).status_code == 401
    logged = server.logged()
    for secret in secrets.values():
        assert secret not in logged and secret[::-1] not in logged
    access = [json.loads(line) for line in logged.splitlines() if '"logger": "failwell.http.access"' in line]
    statuses = [entry["status"] for entry in access if entry["method"] == "POST" and entry["path"] == "/mcp"]
    assert statuses.count(200) >= 5 and statuses.count(401) >= 5, "every request is logged, path only"
    assert all("?" not in entry["path"] for entry in access)
    assert '"logger": "uvicorn.access"' not in logged, "uvicorn's access log, which prints the query, is off"


@pytest.mark.parametrize(
    ("flag", "value"),
    [("--allowed-hosts", "mcp.example.com/mcp"), ("--allowed-hosts", "::1"), ("--allowed-origins", "app.example.com")],
)
def test_an_allowed_host_or_origin_that_is_not_one_stops_the_server(tmp_path: Path, flag: str, value: str) -> None:
    env = {**os.environ, "PYTHONPATH": str(SRC), "TASKS_TOKENS": json.dumps(TOKENS)}
    finished = subprocess.run(
        [sys.executable, "-m", "tasks_mcp", "--http", "--port", str(free_port()), flag, value],
        cwd=tmp_path,
        env={**env, "FAILWELL_SQLITE_PATH": str(tmp_path / "tasks.sqlite3")},
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert finished.returncode == 2
    reason = json.loads(finished.stderr.strip().splitlines()[-1])["reason"]
    assert f"has {value!r}, which is not" in reason and flag in reason
