"""The generated runtime's message rules, loaded from the template so failwell and every generated
server compose the same words: the failure classes, `compose`, `scrub` and how values read."""

from __future__ import annotations

import importlib.util
import logging
import sys
from dataclasses import dataclass
from functools import cache
from types import ModuleType
from typing import Any

from .templates import template_root

FAILURE_CLASSES = (
    "invalid_input",
    "not_found",
    "permission_denied",
    "conflict",
    "rate_limited",
    "upstream_unavailable",
    "timeout",
    "internal",
)


@cache
def runtime() -> ModuleType:
    """`template/src/{{ package }}/_generated/messages.py`, imported as a plain module."""
    path = template_root() / "template" / "src" / "{{ package }}" / "_generated" / "messages.py"
    spec = importlib.util.spec_from_file_location("failwell._runtime_messages", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


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
    table = runtime().CLASSES.items()
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
    return dict(runtime().DEFAULT_MESSAGES)


def scope_message() -> str:
    """The runtime's words for a token that lacks a scope a tool needs."""
    return str(runtime().SCOPE_MESSAGE)


def compose(
    body: str, failure_class: str, effect: str, values: dict[str, str], changed: str | None = None, keyed: bool = False
) -> str:
    """The whole message, exactly as the generated runtime builds it."""
    return str(runtime().compose(body, failure_class, effect, values, changed=changed, keyed=keyed))


def default_changed(failure_class: str, effect: str) -> str:
    """none | possible | partial, as the runtime decides when the spec does not say."""
    return str(runtime().default_changed(failure_class, effect))


def is_retryable(failure_class: str, effect: str, keyed: bool = False) -> bool:
    """Whether the envelope says `retryable: true`."""
    return bool(runtime().is_retryable(failure_class, effect, keyed))


def scrub(text: str) -> str:
    """The runtime's scrubber: what a handler-passed value looks like in a message."""
    return str(runtime().scrub(text))


def display(value: Any) -> str:
    """How a value reads inside a message: strings bare, anything else as JSON."""
    return str(runtime().display(value))


def shown(value: Any) -> str:
    """How an invalid argument's value is quoted back to the model, with its JSON kind."""
    return str(runtime().shown(value))


def argument_problem(tool: str, accepts: dict[str, str], path: str, kind: str, received: Any) -> str:
    """The runtime's line about one bad argument."""
    return str(runtime().argument_problem(tool, accepts, path, kind, received))


def invalid_arguments_text(tool: str, effect: str, problems: list[str]) -> str:
    """The runtime's whole message for arguments that failed the input schema."""
    return str(runtime().invalid_arguments_text(tool, effect, problems))
