"""One audit: connect (stdio or streamable HTTP), list, probe, judge. Nothing that could change something is
called: a tool not annotated read-only is probed in full only with `allow_writes` (a server that does not check
its input might run such a call); without it, one whose name or description reads as a read (`read_looking`)
gets only the calls no server can carry out (`unrunnable`: a required argument left out or of the wrong type).
A read-only tool is called with valid values only with `call_reads`. With `record`, the report keeps every
message of the exchange (`Report.exchange`), each labelled with the probe it belongs to."""

from __future__ import annotations

import dataclasses
import logging
import os
import re
import tempfile
from collections.abc import AsyncIterator, Awaitable, Callable, Iterable, Mapping, Sequence
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from typing import Any

import anyio
from mcp import Client, StdioServerParameters
from mcp.client.stdio import get_default_environment, stdio_client
from mcp.shared.exceptions import MCPError

from ..client.launch import is_secret
from ..client.terminal import visible
from ..errors import FailwellError
from ..spec.messages import runtime
from .findings import Finding, Report
from .judge import (
    ERROR_AS_SUCCESS,
    Answer,
    failure_object,
    judge_leaks,
    judge_refusal,
    judge_success,
    judge_unknown,
    reads_as_failure,
    sent_values,
)
from .malformed import probe_malformed, probe_malformed_http, probe_unknowns_at_oldest
from .probes import PLANTED, PLANTED_MARK, probes, read_looking, unrunnable, valid_arguments

UNKNOWN_TOOL = "failwell_audit_no_such_tool"
UNKNOWN_PROMPT = "failwell_audit_no_such_prompt"
UNKNOWN_URI = "failwell-audit://no-such-resource"
MAX_PAGES = 50
_INPUT = re.compile(r"input_value=(.*?), input_type=")
"""The stdout line, in the SDK's parse error for it."""


class Unreachable(FailwellError):
    """The server could not be started or reached: exit 3, apart from 1 (it answered, with errors)."""

    exit_code = 3


@dataclass(frozen=True)
class Target:
    """A stdio server's command line, or a streamable HTTP server's URL (with headers, for auth)."""

    command: Sequence[str] = ()
    url: str = ""
    headers: dict[str, str] = field(default_factory=dict)
    env: dict[str, str] = field(default_factory=dict)
    """What `--env` gives a stdio server: all it gets beside `PASSED` (`server_environment`)."""
    cwd: str | None = None

    @property
    def name(self) -> str:
        return self.url or " ".join(self.command)


@dataclass(frozen=True)
class Options:
    allow_writes: bool = False
    call_reads: bool = False
    timeout_s: float = 20.0
    """For each request, and for connecting."""
    record: bool = False
    """Keep every message sent and received in `Report.exchange` (scrubbed like the rest of the report)."""


@dataclass
class Recorder:
    """Every message of an audit, in order, each labelled with the subject and probe it belongs to: `session`
    (`main`, `malformed`, `protocol 2024-11-05`), `direction` (`sent`, `received`) and the JSON-RPC message as
    on the wire (or `stdout`, a line that is not JSON-RPC). The label is set before each request."""

    log: list[dict[str, Any]] = field(default_factory=list)
    subject: str = "server"
    probe: str = "connect"

    def add(self, direction: str, message: Any, session: str = "main", key: str = "message") -> None:
        entry = {"session": session, "subject": self.subject, "probe": self.probe, "direction": direction}
        self.log.append({**entry, key: message})

    @asynccontextmanager
    async def around(self, transport: Any) -> AsyncIterator[Any]:
        """`transport` (a Transport's context) with each message that crosses it added to the log."""
        from mcp.shared.message import SessionMessage

        async with transport as (read_stream, write_stream):
            to_client, client_reads = anyio.create_memory_object_stream[SessionMessage | Exception](0)
            client_writes, from_client = anyio.create_memory_object_stream[SessionMessage](0)

            async def up() -> None:
                async with from_client:
                    async for message in from_client:
                        self.add("sent", _wire(message))
                        await write_stream.send(message)

            async def down() -> None:
                async with to_client:
                    async for message in read_stream:
                        if isinstance(message, Exception):
                            line = _INPUT.search(str(message))
                            self.add("received", line.group(1) if line else type(message).__name__, key="stdout")
                        else:
                            self.add("received", _wire(message))
                        await to_client.send(message)

            async with anyio.create_task_group() as group:
                group.start_soon(up)
                group.start_soon(down)
                try:
                    yield client_reads, client_writes
                finally:
                    group.cancel_scope.cancel()


