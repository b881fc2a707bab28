"""`schema:` fields: a JSON Schema 2020-12 object on a tool's input or output field, at any depth, for what the
curated keys cannot say (`anyOf`, `oneOf`, `allOf`, `$defs`/`$ref`, `const`, `additionalProperties` with a schema,
`patternProperties`, `prefixItems`, ...). It is published as written (its `$defs` at the root of the tool's
schema, where `#/$defs/NAME` points), checked at run time by the runtime's `schemas.py` (`jsonschema`), and typed
in Python where a type exists (`str | list[str]`), `Any` where none does. This module checks one in the spec
(FW162-FW164), and derives its Python type, an example value and what it accepts in words."""

from __future__ import annotations

import functools
import json
import re
from collections.abc import Iterator, Mapping
from types import ModuleType
from typing import Any

from ..pyliteral import inline
from . import messages, patterns

BESIDE = frozenset({"schema", "required", "example"})
"""The keys a field with `schema:` may have: the rest of what it says goes inside the schema."""

_REF = re.compile(r"^#/\$defs/([^/~]+)$")
_DATA_KEYS = frozenset({"const", "enum", "default", "examples", "example"})
"""Keywords whose values are data, not schemas: never walked for `pattern` or `$ref`."""
_SCALARS = {"string": "str", "integer": "int", "number": "float", "boolean": "bool", "null": "None"}


def is_schema(spec: Any) -> bool:
    """Whether a field is given as a JSON Schema (`schema:`) rather than by the curated keys."""
    return isinstance(spec, dict) and isinstance(spec.get("schema"), dict)


@functools.cache
def _runtime() -> ModuleType:
    return messages.runtime("schemas")


def published(spec: dict[str, Any], defs: dict[str, Any] | None) -> dict[str, Any]:
    """The field's schema as published: as written, its `$defs` moved into `defs` (the tool schema's root)."""
    schema: dict[str, Any] = dict(spec["schema"])
    found = schema.pop("$defs", None)
    if isinstance(found, dict) and defs is not None:
        defs.update(found)
    elif isinstance(found, dict):
        schema["$defs"] = found
    return schema


def is_required(spec: dict[str, Any]) -> bool:
    """Required unless it says `required: false` or its schema gives a `default`."""
    return bool(spec.get("required", "default" not in spec["schema"]))


def accepts(spec: dict[str, Any]) -> str:
    """What the field accepts, in the words the server uses when it refuses a value."""
    described: str = _runtime().describe(spec["schema"], spec["schema"])
    return described


def translations(schema: Any) -> dict[str, str]:
    """Each ECMA `pattern` (and `patternProperties` key) in `schema` -> its translation for the server's engine;
    a pattern failwell cannot translate is left out (lint refuses it)."""
    out: dict[str, str] = {}
    for found in _patterns(schema):
        try:
            out[found] = patterns.translate(found).rust
        except patterns.PatternError:
            continue
    return out


def _patterns(schema: Any) -> Iterator[str]:
    for _, pattern in _pattern_places(schema, ()):
        yield pattern


def _pattern_places(schema: Any, path: tuple[str | int, ...]) -> Iterator[tuple[tuple[str | int, ...], str]]:
    """(path, pattern) of every `pattern` and `patternProperties` key in a schema, data keywords skipped."""
    if isinstance(schema, list):
        for index, item in enumerate(schema):
            yield from _pattern_places(item, (*path, index))
        return
    if not isinstance(schema, dict):
        return
    for key, value in schema.items():
        if key in _DATA_KEYS:
            continue
        if key == "pattern" and isinstance(value, str):
            yield (*path, key), value
        elif key == "patternProperties" and isinstance(value, dict):
            for name, inner in value.items():
                yield (*path, key, name), name
                yield from _pattern_places(inner, (*path, key, name))
        elif key == "properties" and isinstance(value, dict):
            for name, inner in value.items():
                yield from _pattern_places(inner, (*path, key, name))
        else:
            yield from _pattern_places(value, (*path, key))


