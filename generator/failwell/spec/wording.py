"""Every message a server can send, rendered with example values and checked for its six parts:
what failed, the value that was wrong, what would be accepted, the next step, whether retrying
helps, and whether anything was changed. `failwell messages` prints them; `failwell validate`
reports what is missing as warnings (errors with --strict)."""

from __future__ import annotations

import difflib
import hashlib
import json
import math
import re
from collections.abc import Mapping
from collections.abc import Set as AbstractSet
from dataclasses import dataclass
from typing import Any

from ..errors import Diagnostic
from . import fields as f
from . import messages
from .failures import (
    example_values,
    failure_params,
    failure_template,
    scope_template,
    scope_text,
    with_idempotency_key,
)
from .lint import default_deadline, placeholders
from .load import Document

EXAMPLE_REFERENCE = "ERR-1A2B3C4D"
PARTS = ("what failed", "value", "accepted", "next step", "retry", "changed")
MAX_LENGTH = 300

_NEEDS_VALUE = frozenset({"invalid_input", "not_found", "conflict"})
_NEEDS_ACCEPTED = frozenset({"invalid_input", "not_found"})
_NEEDS_NEXT_STEP = frozenset({"invalid_input", "not_found", "permission_denied", "conflict"})
"""The other classes end with a sentence that is itself the next step (wait, retry, report the reference)."""
_ACTION = re.compile(
    r"(?i)\b(call|use|try|ask|check|tell|wait|retry|pick|choose|close|delete|remove|add|create|search|pass|send"
    r"|give|provide|change|correct|include|leave|narrow|contact|request|fix|shorten|split|reduce|report|read|list"
    r"|run|sign|log in|confirm|select|enter)\b"
)
_ACCEPTED = re.compile(
    r"(?i)(looks? like|such as|must|accepts?|accepted|one of|between|at most|at least|format|e\.g\.|for example"
    r"|valid|members are|allowed|only|expected|up to|no more than|no longer than|\bare\b .*,)"
)
_VAGUE = re.compile(
    r"(?i)^\s*(error|failed|failure|bad request|invalid( input| request| argument)?|something went wrong"
    r"|an error (has )?occurred|internal (server )?error|unknown error|not found|oops|request failed)\s*[.!]?\s*$"
)
_SNAKE = re.compile(r"(?<![\w.{])([a-z][a-z0-9]*(?:_[a-z0-9]+)+)(?![\w}])")
"""A word that looks like a tool name: snake_case with at least one underscore, outside placeholders."""
_CALL_VERB = re.compile(r"(?i)\b(?:call|use|run|try|with)\s+(?:the\s+)?$")
_INTERNAL_WORDS = re.compile(r"(?i)\b(traceback|stack ?trace|exception|errno|sqlstate|segfault|null pointer|stderr)\b")
_NOT_A_NAME = r"(?!(?:the|a|an|this|that|these|those|your|its|their|it|one|each|every|any|all|rows?|records?)\b)"
_SQL_STATEMENT = re.compile(
    r"(?i)\bselect\s+(?:distinct\s+)?(?:\*|[a-z_][\w.]*(?:\s*,\s*[a-z_][\w.]*)*)\s+from\s+" + _NOT_A_NAME + r"[\w\"`\[]"
    r"|\binsert\s+into\s+" + _NOT_A_NAME + r"[\w\"`\[]"
    r"|\bupdate\s+" + _NOT_A_NAME + r"[\w\"`\[.]+\s+set\s+\w"
    r"|\bdelete\s+from\s+" + _NOT_A_NAME + r"[\w\"`\[]"
    r"|\b(?:drop|alter|truncate)\s+table\s+" + _NOT_A_NAME + r"[\w\"`\[]"
    r"|\bcreate\s+(?:unique\s+)?(?:table|index|database)\s+" + _NOT_A_NAME + r"[\w\"`\[]"
)
"""A SQL statement, as a query or a driver's error quotes one: `SELECT id FROM users`, `DELETE FROM orders`.
A message about SQL may name its keywords ("start the query with SELECT", "remove DELETE from the
statement"); only a statement against a named table is an internal."""
_SQL_WORD = re.compile(r"(?i)\b(?:select|insert|update|delete|drop|alter|create|truncate)\b")
_INTERNAL_PATH = re.compile(
    r"(?<![\w.:/])(?:~/|\.{1,2}/|/(?:etc|var|usr|home|root|tmp|opt|srv|proc|sys|dev|mnt|media|run|lib|lib64|bin"
    r"|sbin|boot|app|data|nix|snap|workspace|Users|private|Library|Volumes)(?:/|\b))"
    r"|(?<![\w.:/])(?:/[\w.@+-]+)+\.(?:py|pyc|log|db|sqlite3?|conf|cfg|ini|ya?ml|toml|json|pem|key|env|sock|so)\b"
)
"""A path into a machine: under a system or home folder, relative to where the server runs, or to a source,
configuration, data or key file. Other slash-separated names (a library id such as /vercel/next.js, a
time zone such as Europe/Lisbon) are how a domain names things."""
_SLASH_NAME = re.compile(r"(?<![\w.:/])(?:/[\w.@+-]+){2,}/?")
_APPENDED = re.compile(
    r"(?i)\b(?:nothing|no changes?)\s+(?:was|were|has been|have been|is|got)\s+(?:changed|modified|made|applied"
    r"|altered)\b|\bretry(?:ing)?\b[^.]{0,60}?\b(?:will not|won't|does not|doesn't|cannot|can't|would not)\s+help\b"
)
"""A sentence the runtime appends itself: whether anything changed (from the class and `changed`) and whether
retrying helps (from the class)."""
_STATE = re.compile(
    r"(?i)\b(?:already|still|no longer|currently|in progress|in use|nothing to|uncommitted|pending|locked|busy"
    r"|full|empty|closed|archived|frozen|read-only|out of date|stale|outdated|diverged|ahead|behind|exists)\b"
)
"""Words that describe the server's state: a conflict caused by it has no argument to show."""


