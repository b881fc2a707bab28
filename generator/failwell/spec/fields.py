"""The spec's argument schemas: what JSON Schema to publish, what pydantic type checks it,
what sentence says what is accepted, and a value that fits."""

from __future__ import annotations

import functools
import json
import math
import re
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from types import ModuleType
from typing import TYPE_CHECKING, Any

from ..pyliteral import inline, string
from . import field_layout as layout
from . import messages, patterns, quickschema, schemas

if TYPE_CHECKING:
    from jsonschema import Draft202012Validator
    from jsonschema.exceptions import ValidationError
from .naming import field_attribute, pascal

_CONSTRAINTS = {
    "minLength": "min_length",
    "maxLength": "max_length",
    "pattern": "pattern",
    "minimum": "ge",
    "maximum": "le",
    "exclusiveMinimum": "gt",
    "exclusiveMaximum": "lt",
    "minItems": "min_length",
    "maxItems": "max_length",
}
_PUBLISHED_KEYS = (
    "type", "description", "enum", "default", "pattern", "minLength", "maxLength", "minimum", "maximum",
    "exclusiveMinimum", "exclusiveMaximum", "minItems", "maxItems", "format",
)  # fmt: skip
FORMAT_EXAMPLES = {
    "uri": "https://example.com/docs",
    "email": "ada@example.com",
    "date": "2026-01-31",
    "date-time": "2026-01-31T09:30:00Z",
    "uuid": "3f2b8c1e-7d4a-4e6b-9c2f-1a5d8e7b6c40",
    "ipv4": "192.0.2.1",
    "ipv6": "2001:db8::1",
    "hostname": "example.com",
}
"""A value of each string `format` (the made-up example of a field that gives none)."""
FORMAT_WORDS = {
    "uri": "an absolute URI",
    "email": "an email address",
    "date": "a date (YYYY-MM-DD)",
    "date-time": "a date and time with its zone (RFC 3339)",
    "uuid": "a UUID",
    "ipv4": "an IPv4 address",
    "ipv6": "an IPv6 address",
    "hostname": "a host name",
}
"""How `accepts` says each format."""


@functools.cache
def runtime_formats() -> ModuleType:
    """The generated runtime's `formats` module (one source for the generator's checks and the server's)."""
    return messages.runtime("checks.formats")  # within the runtime's package: it imports `.patterns`


@dataclass(frozen=True)
class ModelField:
    """One attribute of a generated pydantic model."""

    name: str
    annotation: str
    default: str | None
    alias: str | None = None
    """The published name when it is not the Python name (`libraryName` for `library_name`)."""
    line: str | None = None
    """The whole line (or lines) of an aliased field, laid out as ruff formats it."""


@dataclass(frozen=True)
class ModelClass:
    """One generated pydantic model."""

    name: str
    fields: tuple[ModelField, ...]


def is_required(spec: dict[str, Any]) -> bool:
    """A field is required unless it has a default or says `required: false`."""
    if schemas.is_schema(spec):
        return schemas.is_required(spec)
    return bool(spec.get("required", "default" not in spec))


def json_type(spec: dict[str, Any]) -> str:
    """The field's JSON type, inferred from its enum when `type` is omitted (a `schema:` field's own `type`, or
    `any`)."""
    if schemas.is_schema(spec):
        kind = spec["schema"].get("type")
        return kind if isinstance(kind, str) and set(spec["schema"]).isdisjoint({"anyOf", "oneOf", "allOf"}) else "any"
    if "type" in spec:
        return str(spec["type"])
    values = spec.get("enum") or [""]
    first = values[0]
    if isinstance(first, bool):
        return "boolean"
    if isinstance(first, int):
        return "integer"
    if isinstance(first, float):
        return "number"
    return "string"


