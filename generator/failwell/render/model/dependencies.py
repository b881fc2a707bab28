"""Upstreams (services tools call) and dependencies (things the person's code opens once at start)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from ...pyliteral import (
    docstring,
    number,
    string,
)
from ...spec import dependency_errors


@dataclass(frozen=True)
class Upstream:
    """A service tools call."""

    name: str
    config: str


@dataclass(frozen=True)
class Dependency:
    """A thing the person's code opens once at start (`handlers/dependencies/<name>.py`)."""

    name: str
    constant: str
    """Its `DependencyConfig`'s name in `_generated/dependencies.py`: `DB` for `db`."""
    config: str
    """The `DependencyConfig(...)` call's keyword lines after `open` and `close`."""
    description: str
    errors: str
    """The line (or lines) binding its `errors:` entries, a tuple of `ErrorRule(...)` in the order written."""
    lazy: bool = False


def _upstream(name: str, spec: dict[str, Any]) -> Upstream:
    breaker = spec.get("breaker") or {}
    arguments = {
        "name": string(name),
        "base_url_env": string(spec["base_url_env"]),
        **({"base_url": string(spec["base_url"])} if spec.get("base_url") else {}),
        "timeout_s": number(float(spec["timeout_s"])),
        "retries": number(int(spec.get("retries", 2))),
        "breaker_failures": number(int(breaker.get("failures", 5))),
        "breaker_reset_s": number(float(breaker.get("reset_s", 30))),
    }
    lines = "".join(f"        {key}={value},\n" for key, value in arguments.items())
    return Upstream(name, f"UpstreamConfig(\n{lines}    )")


def _dependency(name: str, spec: dict[str, Any]) -> Dependency:
    breaker = spec.get("breaker") or {}
    arguments = {
        "timeout_s": number(float(spec["timeout_s"])),
        "retries": number(int(spec.get("retries", 0))),
        "breaker_failures": number(int(breaker.get("failures", 5))),
        "breaker_reset_s": number(float(breaker.get("reset_s", 30))),
        "lazy": "True" if spec.get("lazy") else "False",
        "errors": f"{name.upper()}_ERRORS",
    }
    lines = "".join(f"    {key}={value},\n" for key, value in arguments.items())
    description = " ".join(str(spec.get("description") or f"The {name} dependency.").split())
    errors = dependency_errors.rules_literal(
        spec.get("errors") or {}, f"{name.upper()}_ERRORS: tuple[ErrorRule, ...] = "
    )
    return Dependency(name, name.upper(), lines, docstring(description), errors, bool(spec.get("lazy")))