@dataclass(frozen=True)
class Row:
    """One message, as the model would read it."""

    tool: str
    failure: str
    failure_class: str
    text: str
    retryable: bool
    changed: str
    missing: tuple[str, ...]
    problems: tuple[tuple[str, str], ...]
    source: tuple[str | int, ...]
    kind: str = "tool"
    """Whose message it is: a tool's, a resource's or a prompt's (`tool` is then the resource or prompt)."""

    @property
    def owner(self) -> str:
        """The tool's name, or the resource's or prompt's with its kind: `resource task`."""
        return self.tool if self.kind == "tool" else f"{self.kind} {self.tool}"


def rows(data: dict[str, Any]) -> list[Row]:
    """Every message of every tool of a valid spec, declared ones first, then the runtime's own; then every
    message of its resources and of its prompts, which are reads."""
    overrides = data.get("messages") or {}
    defaults = {**messages.default_messages(), **{k: " ".join(v.split()) for k, v in overrides.items()}}
    tool_names = set(data.get("tools", {}))
    default = default_deadline(float(data["server"].get("client_timeout_s", 60)))
    prefixes = frozenset(name.split("_", 1)[0] for name in tool_names)
    drafts: dict[str, str] = (data.get("imported") or {}).get("drafts") or {}
    out: list[Row] = []
    for tool, spec in sorted(data.get("tools", {}).items()):
        inputs = with_idempotency_key(spec)
        keyed = "idempotency_key" in inputs
        effect = spec["effect"]
        example = f.example_arguments(inputs)
        batch_items = (inputs.get((spec.get("batch") or {}).get("items", "")) or {}).get("items") or {}
        item_fields = set(batch_items.get("properties") or {})
        owner = _Owner("tool", tool, effect, keyed, bool(spec.get("rerun_safe")), bool(spec.get("idempotent")))
        for name, failure in (spec.get("failures") or {}).items():
            drafted = drafts.get(f"{tool}.{name}")
            out.append(
                _declared_row(
                    owner, name, failure, inputs, example, defaults, tool_names, prefixes, item_fields, drafted
                )
            )
        deadline = float(spec.get("deadline_s", default))
        out.extend(_runtime_rows(owner, inputs, defaults, deadline))
        if isinstance(spec.get("content"), dict):
            out.append(_too_large_row(owner, spec["content"], inputs, example, tool_names, prefixes))
        if spec.get("upstreams"):
            out.extend(_upstream_rows(owner, spec["upstreams"][0], data.get("upstreams") or {}))
        if spec.get("uses"):
            out.extend(_dependency_rows(owner, spec["uses"][0], data.get("dependencies") or {}))
        if keyed and not spec.get("rerun_safe"):
            out.append(_outcome_unknown_row(tool, effect, spec.get("check_with"), overrides.get("outcome_unknown")))
        if spec.get("scopes"):
            out.append(_scope_row(tool, effect, spec["scopes"][0], data["server"].get("auth") or {}))
        out.extend(_asking_rows(owner, spec, example))
    for kind, section in (("resource", "params"), ("prompt", "arguments")):
        for name, spec in sorted((data.get(f"{kind}s") or {}).items()):
            owner = _Owner(kind, name)
            fields = spec.get(section) or {}
            example = f.example_arguments(fields)
            for fname, failure in (spec.get("failures") or {}).items():
                out.append(_declared_row(owner, fname, failure, fields, example, defaults, tool_names, prefixes))
            out.extend(_deadline_and_internal_rows(owner, defaults, float(spec.get("deadline_s", default))))
            if spec.get("upstreams"):
                out.extend(_upstream_rows(owner, spec["upstreams"][0], data.get("upstreams") or {}))
            if spec.get("uses"):
                out.extend(_dependency_rows(owner, spec["uses"][0], data.get("dependencies") or {}))
            out.extend(_asking_rows(owner, spec, example))
            if kind == "resource" and spec.get("subscribe") is True:
                out.append(_subscriptions_full_row(name))
    return out


