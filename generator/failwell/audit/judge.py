"""Each answer judged by failwell's rules: the channel, the JSON-RPC code, the six parts of the message (the spec
stage's wording lint, run on the words the server sent), leaks (the planted credential, internals), the
machine-readable failure object (failwell's envelope or SEP-3313's `toolFailure`, read by the client reference),
and retry advice against the failure and the tool's annotations."""

from __future__ import annotations

import json
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlsplit

from ..client.reference import ENVELOPE_KEY, TOOL_FAILURE_KEY, read_failure
from ..spec import wording
from .findings import Finding, Report, Severity
from .probes import EXTRA, PLANTED_MARK, Probe

QUOTE = 500
MAX_TEXT = 1000
"""Longer than the spec lint's 300: a live answer lists every bad argument, with what each accepts."""
STANDARD_CODES = {-32700, -32600, -32601, -32602, -32603}
DEFINED_RESERVED = {-32020, -32021, -32022, -32002, -32042}
"""Codes the MCP specification defines in -32000..-32099 (the last two in the 2025 revisions)."""
_RETRY = re.compile(r"(?i)\b(retry|retrying|try again|again later|wait|will not help|won't help|same call)\b")
_CHANGED = re.compile(
    r"(?i)\b(nothing|no changes?|not)\b[^.]{0,40}\b(changed|modified|made|applied|written|saved|created|deleted)\b"
    r"|\b(may|might) have been (applied|changed|made)|\bpart of the change\b"
)
_STACK = re.compile(
    r'(?i)traceback \(most recent call last\)|File "[^"]+", line \d+|errors\.pydantic\.dev|at \S+:\d+:\d+'
)
_FAILED = re.compile(
    r"(?i)^\W*(error|errors|failed|failure|exception|invalid)\b"
    r"|\b(failed to|could not|couldn't|unable to|validation errors?|missing required|is required)\b"
)
"""Words of a failure at the start of a result's text: `Error: ...`, `Failed to ...`, `x is required`."""
ERROR_AS_SUCCESS = "an error sent as a success (isError false): the model takes it for data; send an isError result"


def sent_values(arguments: Any) -> list[str]:
    """Every string the probe itself sent (in `arguments`, at any depth): a message may name them, and naming
    what the caller sent is never a leak (a URL or a path the audit passed is not the server's internals)."""
    if isinstance(arguments, str):
        host = urlsplit(arguments).hostname if "://" in arguments else None
        return [arguments, *([host] if host else [])] if arguments else []
    if isinstance(arguments, Mapping):
        return [value for item in arguments.values() for value in sent_values(item)]
    if isinstance(arguments, list | tuple):
        return [value for item in arguments for value in sent_values(item)]
    return []


def without_sent(text: str, sent: Sequence[str]) -> str:
    """`text` with each exact occurrence of a value the probe sent replaced by `x`, longest first: what is left
    is what the server added. An occurrence counts where it starts a token (not inside a longer word or path) and
    ends one, unless the value ends with `/` (a URL or folder the server went on from: what it added is judged)."""
    for value in sorted({value for value in sent if value}, key=len, reverse=True):
        end = "" if value.endswith("/") else r"(?![\w/])"
        text = re.sub(rf"(?<![\w/.-]){re.escape(value)}{end}", "x", text)
    return text


def reads_as_failure(answer: Answer) -> bool:
    """A success result (`isError` false) whose text says it failed: `Error: ...`, `Failed to ...`."""
    if answer.result is None or answer.is_error_result or answer.code is not None:
        return False
    return bool(_FAILED.search(answer.text.strip()[:300]))


@dataclass(frozen=True)
class Answer:
    """What came back for one request: a result, a JSON-RPC error, or nothing (a timeout, a dropped connection)."""

    result: Any = None
    """A CallToolResult (or another result) when one came back."""
    code: int | None = None
    message: str = ""
    data: Any = None
    broken: str = ""
    """What happened instead of an answer."""

    @property
    def is_error_result(self) -> bool:
        return self.result is not None and getattr(self.result, "is_error", False) is True

    @property
    def text(self) -> str:
        if self.result is not None:
            blocks = getattr(self.result, "content", None) or []
            return "\n".join(
                str(getattr(block, "text", "")) for block in blocks if getattr(block, "type", "") == "text"
            )
        return self.message

    def quoted(self) -> str:
        if self.broken:
            return self.broken
        if self.code is not None:
            data = f" data={json.dumps(self.data, default=str)}" if self.data is not None else ""
            return f"JSON-RPC error {self.code}: {self.message}{data}"[:QUOTE]
        flag = "isError result" if self.is_error_result else "success result"
        return f"{flag}: {self.text}"[:QUOTE]

    def everything(self) -> str:
        """All the answer says, for the leak check: text, `_meta`, structured content, error data."""
        parts = [self.text, self.message, json.dumps(self.data, default=str)]
        if self.result is not None:
            parts.append(json.dumps(getattr(self.result, "meta", None), default=str))
            parts.append(json.dumps(getattr(self.result, "structured_content", None), default=str))
        return "\n".join(parts)