def _wire(message: Any) -> Any:
    inner = getattr(message, "message", message)
    dump = getattr(inner, "model_dump", None)
    return dump(mode="json", by_alias=True, exclude_none=True) if dump else str(inner)


PASSED = ("PATH", "HOME", "LANG")
"""The caller's variables an audited stdio server gets (beside what `--env` gives, and the few the mcp SDK passes
every server it starts: on POSIX HOME, LOGNAME, PATH, SHELL, TERM, USER; on Windows the system's own): never the
caller's whole environment, whose tokens a server could print into the shareable report."""
HEADERS_HOLDING_SECRETS = ("authorization", "proxy-authorization", "cookie")
_PLANTED_FORMS = re.compile(f"({re.escape(PLANTED[: PLANTED.index(PLANTED_MARK) + len(PLANTED_MARK)])}[0-9a-f]*)")
"""The planted credential, whole or cut short by a server that shortens what it quotes (`ghp_FailwellAudit...`)."""
_WORD = re.compile(r"\S+")


def server_environment(target: Target, environ: Mapping[str, str] | None = None) -> dict[str, str]:
    """The environment a stdio server is started with: `PASSED` and the mcp SDK's few from `environ` (default:
    this process's), then `target.env`."""
    environ = os.environ if environ is None else environ
    passed = {name: environ[name] for name in PASSED if name in environ}
    return {**get_default_environment(), **passed, **target.env}


def audit(target: Target, options: Options | None = None) -> Report:
    """Audit one server; a server that cannot be reached is a FailwellError. What the report holds (every text a
    server sent, the target's command line) has gone through the runtime's scrubber (`scrubbed`)."""
    return anyio.run(audit_async, target, options or Options())


def known_secrets(target: Target) -> set[str]:
    """The values the caller gave that hold secrets: an `--env` value the generator would call secret (its name
    or its shape, `client.launch.is_secret`) and a `--header` value (`Authorization`, `Cookie`, a key), and a
    credential's last word (`Bearer <token>`'s token); none shorter than 4 characters."""
    values = [value for name, value in target.env.items() if is_secret(name, value)]
    for name, value in target.headers.items():
        if name.lower() in HEADERS_HOLDING_SECRETS or is_secret(name.upper().replace("-", "_"), value):
            values += [value, value.split()[-1] if value.split() else ""]
    return {value for value in values if len(value.strip()) >= 4}


def masker(known: Iterable[str] = ()) -> Callable[[str], str]:
    """Text as a report may show it: each of `known` masked, then the runtime's `redact_secrets` (tokens by their
    shape, `password=...`, keys named like secrets in any quoting). The audit's own planted credential is kept,
    so a finding shows what leaked."""
    redact = runtime("wording.scrub").redact_secrets
    longest_first = sorted(set(known), key=len, reverse=True)

    def mask(text: str) -> str:
        for value in longest_first:
            text = text.replace(value, "[redacted]")
        parts = _PLANTED_FORMS.split(text)  # the planted credential and its cut forms kept, as evidence
        return "".join(part if index % 2 else redact(part) for index, part in enumerate(parts))

    return mask