def _subscriptions_full_row(resource: str) -> Row:
    """What a 2025-era client reads when its session subscribes to one URI more than a session may hold."""
    template, text = messages.subscriptions_full_text(EXAMPLE_REFERENCE)
    missing, problems = check(template, text, "conflict", set(), {"resources/unsubscribe"})
    source = ("resources", resource, "subscribe")
    return Row(
        resource, "too_many_subscriptions", "conflict", text, False, "none", missing, problems, source, "resource"
    )


def _asking_rows(owner: _Owner, spec: dict[str, Any], example: dict[str, Any]) -> list[Row]:
    """What a person reads when asked (a tool's confirmation, a form question, with example values), and what the
    model reads when the person declines or the client cannot ask."""
    words = messages.asking_words()
    values = {name: messages.display(value) for name, value in example.items()}
    values.update(tool=owner.label, reference=EXAMPLE_REFERENCE)
    out: list[Row] = []

    asked = {name: messages.for_person(value) for name, value in example.items()}
    asked.update(tool=owner.label, reference=EXAMPLE_REFERENCE)

    def question(failure: str, template: str, source: tuple[str | int, ...], text: str | None = None) -> Row:
        text = messages.fill(template, asked) if text is None else text
        problems = (("FW204", "internals in the question (a URL, address, host, path, SQL or stack words)"),)
        found = problems if _internals(template) else ()
        return Row(owner.name, failure, "question", text, False, "none", (), found, source, owner.kind)

    def refusal(failure: str, template: str, retry: str, source: tuple[str | int, ...], ask: str = "") -> Row:
        filled = {**values, "ask": ask, "what": "its person (a form)"}
        text = messages.compose(template, "permission_denied", owner.effect, filled, "none", retry=retry)
        problems = (("FW204", "internals in the template"),) if _internals(template) else ()
        return Row(owner.name, failure, "permission_denied", text, False, "none", (), problems, source, owner.kind)

    confirm = spec.get("confirm")
    if confirm:
        path = (f"{owner.kind}s", owner.name, "confirm")
        template = " ".join(confirm["message"].split())
        every = {name: f.make_example(field) for name, field in with_idempotency_key(spec).items()}
        text = messages.confirmation(template, owner.label, every, owner.keyed)  # with every argument it may get
        out.append(question("confirm", template, (*path, "message"), text))
        declined = " ".join(confirm.get("declined", words["declined"]).split())
        where = (*path, "declined" if "declined" in confirm else "message")
        out.append(refusal("declined", declined, words["not_again"], where))
        if confirm.get("without_elicitation", "refuse") == "refuse":
            unavailable = " ".join(confirm.get("unavailable", words["unavailable"]).split())
            where = (*path, "unavailable" if "unavailable" in confirm else "without_elicitation")
            out.append(refusal("confirmation_unavailable", unavailable, words["other_client"], where))
    asks = spec.get("asks") or {}
    for name, ask in asks.items():
        if ask.get("kind") == "form":
            where_asked: tuple[str | int, ...] = (f"{owner.kind}s", owner.name, "asks", name, "message")
            out.append(question(f"ask {name}", " ".join(ask["message"].split()), where_asked))
    if asks:
        first = next(iter(asks))
        source = (f"{owner.kind}s", owner.name, "asks")
        out.append(refusal("declined", words["ask_declined"], words["not_again"], source, first))
    return out