def problems(schema: dict[str, Any]) -> list[tuple[tuple[str | int, ...], str, str]]:
    """(path inside the schema, code, message) for what makes `schema` unusable: not a valid 2020-12 schema
    (FW162), a `$ref` that is not one of its own `$defs` (FW162), a pattern the server's engine cannot run
    (FW140-FW144)."""
    from jsonschema import Draft202012Validator

    meta = Draft202012Validator(Draft202012Validator.META_SCHEMA)
    errors = sorted(meta.iter_errors(schema), key=lambda e: list(e.absolute_path))
    if errors:
        first = errors[0]
        shown = json.dumps(first.instance, ensure_ascii=False)
        shown = shown if len(shown) <= 60 else shown[:57] + "..."
        message = (
            f"`schema` is not a valid JSON Schema 2020-12: `{_last_key(first.absolute_path)}` cannot be {shown}; "
            "write it as the JSON Schema 2020-12 specification says (https://json-schema.org/draft/2020-12)"
        )
        return [(tuple(first.absolute_path), "FW162", message)]
    out: list[tuple[tuple[str | int, ...], str, str]] = []
    defs: dict[str, Any] = schema["$defs"] if isinstance(schema.get("$defs"), dict) else {}
    for path, key, value in _keywords(schema, ()):
        matched = _REF.match(value) if isinstance(value, str) else None
        if key == "$ref" and not (matched and matched[1] in defs):
            message = (
                f"`$ref` {json.dumps(value)} must name one of this schema's own `$defs` (`#/$defs/NAME`); define it "
                "under `$defs` at the top of the schema, which is published at the root of the tool's schema"
            )
            out.append(((*path, key), "FW162", message))
        elif key in ("$id", "$anchor", "$dynamicRef", "$dynamicAnchor", "$recursiveRef") or (key == "$defs" and path):
            message = (
                f"`{key}` is not supported inside a `schema:`; put definitions under the top `$defs` and refer "
                "to them with `#/$defs/NAME`"
            )
            out.append(((*path, key), "FW162", message))
    for path, pattern in _pattern_places(schema, ()):
        try:
            patterns.translate(pattern)
        except patterns.PatternError as exc:
            out.append((path, exc.code, f"pattern {json.dumps(pattern)}: {exc.message}"))
    return out


def _last_key(path: Any) -> str:
    keys = [part for part in path if isinstance(part, str)]
    return keys[-1] if keys else "schema"


def _keywords(schema: Any, path: tuple[str | int, ...]) -> Iterator[tuple[tuple[str | int, ...], str, Any]]:
    """(path of the object, keyword, value) of every keyword in a schema, data keywords not walked into."""
    if isinstance(schema, list):
        for index, item in enumerate(schema):
            yield from _keywords(item, (*path, index))
        return
    if not isinstance(schema, dict):
        return
    for key, value in schema.items():
        yield path, key, value
        if key in _DATA_KEYS:
            continue
        if key in ("properties", "patternProperties", "$defs", "dependentSchemas") and isinstance(value, dict):
            for name, inner in value.items():
                yield from _keywords(inner, (*path, key, name))
        elif isinstance(value, dict | list):
            yield from _keywords(value, (*path, key))


def fits(value: Any, spec: dict[str, Any]) -> str | None:
    """None when `value` fits the field's schema, else the first problem as the server words it."""
    schema = spec["schema"]
    found = _runtime().Checks([schema], translations(schema)).problems(0, value)
    if not found:
        return None
    below, kind, received, accepted = found[0]
    where = "".join(f"[{part}]" if isinstance(part, int) else f".{part}" for part in below).lstrip(".") or "the value"
    if kind == "missing":
        return f"{where} is missing; it accepts {accepted}"
    if kind == "unknown":
        return f"{where} is not one of its keys ({accepted})"
    return f"{json.dumps(received, ensure_ascii=False)[:80]} at {where} is not {accepted}"