def published_schema(
    fields: dict[str, dict[str, Any]], *, closed: bool = True, defs: dict[str, Any] | None = None
) -> dict[str, Any]:
    """The JSON Schema object a client sees for a map of fields; the `$defs` of its `schema:` fields, at any depth,
    at its root (into `defs` when given: the root is another's)."""
    root = defs is None
    defs = {} if defs is None else defs
    schema: dict[str, Any] = {"type": "object", "properties": {n: _published(s, defs) for n, s in fields.items()}}
    required = [name for name, spec in fields.items() if is_required(spec)]
    if required:
        schema["required"] = required
    if closed:
        schema["additionalProperties"] = False
    if root and defs:
        schema["$defs"] = defs
    return schema


def _published(spec: dict[str, Any], defs: dict[str, Any] | None = None) -> dict[str, Any]:
    if schemas.is_schema(spec):
        return schemas.published(spec, defs)
    out: dict[str, Any] = {key: spec[key] for key in _PUBLISHED_KEYS if key in spec}
    out.setdefault("type", json_type(spec))
    if spec.get("nullable"):  # JSON Schema's way to allow null: a second type (and null among the choices)
        out["type"] = [out["type"], "null"]
        if "enum" in out:
            out["enum"] = [*out["enum"], None]
    examples = example_values(spec)
    if examples:
        out["examples"] = examples
    if "items" in spec:
        out["items"] = _published(spec["items"], defs)
    if json_type(spec) == "object" and "properties" in spec:
        out.update(published_schema(spec["properties"], defs={} if defs is None else defs))
    return out


def example_values(spec: dict[str, Any]) -> list[Any]:
    """The examples the spec gives for a field, `example` first."""
    values = [spec["example"]] if "example" in spec else []
    values.extend(v for v in spec.get("examples", []) if v not in values)
    return values


def models(
    root: str,
    fields: dict[str, dict[str, Any]],
    *,
    published: bool = False,
    output: bool = False,
    checks: list[dict[str, Any]] | None = None,
) -> list[ModelClass]:
    """The pydantic models for a map of fields: nested models first, `root` last. With `published`, the fields at
    every depth are named as MCP allows (`libraryName`, `entities[].entityType`): the attribute is the derived
    Python name with an alias. An `output` model is built by the handler (`Output(added_observations=...)`), so
    its alias is for validating a dict and for dumping, and the Python name is what its constructor takes.
    Each `schema:` field's schema is appended to `checks`: the field is checked by `_CHECKS.check(<its index>)`."""
    out: list[ModelClass] = []
    _model(root, fields, out, published=published, output=output, checks=checks)
    return out


def annotation_code(models: Iterable[ModelClass]) -> str:
    """The models' annotations with every string literal in them taken out: what they use (`Annotated[`, `Literal[`,
    `Field(`, `_formats.check(`) is read from the code, never from text in it (an enum value such as `Literal[`)."""
    joined = " ".join(member.annotation for model in models for member in model.fields)
    return _STRING_LITERAL.sub('""', joined) if "'" in joined or '"' in joined else joined


_STRING_LITERAL = re.compile(r""""(?:[^"\\]|\\.)*"|'(?:[^'\\]|\\.)*'""")
"""A string literal as `pyliteral.string` writes one."""


def _model(
    name: str,
    fields: dict[str, dict[str, Any]],
    out: list[ModelClass],
    *,
    published: bool = False,
    output: bool = False,
    checks: list[dict[str, Any]] | None = None,
) -> None:
    members = []
    for field_name, spec in fields.items():
        attribute = field_attribute(field_name) if published else field_name
        if schemas.is_schema(spec):
            annotation, default = _schema_member(spec, checks)
        else:
            annotation = _annotation(
                f"{name}{pascal(attribute)}", spec, out, published=published, output=output, checks=checks
            )
            if spec.get("nullable"):
                annotation = f"{annotation} | None"
            default = None
            if "default" in spec:
                default = inline(spec["default"])
            elif not is_required(spec):
                annotation, default = (annotation if spec.get("nullable") else f"{annotation} | None"), "None"
        alias = field_name if attribute != field_name else None
        line = layout.long_line(attribute, annotation, default)
        if alias is not None:
            aliases = (
                [
                    f"validation_alias=AliasChoices({string(alias)}, {string(attribute)})",
                    f"serialization_alias={string(alias)}",
                ]
                if output
                else [f"alias={string(alias)}"]
            )
            arguments = [*([default] if default is not None else []), *aliases]
            default = f"Field({', '.join(arguments)})"
            line = layout.aliased_line(attribute, annotation, arguments)
        members.append(ModelField(attribute, annotation, default, alias, line))
    out.append(ModelClass(name, tuple(members)))