def judge_code(report: Report, subject: str, probe: str, answer: Answer) -> None:
    """A JSON-RPC error's code: never 0, never an invented one in the reserved ranges."""
    if answer.code is None:
        return
    code, problem = answer.code, ""
    if code == 0:
        problem = "JSON-RPC code 0 is not an error code"
    elif -32099 <= code <= -32020 and code not in DEFINED_RESERVED:
        problem = f"{code} is in -32020..-32099, where no undefined code may be sent"
    elif -32019 <= code <= -32000 and code not in DEFINED_RESERVED:
        problem = f"{code} is in -32000..-32019, which new implementations should not use"
    elif -32768 <= code <= -32100 and code not in STANDARD_CODES:
        problem = f"{code} is reserved by JSON-RPC and not a standard code"
    severity: Severity = "warning" if "should not" in problem else "error"
    report.record(
        "codes", subject, Finding("codes", severity, subject, probe, problem, answer.quoted()) if problem else None
    )


def judge_leaks(
    report: Report, subject: str, probe: str, answer: Answer, echoed: Sequence[str] = (), field: str = ""
) -> None:
    """The planted credential, a stack trace or a path, address, URL or SQL in a failure. What the probe sent,
    `echoed` (`sent_values` of its arguments), may come back: a message naming the value it refused, or the URL
    or path it was given, is what failwell asks for, so those exact values are taken out before the internals
    check (`without_sent`); whatever the server added around them is still judged.

    The planted credential quoted back as the refused value of the `field` the message names is a warning (the
    caller sent it, but a message should mask what has a credential's shape); anywhere else (a library's dump,
    `_meta`, structured content, an answer about something else) it is an error."""
    everything = answer.everything()
    text = without_sent(answer.text, echoed)
    problem, severity = "", "error"
    if PLANTED_MARK in everything:
        quoted = (
            field
            and field in answer.text
            and PLANTED_MARK not in everything.replace(answer.text, "")
            and not _STACK.search(everything)
            and "input_value=" not in everything
        )
        problem = (
            "the planted credential was quoted back as the refused value: mask what has a credential's shape"
            if quoted
            else "the planted credential came back verbatim"
        )
        severity = "warning" if quoted else "error"
    elif _STACK.search(everything):
        problem = "a stack trace or a library's error dump"
    elif text and (answer.is_error_result or answer.code is not None) and wording.shows_internals(text):
        problem = "internals in the message (a path, address, URL, SQL or stack words)"
    finding = Finding(
        "leaks", "warning" if severity == "warning" else "error", subject, probe, problem, answer.quoted()
    )
    report.record("leaks", subject, finding if problem else None)


def failure_object(report: Report, subject: str, probe: str, answer: Answer) -> None:
    """An isError result carries failwell's envelope or a well-formed SEP-3313 object."""
    meta: Mapping[str, Any] = getattr(answer.result, "meta", None) or {}
    draft, envelope = meta.get(TOOL_FAILURE_KEY), meta.get(ENVELOPE_KEY)
    problem = ""
    if draft is None and envelope is None:
        problem = "no machine-readable failure object (failwell's envelope or SEP-3313 toolFailure) in _meta"
    elif draft is not None:
        failure = read_failure(answer.result, subject)
        if failure is None or failure.source != "toolFailure":
            problem = "a toolFailure object that is not one (class, code and correlationId are required)"
        elif draft.get("retryable") is True and draft.get("class") != "reliability":
            problem = "toolFailure retryable true outside class reliability"
    severity: Severity = "warning" if problem.startswith("no machine") else "error"
    report.record(
        "envelope",
        subject,
        Finding("envelope", severity, subject, probe, problem, answer.quoted()) if problem else None,
    )


def judge_success(report: Report, subject: str, probe: str, answer: Answer) -> None:
    """A success result carries no failure object: the draft's `toolFailure` is "present only on error results
    (isError: true)", and failwell's envelope likewise. Only a failure is recorded: a success without one says
    nothing about the envelope rule, whose score is about the failures a server sends."""
    if answer.result is None or answer.is_error_result:
        return
    meta: Mapping[str, Any] = getattr(answer.result, "meta", None) or {}
    present = [key for key in (TOOL_FAILURE_KEY, ENVELOPE_KEY) if key in meta]
    if present:
        problem = f"a success result carrying {present[0]}: a failure object belongs on error results only"
        report.record("envelope", subject, Finding("envelope", "error", subject, probe, problem, answer.quoted()))