def example(spec: dict[str, Any]) -> Any:
    """A value that fits the field: its `example`, else one made from its schema; None when none fits."""
    if "example" in spec:
        return spec["example"]
    schema = spec["schema"]
    made = _made(schema, schema, 0)
    return made if fits(made, spec) is None else None


def _made(schema: Any, root: Mapping[str, Any], depth: int) -> Any:
    if not isinstance(schema, Mapping) or depth > 8:
        return None
    for key in ("const", "default"):
        if key in schema:
            return schema[key]
    if schema.get("examples"):
        return schema["examples"][0]
    if schema.get("enum"):
        return schema["enum"][0]
    reference = schema.get("$ref")
    if isinstance(reference, str) and _REF.match(reference):
        return _made((root.get("$defs") or {}).get(_REF.match(reference)[1]), root, depth + 1)  # type: ignore[index]
    for key in ("anyOf", "oneOf", "allOf"):
        if isinstance(schema.get(key), list) and schema[key]:
            return _made(schema[key][0], root, depth + 1)
    kind = schema.get("type")
    kind = kind[0] if isinstance(kind, list) and kind else kind
    if kind == "string":
        return "example"[: schema.get("maxLength", 7)].ljust(schema.get("minLength", 0), "x")
    if kind in ("integer", "number"):
        return schema.get("minimum", 1)
    if kind == "boolean":
        return True
    if kind == "null":
        return None
    if kind == "array":
        if isinstance(schema.get("prefixItems"), list):
            return [_made(item, root, depth + 1) for item in schema["prefixItems"]]
        count = max(int(schema.get("minItems", 1)), 0)
        return [_made(schema.get("items", {"type": "string"}), root, depth + 1) for _ in range(count)]
    if kind == "object" or "properties" in schema:
        properties = schema.get("properties") or {}
        return {name: _made(properties.get(name), root, depth + 1) for name in schema.get("required") or []}
    return None


def annotation(schema: dict[str, Any]) -> str:
    """The Python type of a value the schema accepts (`str | list[str]`), or `Any` where none says it."""
    return _type(schema, schema, 0)


def _type(schema: Any, root: Mapping[str, Any], depth: int) -> str:
    if not isinstance(schema, Mapping) or depth > 8:
        return "Any"
    reference = schema.get("$ref")
    if isinstance(reference, str):
        matched = _REF.match(reference)
        found = (root.get("$defs") or {}).get(matched[1]) if matched else None
        return _type(found, root, depth + 1) if len(schema) == 1 else "Any"
    values = [schema["const"]] if "const" in schema else schema.get("enum")
    if isinstance(values, list) and values and all(_literal_value(v) for v in values):
        literals = [v for v in values if v is not None]
        typed = "Literal[" + ", ".join(inline(v) for v in literals) + "]" if literals else "None"
        return f"{typed} | None" if literals and None in values else typed
    branches = schema.get("anyOf") or schema.get("oneOf")
    if isinstance(branches, list) and branches and set(schema) <= {"anyOf", "oneOf", "description", "title"}:
        return _union(_type(branch, root, depth + 1) for branch in branches)
    kinds = schema.get("type")
    if isinstance(kinds, str):
        kinds = [kinds]
    if not isinstance(kinds, list) or not kinds or any(key in schema for key in ("allOf", "anyOf", "oneOf", "not")):
        return "Any"
    return _union(_kind(str(kind), schema, root, depth) for kind in kinds)


def _kind(kind: str, schema: Mapping[str, Any], root: Mapping[str, Any], depth: int) -> str:
    if kind in _SCALARS:
        return _SCALARS[kind]
    if kind == "array":
        if "prefixItems" in schema:
            return "list[Any]"
        return f"list[{_type(schema.get('items'), root, depth + 1) if 'items' in schema else 'Any'}]"
    return "dict[str, Any]" if kind == "object" else "Any"