def _schema_member(spec: dict[str, Any], checks: list[dict[str, Any]] | None) -> tuple[str, str | None]:
    """(annotation, default) of a `schema:` field: its Python type, checked by `_CHECKS` against the schema (an
    optional field's None inside the check, so an explicit null is checked too)."""
    typed, default = schemas.annotation(spec["schema"]), None
    if "default" in spec["schema"]:
        default = inline(spec["schema"]["default"])
    elif not is_required(spec):
        typed, default = (typed if typed == "Any" or typed.endswith("None") else f"{typed} | None"), "None"
    if checks is None:
        return typed, default
    checks.append(spec["schema"])
    return f"Annotated[{typed}, _CHECKS.check({len(checks) - 1})]", default


def _annotation(
    nested_name: str,
    spec: dict[str, Any],
    out: list[ModelClass],
    *,
    published: bool = False,
    output: bool = False,
    checks: list[dict[str, Any]] | None = None,
) -> str:
    kind = json_type(spec)
    if schemas.is_schema(spec):
        return _schema_member({**spec, "required": True}, checks)[0]
    if "enum" in spec:
        base = "Literal[" + ", ".join(inline(v) for v in spec["enum"]) + "]"
    elif kind == "array":
        item = f"{nested_name}Item"
        base = (
            f"list[{_annotation(item, spec['items'], out, published=published, output=output, checks=checks)}]"
            if "items" in spec
            else "list[Any]"
        )
    elif kind == "object":
        if spec.get("properties"):
            _model(nested_name, spec["properties"], out, published=published, output=output, checks=checks)
            base = nested_name
        else:
            base = "dict[str, Any]"
    else:
        base = {"string": "str", "integer": "int", "number": "float", "boolean": "bool"}[kind]
    constraints = [
        f"{_CONSTRAINTS[key]}={_constraint_literal(key, spec[key], kind)}" for key in _CONSTRAINTS if key in spec
    ]
    formatted = [f"_formats.check({string(spec['format'])})"] if kind == "string" and "format" in spec else []
    if "enum" in spec or not (constraints or formatted):
        return base
    field = [f"Field({', '.join(constraints)})"] if constraints else []
    return f"Annotated[{', '.join([base, *field, *formatted])}]"


_INTEGER_BOUND = {"minimum": math.ceil, "exclusiveMinimum": math.floor, "maximum": math.floor}
"""The integer bound that allows the same integers as a fractional one (`exclusiveMaximum`: ceil)."""


def _constraint_literal(key: str, value: Any, kind: str) -> str:
    if key == "pattern":  # the published schema keeps the spec's pattern; the model runs its Rust translation
        return string(patterns.translate(value).rust)
    if kind == "integer" and isinstance(value, float) and not value.is_integer():
        return inline(_INTEGER_BOUND.get(key, math.ceil)(value))  # pydantic's int checks take integer bounds only
    return inline(value)