@dataclass(frozen=True)
class _Owner:
    """What a message belongs to: a tool (with how it runs) or a resource or prompt (a read, never keyed)."""

    kind: str
    name: str
    effect: str = "read"
    keyed: bool = False
    rerun_safe: bool = False
    idempotent: bool = False
    """A write without a key that is naturally idempotent (`idempotent: true`)."""

    @property
    def after(self) -> str:
        """What the key's retry does once a run's outcome is unknown (a handler's `reconcile` is not known here)."""
        return "rerun" if self.rerun_safe else "refuse"

    @property
    def label(self) -> str:
        """How the runtime's messages name it (`{tool}`): the tool's name, or `The task resource`."""
        return self.name if self.kind == "tool" else f"The {self.name} {self.kind}"


def draft_digest(message: str) -> str:
    """The digest `imported.drafts` keeps of a drafted message (whitespace aside), to tell a reworded one."""
    return hashlib.sha256(" ".join(message.split()).encode()).hexdigest()[:12]


def _declared_row(
    owner: _Owner,
    name: str,
    failure: dict[str, Any],
    fields: dict[str, Any],
    example: dict[str, Any],
    defaults: dict[str, str],
    tool_names: set[str],
    prefixes: frozenset[str],
    item_fields: AbstractSet[str] = frozenset(),
    drafted: str | None = None,
) -> Row:
    """The message of a declared failure, with example values for `fields` (inputs, params or arguments)."""
    template = failure_template(failure, defaults)
    params = failure_params(failure["class"], failure.get("fields") or [], template)
    _, _, values = example_values(template, params, owner.label, fields, example)
    values["reference"] = EXAMPLE_REFERENCE
    source: tuple[str | int, ...] = (
        (f"{owner.kind}s", owner.name, "failures", name, "message")
        if "message" in failure
        else ("messages", failure["class"])
    )
    effect, keyed = owner.effect, owner.keyed
    text = messages.compose(
        template,
        failure["class"],
        effect,
        values,
        failure.get("changed"),
        keyed,
        owner.after,
        idempotent=owner.idempotent,
    )
    changed = failure.get("changed") or messages.default_changed(failure["class"], effect)
    known = set(fields) | item_fields | {q.name for q in params}
    named = {p for p in placeholders(template) if p in known}
    own = owner.name if owner.kind == "tool" else ""
    shown = {name: example.get(name) for name in fields} if fields else None
    missing, problems = check(template, text, failure["class"], named, tool_names, own, shown)
    problems += unknown_tools(template, tool_names, prefixes, known)
    if failure.get("reviewed") is False and drafted in (None, draft_digest(template)):
        problems += (
            ("FW301", "drafted by `failwell import openapi`: read it, then reword it or set `reviewed: true`"),
        )
    retryable = messages.is_retryable(
        failure["class"], effect, keyed, changed=changed, after=owner.after, idempotent=owner.idempotent
    )
    return Row(owner.name, name, failure["class"], text, retryable, changed, missing, problems, source, owner.kind)


