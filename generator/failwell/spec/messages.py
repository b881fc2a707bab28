"""The generated runtime's message rules, loaded from the template so failwell and every generated
server compose the same words: the failure classes, `compose`, `scrub` and how values read."""

from __future__ import annotations

import importlib
import logging
import sys
from dataclasses import dataclass
from functools import cache
from types import ModuleType
from typing import Any

from ..templates import template_root

_PACKAGE = "failwell._runtime"


@cache
def runtime(module: str) -> ModuleType:
    """`template/src/{{ package }}/_generated/runtime/<module>.py`, imported as `failwell._runtime.<module>`.

    failwell imports only the runtime's pure modules (classes, wording, scrub): they need nothing but Python.
    """
    if _PACKAGE not in sys.modules:
        package = ModuleType(_PACKAGE)
        package.__path__ = [str(template_root() / "template" / "src" / "{{ package }}" / "_generated" / "runtime")]
        sys.modules[_PACKAGE] = package
    return importlib.import_module(f"{_PACKAGE}.{module}")


def failure_classes() -> tuple[str, ...]:
    """The eight failure classes, in the runtime's order (its `FailureClass`)."""
    return tuple(runtime("classes").CLASSES)


@dataclass(frozen=True)
class Policy:
    """One row of the class table."""

    retryable: str
    log_level: str
    counts_for_breaker: bool
    retry_sentence: str
    description: str


def policies() -> dict[str, Policy]:
    """The class table, as the generated runtime defines it."""
    table = runtime("classes").CLASSES.items()
    return {
        name: Policy(
            p.retryable,
            logging.getLevelName(p.log_level).lower(),
            p.counts_for_breaker,
            p.retry_sentence,
            p.description,
        )
        for name, p in table
    }


def default_messages() -> dict[str, str]:
    """The runtime's own words for failures it detects itself (internal, timeout)."""
    return dict(runtime("classes").DEFAULT_MESSAGES)


def scope_message() -> str:
    """The runtime's words for a token that lacks a scope a tool needs."""
    return str(runtime("classes").SCOPE_MESSAGE)


def compose(
    body: str,
    failure_class: str,
    effect: str,
    values: dict[str, str],
    changed: str | None = None,
    keyed: bool = False,
    after: str = "refuse",
    running: bool = False,
    retry: str | None = None,
    idempotent: bool = False,
) -> str:
    """The whole message, exactly as the generated runtime builds it (`after`, `running`, `retry` and `idempotent`
    as its `compose`)."""
    wording = runtime("wording")
    return str(
        wording.compose(
            body,
            failure_class,
            effect,
            values,
            changed=changed,
            keyed=keyed,
            after=after,
            running=running,
            retry=retry,
            idempotent=idempotent,
        )
    )


def asking_words() -> dict[str, str]:
    """The runtime's words for confirmations and questions: `declined`, `unavailable` (a tool's confirmation),
    `ask_declined`, `cannot_ask`, and the retry sentences `not_again` and `other_client`."""
    classes = runtime("classes")
    return {
        "declined": classes.CONFIRM_DECLINED_MESSAGE,
        "unavailable": classes.CONFIRM_UNAVAILABLE_MESSAGE,
        "ask_declined": classes.ASK_DECLINED_MESSAGE,
        "cannot_ask": classes.CANNOT_ASK_MESSAGE,
        "not_again": classes.NOT_AGAIN_SENTENCE,
        "other_client": classes.OTHER_CLIENT_SENTENCE,
    }


def outcome_unknown_text(tool: str, effect: str, template: str, check_with: str | None, reference: str) -> str:
    """What a keyed write answers after a run whose outcome is unknown, as the runtime builds it."""
    return str(runtime("wording").outcome_unknown_text(tool, effect, template, check_with, reference))