def accepts(spec: dict[str, Any], *, with_example: bool = True) -> str:
    """A phrase saying what a field accepts, such as `an integer from 1 to 50`."""
    if schemas.is_schema(spec):
        return schemas.accepts(spec)
    kind = json_type(spec)
    if "enum" in spec:
        return "one of " + ", ".join(json.dumps(v) for v in spec["enum"])
    if kind == "string":
        phrase = "a string" + _range(spec, "minLength", "maxLength", "characters")
        if spec.get("format") in FORMAT_WORDS:
            phrase = FORMAT_WORDS[spec["format"]] + phrase.removeprefix("a string")
        if "pattern_name" in spec:  # the spec's readable name for its pattern, said instead of the regex
            phrase = spec["pattern_name"] if phrase == "a string" else f"{spec['pattern_name']} ({phrase})"
        elif "pattern" in spec:
            phrase += f" matching {spec['pattern']}"
    elif kind in ("integer", "number"):
        phrase = ("an integer" if kind == "integer" else "a number") + _bounds(spec)
    elif kind == "boolean":
        return "true or false"
    elif kind == "array":
        phrase = "a list" + _range(spec, "minItems", "maxItems", "items")
        if "items" in spec:
            phrase += ", each " + accepts(spec["items"], with_example=False)
    else:
        props = spec.get("properties") or {}
        if props:
            names = ", ".join(f"{n}" + ("" if is_required(s) else " (optional)") for n, s in props.items())
            phrase = f"an object with {names}"
        else:
            phrase = "an object"
    examples = example_values(spec)
    if with_example and examples and kind != "object":
        phrase += f", such as {json.dumps(examples[0], ensure_ascii=False)}"
    return phrase


def _range(spec: dict[str, Any], low_key: str, high_key: str, unit: str) -> str:
    """` of at least 2 characters`, ` of exactly 1 item`: a count in the unit's singular or plural form."""
    low, high = spec.get(low_key), spec.get(high_key)
    if low is not None and high is not None:
        return f" of exactly {_count(low, unit)}" if low == high else f" of {low} to {high} {unit}"
    if low is not None:
        return f" of at least {_count(low, unit)}"
    if high is not None:
        return f" of at most {_count(high, unit)}"
    return ""


def _count(number: Any, unit: str) -> str:
    """`1 character`, `2 characters`: `unit` is the plural, made singular for exactly one."""
    return f"{number} {unit[:-1] if number == 1 else unit}"


def _bounds(spec: dict[str, Any]) -> str:
    parts = []
    if "minimum" in spec and "maximum" in spec:
        return f" from {spec['minimum']} to {spec['maximum']}"
    if "minimum" in spec:
        parts.append(f"at least {spec['minimum']}")
    if "exclusiveMinimum" in spec:
        parts.append(f"greater than {spec['exclusiveMinimum']}")
    if "maximum" in spec:
        parts.append(f"at most {spec['maximum']}")
    if "exclusiveMaximum" in spec:
        parts.append(f"less than {spec['exclusiveMaximum']}")
    return (" " + " and ".join(parts)) if parts else ""


def accepts_table(fields: dict[str, dict[str, Any]], prefix: str = "") -> dict[str, str]:
    """Field path (`tags[]`, `address.city`) -> what it accepts, for every field at any depth."""
    table: dict[str, str] = {}
    for name, spec in fields.items():
        path = f"{prefix}{name}"
        _accepts_walk(path, spec, table)
    return table


def _accepts_walk(path: str, spec: dict[str, Any], table: dict[str, str]) -> None:
    table[path] = accepts(spec)
    if schemas.is_schema(spec):
        return  # the runtime words each problem inside it from the schema
    if "items" in spec:
        _accepts_walk(f"{path}[]", spec["items"], table)
    if spec.get("properties"):
        table.update(accepts_table(spec["properties"], prefix=f"{path}."))


def make_example(spec: dict[str, Any]) -> Any:
    """A value that fits the field: its example, default or first enum value, else one made up."""
    if schemas.is_schema(spec):
        return schemas.example(spec)
    for key in ("example", "default"):
        if key in spec:
            return spec[key]
    if spec.get("examples"):
        return spec["examples"][0]
    if spec.get("enum"):
        return spec["enum"][0]
    kind = json_type(spec)
    if kind == "string":
        if spec.get("format") in FORMAT_EXAMPLES:
            return FORMAT_EXAMPLES[spec["format"]]
        if "pattern" in spec:
            return _pattern_value(spec)
        return "example"[: spec.get("maxLength", 7)].ljust(spec.get("minLength", 0), "x")
    if kind in ("integer", "number"):
        return _number_example(spec, kind)
    if kind == "boolean":
        return True
    if kind == "array":
        count = max(spec.get("minItems", 1), 0)
        count = min(count, spec.get("maxItems", count))
        return [make_example(spec.get("items", {"type": "string"})) for _ in range(count)]
    return example_arguments(spec.get("properties") or {})