def _too_large_row(
    owner: _Owner,
    content: dict[str, Any],
    inputs: dict[str, Any],
    example: dict[str, Any],
    tool_names: set[str],
    prefixes: frozenset[str],
) -> Row:
    """What a tool with `content` answers when a result is over its `max_bytes` (invalid_input: ask for less)."""
    template = " ".join(content.get("too_large", messages.too_large_message()).split())
    max_bytes = int(content.get("max_bytes", messages.content_max_bytes()))
    display = messages.runtime("wording.wording").display
    values = {name: str(display(value)) for name, value in example.items()}
    values.update(tool=owner.name, reference=EXAMPLE_REFERENCE, size=str(max_bytes + 1), max_bytes=str(max_bytes))
    changed = "none" if owner.effect == "read" else "possible"
    text = messages.compose(template, "invalid_input", owner.effect, values, changed, owner.keyed, owner.after)
    known = {*inputs, "size", "max_bytes"}
    named = {p for p in placeholders(template) if p in known}
    shown = {name: example.get(name) for name in inputs} if inputs else None
    missing, problems = check(template, text, "invalid_input", named, tool_names, owner.name, shown)
    problems += unknown_tools(template, tool_names, prefixes, known)
    source = (
        ("tools", owner.name, "content", "too_large") if "too_large" in content else ("tools", owner.name, "content")
    )
    return Row(owner.name, "too_large", "invalid_input", text, False, changed, missing, problems, source)


def _outcome_unknown_row(tool: str, effect: str, check_with: str | None, template: str | None) -> Row:
    """What a keyed write answers when an earlier run with the same key ended with its outcome unknown."""
    worded = " ".join((template or messages.outcome_unknown_message()).split())
    text = messages.outcome_unknown_text(tool, effect, worded, check_with, EXAMPLE_REFERENCE)
    source = ("messages", "outcome_unknown") if template else ("tools", tool, "idempotency")
    return Row(tool, "idempotency_key_outcome_unknown", "conflict", text, False, "possible", (), (), source)


def _scope_row(tool: str, effect: str, scope: str, auth: dict[str, Any]) -> Row:
    """What an HTTP caller reads when its token lacks the tool's first scope."""
    template = scope_template(auth)
    text = scope_text(tool, effect, scope, template, EXAMPLE_REFERENCE)
    missing, problems = check(template, text, "permission_denied", {"scope"}, set())
    source = ("server", "auth", "scope_message") if "scope_message" in auth else ("tools", tool, "scopes")
    return Row(tool, "scope", "permission_denied", text, False, "none", missing, problems, source)


def _runtime_rows(owner: _Owner, inputs: dict[str, Any], defaults: dict[str, str], deadline_s: float) -> list[Row]:
    tool, effect = owner.name, owner.effect
    accepts = f.accepts_table(inputs)
    problems = [messages.argument_problem(tool, accepts, name, "missing", None) for name in list(inputs)[:1]]
    problems.append(messages.argument_problem(tool, accepts, "colour", "unknown", "red"))
    invalid = messages.invalid_arguments_text(tool, effect, problems)
    out = [Row(tool, "invalid_arguments", "invalid_input", invalid, False, "none", (), (), ("tools", tool, "input"))]
    return out + _deadline_and_internal_rows(owner, defaults, deadline_s)


