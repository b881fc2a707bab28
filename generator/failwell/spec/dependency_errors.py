"""A dependency's `errors:`: which of its driver's exceptions mean which failure class.

Each key names an exception type, by dotted name (`sqlite3.OperationalError`) or a builtin's bare name
(`PermissionError`); its value is a class, or `{class, when}` entries read in order, where `when` is a regular
expression (ECMA-262, as a spec `pattern`) searched in the exception's text. One driver type often covers
failures of different kinds (sqlite3.OperationalError is both "unable to open database file", an outage, and "no
such table", a bad query): `when` tells them apart, so a typo does not count toward the circuit breaker.

Lint refuses a bare name that is not a builtin exception (FW168) and a `when` the server's linear-time engine
cannot run (the pattern codes, FW133-FW144)."""

from __future__ import annotations

import builtins
from typing import Any

from ..errors import Diagnostic
from ..pyliteral import LINE_LENGTH, string
from . import patterns
from .load import Document

CODE = "FW168"


def entries(errors: dict[str, Any]) -> list[tuple[str, str, str | None]]:
    """(type name, class, ECMA pattern or None) for every entry of `errors:`, in the order written."""
    out: list[tuple[str, str, str | None]] = []
    for name, value in errors.items():
        for entry in value if isinstance(value, list) else [value]:
            if isinstance(entry, dict):
                out.append((name, str(entry["class"]), entry.get("when")))
            else:
                out.append((name, str(entry), None))
    return out


def rules_literal(errors: dict[str, Any], head: str) -> str:
    """`head` and the generated `(ErrorRule(...), ...)` tuple, laid out as `ruff format` does (one line when it
    fits): each `when` translated for the server's engine."""
    rules = [
        f"ErrorRule({string(name)}, {string(cls)}"
        + (f", {string(patterns.translate(when).rust)}" if when is not None else "")
        + ")"
        for name, cls, when in entries(errors)
    ]
    line = head + ("(" + ", ".join(rules) + ("," if len(rules) == 1 else "") + ")")
    if len(line) <= LINE_LENGTH:
        return line
    return head + "(" + "".join(f"\n    {rule}," for rule in rules) + "\n)"


def is_builtin_exception(name: str) -> bool:
    found = getattr(builtins, name, None)
    return isinstance(found, type) and issubclass(found, BaseException)


def lint(doc: Document, path: tuple[str | int, ...], errors: Any) -> list[Diagnostic]:
    """FW168 for a bare name that is not a builtin exception; the pattern codes for a `when` that cannot run (on
    an `errors:` the schema accepted)."""
    out: list[Diagnostic] = []
    if not isinstance(errors, dict):
        return out
    for name, value in errors.items():
        if isinstance(name, str) and "." not in name and not is_builtin_exception(name):
            message = (
                f"`{name}` is not one of Python's builtin exceptions; write the exception's full dotted name "
                "(such as sqlite3.OperationalError), or a builtin such as PermissionError or TimeoutError"
            )
            out.append(doc.diagnostic((*path, name), CODE, message, key=True))
        listed = value if isinstance(value, list) else [value]
        for index, entry in enumerate(listed):
            when = entry.get("when") if isinstance(entry, dict) else None
            if not isinstance(when, str):
                continue
            where = (*path, name, *((index,) if isinstance(value, list) else ()), "when")
            try:
                patterns.translate(when)
            except patterns.PatternError as exc:
                out.append(doc.diagnostic(where, exc.code, f"`when` cannot run on the server: {exc.message}"))
    return out
