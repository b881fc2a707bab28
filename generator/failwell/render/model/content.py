"""What a tool's success result holds besides its output: its text line (`text:`) and its blocks (`content:`)."""

from __future__ import annotations

from typing import Any

from ...pyliteral import (
    Call,
    call_lines,
    fitted,
    inline,
    string,
)
from ...spec import messages

NO_TEXT = "none"
"""The spec's `text: none`: a success result has no text block, only its structured content (and a `content`
tool's blocks), as servers that publish structured content only answer."""


def _text_line(text: str | None) -> str:
    """`text=...,` (the spec's template) or `text_block=False,` (`text: none`) in a tool's definition; empty when the
    text block is the output's JSON."""
    if not text:
        return ""
    if text == NO_TEXT:
        return "        text_block=False,"
    return f"        text={string(' '.join(text.split()))},"


_FAMILY_DEFAULTS = {"image": "image/png", "audio": "audio/wav", "resource": "text/plain", "resource_link": "text/plain"}
"""A MIME type of each kind for the generated tests, when `content.mime_types` lists none of its family."""


def _content(content: dict[str, Any] | None) -> dict[str, Any]:
    """The `Tool` fields of a tool's `content`: its policy's source, its kinds, and the generated tests' blocks."""
    if not content:
        return {}
    kinds: list[str] = list(content["kinds"])
    mime_types: list[str] | None = content.get("mime_types")
    max_bytes = int(content.get("max_bytes", messages.content_max_bytes()))
    allowed = [m.split(";", 1)[0].strip().lower() for m in mime_types] if mime_types is not None else None
    fields: list[tuple[str, Any]] = [("kinds", sorted(kinds))]
    if allowed is not None:
        fields.append(("mime_types", sorted(set(allowed))))
    if "max_bytes" in content:
        fields.append(("max_bytes", max_bytes))
    if "too_large" in content:
        fields.append(("too_large", " ".join(content["too_large"].split())))
    flat = ", ".join(f"{key}={inline(value)}" for key, value in fields)
    if len(f"CONTENT = ContentPolicy({flat})") <= 120:
        lines = [f"CONTENT = ContentPolicy({flat})"]
    elif len(f"    {flat}") <= 120:
        lines = ["CONTENT = ContentPolicy(", f"    {flat}", ")"]
    else:  # one argument per line, a list exploded as ruff lays it out
        body = [
            fitted(f"{key}=", value, ",", 4) if isinstance(value, list) else f"    {key}={inline(value)},"
            for key, value in fields
        ]
        lines = ["CONTENT = ContentPolicy(", *body, ")"]

    def mime_of(kind: str) -> str:
        family = {"image": "image/", "audio": "audio/"}.get(kind, "")
        found = [m for m in allowed if m.startswith(family)] if allowed is not None else []
        return found[0] if found else _FAMILY_DEFAULTS[kind]

    def block(kind: str, size: int) -> str:
        """`block = ...` in a generated test (at 8 spaces, as ruff lays it out): a block of `kind` of `size` bytes."""
        if kind == "text":
            return f'        block = "x" * {size}'
        mime = f"mime_type={string(mime_of(kind))}"
        chosen: list[str] = {
            "image": [f'b"\\x00" * {size}', string(mime_of(kind))],
            "audio": [f'b"\\x00" * {size}', string(mime_of(kind))],
            "resource": ['"test://failwell/content"', f'text="x" * {size}', mime],
            "resource_link": ['"test://failwell/content"', '"content"', mime],
        }[kind]
        arguments: list[str | Call] = list(chosen)
        callee = {"resource": "EmbeddedResource", "resource_link": "ResourceLink"}.get(kind, kind.capitalize())
        return "\n".join(call_lines((f"block = content.{callee}", arguments), 8))

    big = next((kind for kind in kinds if kind != "resource_link"), None)
    return {
        "content_lines": "\n".join(lines),
        "content_kinds": tuple(kinds),
        "content_tests": tuple((kind, block(kind, min(16, max_bytes))) for kind in kinds),
        "too_large_block": block(big, max_bytes + 1) if big else "",
        "content_max_bytes": max_bytes,
    }
