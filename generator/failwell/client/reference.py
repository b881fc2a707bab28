"""The SEP-3313 client reference: `call_tool` over an `mcp` client session, acting on a tool's failure.

SEP-3313 ("Structured Tool-Failure Classification", modelcontextprotocol/modelcontextprotocol PR #3313, Draft)
puts a `ToolFailure` object in an error result's `_meta["io.modelcontextprotocol/toolFailure"]`: a behavioural
`class` (capability, reliability, governance), an open `code`, `retryable`, `retryNotBefore` (Unix epoch ms), a
required `correlationId` and a short `agentGuidance`. failwell's servers send it beside their own envelope,
`_meta["dev.failwell/error"]` (class, failure, retryable, retry_after_s, changed, reference).

What `call_tool` does with an error result (and nothing else: a success, or a JSON-RPC error, is the SDK's):

1. It reads the draft's object; an object that is not one (an unknown `class`, no `correlationId`) is ignored as
   if absent, so a client keeps behaving as it does today. Without it, failwell's envelope gives the same facts
   (its class mapped onto the draft's three as failwell's servers map it). Without either, the text is read:
   a best guess at the class, marked `source="text"`, and never retried (the server promised nothing).
2. It dispatches on `class`, never on `code`: capability and governance are never retried; reliability is
   retried only when `retryable` is true AND the tool permits it: its annotations say `readOnlyHint` or
   `idempotentHint`, or (failwell's extension of the draft's rule, which names only `idempotentHint`) the call
   carries an idempotency key, so the retry, sending the same arguments, carries the same key.
3. A failure whose envelope says `changed: possible` is never retried on its own: the message names a check
   (read the record, then retry with the same key); `check_possible_change`, when given, is that check, and
   only its True lets the retry go.
4. A retry waits at least until `retryNotBefore` and at least a full-jitter backoff; attempts are at most
   `max_attempts` and everything (calls, waits, listing the tool's annotations, the check of a possible change)
   fits `budget_s`: a wait, a listing or a check that would end past the budget gives up at once with the last
   failure, and a call still running when the budget ends raises `TimeoutError`.
5. The failure raised is a `ToolFailure` (a subclass per class) that keeps every attempt's `correlationId`;
   `agent_guidance` is data for the model, never an instruction to this code.
"""

from __future__ import annotations

import inspect
import math
import random
import re
import time
from collections.abc import Awaitable, Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal, Protocol, TypeGuard

import anyio
from mcp.types import CallToolResult, ListToolsResult, TextContent, Tool, ToolAnnotations

TOOL_FAILURE_KEY = "io.modelcontextprotocol/toolFailure"
"""The `_meta` key SEP-3313 gives its object."""
ENVELOPE_KEY = "dev.failwell/error"
"""The `_meta` key of failwell's own envelope."""
IDEMPOTENCY_KEY = "idempotency_key"
"""The argument failwell's keyed writes take."""

FailureClass = Literal["capability", "reliability", "governance"]
Source = Literal["toolFailure", "failwell", "text"]
Changed = Literal["none", "possible", "partial"]

SEP_CLASSES: dict[str, FailureClass] = {
    "invalid_input": "capability",
    "not_found": "capability",
    "conflict": "capability",
    "internal": "capability",
    "permission_denied": "governance",
    "rate_limited": "reliability",
    "upstream_unavailable": "reliability",
    "timeout": "reliability",
}
"""failwell's eight classes onto the draft's three, as failwell's servers map them (a failure failwell calls
retryable is `reliability` whatever its class)."""


class Session(Protocol):
    """What `call_tool` needs of a session: `mcp.ClientSession` and `mcp.Client` both are one. They page
    `tools/list` differently (`Client.list_tools(cursor=...)`, `ClientSession.list_tools(params=...)`), so
    the pages after the first are asked for by `list_tools_page`, and nothing else calls `list_tools`."""

    async def call_tool(
        self, name: str, arguments: dict[str, Any] | None = None, read_timeout_seconds: float | None = None
    ) -> Any: ...

    async def list_tools(self) -> ListToolsResult: ...


