"""Malformed requests: what the SDK's client never sends. On stdio, raw lines to a second copy of the server
after a plain `initialize`: a line that is not JSON is owed -32700, an unknown method -32601, and a `tools/call`
whose params are not an object -32602 (or -32600); a request left unanswered hangs its client. Over HTTP, a
body that is not JSON, posted with the audit's headers: owed -32700 in a JSON body with a 4xx status, not a
stack trace or an HTML page.

And on stdio the unknown-name probes again, at the oldest protocol version the server accepts (the main session
made them at the newest): a server may answer a 2025-era client otherwise than a 2026 one."""

from __future__ import annotations

import json
import queue
import subprocess
import threading
import time
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from types import SimpleNamespace
from typing import IO, Any

from mcp_types.version import HANDSHAKE_PROTOCOL_VERSIONS

from .findings import Finding, Report, Severity
from .judge import Answer, judge_code, judge_leaks, judge_unknown

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


class _Raw:
    """A second copy of a stdio server spoken to line by line: what is sent and received goes to `log`."""

    def __init__(self, stdin: IO[bytes], lines: queue.Queue[bytes], log: list[dict[str, Any]], session: str):
        self.stdin, self.lines, self.log, self.session = stdin, lines, log, session
        self.subject, self.probe = "server", "initialize"

    def send(self, line: str) -> None:
        try:
            message: Any = json.loads(line)
        except ValueError:
            message = line
        self._add("sent", message)
        _send(self.stdin, line)

    def answer(self, wanted: Any, timeout_s: float) -> dict[str, Any] | None:
        response = _next(self.lines, wanted, time.monotonic() + timeout_s)
        if response is not None:
            self._add("received", response)
        return response

    def _add(self, direction: str, message: Any) -> None:
        entry = {"session": self.session, "subject": self.subject, "probe": self.probe, "direction": direction}
        self.log.append({**entry, "message": message})


@contextmanager
def _started(
    command: Sequence[str],
    env: Mapping[str, str] | None,
    cwd: str | None,
    log: list[dict[str, Any]],
    session: str,
) -> Iterator[_Raw | None]:
    """The server started again, its stdout read line by line; stopped on the way out. None when it cannot
    start (the main audit already said so)."""
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
        yield None
        return
    assert process.stdin is not None and process.stdout is not None
    lines: queue.Queue[bytes] = queue.Queue()
    threading.Thread(target=_reader, args=(process.stdout, lines), daemon=True).start()
    try:
        yield _Raw(process.stdin, lines, log, session)
    finally:
        process.terminate()
        try:
            process.wait(timeout=5)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait(timeout=5)


def _initialize(raw: _Raw, version: str, timeout_s: float) -> str | None:
    """`initialize` offering `version`: the version the server answered with (None: no answer)."""
    init = {
        "jsonrpc": "2.0",
        "id": "fw-audit-1",
        "method": "initialize",
        "params": {
            "protocolVersion": version,
            "capabilities": {},
            "clientInfo": {"name": "failwell-audit", "version": "1"},
        },
    }
    raw.send(json.dumps(init))
    response = raw.answer("fw-audit-1", timeout_s)
    if response is None:
        return None
    result = response.get("result")
    return str(result.get("protocolVersion", "")) if isinstance(result, dict) else ""


def probe_malformed(
    report: Report,
    command: Sequence[str],
    env: Mapping[str, str] | None,
    cwd: str | None,
    timeout_s: float,
    log: list[dict[str, Any]] | None = None,
) -> None:
    """Start the server again, initialize, send each malformed line, and judge its answer."""
    with _started(command, env, cwd, [] if log is None else log, "malformed") as raw:
        if raw is None:
            return
        try:
            if _initialize(raw, PROTOCOL, timeout_s) is None:
                return
            raw.send(json.dumps({"jsonrpc": "2.0", "method": "notifications/initialized"}))
            for probe, line, wanted, codes in CASES:
                raw.probe = probe
                raw.send(line)
                response = raw.answer(wanted, min(timeout_s, 2.0))  # answered in ms, or never
                _judge(report, probe, line, response, codes)
        except (BrokenPipeError, OSError):
            return


def probe_unknowns_at_oldest(
    report: Report,
    command: Sequence[str],
    env: Mapping[str, str] | None,
    cwd: str | None,
    timeout_s: float,
    log: list[dict[str, Any]] | None,
    newest: str,
    unknowns: Sequence[tuple[str, str, dict[str, Any], str, tuple[int, ...]]],
) -> None:
    """The unknown-name probes (`run.UNKNOWNS`) again at the oldest protocol version the server accepts, when it
    is not `newest` (the main session's): each handshake version, oldest first, offered to a fresh copy until
    one is answered with itself. Each finding names the version (`an unknown prompt at protocol 2024-11-05`)."""
    for version in HANDSHAKE_PROTOCOL_VERSIONS:
        if version == newest:
            return  # the oldest it accepts is the one already judged
        with _started(command, env, cwd, [] if log is None else log, f"protocol {version}") as raw:
            if raw is None:
                return
            try:
                answered = _initialize(raw, version, timeout_s)
                if answered is None:
                    return  # no answer to initialize: nothing to judge at any version
                if answered != version:
                    continue
                raw.send(json.dumps({"jsonrpc": "2.0", "method": "notifications/initialized"}))
                for number, (probe, method, params, asked, also) in enumerate(unknowns):
                    label = f"{probe} at protocol {version}"
                    raw.probe = label
                    ident = f"fw-audit-unknown-{number}"
                    raw.send(json.dumps({"jsonrpc": "2.0", "id": ident, "method": method, "params": params}))
                    response = raw.answer(ident, timeout_s)
                    judge_unknown(report, label, _answer(response, method, timeout_s), asked, also)
            except (BrokenPipeError, OSError):
                return
            return


def _answer(response: dict[str, Any] | None, method: str, timeout_s: float) -> Answer:
    """A raw response as the judge reads it (a result with `content`, `isError` and `_meta` as attributes)."""
    if response is None:
        return Answer(broken=f"no answer in {timeout_s:g} s")
    error = response.get("error")
    if isinstance(error, dict):
        code = error.get("code")
        return Answer(
            code=code if isinstance(code, int) else 0, message=str(error.get("message", "")), data=error.get("data")
        )
    result = response.get("result")
    if not isinstance(result, dict):
        return Answer(broken=f"answered with neither a result nor an error: {json.dumps(response)[:400]}")
    content = result.get("content") if method == "tools/call" else None
    blocks = [
        SimpleNamespace(type=block.get("type", ""), text=block.get("text", ""))
        for block in (content if isinstance(content, list) else [])
        if isinstance(block, dict)
    ]
    return Answer(
        result=SimpleNamespace(
            content=blocks,
            is_error=result.get("isError") is True,
            meta=result.get("_meta"),
            structured_content=result.get("structuredContent"),
        )
    )


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