def subscriptions_full_text(reference: str) -> tuple[str, str]:
    """(the template, the whole message) a 2025-era session reads when it subscribes to one URI too many."""
    classes = runtime("classes")
    template = str(classes.SUBSCRIPTIONS_FULL_MESSAGE)
    values = {"limit": str(classes.MAX_SUBSCRIBED_URIS), "tool": "resources/subscribe", "reference": reference}
    return template, compose(template, "conflict", "read", values)


def outcome_unknown_message() -> str:
    """The runtime's words for a keyed write whose earlier run's outcome is unknown."""
    return str(runtime("classes").OUTCOME_UNKNOWN_MESSAGE)


def default_changed(failure_class: str, effect: str) -> str:
    """none | possible | partial, as the runtime decides when the spec does not say."""
    return str(runtime("classes").default_changed(failure_class, effect))


def is_retryable(
    failure_class: str,
    effect: str,
    keyed: bool = False,
    *,
    changed: str | None = None,
    after: str = "refuse",
    running: bool = False,
    idempotent: bool = False,
) -> bool:
    """Whether the envelope says `retryable: true`."""
    classes = runtime("classes")
    return bool(
        classes.is_retryable(
            failure_class, effect, keyed, changed=changed, after=after, running=running, idempotent=idempotent
        )
    )


def grace_for(deadline_s: float) -> float:
    """How long a keyed write goes on after its deadline, as the runtime decides."""
    return float(runtime("classes").grace_for(deadline_s))


def grace_margin_s() -> float:
    """How long after its grace period a keyed write's timeout answer says to retry."""
    return float(runtime("classes").GRACE_MARGIN_S)


def too_large_message() -> str:
    """The runtime's words for a tool's content over its budget (`content.too_large` rewords them)."""
    return str(runtime("classes").TOO_LARGE_MESSAGE)


def content_max_bytes() -> int:
    """A tool's content budget when `content.max_bytes` gives none."""
    return int(runtime("classes").CONTENT_MAX_BYTES)


def upstream_messages() -> dict[str, str]:
    """The runtime's words for a service a tool calls that is down or does not answer in time, by class."""
    return dict(runtime("classes").UPSTREAM_MESSAGES)


def scrub(text: str) -> str:
    """The runtime's scrubber: what a handler-passed value looks like in a message."""
    return str(runtime("scrub").scrub(text))


def secret_named(name: str) -> bool:
    """Whether the runtime masks a field of this name wherever it is shown (`api_key`, `password`, ...)."""
    return bool(runtime("secret_names").secret_named(name))


def fill(template: str, values: dict[str, str]) -> str:
    """`template` with its placeholders filled as the runtime fills them (a missing one reads `(not given)`)."""
    return str(template.format_map(runtime("wording").Values(values)))


def confirmation(template: str, tool: str, arguments: dict[str, Any], keyed: bool = False) -> str:
    """A confirmation's question as the runtime asks it: the message over `arguments`, then every argument it does
    not name (a keyed tool's `idempotency_key` aside)."""
    return str(runtime("wording").confirmation(template, tool, arguments, keyed=keyed))


def display(value: Any) -> str:
    """How a value reads inside a message: strings bare, anything else as JSON."""
    return str(runtime("wording").display(value))


def for_person(value: Any) -> str:
    """How a value reads in a question to the person (a confirmation, a form's message), as the runtime shows it."""
    return str(runtime("wording").for_person(value))


def shown(value: Any) -> str:
    """How an invalid argument's value is quoted back to the model, with its JSON kind."""
    return str(runtime("wording").shown(value))


def argument_problem(tool: str, accepts: dict[str, str], path: str, kind: str, received: Any) -> str:
    """The runtime's line about one bad argument."""
    return str(runtime("wording").argument_problem(tool, accepts, path, kind, received))


def invalid_arguments_text(tool: str, effect: str, problems: list[str]) -> str:
    """The runtime's whole message for arguments that failed the input schema."""
    return str(runtime("wording").invalid_arguments_text(tool, effect, problems))