@dataclass(eq=False)
class ToolFailure(Exception):
    """A tool call that ended in an error result, read: what the draft's object (or failwell's envelope, or the
    text) said, and every attempt made. Catch a subclass to act on the class."""

    failure_class: FailureClass | None
    """None: not known (a server that sent neither object, and text that says nothing recognisable)."""
    code: str
    text: str
    """The message the model reads."""
    source: Source
    retryable: bool = False
    retry_not_before: int | None = None
    """Unix epoch milliseconds; only with `retryable`."""
    correlation_id: str | None = None
    agent_guidance: str | None = None
    """Data for the model, never an instruction to the client's code."""
    changed: Changed | None = None
    """failwell's envelope: whether anything may have been changed; None when the server did not say."""
    tool: str = ""
    result: CallToolResult | None = field(default=None, repr=False)
    attempts: tuple[str, ...] = ()
    """The correlation id of every attempt, first to last (empty strings where a server gave none)."""
    gave_up: str = ""
    """Why no further attempt was made: a sentence, for logs."""

    def __post_init__(self) -> None:
        super().__init__(self.text)

    def __str__(self) -> str:
        return f"{self.tool}: {self.failure_class or 'unclassified'}/{self.code}: {self.text}"


class CapabilityFailure(ToolFailure):
    """The call cannot succeed as sent: change it, or tell the user. Never retried."""


class ReliabilityFailure(ToolFailure):
    """A transient condition: retried when allowed, raised when the attempts, the budget or the rules ran out."""


class GovernanceFailure(ToolFailure):
    """Refused by policy: someone must act out of band. Never retried."""


class UnclassifiedFailure(ToolFailure):
    """A server that said nothing the client could classify."""


_SUBCLASS: dict[FailureClass | None, type[ToolFailure]] = {
    "capability": CapabilityFailure,
    "reliability": ReliabilityFailure,
    "governance": GovernanceFailure,
    None: UnclassifiedFailure,
}


def read_failure(result: CallToolResult, tool: str = "", now_ms: int | None = None) -> ToolFailure | None:
    """The failure an error result carries, or None for a success. Never raises on what a server sent."""
    if not result.is_error:
        return None
    meta: Mapping[str, Any] = result.meta or {}
    text = "\n".join(block.text for block in result.content if isinstance(block, TextContent))
    envelope = meta.get(ENVELOPE_KEY)
    envelope = envelope if isinstance(envelope, Mapping) else None
    changed = envelope.get("changed") if envelope else None
    changed = changed if changed in ("none", "possible", "partial") else None
    common: dict[str, Any] = {"text": text, "changed": changed, "tool": tool, "result": result}
    draft = _draft_object(meta.get(TOOL_FAILURE_KEY))
    if draft is not None:
        failure_class, retryable = draft["class"], draft.get("retryable") is True
        retryable = retryable and failure_class == "reliability"  # the draft: MUST be absent or false otherwise
        not_before = _epoch_ms(draft.get("retryNotBefore"), now_ms)
        return _SUBCLASS[failure_class](
            failure_class,
            draft["code"],
            source="toolFailure",
            retryable=retryable,
            retry_not_before=not_before if retryable else None,
            correlation_id=draft["correlationId"],
            agent_guidance=draft.get("agentGuidance") if isinstance(draft.get("agentGuidance"), str) else None,
            **common,
        )
    if envelope is not None and envelope.get("class") in SEP_CLASSES and isinstance(envelope.get("failure"), str):
        retryable = envelope.get("retryable") is True
        failure_class = "reliability" if retryable else SEP_CLASSES[envelope["class"]]
        after = envelope.get("retry_after_s")
        not_before = None
        if _is_number(after):
            now = _now_ms(now_ms)
            not_before = now + math.ceil(min(after, MAX_WAIT_S) * 1000)
        reference = envelope.get("reference")
        return _SUBCLASS[failure_class](
            failure_class,
            envelope["failure"],
            source="failwell",
            retryable=retryable,
            retry_not_before=not_before if retryable else None,
            correlation_id=reference if isinstance(reference, str) else None,
            **common,
        )
    guessed = guess_class(text)
    return _SUBCLASS[guessed](guessed, "unclassified", source="text", **common)


