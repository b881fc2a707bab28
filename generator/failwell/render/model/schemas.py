"""A tool's published schemas and the arguments its generated tests send: batch shapes, `schema:` checks."""

from __future__ import annotations

from typing import Any

from ...pyliteral import (
    inline,
    literal,
)
from ...spec import fields as f
from ...spec import schemas
from ...spec.failures import (
    FIELD_TYPES,
)
from ...spec.naming import pascal
from .common import _WRONG_VALUES


def _item_annotation(field: dict[str, Any], name: str) -> str:
    """The type of one item of a batch tool's items field."""
    items = field.get("items") or {}
    if items.get("properties"):
        return f"Input{pascal(name)}Item"
    if "enum" in items:
        return "Literal[" + ", ".join(inline(v) for v in items["enum"]) + "]"
    return FIELD_TYPES.get(f.json_type(items), "Any") if items else "Any"


def _wrong_argument(inputs: dict[str, Any]) -> tuple[str, Any]:
    """The argument the generated test sends a value of the wrong type, and that value: the first required one (a
    `schema:` field only when a value of another type is refused at its top, as the test expects)."""
    required = [n for n, s in inputs.items() if f.is_required(s)] or list(inputs)[:1]
    for name in required:
        spec = inputs[name]
        kind = f.json_type(spec)
        if not schemas.is_schema(spec):
            return name, "not-a-choice" if "enum" in spec and kind != "string" else _WRONG_VALUES[kind]
        for value in (*_WRONG_VALUES.values(), {"unexpected": True}, ["unexpected"], 12.5, False):
            reason = schemas.fits(value, spec)
            if reason is not None and reason.endswith(f"at the value is not {f.accepts(spec)}"):
                return name, value
    return "", None


def _checks_lines(checks: list[dict[str, Any]]) -> str:
    """`_CHECKS = Checks(...)`: the tool's `schema:` fields, as written, with their patterns' translations."""
    if not checks:
        return ""
    translated: dict[str, str] = {}
    for schema in checks:
        translated.update(schemas.translations(schema))
    lines = f"_SCHEMAS: list[dict[str, Any]] = {literal(checks)}\n\n"
    if translated:
        lines += f"_PATTERNS: dict[str, str] = {literal(translated)}\n\n"
        return lines + "_CHECKS = Checks(_SCHEMAS, _PATTERNS)"
    return lines + "_CHECKS = Checks(_SCHEMAS)"


def _output_schema(spec: dict[str, Any], outputs: dict[str, Any] | None) -> dict[str, Any]:
    """The published output schema: the spec's, or for a batch tool the shape the runtime answers with (the
    `$defs` of its `schema:` fields at its root)."""
    item: dict[str, Any] = f.published_schema(outputs, closed=False) if outputs is not None else {"type": "string"}
    batch = spec.get("batch")
    if not batch:
        return item
    defs = item.pop("$defs", None)
    return {**_batch_schema(batch, item), **({"$defs": defs} if defs else {})}


def _batch_schema(batch: dict[str, Any], item: dict[str, Any]) -> dict[str, Any]:
    if batch["policy"] == "all_or_nothing":
        return {"type": "object", "properties": {"results": {"type": "array", "items": item}}, "required": ["results"]}
    failure = {
        "type": "object",
        "properties": {
            k: {"type": "integer" if k == "index" else "string"} for k in ("index", "class", "failure", "message")
        },
    }
    success = {"type": "object", "properties": {"index": {"type": "integer"}, "result": item}}
    return {
        "type": "object",
        "properties": {
            "succeeded": {"type": "array", "items": success},
            "failed": {"type": "array", "items": failure},
        },
        "required": ["succeeded", "failed"],
    }
