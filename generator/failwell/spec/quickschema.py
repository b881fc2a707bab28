"""A yes-or-no JSON Schema (2020-12) check for the common case, a valid spec or a value that fits its field:
`jsonschema` (slow to import, and slow per call) is asked only when this says no, to say why.

It knows the keywords failwell's spec schema and its fields' published schemas use, and answers exactly as
`jsonschema`'s Draft202012Validator does for them, its `pattern` read as ECMA-262 reads it, as spec/validate.py's
(tests/test_quickschema.py holds the two to the same verdict on every spec and value the suite knows, and on
mutations of them). A validation keyword it does not know raises
`Unsupported`, so the caller asks `jsonschema`; other unknown keywords are annotations, ignored as there.
"""

from __future__ import annotations

import numbers
from collections.abc import Callable, Mapping, Sequence
from typing import Any

Check = Callable[[str, str], bool]
"""A `pattern` or `format` rule: (the keyword's value, the string) -> whether the string passes."""

_UNSUPPORTED = frozenset(
    {
        "prefixItems", "contains", "minContains", "maxContains", "unevaluatedItems", "unevaluatedProperties",
        "dependentRequired", "dependentSchemas", "dependencies", "patternProperties", "multipleOf",
        "maxProperties", "additionalItems", "$dynamicRef", "$recursiveRef",
    }
)  # fmt: skip
"""Validation keywords of the drafts that this check does not implement: `jsonschema` decides."""


class Unsupported(Exception):
    """The schema uses a keyword (or a `$ref`) this check does not implement."""


def _search(pattern: str, value: str) -> bool:
    """JSON Schema's `pattern` as ECMA-262 reads it (`$` is the end of the text, never before a final line break, as
    Python's `re` reads it), as `patterns.search_as_clients` runs it."""
    from .patterns import search_as_clients  # (imported here: quickschema needs nothing else from spec)

    return search_as_clients(pattern, value)


def valid(
    instance: Any,
    schema: Mapping[str, Any] | bool,
    *,
    strict_integers: bool = False,
    pattern: Check = _search,
    format: Check | None = None,
) -> bool:
    """Whether `instance` is valid against `schema`, as `jsonschema` would judge it. `strict_integers`: an integer
    is an int, never `5.0`; `pattern` checks the `pattern` keyword (default: as ECMA-262 reads it, where `$` is the
    end of the text); `format` checks `format` (default: none, an annotation, as `jsonschema` without a format
    checker). Raises `Unsupported` when the schema needs a keyword this check does not implement."""
    return _Check(schema, strict_integers, pattern, format).fits(instance, schema)


def _is_number(value: Any) -> bool:
    return isinstance(value, numbers.Number) and not isinstance(value, bool)