def _deadline_and_internal_rows(owner: _Owner, defaults: dict[str, str], deadline_s: float) -> list[Row]:
    """What the runtime answers when a handler runs past its deadline or raises what it did not declare."""
    out = []
    effect, keyed = owner.effect, owner.keyed
    grace = messages.grace_for(deadline_s)
    for failure_class, failure in (("timeout", "deadline"), ("internal", "internal")):
        values = {"tool": owner.label, "reference": EXAMPLE_REFERENCE, "deadline_s": f"{deadline_s:g}"}
        running = keyed and failure_class == "timeout"  # a keyed write goes on in its grace period
        if running:
            values.update(grace_s=f"{grace:g}", retry_after_s=f"{math.ceil(grace + messages.grace_margin_s()):g}")
        changed = messages.default_changed(failure_class, effect)
        template = defaults[failure_class]
        text = messages.compose(
            template,
            failure_class,
            effect,
            values,
            keyed=keyed,
            after=owner.after,
            idempotent=owner.idempotent,
            running=running,
        )
        retryable = messages.is_retryable(
            failure_class,
            effect,
            keyed,
            changed=changed,
            after=owner.after,
            idempotent=owner.idempotent,
            running=running,
        )
        source = ("messages", failure_class)
        out.append(Row(owner.name, failure, failure_class, text, retryable, changed, (), (), source, owner.kind))
    return out


def _upstream_rows(owner: _Owner, upstream: str, upstreams: dict[str, Any]) -> list[Row]:
    """What the model reads when the tool's (first) upstream is down or does not answer in time: the runtime's
    words, and for a keyed write what the key's retry then does (its outcome is unknown once a change was sent)."""
    timeout_s = float((upstreams.get(upstream) or {}).get("timeout_s", 10))
    details = {"upstream_unavailable": "it could not be reached", "timeout": f"no answer within {timeout_s:g} s"}
    out = []
    for failure_class, template in messages.upstream_messages().items():
        values = {"tool": owner.label, "reference": EXAMPLE_REFERENCE, "upstream": upstream}
        values["detail"] = details.get(failure_class, "")
        changed = messages.default_changed(failure_class, owner.effect)
        text = messages.compose(
            template,
            failure_class,
            owner.effect,
            values,
            keyed=owner.keyed,
            after=owner.after,
            idempotent=owner.idempotent,
        )
        retryable = messages.is_retryable(
            failure_class, owner.effect, owner.keyed, changed=changed, after=owner.after, idempotent=owner.idempotent
        )
        name = "upstream_timeout" if failure_class == "timeout" else "upstream_unavailable"
        source = (f"{owner.kind}s", owner.name, "upstreams")
        out.append(Row(owner.name, name, failure_class, text, retryable, changed, (), (), source, owner.kind))
    return out


def _dependency_rows(owner: _Owner, dependency: str, dependencies: dict[str, Any]) -> list[Row]:
    """What the model reads when the (first) dependency a tool, resource or prompt uses is down (an exception its
    `errors:` maps to upstream_unavailable, its open circuit) or does not answer within its timeout_s: the
    runtime's words, as for an upstream. A dependency's failure before it ran changed nothing."""
    timeout_s = float((dependencies.get(dependency) or {}).get("timeout_s", 10))
    details = {"upstream_unavailable": "it failed", "timeout": f"no answer within {timeout_s:g} s"}
    out = []
    for failure_class, template in messages.upstream_messages().items():
        values = {"tool": owner.label, "reference": EXAMPLE_REFERENCE, "upstream": dependency}
        values["detail"] = details.get(failure_class, "")
        changed = "none" if owner.effect == "read" else messages.default_changed(failure_class, owner.effect)
        text = messages.compose(
            template,
            failure_class,
            owner.effect,
            values,
            changed=changed,
            keyed=owner.keyed,
            after=owner.after,
            idempotent=owner.idempotent,
        )
        retryable = messages.is_retryable(
            failure_class, owner.effect, owner.keyed, changed=changed, after=owner.after, idempotent=owner.idempotent
        )
        name = "dependency_timeout" if failure_class == "timeout" else "dependency_unavailable"
        source = (f"{owner.kind}s", owner.name, "uses")
        out.append(Row(owner.name, name, failure_class, text, retryable, changed, (), (), source, owner.kind))
    return out