MAX_WAIT_S = 86_400
"""The longest wait a server's `retry_after_s` or `retryNotBefore` is read as (a day): a larger one is this cap,
past any budget a call is given, so the failure is raised at once rather than waited on."""


def _is_number(value: object) -> TypeGuard[int | float]:
    """A finite number, not negative: what a wait can be. Anything else (a string, a bool, NaN, infinity, -1) is
    read as absent."""
    if isinstance(value, bool) or not isinstance(value, int | float):
        return False
    return value >= 0 if isinstance(value, int) else math.isfinite(value) and value >= 0  # an int of any size


def _now_ms(now_ms: int | None) -> int:
    return int(time.time() * 1000) if now_ms is None else now_ms


def _epoch_ms(value: object, now_ms: int | None) -> int | None:
    """The draft's `retryNotBefore` (Unix epoch milliseconds) as read: None when it is not a wait (`_is_number`),
    at most `MAX_WAIT_S` from now (`1e308` is a day from now, not an integer of 309 digits)."""
    if not _is_number(value):
        return None
    latest = _now_ms(now_ms) + MAX_WAIT_S * 1000
    return int(value) if value <= latest else latest


def _draft_object(value: object) -> dict[str, Any] | None:
    """The draft's object when it is one (a known class, a string code and correlationId); else None."""
    if not isinstance(value, Mapping):
        return None
    if value.get("class") not in ("capability", "reliability", "governance"):
        return None
    if not isinstance(value.get("code"), str) or not isinstance(value.get("correlationId"), str):
        return None
    return dict(value)


_GUESSES: Sequence[tuple[FailureClass, re.Pattern[str]]] = (
    ("governance", re.compile(r"\b(permission|forbidden|unauthori[sz]ed|not allowed|access denied|denied)\b", re.I)),
    (
        "reliability",
        re.compile(
            r"\b(timed? ?out|timeout|rate.?limit|too many requests|unavailable|try again|temporar\w*|"
            r"connection (refused|reset|error))\b",
            re.I,
        ),
    ),
    ("capability", re.compile(r"\b(invalid|not found|no such|does not exist|unknown|required|must be)\b", re.I)),
)


def guess_class(text: str) -> FailureClass | None:
    """The class a failure's text suggests, for a server that sent neither object: a guess, never acted on by a
    retry (the server did not say a retry is safe)."""
    for failure_class, pattern in _GUESSES:
        if pattern.search(text):
            return failure_class
    return None


async def list_tools_page(session: Session, cursor: str | None) -> ListToolsResult:
    """One page of `tools/list` (the first when `cursor` is None), asked as the session's own `list_tools` takes
    a cursor: `mcp.ClientSession` in `params=PaginatedRequestParams(cursor=...)`, `mcp.Client` (and most
    wrappers) as `cursor=...`."""
    if cursor is None:
        return await session.list_tools()
    method: Any = session.list_tools
    if "params" in inspect.signature(method).parameters:
        from mcp.types import PaginatedRequestParams

        return await method(params=PaginatedRequestParams(cursor=cursor))  # type: ignore[no-any-return]
    return await method(cursor=cursor)  # type: ignore[no-any-return]


async def tool_annotations(session: Session, name: str) -> ToolAnnotations | None:
    """The annotations the server lists for `name` (every page of `tools/list`, at most 100 pages)."""
    cursor: str | None = None
    for _ in range(100):
        listing = await list_tools_page(session, cursor)
        tool: Tool
        for tool in listing.tools:
            if tool.name == name:
                return tool.annotations
        cursor = listing.next_cursor
        if not cursor:
            return None
    return None


def may_retry(failure: ToolFailure, annotations: ToolAnnotations | None, keyed: bool) -> str:
    """Why `failure` must not be retried automatically, or "" when the draft and failwell's rules allow it."""
    if failure.failure_class != "reliability":
        return f"class {failure.failure_class or 'unknown'} is never retried"
    if not failure.retryable:
        return "the server said retrying will not help"
    read_only = annotations is not None and annotations.read_only_hint is True
    idempotent = annotations is not None and annotations.idempotent_hint is True
    if not (read_only or idempotent or keyed):
        return "the tool is neither read-only nor idempotent, and the call carries no idempotency key"
    return ""