class _Check:
    def __init__(self, root: Mapping[str, Any] | bool, strict: bool, pattern: Check, format: Check | None) -> None:
        self.root = root
        self.strict = strict
        self.pattern = pattern
        self.format = format

    def is_type(self, value: Any, name: str) -> bool:
        if name == "string":
            return isinstance(value, str)
        if name == "object":
            return isinstance(value, dict)
        if name == "array":
            return isinstance(value, list)
        if name == "boolean":
            return isinstance(value, bool)
        if name == "null":
            return value is None
        if name == "number":
            return _is_number(value)
        if name == "integer":
            if isinstance(value, bool):
                return False
            if isinstance(value, int):
                return True
            return not self.strict and isinstance(value, float) and value.is_integer()
        raise Unsupported(f"type {name!r}")

    def resolve(self, reference: str) -> Mapping[str, Any] | bool:
        if not reference.startswith("#"):
            raise Unsupported(f"$ref {reference!r}")
        found: Any = self.root
        for part in filter(None, reference[1:].split("/")):
            part = part.replace("~1", "/").replace("~0", "~")
            try:
                found = found[int(part)] if isinstance(found, list) else found[part]
            except (KeyError, IndexError, ValueError, TypeError):
                raise Unsupported(f"$ref {reference!r}") from None
        if not isinstance(found, (Mapping, bool)):
            raise Unsupported(f"$ref {reference!r}")
        return found

    def fits(self, value: Any, schema: Mapping[str, Any] | bool) -> bool:
        if schema is True:
            return True
        if schema is False:
            return False
        if not isinstance(schema, Mapping):
            raise Unsupported("a schema that is not an object or a boolean")
        if _UNSUPPORTED.intersection(schema):
            raise Unsupported(", ".join(sorted(_UNSUPPORTED.intersection(schema))))
        if "$ref" in schema and not self.fits(value, self.resolve(schema["$ref"])):
            return False
        kind = schema.get("type")
        if kind is not None:
            kinds = kind if isinstance(kind, list) else [kind]
            if not any(self.is_type(value, name) for name in kinds):
                return False
        if "enum" in schema and not any(_equal(value, choice) for choice in schema["enum"]):
            return False
        if "const" in schema and not _equal(value, schema["const"]):
            return False
        if isinstance(value, str):
            if not self._string(value, schema):
                return False
        elif _is_number(value):
            if not _number(value, schema):
                return False
        elif isinstance(value, dict):
            if not self._object(value, schema):
                return False
        elif isinstance(value, list) and not self._array(value, schema):
            return False
        return self._combined(value, schema)

    def _string(self, value: str, schema: Mapping[str, Any]) -> bool:
        if "minLength" in schema and len(value) < schema["minLength"]:
            return False
        if "maxLength" in schema and len(value) > schema["maxLength"]:
            return False
        if "pattern" in schema and not self.pattern(schema["pattern"], value):
            return False
        return not ("format" in schema and self.format is not None and not self.format(schema["format"], value))

    def _object(self, value: dict[Any, Any], schema: Mapping[str, Any]) -> bool:
        properties: Mapping[str, Any] = schema.get("properties", {})
        if "minProperties" in schema and len(value) < schema["minProperties"]:
            return False
        if "required" in schema and any(name not in value for name in schema["required"]):
            return False
        for name, item in value.items():
            if name in properties:
                if not self.fits(item, properties[name]):
                    return False
            elif "additionalProperties" in schema and not self.fits(item, schema["additionalProperties"]):
                return False
        return "propertyNames" not in schema or all(self.fits(name, schema["propertyNames"]) for name in value)

    def _array(self, value: list[Any], schema: Mapping[str, Any]) -> bool:
        if "minItems" in schema and len(value) < schema["minItems"]:
            return False
        if "maxItems" in schema and len(value) > schema["maxItems"]:
            return False
        if "items" in schema and not all(self.fits(item, schema["items"]) for item in value):
            return False
        return not schema.get("uniqueItems") or all(
            not _equal(value[i], value[j]) for i in range(len(value)) for j in range(i + 1, len(value))
        )

    def _combined(self, value: Any, schema: Mapping[str, Any]) -> bool:
        if "allOf" in schema and not all(self.fits(value, branch) for branch in schema["allOf"]):
            return False
        if "anyOf" in schema and not any(self.fits(value, branch) for branch in schema["anyOf"]):
            return False
        if "oneOf" in schema and sum(self.fits(value, branch) for branch in schema["oneOf"]) != 1:
            return False
        if "not" in schema and self.fits(value, schema["not"]):
            return False
        if "if" in schema:
            branch = "then" if self.fits(value, schema["if"]) else "else"
            if branch in schema and not self.fits(value, schema[branch]):
                return False
        return True


def _number(value: Any, schema: Mapping[str, Any]) -> bool:
    if "minimum" in schema and value < schema["minimum"]:
        return False
    if "maximum" in schema and value > schema["maximum"]:
        return False
    if "exclusiveMinimum" in schema and value <= schema["exclusiveMinimum"]:
        return False
    return not ("exclusiveMaximum" in schema and value >= schema["exclusiveMaximum"])


def _equal(one: Any, two: Any) -> bool:
    """JSON equality as `jsonschema` reads it: `true` is not `1`, `1` is `1.0`, containers compare deeply."""
    if one is two:
        return True
    if isinstance(one, str) or isinstance(two, str):
        return bool(one == two)
    if isinstance(one, Mapping) and isinstance(two, Mapping):
        return one.keys() == two.keys() and all(_equal(one[key], two[key]) for key in one)
    if isinstance(one, Sequence) and isinstance(two, Sequence):
        return len(one) == len(two) and all(_equal(a, b) for a, b in zip(one, two, strict=True))
    if isinstance(one, bool) or isinstance(two, bool):
        return isinstance(one, bool) and isinstance(two, bool) and one == two
    return bool(one == two)