def scrubbed(report: Report, mask: Callable[[str], str]) -> Report:
    """The report as it may be shown and shared: every text a server sent (its name and version, its listings,
    each quoted answer, the tool a finding is about) and the target's command line through `mask`; failwell's own
    sentences (a finding's probe and problem, why a tool was skipped) word by word, so a server's text inside one
    is masked and the sentence around it kept whole (`credential came back` is no `credential: value`)."""

    def words(text: str) -> str:
        return _WORD.sub(lambda word: mask(word.group()), text)

    def deep(value: Any) -> Any:
        if isinstance(value, str):
            return mask(value)
        if isinstance(value, dict):
            return {deep(key): deep(item) for key, item in value.items()}
        if isinstance(value, list):
            return [deep(item) for item in value]
        return value

    return dataclasses.replace(
        report,
        target=mask(report.target),
        server=deep(report.server),
        tools=deep(report.tools),
        resources=deep(report.resources),
        resource_templates=deep(report.resource_templates),
        prompts=deep(report.prompts),
        checks=[dataclasses.replace(check, subject=mask(check.subject)) for check in report.checks],
        findings=[
            dataclasses.replace(
                finding,
                subject=mask(finding.subject),
                probe=words(finding.probe),
                problem=words(finding.problem),
                answer=mask(finding.answer),
            )
            for finding in report.findings
        ],
        skipped=[words(line) for line in report.skipped],
        exchange=deep(report.exchange),
    )


@asynccontextmanager
async def _connect(target: Target, noise: list[str], recorder: Recorder, errlog: Any) -> AsyncIterator[Client]:
    async def on_message(message: Any) -> None:
        if isinstance(message, Exception):  # a stdout line that is not a JSON-RPC message
            line = _INPUT.search(str(message))
            noise.append(line.group(1) if line else type(message).__name__)

    if target.url:
        import httpx2
        from mcp.client.streamable_http import streamable_http_client

        async with (
            httpx2.AsyncClient(headers=target.headers, timeout=30) as http,
            Client(recorder.around(streamable_http_client(target.url, http_client=http))) as session,
        ):
            yield session
        return
    params = StdioServerParameters(
        command=target.command[0], args=list(target.command[1:]), env=server_environment(target), cwd=target.cwd
    )
    async with Client(recorder.around(stdio_client(params, errlog=errlog)), message_handler=on_message) as session:
        yield session


async def audit_async(target: Target, options: Options) -> Report:
    if not target.command and not target.url:
        raise FailwellError("nothing to audit: give a URL, or `--` and the command that starts a stdio server")
    report = Report(target=target.name, transport="http" if target.url else "stdio")
    mask = masker(known_secrets(target))
    noise: list[str] = []
    logging.getLogger("mcp.client.stdio").setLevel(logging.CRITICAL)  # stdout noise is a finding, not a log line
    connected, timed_out = anyio.Event(), False

    async def watchdog(scope: anyio.CancelScope) -> None:
        nonlocal timed_out
        with anyio.move_on_after(options.timeout_s * 2):
            await connected.wait()
            return
        timed_out = True
        scope.cancel()

    recorder = Recorder()
    with tempfile.TemporaryFile("w+") as errlog:
        try:
            async with anyio.create_task_group() as group:
                group.start_soon(watchdog, group.cancel_scope)
                async with _connect(target, noise, recorder, errlog) as session:
                    connected.set()
                    await _audit(session, report, options, recorder)
                    await anyio.sleep(0.2)  # a line printed late still reaches the noise list
        except Exception as error:
            if connected.is_set():
                raise
            cause: BaseException = error
            while isinstance(cause, BaseExceptionGroup) and cause.exceptions:
                cause = cause.exceptions[0]
            why = _unreachable(target, f"{type(cause).__name__}: {cause}", stderr_tail(errlog))
            raise Unreachable(mask(why)) from None
        if timed_out:
            why = _unreachable(target, f"no answer to initialize in {options.timeout_s * 2:g} s", stderr_tail(errlog))
            raise Unreachable(mask(why))
    if target.url:
        await probe_malformed_http(report, target.url, target.headers, options.timeout_s)
    if report.transport == "stdio":
        env = server_environment(target)
        run = (report, target.command, env, target.cwd, options.timeout_s, recorder.log)
        await anyio.to_thread.run_sync(probe_malformed, *run)
        newest = str(report.server.get("protocol") or "")
        await anyio.to_thread.run_sync(probe_unknowns_at_oldest, *run, newest, UNKNOWNS)
        problem = None
        if noise:
            problem = Finding(
                "stdout",
                "error",
                "server",
                "the whole session",
                f"{len(noise)} stdout line(s) that are not JSON-RPC: stdout belongs to the protocol on stdio",
                noise[0][:500],
            )
        report.record("stdout", "server", problem)
    if options.record:
        report.exchange = recorder.log
    return scrubbed(report, mask)


