"""Stalled connections under a hard open-file limit (issue 24, finding 11): the server runs with its hard
RLIMIT_NOFILE at 256 (set in its own subprocess, as a small container would), 300 raw sockets on 127.0.0.1 each
send a request's headers and the start of its body and then stall, and an authenticated client with the real
`mcp` client must still be answered: the server keeps its connections within a budget below the limit and sheds
the oldest incomplete request. The time to answer and the connections shed are printed (`-s`) as figures."""

from __future__ import annotations

import json
import resource
import socket
import time
from collections.abc import Iterator
from pathlib import Path

import anyio
import pytest
from httpserver import client, http_server
from test_cancel_owner import ADA, env, make_project

pytestmark = pytest.mark.slow

HARD_LIMIT = 256
STALLED = 300
ANSWERED_WITHIN_S = 20.0
"""Generous: a liveness bound, below the 30 s a stalled body is given before the server refuses it."""


def hard_file_limit() -> None:
    """Run in the server's process before it starts: soft and hard open-file limits at HARD_LIMIT."""
    resource.setrlimit(resource.RLIMIT_NOFILE, (HARD_LIMIT, HARD_LIMIT))


def stall(port: int) -> socket.socket:
    """A connection that sends a request's headers and 10 of its 1,000 body bytes, then nothing."""
    sock = socket.create_connection(("127.0.0.1", port), timeout=5)
    head = (
        f"POST /mcp HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nContent-Type: application/json\r\n"
        "Accept: application/json, text/event-stream\r\nContent-Length: 1000\r\n\r\n"
    )
    sock.sendall(head.encode() + b'{"jsonrpc"')
    return sock


def closed_by_server(sock: socket.socket) -> bool:
    sock.setblocking(False)
    try:
        return sock.recv(4096) == b""
    except BlockingIOError:
        return False
    except OSError:
        return True


@pytest.fixture(scope="module")
def src(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return make_project(tmp_path_factory.mktemp("limited"), auth=True)


@pytest.fixture
def stalled() -> Iterator[list[socket.socket]]:
    socks: list[socket.socket] = []
    yield socks
    for sock in socks:
        sock.close()


def test_stalled_bodies_under_a_hard_file_limit_do_not_lock_a_real_client_out(
    src: Path, tmp_path: Path, stalled: list[socket.socket]
) -> None:
    more = {"WAITS_SLEEP_S": "0"}
    log = tmp_path / "stderr.log"
    with http_server("waits_mcp", src, log, env(tmp_path, **more), preexec_fn=hard_file_limit) as server:
        for _ in range(STALLED):
            stalled.append(stall(server.port))
        time.sleep(1)  # every stalled connection is in: accepted, or waiting in the listen backlog

        async def answered() -> float:
            started = time.monotonic()
            with anyio.move_on_after(ANSWERED_WITHIN_S):
                async with client(server.url, ADA, "legacy") as session:
                    result = await session.call_tool("waits_read", {})
                    assert not result.is_error and result.structured_content == {"done": True}
                    return time.monotonic() - started
            raise AssertionError(f"the authenticated client was not answered within {ANSWERED_WITHIN_S:g} s")

        took = anyio.run(answered)
        shed = sum(closed_by_server(sock) for sock in stalled)
        budget = [json.loads(line) for line in server.logged().splitlines() if '"connection budget"' in line]
        print(f"\nanswered in {took:.2f} s; {shed} of {STALLED} stalled connections shed; budget {budget}")
        assert budget and budget[0]["max_connections"] < HARD_LIMIT
        assert shed >= STALLED - budget[0]["max_connections"], "the oldest stalled requests were shed"
        assert server.process.poll() is None
        for sock in stalled:
            sock.close()  # before the server stops: it waits for open connections