def judge_refusal(report: Report, subject: str, probe: Probe, answer: Answer, tools: set[str]) -> None:
    """A call the input schema forbids: refused, as an isError result that names what was wrong. A success
    result whose text says it failed (`Error: ...`) was refused in the wrong channel: a `channel` error, never
    "accepted"."""
    title = probe.title
    sent = sent_values(probe.arguments)
    if answer.broken:
        finding = Finding("refuses", "error", subject, title, "no answer: " + answer.broken, answer.quoted())
        report.record("refuses", subject, finding)
        return
    if reads_as_failure(answer):
        report.record("refuses", subject, None)
        finding = Finding("channel", "error", subject, title, ERROR_AS_SUCCESS, answer.quoted())
        report.record("channel", subject, finding)
        judge_leaks(report, subject, title, answer, sent)
        judge_success(report, subject, title, answer)
        return
    refused = answer.code is not None or answer.is_error_result
    if refused and probe.kind == "extra" and EXTRA not in answer.text + answer.message:
        finding = Finding(
            "refuses",
            "error",
            subject,
            title,
            f"the unknown argument {EXTRA} is not named: ignored, or never checked (the answer is about another)",
            answer.quoted(),
        )
        report.record("refuses", subject, finding)
        judge_leaks(report, subject, title, answer, sent)
        return
    report.record(
        "refuses",
        subject,
        None
        if refused
        else Finding("refuses", "error", subject, title, "input the schema forbids was accepted", answer.quoted()),
    )
    if not refused:
        judge_leaks(report, subject, title, answer, sent)
        judge_success(report, subject, title, answer)
        return
    channel = None
    if answer.code is not None:
        channel = Finding(
            "channel",
            "warning",
            subject,
            title,
            "a JSON-RPC error the model may never see: bad arguments are an isError result naming each field",
            answer.quoted(),
        )
    report.record("channel", subject, channel)
    judge_code(report, subject, title, answer)
    judge_leaks(report, subject, title, answer, sent, probe.field if probe.kind != "extra" else "")
    judge_wording(report, subject, probe, answer, tools)
    if answer.is_error_result:
        failure_object(report, subject, title, answer)
        judge_retry(report, subject, title, answer)


def judge_wording(report: Report, subject: str, probe: Probe, answer: Answer, tools: set[str]) -> None:
    """The six parts, by the wording lint (`spec.wording.check`) on the text the server sent."""
    text = answer.text
    shown = probe.field in text or (probe.value is not None and _shown(probe.value, text))
    named = {probe.field} if shown else set()
    missing, _ = wording.check(text, text, "invalid_input", named, tools, subject)
    parts = list(missing)
    if not _RETRY.search(text):
        parts.append("retry")
    if not _CHANGED.search(text):
        parts.append("changed")
    problem = ""
    if parts:
        problem = "the message lacks: " + ", ".join(parts)
    elif len(text) > MAX_TEXT:
        problem = f"{len(text)} characters: a wall of text for the model; keep it under {MAX_TEXT}"
    report.record(
        "wording",
        subject,
        Finding("wording", "warning", subject, probe.title, problem, answer.quoted()) if problem else None,
    )


def _shown(value: Any, text: str) -> bool:
    if isinstance(value, str):
        return (value[:20] in text and value != "") or "[redacted" in text.lower() or "masked" in text.lower()
    return json.dumps(value) in text or str(value) in text


def judge_retry(report: Report, subject: str, probe: str, answer: Answer) -> None:
    """Bad input: retrying the same call cannot help, and the failure object must not say it can."""
    failure = read_failure(answer.result, subject)
    problem = ""
    if failure is not None and failure.source != "text" and failure.retryable:
        problem = "a refusal of bad input is marked retryable"
    report.record(
        "retry", subject, Finding("retry", "error", subject, probe, problem, answer.quoted()) if problem else None
    )


def judge_unknown(report: Report, probe: str, answer: Answer, asked: str, also: tuple[int, ...] = ()) -> None:
    """An unknown tool, resource or prompt: a JSON-RPC error -32602 in one sentence (or -32601 for a kind the
    server does not serve, and `also`)."""
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
        elif reads_as_failure(answer):
            said = "an error sent as a success (isError false); the specification's answer is JSON-RPC -32602"
            problem = Finding("channel", "error", "server", probe, said, answer.quoted())
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