STDERR_LINES = 10
STDERR_WIDTH = 200
STDERR_BYTES = 16384


def stderr_tail(errlog: Any) -> list[str]:
    """The last lines a stdio server wrote on its stderr (at most `STDERR_LINES` of at most `STDERR_WIDTH`
    characters, from its last `STDERR_BYTES`), each on one line with every control shown as its escape."""
    try:
        descriptor = errlog.fileno()
        size = os.fstat(descriptor).st_size
        data = os.pread(descriptor, min(size, STDERR_BYTES), max(0, size - STDERR_BYTES))
    except (OSError, ValueError, AttributeError):
        return []
    lines = [line for line in data.decode("utf-8", "replace").splitlines() if line.strip()][-STDERR_LINES:]
    return [
        shown if len(shown := visible(line, one_line=True)) <= STDERR_WIDTH else shown[:STDERR_WIDTH] + "..."
        for line in lines
    ]


def _unreachable(target: Target, why: str, stderr: Sequence[str] = ()) -> str:
    said = "".join(f"\n  stderr| {line}" for line in stderr)
    ended = f" Its stderr ended with (the last {len(stderr)} lines):" if stderr else ""
    return (
        f"could not connect to {visible(target.name, one_line=True)}: {visible(why, one_line=True)}. Check the "
        f"command or URL (a stdio server's command goes after `--`), and that the server starts on its own.{ended}"
        + said
    )


async def _ask(
    call: Awaitable[Any], timeout_s: float, recorder: Recorder, subject: str = "server", probe: str = ""
) -> Answer:
    recorder.subject, recorder.probe = subject, probe
    try:
        with anyio.fail_after(timeout_s):
            return Answer(result=await call)
    except MCPError as error:
        return Answer(code=error.error.code, message=error.error.message, data=error.error.data)
    except TimeoutError:
        return Answer(broken=f"no answer in {timeout_s:g} s")
    except Exception as error:
        return Answer(broken=f"{type(error).__name__}: {error}"[:500])


def _dump(model: Any) -> dict[str, Any]:
    return dict(model.model_dump(mode="json", by_alias=True, exclude_none=True))


async def _list(
    session: Client, method: str, attribute: str, timeout_s: float, recorder: Recorder
) -> tuple[list[Any], Answer | None]:
    items: list[Any] = []
    cursor: str | None = None
    for _ in range(MAX_PAGES):
        answer = await _ask(getattr(session, method)(cursor=cursor), timeout_s, recorder, "server", method)
        if answer.result is None:
            return items, answer
        items.extend(getattr(answer.result, attribute))
        cursor = answer.result.next_cursor
        if not cursor:
            break
    return items, None