def example_arguments(fields: dict[str, dict[str, Any]]) -> dict[str, Any]:
    """Arguments that pass the tool's input schema: every required field, with a fitting value."""
    return {name: make_example(spec) for name, spec in fields.items() if is_required(spec)}


@dataclass(frozen=True)
class Bound:
    """The tighter of a numeric field's inclusive and exclusive bounds on one side."""

    value: int | float
    strict: bool


def bounds(spec: dict[str, Any]) -> tuple[Bound | None, Bound | None]:
    """(lower, upper): the tightest bound on each side, or None where there is none."""

    def tightest(inclusive: str, exclusive: str, tighter: int) -> Bound | None:
        found = [Bound(spec[key], key == exclusive) for key in (inclusive, exclusive) if _is_number(spec.get(key))]
        if not found:
            return None
        return max(found, key=lambda b: (b.value * tighter, b.strict))

    return tightest("minimum", "exclusiveMinimum", 1), tightest("maximum", "exclusiveMaximum", -1)


def integer_bounds(spec: dict[str, Any]) -> tuple[int | None, int | None]:
    """The least and greatest integers an integer field allows (None where unbounded)."""
    low, high = bounds(spec)
    least = None if low is None else (math.floor(low.value) + 1 if low.strict else math.ceil(low.value))
    greatest = None if high is None else (math.ceil(high.value) - 1 if high.strict else math.floor(high.value))
    return least, greatest


def _is_number(value: Any) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool)


def _number_example(spec: dict[str, Any], kind: str) -> int | float:
    """1 when the field allows it, else a value near its bounds that it allows (exact for any finite bounds)."""
    if kind == "integer":
        least, greatest = integer_bounds(spec)
        if least is not None and least > 1:
            return least
        return greatest if greatest is not None and greatest < 1 else 1
    low, high = bounds(spec)
    candidates = [1.0]
    for bound, away in ((low, math.inf), (high, -math.inf)):
        if bound is not None:
            value = float(bound.value)
            step = 1.0 if away > 0 else -1.0
            candidates += [value, value + step, math.nextafter(value, away)]
    return next((c for c in candidates if _within(c, low, high)), 1.0)


def _within(value: float, low: Bound | None, high: Bound | None) -> bool:
    above = low is None or value > low.value or (value == low.value and not low.strict)
    below = high is None or value < high.value or (value == high.value and not high.strict)
    return above and below


def _pattern_passes(pattern: Any, instance: Any) -> bool:
    """JSON Schema's `pattern`, read as clients read it and run by the engine the server runs (never `re`); a
    pattern the engine refuses passes here (lint reports the pattern itself)."""
    if not (isinstance(pattern, str) and isinstance(instance, str)):
        return True
    try:
        return patterns.matches(pattern, instance)
    except patterns.PatternError:
        return True


def _format_passes(name: Any, instance: Any) -> bool:
    """A string `format`, checked as the generated server (and the clients' ajv-formats) checks it."""
    checked = isinstance(instance, str) and name in FORMAT_EXAMPLES
    return not checked or bool(runtime_formats().conforms(name, instance))


def _pattern(validator: Any, pattern: Any, instance: Any, schema: dict[str, Any]) -> Iterator[ValidationError]:
    from jsonschema.exceptions import ValidationError

    if not _pattern_passes(pattern, instance):
        shown = pattern if pattern.isprintable() else json.dumps(pattern)  # one line, whatever the pattern holds
        yield ValidationError(f"{json.dumps(instance, ensure_ascii=not instance.isprintable())} does not match {shown}")


