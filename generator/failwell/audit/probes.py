"""The calls an input schema must refuse, made from a tool's listed `inputSchema`: a missing required argument,
a value of the wrong type, a value out of its bounds, off its pattern or outside its enum, and an unknown extra
argument. A planted fake credential rides in the values that can carry one (off the pattern, outside the enum,
the extra argument), so an answer that repeats it verbatim is seen."""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Literal

from ..spec import patterns

PLANTED = "ghp_FailwellAuditPlanted0123456789abcdef"
"""A fake credential in the shape of a GitHub token: a server that masks credentials masks it."""
PLANTED_MARK = "FailwellAuditPlanted"
"""What is looked for in every answer: the planted credential, whole or in part."""
EXTRA = "failwell_audit_extra"
"""The unknown argument added to a call."""
MAX_PER_TOOL = 10

Kind = Literal["missing", "type", "bounds", "pattern", "enum", "extra"]


@dataclass(frozen=True)
class Probe:
    """One call the tool's input schema must refuse."""

    kind: Kind
    field: str
    arguments: dict[str, Any]
    value: Any = None
    """The bad value sent (None for a missing argument)."""

    @property
    def title(self) -> str:
        words = {
            "missing": "required argument {field} left out",
            "type": "{field} of the wrong type",
            "bounds": "{field} out of its bounds",
            "pattern": "{field} off its pattern",
            "enum": "{field} outside its enum",
            "extra": "an unknown extra argument",
        }
        return words[self.kind].format(field=self.field)


_NONE = object()
_FORMAT_EXAMPLES = {
    "uri": "http://127.0.0.1:9/",
    "url": "http://127.0.0.1:9/",
    "email": "someone@example.invalid",
    "date": "2026-01-01",
    "date-time": "2026-01-01T00:00:00Z",
    "time": "12:00:00",
    "uuid": "00000000-0000-4000-8000-000000000000",
}
"""Values of the formats servers declare; a URL is the discard port on loopback, so a read-only tool that ignores
the extra argument and runs (a fetch) reaches nothing outside the machine."""


def example_value(schema: Mapping[str, Any]) -> Any:
    """A value the schema accepts, as far as can be told: its own example, default, first enum member or const,
    else the simplest value of its type within its bounds."""
    examples = schema.get("examples")
    if isinstance(examples, list) and examples:
        return examples[0]
    for key in ("example", "default", "const"):
        if key in schema:
            return schema[key]
    enum = schema.get("enum")
    if isinstance(enum, list) and enum:
        return enum[0]
    kind = _type(schema)
    if kind == "string" and schema.get("format") in _FORMAT_EXAMPLES:
        return _FORMAT_EXAMPLES[schema["format"]]
    if kind == "string":
        length = max(int(schema.get("minLength", 1) or 1), 1)
        return "a" * min(length, int(schema.get("maxLength", length)))
    if kind in ("integer", "number"):
        low = schema.get("minimum", schema.get("exclusiveMinimum", 0))
        value = low + 1 if "exclusiveMinimum" in schema and "minimum" not in schema else low
        value = max(value, 1) if "maximum" not in schema or schema["maximum"] >= 1 else value
        return int(value) if kind == "integer" else value
    if kind == "boolean":
        return True
    if kind == "array":
        return []
    if kind == "object":
        return {}
    return "a"


def _type(schema: Mapping[str, Any]) -> str | None:
    kind = schema.get("type")
    if isinstance(kind, list):
        kinds = [k for k in kind if k != "null"]
        return kinds[0] if len(kinds) == 1 else None
    if kind is None:
        for union in ("anyOf", "oneOf"):
            options = schema.get(union)
            if isinstance(options, list):
                kinds = [o.get("type") for o in options if isinstance(o, Mapping) and o.get("type") != "null"]
                if len(kinds) == 1 and isinstance(kinds[0], str):
                    return kinds[0]
    return kind if isinstance(kind, str) else None


def valid_arguments(input_schema: Mapping[str, Any]) -> dict[str, Any]:
    """Values for the required arguments (and only those)."""
    properties = input_schema.get("properties") or {}
    required = [name for name in input_schema.get("required") or [] if isinstance(name, str)]
    return {name: example_value(properties.get(name) or {}) for name in required}


_WRONG_TYPE: dict[str, Any] = {
    "string": 12345,
    "integer": "not-a-number",
    "number": "not-a-number",
    "boolean": "not-a-boolean",
    "array": "not-a-list",
    "object": "not-an-object",
}


