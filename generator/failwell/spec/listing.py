"""How a tool is shown in `tools/list` where a ported server's original shows it otherwise (issue 40 point 8):
the hints its annotations publish (`annotations.hints`, a hint left out meaning MCP's default) and their `title`;
the `$schema` its input and output schemas declare (`schema_uri`) and their root `title` (`schema_titles`). Its input
schema left open (`extra_arguments: allow`) and its output schema closed (`closed_output: true`) are
`fields.published_schema(closed=...)`; failwell's own specs publish inputs closed and outputs open."""

from __future__ import annotations

from typing import Any

HINTS = ("readOnlyHint", "destructiveHint", "idempotentHint", "openWorldHint")


def published_annotations(spec: dict[str, Any], hints: dict[str, bool]) -> dict[str, bool | str]:
    """The annotations published: the hints the effect gives that `annotations.hints` names (all four by default),
    after `annotations.title` when the spec gives one."""
    shown = spec.get("annotations") or {}
    named = shown.get("hints", HINTS)
    out: dict[str, bool | str] = {"title": shown["title"]} if "title" in shown else {}
    out.update((hint, value) for hint, value in hints.items() if hint in named)
    return out


def dialect(spec: dict[str, Any], schema: dict[str, Any], which: str) -> dict[str, Any]:
    """A published schema (`which`: input or output) with the spec's `schema_uri` as its `$schema`, first, and its
    `schema_titles` entry as its `title`."""
    uri = spec.get("schema_uri")
    title = (spec.get("schema_titles") or {}).get(which)
    return {
        **({"$schema": uri} if isinstance(uri, str) else {}),
        **schema,
        **({"title": title} if isinstance(title, str) else {}),
    }