def check(
    template: str,
    text: str,
    failure_class: str,
    named: set[str],
    tools: set[str],
    own_tool: str = "",
    example: Mapping[str, Any] | None = None,
) -> tuple[tuple[str, ...], tuple[tuple[str, str], ...]]:
    """(the six parts a message lacks, the (code, message) problems with its wording); a template naming one
    of `tools` other than `own_tool` names a next step (the set is not copied per message: linear in tools).
    `example` (the owner's fields and their example values) words the hints with the spec's own names."""
    missing: list[str] = []
    problems: list[tuple[str, str]] = []
    sentences = [s for s in re.split(r"(?<=[.!?])\s+", template) if s.strip()]
    if not sentences or any(_VAGUE.match(s) for s in sentences):
        missing.append("what failed")
        problems.append(("FW203", "vague wording: say what failed, not just that something did"))
    state_conflict = failure_class == "conflict" and _STATE.search(template) is not None
    if failure_class in _NEEDS_VALUE and not named and not state_conflict:
        missing.append("value")
        problems.append(("FW202", "the offending value is not shown; " + _value_hint(example)))
    mentions_tool = not tools.isdisjoint(set(re.findall(r"[A-Za-z0-9_-]+(?:\.[A-Za-z0-9_-]+)*", template)) - {own_tool})
    if failure_class in _NEEDS_ACCEPTED and not (_ACCEPTED.search(template) or mentions_tool):
        missing.append("accepted")
        problems.append(("FW206", "what would be accepted is not said; " + _accepted_hint(example)))
    if failure_class in _NEEDS_NEXT_STEP and not (_ACTION.search(template) or mentions_tool):
        missing.append("next step")
        problems.append(("FW201", "no next step: name a tool to call or an action to take"))
    if _internals(template):
        problems.append(("FW204", "internals in the template (a URL, address, host, path, SQL or stack words)"))
    if _APPENDED.search(template):
        problems.append(
            (
                "FW208",
                "says whether anything changed or whether to retry, which the runtime appends "
                "from the class and `changed`; remove that sentence",
            )
        )
    if len(text) > MAX_LENGTH:
        problems.append(("FW205", f"{len(text)} characters with example values; keep it under {MAX_LENGTH}"))
    return tuple(missing), tuple(problems)


def _value_hint(example: Mapping[str, Any] | None) -> str:
    """How to show the value, with the owner's own first field: `put the argument in the message, such as {ref}`."""
    if example:
        return f"put the argument in the message, such as {{{next(iter(example))}}}"
    return "declare the value under the failure's `fields` and put it in the message"


def _accepted_hint(example: Mapping[str, Any] | None) -> str:
    """How to say what is accepted, with the owner's own field and example: `show the expected form, such as
    'ref looks like T-1'`."""
    for name, value in (example or {}).items():
        if isinstance(value, str | int | float) and not isinstance(value, bool) and str(value):
            return f"show the expected form, such as '{name} looks like {value}'"
    return "show the expected form, or name the tool that lists what exists"


