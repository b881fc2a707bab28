"""Check a loaded spec against spec.schema.json, one diagnostic per problem."""

from __future__ import annotations

import difflib
import json
from collections.abc import Iterator
from functools import cache
from importlib import resources
from typing import TYPE_CHECKING, Any

from ..errors import Diagnostic
from . import patterns, quickschema
from .load import Document

if TYPE_CHECKING:
    from jsonschema import Draft202012Validator
    from jsonschema.exceptions import ValidationError

_ENUM_CODES = {"effect": ("FW121", "unknown effect"), "class": ("FW122", "unknown failure class")}
_SIZES = ("minLength", "maxLength", "minItems", "maxItems")
"""Field constraints whose `maximum` in the schema is a sanity bound (FW028), not a rule of the format."""
NAME_MAX = 64
"""The longest name of a server, tool, field, failure or upstream: it becomes a file or a class name."""


@cache
def schema() -> dict[str, Any]:
    """The spec's JSON Schema (2020-12), the truth about the spec's shape."""
    text = resources.files("failwell").joinpath("spec.schema.json").read_text(encoding="utf-8")
    loaded: dict[str, Any] = json.loads(text)
    return loaded


def _is_integer(_checker: object, instance: object) -> bool:
    """An integer is an int: `5.0` where a count is meant is refused, though JSON Schema calls it an integer."""
    return isinstance(instance, int) and not isinstance(instance, bool)


@cache
def _validator() -> Draft202012Validator:
    """`jsonschema`'s validator for the schema, to say what is wrong (imported only then: it is slow to import)."""
    from jsonschema import Draft202012Validator, validators

    checker = Draft202012Validator.TYPE_CHECKER.redefine("integer", _is_integer)
    strict = validators.extend(  # type: ignore[no-untyped-call]
        Draft202012Validator, {"pattern": _pattern}, type_checker=checker
    )
    validator: Draft202012Validator = strict(schema())
    return validator


def _pattern(validator: Any, pattern: Any, instance: Any, schema: dict[str, Any]) -> Iterator[ValidationError]:
    """The spec schema's `pattern`, read as ECMA-262 reads it (`$` is the end of the text: a name `"tasks\\n"` does
    not match `^[a-z][a-z0-9_]*$`), as the quick check reads it."""
    from jsonschema.exceptions import ValidationError

    if isinstance(pattern, str) and isinstance(instance, str) and not patterns.search_as_clients(pattern, instance):
        yield ValidationError(f"{json.dumps(instance)} does not match {json.dumps(pattern)}")


def validate(doc: Document) -> list[Diagnostic]:
    """Every way `doc` breaks the schema, pointing at the YAML line of each."""
    if "spec_version" in doc.data and "failwell" not in doc.data:
        message = "this spec uses format 0 (`spec_version`); run `failwell generate` in its project to migrate it"
        return [doc.diagnostic(("spec_version",), "FW004", message, key=True)]
    if doc.data.get("failwell") not in (None, 1):
        found = doc.data["failwell"]
        message = f"unsupported spec format `failwell: {json.dumps(found)}`; this failwell reads `failwell: 1`"
        return [doc.diagnostic(("failwell",), "FW004", message)]
    try:
        if quickschema.valid(doc.data, schema(), strict_integers=True):
            return []
    except quickschema.Unsupported:
        pass
    diagnostics = []
    for error in _validator().iter_errors(doc.data):
        diagnostics.extend(_diagnose(doc, error))
    return diagnostics