async def _audit(session: Client, report: Report, options: Options, recorder: Recorder) -> None:
    timeout = options.timeout_s
    info = session.server_info
    capabilities = session.server_capabilities
    report.server = {
        "name": getattr(info, "name", ""),
        "version": getattr(info, "version", ""),
        "protocol": str(session.protocol_version or ""),
        "capabilities": _dump(capabilities) if capabilities is not None else {},
    }
    kinds = (
        ("tools", "list_tools", "tools"),
        ("resources", "list_resources", "resources"),
        ("resource_templates", "list_resource_templates", "resource_templates"),
        ("prompts", "list_prompts", "prompts"),
    )
    listed: dict[str, list[Any]] = {}
    for kind, method, attribute in kinds:
        capability = "resources" if kind == "resource_templates" else kind
        advertised = capabilities is not None and getattr(capabilities, capability, None) is not None
        items, failed = await _list(session, method, attribute, timeout, recorder)
        if not advertised:
            served, items = items, []
        listed[kind] = items
        setattr(report, kind, [_dump(item) for item in items])
        if kind == "resource_templates":
            continue
        problem = None
        if not advertised and served:
            some = ", ".join(sorted(str(getattr(item, "name", "?")) for item in served)[:5])
            problem = Finding(
                "listing", "error", "server", method, f"{capability} are served ({some}) but not advertised"
            )
        elif advertised and failed is not None:
            problem = Finding(
                "listing",
                "error",
                "server",
                f"{method}",
                f"{capability} are advertised, but listing them failed",
                failed.quoted(),
            )
        report.record("listing", "server", problem)
    tools = listed["tools"]
    names = {tool.name for tool in tools}
    for tool in tools:
        _judge_listing(report, tool)

    await _unknowns(session, report, timeout, recorder)
    for tool in tools:
        annotations = tool.annotations
        read_only = annotations is not None and annotations.read_only_hint is True
        schema = tool.input_schema or {}
        chosen = probes(schema)
        if not read_only and not options.allow_writes:
            said_writes = annotations is not None and (
                annotations.read_only_hint is False or annotations.destructive_hint is True
            )
            if said_writes or not read_looking(tool.name, tool.description):
                report.skipped.append(f"{tool.name}: not annotated read-only; pass --allow-writes to probe it")
                continue
            chosen = unrunnable(schema)
            if not chosen:
                report.skipped.append(
                    f"{tool.name}: not annotated read-only, and no required argument to leave out; "
                    "pass --allow-writes to probe it"
                )
                continue
        for probe in chosen:
            call = session.call_tool(tool.name, probe.arguments)
            answer = await _ask(call, timeout, recorder, tool.name, probe.title)
            judge_refusal(report, tool.name, probe, answer, names)
        if read_only and options.call_reads:
            arguments = valid_arguments(schema)
            title = "a call with example values"
            answer = await _ask(session.call_tool(tool.name, arguments), timeout, recorder, tool.name, title)
            judge_leaks(report, tool.name, title, answer, sent_values(arguments))
            if answer.is_error_result:
                failure_object(report, tool.name, title, answer)
            elif reads_as_failure(answer):
                problem = Finding("channel", "error", tool.name, title, ERROR_AS_SUCCESS, answer.quoted())
                report.record("channel", tool.name, problem)
            else:
                judge_success(report, tool.name, title, answer)


def _judge_listing(report: Report, tool: Any) -> None:
    name = tool.name
    problem = None
    if not (tool.description or "").strip():
        problem = Finding(
            "listing", "warning", name, "tools/list", "no description: the model cannot tell when to call it"
        )
    report.record("listing", name, problem)
    problem = None
    if tool.annotations is None or (
        tool.annotations.read_only_hint is None and tool.annotations.destructive_hint is None
    ):
        problem = Finding(
            "listing",
            "warning",
            name,
            "tools/list",
            "no readOnlyHint or destructiveHint: a client cannot tell whether a retry is safe",
        )
    report.record("listing", name, problem)


UNKNOWNS: tuple[tuple[str, str, dict[str, Any], str, tuple[int, ...]], ...] = (
    ("an unknown tool", "tools/call", {"name": UNKNOWN_TOOL, "arguments": {"q": PLANTED}}, UNKNOWN_TOOL, ()),
    ("an unknown resource", "resources/read", {"uri": UNKNOWN_URI}, UNKNOWN_URI, (-32002,)),
    ("an unknown prompt", "prompts/get", {"name": UNKNOWN_PROMPT, "arguments": {"q": PLANTED}}, UNKNOWN_PROMPT, ()),
)
"""The unknown-name probes: what is asked, its method and params, the name asked, the codes owed beside -32602
and -32601 (a missing resource's -32002)."""


def at_protocol(probe: str, version: str) -> str:
    """`an unknown tool at protocol 2025-11-25`: a finding names the version it was made at."""
    return f"{probe} at protocol {version}" if version else probe


async def _unknowns(session: Client, report: Report, timeout: float, recorder: Recorder) -> None:
    """The unknown-name probes at the version this session negotiated (the newest the server accepts); the
    oldest it accepts is probed on a second copy (`malformed.probe_unknowns_at_oldest`)."""
    version = str(session.protocol_version or "")
    for probe, method, params, asked, also in UNKNOWNS:
        label = at_protocol(probe, version)
        call: Awaitable[Any]
        if method == "tools/call":
            call = session.call_tool(params["name"], params["arguments"])
        elif method == "resources/read":
            call = session.read_resource(params["uri"])
        else:
            call = session.get_prompt(params["name"], params["arguments"])
        answer = await _ask(call, timeout, recorder, "server", label)
        judge_unknown(report, label, answer, asked, also)
