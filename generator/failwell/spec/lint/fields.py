"""An input, output or parameter field: its name, its constraints for its type, its pattern."""

from __future__ import annotations

from typing import Any

from ...errors import Diagnostic
from .. import aliases, patterns, schemas
from .. import fields as f
from ..naming import (
    RESERVED_FIELD_NAMES,
)
from .common import _at_offset, _Linted, _name, published_names

_TYPE_ONLY = {
    "pattern": "string", "pattern_name": "string", "minLength": "string", "maxLength": "string",
    "minimum": "number", "maximum": "number", "exclusiveMinimum": "number", "exclusiveMaximum": "number",
    "items": "array", "minItems": "array", "maxItems": "array", "properties": "object",
}  # fmt: skip
_PAIRS = (("minLength", "maxLength"), ("minimum", "maximum"), ("minItems", "maxItems"))


def _fields(doc: _Linted, out: list[Diagnostic], path: tuple[str | int, ...], fields: dict[str, Any]) -> None:
    for name, spec in fields.items():
        fpath = (*path, name)
        variable = len(path) == 3 and path[0] == "resources" and path[2] == "params"  # named as its URI's
        published = published_names(path)
        _name(doc, out, fpath, name, "field", RESERVED_FIELD_NAMES, key=True, published=published, variable=variable)
        if isinstance(spec, dict) and not doc.is_broken(fpath, below=False):
            _field(doc, out, fpath, spec)


def _field(doc: _Linted, out: list[Diagnostic], path: tuple[str | int, ...], spec: dict[str, Any]) -> None:
    out.extend(aliases.misplaced(doc, path, spec))
    if schemas.is_schema(spec):
        out.extend(schemas.lint_field(doc, path, spec))
        return
    kind = f.json_type(spec)
    for key, needs in _TYPE_ONLY.items():
        applies = kind == needs or (needs == "number" and kind == "integer")
        if key in spec and not applies:
            message = f"`{key}` applies to {needs} fields only, and this field is {kind}; remove it or change `type`"
            out.append(doc.diagnostic((*path, key), "FW134", message, key=True))
            return
    for low, high in _PAIRS:
        if (
            isinstance(spec.get(low), int | float)
            and isinstance(spec.get(high), int | float)
            and spec[low] > spec[high]
        ):
            message = f"`{low}` {spec[low]} is greater than `{high}` {spec[high]}, so no value fits"
            out.append(doc.diagnostic((*path, low), "FW132", message))
            return
    if "enum" in spec and isinstance(spec["enum"], list):
        wrong = [v for v in spec["enum"] if not _is_kind(v, kind)]
        if wrong:
            message = f"enum values must all be of type {kind}; these are not: {', '.join(map(str, wrong))}"
            out.append(doc.diagnostic((*path, "enum"), "FW135", message))
            return
    if isinstance(spec.get("pattern"), str):
        try:
            patterns.translate(spec["pattern"])
        except patterns.PatternError as exc:
            out.append(_pattern_diagnostic(doc, (*path, "pattern"), spec["pattern"], exc))
            return
    for key in ("default", "example"):
        if key in spec:
            reason = f.fits(spec[key], spec)
            if reason:
                code = "FW130" if key == "default" else "FW131"
                out.append(doc.diagnostic((*path, key), code, f"{key} does not fit the field: {reason}"))
    for index, value in enumerate(spec.get("examples", []) if isinstance(spec.get("examples"), list) else []):
        reason = f.fits(value, spec)
        if reason:
            out.append(doc.diagnostic((*path, "examples", index), "FW131", f"example does not fit the field: {reason}"))
    if isinstance(spec.get("items"), dict):
        _field(doc, out, (*path, "items"), spec["items"])
    if isinstance(spec.get("properties"), dict):
        _fields(doc, out, (*path, "properties"), spec["properties"])
    needs_example = f.is_required(spec) and kind == "string" and "pattern" in spec and not f.example_values(spec)
    if needs_example and f.pattern_example(spec["pattern"]) is None:
        message = "cannot make up a value matching this pattern for generated tests; add an `example`"
        out.append(doc.diagnostic((*path, "pattern"), "FW131", message))


def _pattern_diagnostic(
    doc: _Linted, path: tuple[str | int, ...], pattern: str, error: patterns.PatternError
) -> Diagnostic:
    """A refused pattern's diagnostic, pointing at the column of the offending part when the YAML scalar is
    on one line (else at the scalar)."""
    shown = "pattern is not a valid regular expression: " if error.code == "FW133" else "pattern: "
    return _at_offset(doc, path, pattern, error.offset, error.code, f"{shown}{error.message}")


def _is_kind(value: Any, kind: str) -> bool:
    if kind == "boolean" or isinstance(value, bool):
        return kind == "boolean" and isinstance(value, bool)
    if kind == "integer":
        return isinstance(value, int)
    if kind == "number":
        return isinstance(value, int | float)
    return kind == "string" and isinstance(value, str)