def _format(validator: Any, name: Any, instance: Any, schema: dict[str, Any]) -> Iterator[ValidationError]:
    from jsonschema.exceptions import ValidationError

    if not _format_passes(name, instance):
        yield ValidationError(f"{json.dumps(instance, ensure_ascii=False)} is not {FORMAT_WORDS[name]}")


@functools.cache
def _validator_class() -> type[Draft202012Validator]:
    """`jsonschema`'s validator with the server's `pattern` and `format`, to say why a value does not fit (imported
    only then: it is slow to import)."""
    from jsonschema import Draft202012Validator, validators

    extended: type[Draft202012Validator] = validators.extend(  # type: ignore[no-untyped-call]  # untyped stubs
        Draft202012Validator, {"pattern": _pattern, "format": _format}
    )
    return extended


def conforms(value: Any, spec: dict[str, Any]) -> bool:
    """Whether `value` passes the field's published schema."""
    if schemas.is_schema(spec):
        return schemas.fits(value, spec) is None
    published = _published(spec)
    try:
        return quickschema.valid(value, published, pattern=_pattern_passes, format=_format_passes)
    except quickschema.Unsupported:
        return next(iter(_validator_class()(published).iter_errors(value)), None) is None


def fits(value: Any, spec: dict[str, Any]) -> str | None:
    """None when `value` passes the field's published schema, else the reason it does not."""
    if schemas.is_schema(spec):
        return schemas.fits(value, spec)
    if conforms(value, spec):
        return None
    error = next(iter(_validator_class()(_published(spec)).iter_errors(value)), None)
    return None if error is None else str(error.message)


def _pattern_value(spec: dict[str, Any]) -> str | None:
    """A string matching the field's pattern within its length limits: the pattern's made-up example, else
    that example lengthened (repeated, or its last or first character repeated) to the minimum length; None
    when none of these fits."""
    made = pattern_example(spec["pattern"])
    if not made:
        return made
    short = max(0, int(spec.get("minLength", 0)) - len(made))
    candidates = [made, made * (1 + -(-short // len(made))), made + made[-1] * short, made[0] * short + made]
    return next((value for value in candidates if conforms(value, spec)), None)


def pattern_example(pattern: str) -> str | None:
    """A short string matching `pattern`, or None when it cannot be made up."""
    try:
        return patterns.translate(pattern).example
    except patterns.PatternError:
        return None


def violation(spec: dict[str, Any]) -> tuple[bool, Any]:
    """(True, a value of the right type that the field's constraints refuse), or (False, None)."""
    if schemas.is_schema(spec):
        return False, None
    kind = json_type(spec)
    candidates: list[Any] = []
    if "enum" in spec:
        candidates = ["not-a-choice"] if kind == "string" else []
    elif kind == "string":
        if "format" in spec:
            candidates.append(f"not {FORMAT_WORDS.get(spec['format'], 'one')}"[: spec.get("maxLength", 80)])
        if "pattern" in spec:
            candidates.extend(["!", "zz zz", "0"])
        if spec.get("minLength", 0) > 0:
            candidates.append("x" * (spec["minLength"] - 1))
        if "maxLength" in spec:
            candidates.append("x" * (spec["maxLength"] + 1))
    elif kind in ("integer", "number"):
        for key, step in (("minimum", -1), ("exclusiveMinimum", 0), ("maximum", 1), ("exclusiveMaximum", 0)):
            if key in spec:
                value = spec[key] + step
                candidates.append(int(value) if kind == "integer" and float(value).is_integer() else value)
    elif kind == "array":
        item = make_example(spec.get("items", {"type": "string"}))
        if spec.get("minItems", 0) > 0:
            candidates.append([item] * (spec["minItems"] - 1))
        if spec.get("maxItems", 99) < 5:
            candidates.append([item] * (spec["maxItems"] + 1))
    for value in candidates:
        if not conforms(value, spec) and conforms(value, {k: v for k, v in spec.items() if k in ("type", "items")}):
            return True, value
    return False, None