def _internals(template: str) -> bool:
    """Whether an author's template shows what the runtime would mask in a value: a credential, a URL, an
    address or host, a path into a machine, a SQL statement, or stack words. Domain words pass: SQL keywords
    named in a message about SQL, slash-separated ids and time zones."""
    bare = re.sub(r"\{[A-Za-z_][A-Za-z0-9_-]*\}", "x", template)
    if _INTERNAL_WORDS.search(bare) or _SQL_STATEMENT.search(bare) or _INTERNAL_PATH.search(bare):
        return True
    domain = _SLASH_NAME.sub("x", _SQL_WORD.sub("x", bare))
    return messages.scrub(domain) != domain


def shows_internals(text: str) -> bool:
    """Whether a message shows internals (`_internals`): for `failwell audit`, judging another server's answers."""
    return _internals(text)


def unknown_tools(
    template: str, tools: set[str], prefixes: frozenset[str], fields: set[str]
) -> tuple[tuple[str, str], ...]:
    """FW207 for each word of `template` that reads as a tool name the spec does not have: a snake_case word
    after "call", "use", "run" or "try", or one that starts like the spec's tools (`tasks_serch`), and is
    not an argument or field name. The sets are shared by every message, so this stays linear in tools."""
    problems = []
    for match in _SNAKE.finditer(template):
        word = match.group(1)
        if word in tools or word in fields:
            continue
        if word.split("_", 1)[0] in prefixes or _CALL_VERB.search(template[: match.start()]):
            close = difflib.get_close_matches(word, sorted(tools), n=1)
            hint = f"; did you mean {close[0]}?" if close else "; name one of the spec's tools"
            problems.append(("FW207", f"names `{word}`, which is not a tool of this server{hint}"))
    return tuple(problems)


def lint_wording(doc: Document, data: dict[str, Any]) -> list[Diagnostic]:
    """The wording problems of every declared message, as warnings at the template's line."""
    seen: set[tuple[tuple[str | int, ...], str]] = set()
    out = []
    for row in rows(data):
        for code, message in row.problems:
            if (row.source, code) not in seen:
                seen.add((row.source, code))
                out.append(doc.diagnostic(row.source, code, f"{row.owner}.{row.failure}: {message}", warning=True))
    return out


def render_rows(rows: list[Row], output: str) -> str:
    """The rows as a plain table, a Markdown table or JSON."""
    if output == "json":
        return json.dumps([_as_dict(row) for row in rows], indent=2, ensure_ascii=False) + "\n"
    if output == "markdown":
        lines = [
            "| Tool | Failure | Class | Retryable | Changed | Missing | Message |",
            "|---|---|---|---|---|---|---|",
        ]
        for row in rows:
            text = row.text.replace("|", "\\|").replace("\n", "<br>")
            missing = ", ".join(row.missing) or "-"
            retry = "yes" if row.retryable else "no"
            cells = [row.owner, row.failure, row.failure_class, retry, row.changed, missing, text]
            lines.append("| " + " | ".join(cells) + " |")
        return "\n".join(lines) + "\n"
    blocks = []
    for row in rows:
        missing = ", ".join(row.missing) or "none"
        head = (
            f"{row.owner}.{row.failure}  [{row.failure_class}]  retryable: {'yes' if row.retryable else 'no'}"
            f"  changed: {row.changed}  missing parts: {missing}"
        )
        body = "\n".join("    " + line for line in row.text.splitlines())
        notes = "".join(f"\n    ! {code} {message}" for code, message in row.problems)
        blocks.append(f"{head}\n{body}{notes}\n")
    return "\n".join(blocks)


def _as_dict(row: Row) -> dict[str, Any]:
    return {
        "kind": row.kind,
        "tool": row.tool,
        "failure": row.failure,
        "class": row.failure_class,
        "text": row.text,
        "retryable": row.retryable,
        "changed": row.changed,
        "missing": list(row.missing),
        "problems": [{"code": code, "message": message} for code, message in row.problems],
    }
