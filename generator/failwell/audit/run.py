"""One audit: connect (stdio or streamable HTTP), list, probe, judge. Nothing that could change something is
called: a tool not annotated read-only is probed only with `allow_writes` (a server that does not check its
input might run such a call), and a read-only tool is called with valid values only with `call_reads`."""

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
from ..errors import FailwellError
from ..spec.messages import runtime
from .findings import Finding, Report
from .judge import Answer, failure_object, judge_code, judge_leaks, judge_refusal, judge_success
from .malformed import probe_malformed, probe_malformed_http
from .probes import PLANTED, probes, valid_arguments

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


PASSED = ("PATH", "HOME", "LANG")
"""The caller's variables an audited stdio server gets (beside what `--env` gives, and the few the mcp SDK passes
every server it starts: on POSIX HOME, LOGNAME, PATH, SHELL, TERM, USER; on Windows the system's own): never the
caller's whole environment, whose tokens a server could print into the shareable report."""
HEADERS_HOLDING_SECRETS = ("authorization", "proxy-authorization", "cookie")
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
    redact = runtime("scrub").redact_secrets
    longest_first = sorted(set(known), key=len, reverse=True)

    def mask(text: str) -> str:
        for value in longest_first:
            text = text.replace(value, "[redacted]")
        return PLANTED.join(redact(part) for part in text.split(PLANTED))

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
    )


@asynccontextmanager
async def _connect(target: Target, noise: list[str]) -> AsyncIterator[Client]:
    async def on_message(message: Any) -> None:
        if isinstance(message, Exception):  # a stdout line that is not a JSON-RPC message
            line = _INPUT.search(str(message))
            noise.append(line.group(1) if line else type(message).__name__)

    if target.url:
        import httpx2
        from mcp.client.streamable_http import streamable_http_client

        async with (
            httpx2.AsyncClient(headers=target.headers, timeout=30) as http,
            Client(streamable_http_client(target.url, http_client=http)) as session,
        ):
            yield session
        return
    params = StdioServerParameters(
        command=target.command[0], args=list(target.command[1:]), env=server_environment(target), cwd=target.cwd
    )
    with tempfile.TemporaryFile("w+") as errlog:
        async with Client(stdio_client(params, errlog=errlog), message_handler=on_message) as session:
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

    try:
        async with anyio.create_task_group() as group:
            group.start_soon(watchdog, group.cancel_scope)
            async with _connect(target, noise) as session:
                connected.set()
                await _audit(session, report, options)
                await anyio.sleep(0.2)  # a line printed late still reaches the noise list
    except Exception as error:
        if connected.is_set():
            raise
        cause: BaseException = error
        while isinstance(cause, BaseExceptionGroup) and cause.exceptions:
            cause = cause.exceptions[0]
        raise Unreachable(mask(_unreachable(target, f"{type(cause).__name__}: {cause}"))) from None
    if timed_out:
        raise Unreachable(mask(_unreachable(target, f"no answer to initialize in {options.timeout_s * 2:g} s")))
    if target.url:
        await probe_malformed_http(report, target.url, target.headers, options.timeout_s)
    if report.transport == "stdio":
        env = server_environment(target)
        await anyio.to_thread.run_sync(probe_malformed, report, target.command, env, target.cwd, options.timeout_s)
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
    return scrubbed(report, mask)


def _unreachable(target: Target, why: str) -> str:
    return (
        f"could not connect to {target.name}: {why}. Check the command or URL (a stdio server's command goes "
        "after `--`), and that the server starts on its own."
    )


async def _ask(call: Awaitable[Any], timeout_s: float) -> Answer:
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


async def _list(session: Client, method: str, attribute: str, timeout_s: float) -> tuple[list[Any], Answer | None]:
    items: list[Any] = []
    cursor: str | None = None
    for _ in range(MAX_PAGES):
        answer = await _ask(getattr(session, method)(cursor=cursor), timeout_s)
        if answer.result is None:
            return items, answer
        items.extend(getattr(answer.result, attribute))
        cursor = answer.result.next_cursor
        if not cursor:
            break
    return items, None


async def _audit(session: Client, report: Report, options: Options) -> None:
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
        items, failed = await _list(session, method, attribute, timeout)
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

    await _unknowns(session, report, timeout)
    for tool in tools:
        annotations = tool.annotations
        read_only = annotations is not None and annotations.read_only_hint is True
        if not read_only and not options.allow_writes:
            report.skipped.append(f"{tool.name}: not annotated read-only; pass --allow-writes to probe it")
            continue
        schema = tool.input_schema or {}
        for probe in probes(schema):
            answer = await _ask(session.call_tool(tool.name, probe.arguments), timeout)
            judge_refusal(report, tool.name, probe, answer, names)
        if read_only and options.call_reads:
            arguments = valid_arguments(schema)
            answer = await _ask(session.call_tool(tool.name, arguments), timeout)
            judge_leaks(report, tool.name, "a call with example values", answer)
            if answer.is_error_result:
                failure_object(report, tool.name, "a call with example values", answer)
            else:
                judge_success(report, tool.name, "a call with example values", answer)


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


async def _unknowns(session: Client, report: Report, timeout: float) -> None:
    """An unknown tool, resource and prompt: a JSON-RPC error -32602 in one sentence (or -32601 for a kind the
    server does not serve)."""
    answer = await _ask(session.call_tool(UNKNOWN_TOOL, {"q": PLANTED}), timeout)
    _judge_unknown(report, "an unknown tool", answer, UNKNOWN_TOOL)
    answer = await _ask(session.read_resource(UNKNOWN_URI), timeout)
    _judge_unknown(report, "an unknown resource", answer, UNKNOWN_URI, also=(-32002,))
    answer = await _ask(session.get_prompt(UNKNOWN_PROMPT, {"q": PLANTED}), timeout)
    _judge_unknown(report, "an unknown prompt", answer, UNKNOWN_PROMPT)


def _judge_unknown(report: Report, probe: str, answer: Answer, asked: str, also: tuple[int, ...] = ()) -> None:
    problem = None
    if answer.broken:
        problem = Finding("channel", "error", "server", probe, "no answer: " + answer.broken, answer.quoted())
    elif answer.code is None:
        if answer.is_error_result:
            problem = Finding(
                "channel",
                "warning",
                "server",
                probe,
                "answered with an isError result; the specification's answer is JSON-RPC -32602",
                answer.quoted(),
            )
        else:
            problem = Finding("channel", "error", "server", probe, "answered as if it existed", answer.quoted())
    elif answer.code not in (-32602, -32601, *also):
        problem = Finding(
            "channel", "error", "server", probe, f"code {answer.code}; the specification's is -32602", answer.quoted()
        )
    report.record("channel", "server", problem)
    judge_code(report, "server", probe, answer)
    judge_leaks(report, "server", probe, answer, [asked])
    if answer.code == -32602:
        one_line = "\n" not in answer.message.strip() and asked in answer.message
        report.record(
            "wording",
            "server",
            None
            if one_line
            else Finding(
                "wording",
                "warning",
                "server",
                probe,
                "the message should be one line naming what was asked",
                answer.quoted(),
            ),
        )