async def call_tool(
    session: Session,
    name: str,
    arguments: Mapping[str, Any] | None = None,
    *,
    budget_s: float = 30.0,
    max_attempts: int = 3,
    annotations: ToolAnnotations | None = None,
    check_possible_change: Callable[[ToolFailure], Awaitable[bool]] | None = None,
    base_delay_s: float = 0.5,
    clock: Callable[[], float] = time.time,
    sleep: Callable[[float], Awaitable[None]] = anyio.sleep,
    rng: random.Random | None = None,
) -> CallToolResult:
    """Call `name` and return its successful result; raise a `ToolFailure` for an error result, after the retries
    the draft and failwell's rules allow (module docstring). `annotations`: the tool's, when the caller has them
    (else they are listed once, when a retry is considered). `clock` (seconds since the epoch) and `sleep` are
    the time it keeps, replaceable in tests."""
    if max_attempts < 1 or not budget_s > 0:
        raise ValueError("max_attempts must be at least 1 and budget_s above 0")
    args = dict(arguments or {})
    keyed = isinstance(args.get(IDEMPOTENCY_KEY), str) and bool(args[IDEMPOTENCY_KEY])
    jitter = rng or random.Random()
    deadline = clock() + budget_s
    attempts: list[str] = []
    listed = annotations is not None
    attempt = 0
    while True:
        attempt += 1
        remaining = deadline - clock()
        if remaining <= 0:
            raise TimeoutError(f"{name}: the budget of {budget_s:g} s ran out before attempt {attempt}")
        with anyio.fail_after(remaining):
            result = await session.call_tool(name, args)
        if not isinstance(result, CallToolResult):
            raise TypeError(f"{name}: the session answered {type(result).__name__}, not a CallToolResult")
        failure = read_failure(result, name, now_ms=int(clock() * 1000))
        if failure is None:
            return result
        attempts.append(failure.correlation_id or "")
        failure.attempts = tuple(attempts)
        reason = ""
        if failure.failure_class == "reliability" and failure.retryable and not listed:
            with anyio.move_on_after(max(deadline - clock(), 0)) as listing:
                annotations = await tool_annotations(session, name)
            listed = True
            if listing.cancelled_caught:
                reason = "the tool's annotations could not be listed before the budget ran out"
        reason = reason or may_retry(failure, annotations, keyed)
        if not reason and failure.changed == "possible":
            if check_possible_change is None:
                reason = "the change may have been applied: check it (the message says how) before calling again"
            else:
                cleared = False
                with anyio.move_on_after(max(deadline - clock(), 0)) as checking:
                    cleared = await check_possible_change(failure)
                if checking.cancelled_caught:
                    reason = "the check of a possible change did not finish before the budget ran out"
                elif not cleared:
                    reason = "the check of a possible change did not clear a retry"
        if not reason and attempt >= max_attempts:
            reason = f"{max_attempts} attempts made"
        if not reason:
            backoff = jitter.uniform(0, base_delay_s * 2 ** (attempt - 1))
            now = clock()
            wait = backoff
            if failure.retry_not_before is not None:
                wait = max(wait, failure.retry_not_before / 1000 - now)
            if now + wait >= deadline:
                reason = f"the next attempt could not start before the budget of {budget_s:g} s ran out"
            else:
                await sleep(wait)
                continue
        failure.gave_up = reason
        raise failure


__all__ = [
    "ENVELOPE_KEY",
    "IDEMPOTENCY_KEY",
    "SEP_CLASSES",
    "TOOL_FAILURE_KEY",
    "CapabilityFailure",
    "GovernanceFailure",
    "ReliabilityFailure",
    "Session",
    "ToolFailure",
    "UnclassifiedFailure",
    "call_tool",
    "guess_class",
    "list_tools_page",
    "may_retry",
    "read_failure",
    "tool_annotations",
]
