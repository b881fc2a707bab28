"""Malformed requests: what the SDK's client never sends. On stdio, raw lines to a second copy of the server
after a plain `initialize`: a line that is not JSON is owed -32700, an unknown method -32601, and a `tools/call`
whose params are not an object -32602 (or -32600); a request left unanswered hangs its client. Over HTTP, a
body that is not JSON, posted with the audit's headers: owed -32700 in a JSON body with a 4xx status, not a
stack trace or an HTML page."""

from __future__ import annotations

import json
import queue
import subprocess
import threading
import time
from collections.abc import Mapping, Sequence
from typing import IO, Any

from .findings import Finding, Report, Severity
from .judge import Answer, judge_code, judge_leaks

PROTOCOL = "2025-11-25"
CASES: Sequence[tuple[str, str, Any, tuple[int, ...]]] = (
    ("a line that is not JSON", "this line is not JSON {", None, (-32700,)),
    (
        "an unknown method",
        json.dumps({"jsonrpc": "2.0", "id": "fw-audit-2", "method": "failwell_audit/no_such_method"}),
        "fw-audit-2",
        (-32601,),
    ),
    (
        "tools/call with params that are not an object",
        json.dumps({"jsonrpc": "2.0", "id": "fw-audit-3", "method": "tools/call", "params": "not-an-object"}),
        "fw-audit-3",
        (-32602, -32600),
    ),
)


def _reader(stream: IO[bytes], lines: queue.Queue[bytes]) -> None:
    for line in iter(stream.readline, b""):
        lines.put(line)


def _next(lines: queue.Queue[bytes], wanted: Any, deadline: float) -> dict[str, Any] | None:
    """The next JSON-RPC response with id `wanted` (None: an error with a null or no id), before `deadline`."""
    while (left := deadline - time.monotonic()) > 0:
        try:
            line = lines.get(timeout=left)
        except queue.Empty:
            return None
        try:
            message = json.loads(line)
        except ValueError:
            continue
        if not isinstance(message, dict) or "method" in message:
            continue  # a notification or a request from the server
        if message.get("id") == wanted or (wanted is None and "error" in message and message.get("id") is None):
            return message
    return None


def probe_malformed(
    report: Report, command: Sequence[str], env: Mapping[str, str] | None, cwd: str | None, timeout_s: float
) -> None:
    """Start the server again, initialize, send each malformed line, and judge its answer."""
    try:
        process = subprocess.Popen(
            list(command),
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            env=dict(env) if env else None,
            cwd=cwd,
        )
    except OSError:
        return  # the main audit already said it could not start
    assert process.stdin is not None and process.stdout is not None
    lines: queue.Queue[bytes] = queue.Queue()
    threading.Thread(target=_reader, args=(process.stdout, lines), daemon=True).start()
    try:
        init = {
            "jsonrpc": "2.0",
            "id": "fw-audit-1",
            "method": "initialize",
            "params": {
                "protocolVersion": PROTOCOL,
                "capabilities": {},
                "clientInfo": {"name": "failwell-audit", "version": "1"},
            },
        }
        _send(process.stdin, json.dumps(init))
        if _next(lines, "fw-audit-1", time.monotonic() + timeout_s) is None:
            return
        _send(process.stdin, json.dumps({"jsonrpc": "2.0", "method": "notifications/initialized"}))
        for probe, line, wanted, codes in CASES:
            _send(process.stdin, line)
            response = _next(lines, wanted, time.monotonic() + min(timeout_s, 2.0))  # answered in ms, or never
            _judge(report, probe, line, response, codes)
    except (BrokenPipeError, OSError):
        return
    finally:
        process.terminate()
        try:
            process.wait(timeout=5)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait(timeout=5)


def _send(stdin: IO[bytes], line: str) -> None:
    stdin.write(line.encode() + b"\n")
    stdin.flush()


def _judge(report: Report, probe: str, line: str, response: dict[str, Any] | None, codes: tuple[int, ...]) -> None:
    if response is None:
        severity: Severity = "warning" if codes == (-32700,) else "error"
        finding = Finding("channel", severity, "server", probe, f"no answer; JSON-RPC asks for {codes[0]}", line)
        report.record("channel", "server", finding)
        return
    error = response.get("error")
    if not isinstance(error, dict):
        answer = Answer(broken=f"answered with a result: {json.dumps(response)[:400]}")
        report.record(
            "channel", "server", Finding("channel", "error", "server", probe, "answered as if valid", answer.quoted())
        )
        return
    code = error.get("code")
    answer = Answer(
        code=code if isinstance(code, int) else 0, message=str(error.get("message", "")), data=error.get("data")
    )
    problem = None
    if code not in codes:
        problem = Finding(
            "channel", "error", "server", probe, f"code {code}; JSON-RPC's is {codes[0]}", answer.quoted()
        )
    report.record("channel", "server", problem)
    judge_code(report, "server", probe, answer)
    judge_leaks(report, "server", probe, answer, [line])


HTTP_BODY = "this body is not JSON {"


async def probe_malformed_http(report: Report, url: str, headers: Mapping[str, str], timeout_s: float) -> None:
    """POST a body that is not JSON to the server's endpoint and judge the answer."""
    import httpx2

    sent = {
        **headers,
        "content-type": "application/json",
        "accept": "application/json, text/event-stream",
        "mcp-protocol-version": PROTOCOL,
    }
    probe = "a body that is not JSON"
    try:
        async with httpx2.AsyncClient(timeout=timeout_s) as http:
            answer = await http.post(url, content=HTTP_BODY.encode(), headers=sent)
    except httpx2.HTTPError:
        return  # the main audit already judged whether the server can be reached
    try:
        response = answer.json()
    except ValueError:
        quoted = f"HTTP {answer.status_code}: {answer.text[:300]}"
        finding = Finding("channel", "error", "server", probe, "not a JSON-RPC error: JSON-RPC asks for -32700", quoted)
        report.record("channel", "server", finding)
        return
    if answer.status_code < 400 or answer.status_code >= 500:
        quoted = f"HTTP {answer.status_code}: {answer.text[:300]}"
        finding = Finding("channel", "warning", "server", probe, "a parse error is a 4xx (400)", quoted)
        report.record("channel", "server", finding)
    _judge(report, probe, HTTP_BODY, response if isinstance(response, dict) else None, (-32700,))