def _out_of_bounds(schema: Mapping[str, Any]) -> Any:
    kind = _type(schema)
    if kind == "string":
        if isinstance(schema.get("maxLength"), int):
            return "x" * (schema["maxLength"] + 1)
        if isinstance(schema.get("minLength"), int) and schema["minLength"] > 0:
            return ""
    if kind in ("integer", "number"):
        if isinstance(schema.get("maximum"), int | float):
            return schema["maximum"] + 1
        if isinstance(schema.get("minimum"), int | float):
            return schema["minimum"] - 1
        if isinstance(schema.get("exclusiveMinimum"), int | float):
            return schema["exclusiveMinimum"]
    return _NONE


def _matches(pattern: str, value: str) -> bool | None:
    """Whether `value` matches a server's published `pattern` as its clients read it (ECMA-262: `$` is the end of the
    text), or None when the pattern cannot be read."""
    try:
        return patterns.search_as_clients(pattern, value)
    except (re.error, RecursionError):
        return None


def probes(input_schema: Mapping[str, Any]) -> list[Probe]:
    """The calls this schema must refuse, at most `MAX_PER_TOOL`."""
    properties: Mapping[str, Any] = input_schema.get("properties") or {}
    required = [name for name in input_schema.get("required") or [] if name in properties]
    base = valid_arguments(input_schema)
    found: list[Probe] = []
    for name in required[:2]:
        found.append(Probe("missing", name, {k: v for k, v in base.items() if k != name}))
    for name, schema in list(properties.items())[:4]:
        if not isinstance(schema, Mapping):
            continue
        kind = _type(schema)
        if kind in _WRONG_TYPE:
            found.append(Probe("type", name, {**base, name: _WRONG_TYPE[kind]}, _WRONG_TYPE[kind]))
        bad = _out_of_bounds(schema)
        if bad is not _NONE:
            found.append(Probe("bounds", name, {**base, name: bad}, bad))
        if isinstance(schema.get("pattern"), str) and _matches(schema["pattern"], PLANTED) is False:
            found.append(Probe("pattern", name, {**base, name: PLANTED}, PLANTED))
        enum = schema.get("enum")
        if isinstance(enum, list) and enum and all(isinstance(member, str) for member in enum):
            found.append(Probe("enum", name, {**base, name: PLANTED}, PLANTED))
    if input_schema.get("additionalProperties") is not True:
        found.append(Probe("extra", EXTRA, {**base, EXTRA: PLANTED}, PLANTED))
    extra = [probe for probe in found if probe.kind == "extra"]
    return [probe for probe in found if probe.kind != "extra"][: MAX_PER_TOOL - len(extra)] + extra


def unrunnable(input_schema: Mapping[str, Any]) -> list[Probe]:
    """The probes no server can carry out (`probes` of kind `missing`, and `type` of a required argument): a
    call without a required argument, or with it of the wrong type, names nothing to act on. What an unannotated
    tool that reads as a read (`read_looking`) is sent by default; never an extra argument beside valid values,
    nor a value merely out of its bounds, which a server that does not check might run."""
    required = {name for name in input_schema.get("required") or [] if isinstance(name, str)}
    return [p for p in probes(input_schema) if p.kind == "missing" or (p.kind == "type" and p.field in required)]


_READ_VERBS = "get list read search find fetch describe show view lookup look count inspect browse retrieve return"
_CHANGE_VERBS = (
    "create write written update delete remove set add edit modify move rename insert put post send commit push "
    "pull reset checkout init clone run running execute exec apply save store drop kill start stop append upload "
    "install merge patch replace clear import export copy copies transform mark close archive publish approve "
    "cancel restart deploy truncate overwrite change assign enable disable schedule book pay charge refund "
    "subscribe invite upsert purge wipe erase destroy generate submit sync restore revert fork tag stage unstage"
)
_WORDS = re.compile(r"[A-Za-z]+")
_SUFFIX = re.compile(r"(ing|ed|es|s|e)$")


def _stem(word: str) -> str:
    """`creates`, `created`, `creating` and `create` alike: `creat`."""
    return _SUFFIX.sub("", word.lower())


_READ_STEMS = frozenset(_stem(word) for word in _READ_VERBS.split())
_CHANGE_STEMS = frozenset(_stem(word) for word in _CHANGE_VERBS.split())


def _words(text: str) -> list[str]:
    """`getUserName`, `get_user-name` and `Get the user's name` as words."""
    return _WORDS.findall(re.sub(r"([a-z0-9])([A-Z])", r"\1 \2", text))


def read_looking(name: str, description: str | None) -> bool:
    """Whether a tool reads as a read by its name or description: the first word of its name or of its
    description is a reading verb (`get`, `list`, `searches`, ...), and no word of either could be a change
    (any form of `create`, `write`, `delete`, `run`, `send`, `set`, ...). A tool that says nothing either way,
    or anything that could be a change, is no read."""
    names, said = _words(name), _words(description or "")
    first = [words[0] for words in (names, said) if words]
    if not any(_stem(word) in _READ_STEMS for word in first):
        return False
    return not any(_stem(word) in _CHANGE_STEMS for word in names + said)