def _diagnose(doc: Document, error: ValidationError) -> list[Diagnostic]:
    path = tuple(error.absolute_path)
    where = _describe(path)
    instance: Any = error.instance
    expected: Any = error.validator_value
    subschema: Any = error.schema
    if error.validator == "anyOf" and path and isinstance(instance, dict):
        return [
            doc.diagnostic(path, "FW010", f"{where} needs a `type` (string, integer, ...), an `enum` or a `schema`")
        ]
    if error.validator == "anyOf" and not path:  # the spec's own: at least one of tools, resources, prompts
        first, *others = [branch["required"][0] for branch in expected]
        alternatives = " or ".join(f"`{name}`" for name in others)
        message = (
            f"the spec is missing required key `{first}` (or {alternatives}): "
            "a server serves at least one tool, resource or prompt"
        )
        return [doc.diagnostic((first,), "FW010", message, key=True)]
    if error.validator in ("oneOf", "anyOf") and error.context:
        # the branch of the value's own type says most: `fields: [a_very_long_name]` is a list, not a mapping
        fitting = [e for e in error.context if not (e.validator == "type" and tuple(e.absolute_path) == path)]
        best = min(fitting or error.context, key=lambda e: len(list(e.absolute_path)))
        return _diagnose(doc, best)
    if error.validator == "required":
        missing = [name for name in expected if name not in instance]
        # the path is the missing key's: lint skips the key (absent anyway), not the whole mapping
        return [
            doc.diagnostic((*path, name), "FW010", f"{where} is missing required key `{name}`", key=True)
            for name in missing
        ]
    if error.validator == "maxLength" and expected == NAME_MAX:
        named = "propertyNames" in error.absolute_schema_path
        name_path = (*path, instance) if named else path
        message = (
            f"name {json.dumps(instance[:20] + '...')} is {len(instance)} characters long; names have at most "
            f"{NAME_MAX}, since each becomes a file, class or function name"
        )
        return [doc.diagnostic(name_path, "FW029", message, key=named)]
    if error.validator == "maximum" and path and path[-1] in _SIZES:
        message = (
            f"{where} is {instance}, past failwell's bound of {expected:,}: generated code and tests build values "
            f"this large; use at most {expected:,}"
        )
        return [doc.diagnostic(path, "FW028", message)]
    if error.validator == "additionalProperties":
        allowed = sorted(subschema.get("properties", {}))
        out = []
        for name in sorted(set(instance) - set(allowed)):
            hint = _did_you_mean(name, allowed)
            message = f"unknown key `{name}` in {where}{hint}; allowed keys: {', '.join(allowed)}"
            out.append(doc.diagnostic((*path, name), "FW015", message, key=True))
        return out
    if error.validator == "type":
        expected_text = " or ".join(expected) if isinstance(expected, list) else str(expected)
        message = f"{where} must be {_article(expected_text)}, not {_json_type(instance)}"
        return [doc.diagnostic(path, "FW011", message)]
    if error.validator in ("enum", "const"):
        options = expected if error.validator == "enum" else [expected]
        code, label = _ENUM_CODES.get(str(path[-1]) if path else "", ("FW012", "value not allowed"))
        if path and path[0] == "failwell":
            code, label = "FW004", "unsupported spec format"
        hint = _did_you_mean(str(instance), [str(o) for o in options])
        shown = ", ".join(str(o) for o in options)
        message = f"{label} {json.dumps(instance)} for {where}{hint}; use one of: {shown}"
        return [doc.diagnostic(path, code, message)]
    if error.validator == "pattern":
        message = f"{where} is {json.dumps(instance)}, which does not match {expected}"
        if path and (path[-1] == "mime_type" or (len(path) > 1 and path[-2] == "mime_types")):
            message = (
                f"{where} is {json.dumps(instance)}, which is not a MIME type: write type/subtype with optional "
                "; name=value parameters, such as application/json or text/plain; charset=utf-8"
            )
        return [doc.diagnostic(path, "FW013", message)]
    message = f"{where}: {error.message}"
    return [doc.diagnostic(path, "FW014", message)]


def _describe(path: tuple[str | int, ...]) -> str:
    if not path:
        return "the spec"
    return "`" + ".".join(str(p) for p in path) + "`"


def _did_you_mean(value: str, options: list[str]) -> str:
    close = difflib.get_close_matches(value, options, n=1)
    return f" (did you mean `{close[0]}`?)" if close else ""


def _article(text: str) -> str:
    return ("an " if text[:1] in "aeiou" else "a ") + text


def _json_type(value: Any) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "a boolean"
    if isinstance(value, int | float):
        return f"the number {value}"
    if isinstance(value, str):
        return f"the string {json.dumps(value)}"
    if isinstance(value, list):
        return "a list"
    if isinstance(value, dict):
        return "a mapping"
    return type(value).__name__
