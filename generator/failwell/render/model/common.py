"""What several of the model's rooms share: the spec file's name, the reference mark of expected messages, the
wrong values generated tests send, a rate limit's and a registration's source, a handler's `Context` type."""

from __future__ import annotations

from typing import Any

from ...pyliteral import (
    Call,
    call_lines,
    string,
)
from ...spec import rate_limits

SPEC_FILE = "failwell.yaml"


REFERENCE_MARK = "\x00\ufdd0reference\ufdd0\x00"
"""Stands for the reference id while an expected message is composed, so a literal `{reference}` in the
spec's words (written `{{reference}}`) stays literal in the generated test."""
_WRONG_VALUES: dict[str, Any] = {
    "string": 12345,
    "integer": "not a number",
    "number": "not a number",
    "boolean": "yes",
    "array": "not a list",
    "object": "not an object",
}


def _rate_limit(spec: dict[str, Any] | None, inputs: dict[str, Any] | None = None) -> str:
    """The `RateLimit(...)` expression of a limit, or empty when there is none."""
    return rate_limits.expression(spec, inputs)


def _registration(module: str, handlers: str, key: str, optional: str | None) -> str:
    """`<module>.definition(chosen.get(<key>, <handlers>.handle))` for `build_server`'s lists (with the handler
    module's `optional` function, when it may have one), laid out as ruff formats it."""
    bound: Call = ("chosen.get", [string(key), f"{handlers}.handle"])
    arguments: list[str | Call] = [bound]
    if optional:
        arguments.append(("getattr", [handlers, string(optional), "None"]))
    return "\n".join(call_lines((f"{module}.definition", arguments), 12, ","))


def with_reference(text: str) -> str:
    """An expected message as a `str.format` template whose one field is `{reference}`: the message's own
    braces doubled, `REFERENCE_MARK` made the field."""
    return text.replace("{", "{{").replace("}", "}}").replace(REFERENCE_MARK, "{reference}")


def context_type(upstreams: bool, uses: bool, settings: bool, asks: bool = False) -> str:
    """A handler's `Context`: `ToolContext[U, D, S, A]` with its upstreams, its dependencies, the server's settings
    and what it may ask, each type argument written only as far as one is needed (the others default)."""
    arguments = ["Upstreams" if upstreams else "None"]
    if uses or settings or asks:
        arguments.append("Deps" if uses else "None")
    if settings or asks:
        arguments.append("Settings" if settings else "Any")
    if asks:
        arguments.append("Asks")
    return f"ToolContext[{', '.join(arguments)}]"