def _union(types: Iterator[str] | Any) -> str:
    seen: list[str] = []
    for each in types:
        if each == "Any":
            return "Any"
        for part in each.split(" | ") if "[" not in each else [each]:
            if part not in seen:
                seen.append(part)
    if "None" in seen:  # `X | None`, as ruff and mypy write it
        seen = [*(part for part in seen if part != "None"), "None"]
    return " | ".join(seen)


def _literal_value(value: Any) -> bool:
    return value is None or (isinstance(value, str | int | bool) and not isinstance(value, float))


def lint_field(doc: Any, path: tuple[str | int, ...], spec: dict[str, Any]) -> list[Any]:
    """The diagnostics of a `schema:` field at `path` (`doc` is lint's document: `diagnostic(path, code, message)`):
    where it may be, the keys beside it, the schema itself, and its example and default."""
    setting = len(path) == 3 and path[:2] == ("server", "settings")  # a `type: json` setting's schema
    if not (setting or (len(path) >= 4 and path[0] == "tools" and path[2] in ("input", "output"))):
        message = "`schema` is for a tool's input and output fields; say this field with `type` and its keys"
        return [doc.diagnostic((*path, "schema"), "FW163", message, key=True)]
    out = []
    for key in spec:
        if key not in BESIDE:
            message = (
                f"`{key}` beside `schema` is not used: with `schema`, the field is the schema as written; put "
                f"`{key}` inside the schema (as JSON Schema says it), or say the field with `type` instead"
            )
            out.append(doc.diagnostic((*path, key), "FW163", message, key=True))
    found = problems(spec["schema"])
    out.extend(
        doc.diagnostic((*path, "schema", *where), code, message, key=bool(where)) for where, code, message in found
    )
    if found:
        return out
    if "default" in spec["schema"] and (reason := fits(spec["schema"]["default"], spec)) is not None:
        out.append(doc.diagnostic((*path, "schema", "default"), "FW130", f"default does not fit the schema: {reason}"))
    if "example" in spec and (reason := fits(spec["example"], spec)) is not None:
        out.append(doc.diagnostic((*path, "example"), "FW131", f"example does not fit the schema: {reason}"))
    elif "example" not in spec and example(spec) is None:
        message = "cannot make up a value that fits this schema for generated tests; add an `example` that does"
        out.append(doc.diagnostic((*path, "schema"), "FW131", message, key=True))
    return out


def defs_conflicts(doc: Any, path: tuple[str | int, ...], fields: Any) -> list[Any]:
    """FW164 for two `schema:` fields of one tool's input (or output), at any depth, whose `$defs` give one name
    two meanings: both are published at the root of the tool's schema."""
    seen: dict[str, tuple[Any, tuple[str | int, ...]]] = {}
    out = []
    for where, spec in _schema_fields(fields, path):
        for name, value in (spec["schema"].get("$defs") or {}).items():
            first = seen.setdefault(name, (value, where))
            if first[0] != value:
                line, col = doc.position((*first[1], "schema", "$defs", name), key=True)
                message = (
                    f"`$defs` `{name}` is defined differently at {doc.file}:{line}:{col}; both are published at the "
                    "root of the tool's schema: give one another name, or define them alike"
                )
                out.append(doc.diagnostic((*where, "schema", "$defs", name), "FW164", message, key=True))
    return out


def _schema_fields(fields: Any, path: tuple[str | int, ...]) -> Iterator[tuple[tuple[str | int, ...], dict[str, Any]]]:
    if not isinstance(fields, dict):
        return
    for name, spec in fields.items():
        if not isinstance(spec, dict):
            continue
        where = (*path, name)
        if is_schema(spec):
            if isinstance(spec["schema"].get("$defs"), dict):
                yield where, spec
            continue
        if isinstance(spec.get("properties"), dict):
            yield from _schema_fields(spec["properties"], (*where, "properties"))
        items = spec.get("items")
        if isinstance(items, dict) and is_schema(items) and isinstance(items["schema"].get("$defs"), dict):
            yield (*where, "items"), items
        elif isinstance(items, dict) and isinstance(items.get("properties"), dict):
            yield from _schema_fields(items["properties"], (*where, "items", "properties"))
