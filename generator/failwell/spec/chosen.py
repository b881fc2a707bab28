"""Definitions chosen by the server's settings (issue 40, point 4). `when: {setting: NAME, equals: VALUE}` (or
`not_equals:`) on a tool, resource, prompt or a tool's top-level input field serves it only when it holds, decided
once at start; `from_setting: NAME` on a tool's top-level input field gives it the setting's value when the setting
is set (and then it is not published); `{settings.<name>}` is filled into every description. Lint (FW187) refuses a
condition or a `from_setting` naming no setting, a value the setting never takes, `equals` and `not_equals` both or
neither, a `required` field under `when:`, and either key where it does not apply. The runtime side is
`runtime/setup/chosen.py`."""

from __future__ import annotations

import difflib
from collections.abc import Iterator
from typing import Any

from ..errors import Diagnostic
from ..pyliteral import call_lines, literal
from . import fields as f
from .load import Document

CODE = "FW187"

_VALUES = frozenset({"default", "const", "enum", "examples", "example"})
"""Keys whose contents are values, not schemas: a `description` in there is data."""

Path_ = tuple[str | int, ...]


def settings_of(data: dict[str, Any]) -> dict[str, Any]:
    """The spec's `server.settings` (empty without)."""
    server = data.get("server") if isinstance(data.get("server"), dict) else {}
    specs = server.get("settings") if isinstance(server, dict) else None
    return specs if isinstance(specs, dict) else {}


def descriptions(data: dict[str, Any]) -> Iterator[tuple[Path_, str]]:
    """Every description a client lists, with its path: each tool's, resource's and prompt's, and those of their
    input and output fields, parameters and arguments at any depth (inside a `schema:` too)."""
    for kind, sections in (("tools", ("input", "output")), ("resources", ("params",)), ("prompts", ("arguments",))):
        parts = data.get(kind) if isinstance(data.get(kind), dict) else {}
        assert isinstance(parts, dict)
        for name, spec in parts.items():
            if not isinstance(spec, dict):
                continue
            if isinstance(spec.get("description"), str) and "description" not in (spec.get("_by_setting") or {}):
                yield (kind, name, "description"), spec["description"]
            by = (spec.get("_by_setting") or {}).get("description") or spec.get("description")
            if isinstance(by, dict):  # `{by_setting: NAME, values: {...}, default: ...}`: every variant
                for value, text in (by.get("values") or {}).items():
                    if isinstance(text, str):
                        yield (kind, name, "description", "values", value), text
                if isinstance(by.get("default"), str):
                    yield (kind, name, "description", "default"), by["default"]
            for section in sections:
                yield from _below((kind, name, section), spec.get(section))


def _below(path: Path_, value: Any) -> Iterator[tuple[Path_, str]]:
    if isinstance(value, list):
        for index, item in enumerate(value):
            yield from _below((*path, index), item)
    elif isinstance(value, dict):
        for key, item in value.items():
            if key == "description" and isinstance(item, str):
                yield (*path, key), item
            elif key not in _VALUES:
                yield from _below((*path, key), item)


def lint(doc: Document, is_broken: Any) -> list[Diagnostic]:
    """FW187: every `when:` and `from_setting` of the spec checked against `server.settings`."""
    out: list[Diagnostic] = []
    settings = settings_of(doc.data)
    for kind in ("tools", "resources", "prompts"):
        parts = doc.data.get(kind) if isinstance(doc.data.get(kind), dict) else {}
        assert isinstance(parts, dict)
        for name, spec in parts.items():
            if not isinstance(spec, dict):
                continue
            if "when" in spec and not is_broken((kind, name, "when")):
                out += _when(doc, (kind, name, "when"), spec["when"], settings)
            for section in ("input", "output", "params", "arguments"):
                out += _fields(doc, (kind, name, section), spec.get(section), settings, top=section == "input")
    return out


def _fields(doc: Document, path: Path_, fields: Any, settings: dict[str, Any], *, top: bool) -> list[Diagnostic]:
    """`when:` and `from_setting` on each field under `path` (a tool's top-level input fields take them)."""
    out: list[Diagnostic] = []
    for name, spec in (fields if isinstance(fields, dict) else {}).items():
        if not isinstance(spec, dict):
            continue
        where = (*path, name)
        for key in ("when", "from_setting"):
            if key in spec and not top:
                message = f"`{key}` applies to a tool's top-level `input` fields only; remove it"
                out.append(doc.diagnostic((*where, key), CODE, message, key=True))
        if top and "when" in spec:
            out += _when(doc, (*where, "when"), spec["when"], settings)
            if f.is_required(spec):
                message = (
                    f"input field `{name}` is required, yet `when:` can hide it, so no call could give it then; "
                    "add `required: false` (or a `default:`)"
                )
                out.append(doc.diagnostic((*where, "when"), CODE, message, key=True))
        if top and isinstance(spec.get("from_setting"), str):
            out += _from_setting(doc, where, spec, settings)
        out += _fields(doc, (*where, "properties"), spec.get("properties"), settings, top=False)
        items = spec.get("items")
        if isinstance(items, dict) and isinstance(items.get("properties"), dict):
            out += _fields(doc, (*where, "items", "properties"), items["properties"], settings, top=False)
    return out


def _unknown(setting: str, settings: dict[str, Any]) -> str:
    near = difflib.get_close_matches(setting, list(settings), n=1)
    if near:
        return f"; did you mean `{near[0]}`?"
    return f"; the settings are {', '.join(settings)}" if settings else "; declare it under server.settings"


def _when(doc: Document, path: Path_, when: Any, settings: dict[str, Any]) -> list[Diagnostic]:
    if not isinstance(when, dict) or not isinstance(when.get("setting"), str):
        return []
    setting = when["setting"]
    if setting not in settings:
        message = f"`when:` names the setting `{setting}`, which server.settings does not declare"
        message += _unknown(setting, settings)
        return [doc.diagnostic((*path, "setting"), CODE, message)]
    keys = [key for key in ("equals", "not_equals") if key in when]
    if len(keys) != 1:
        said = "both `equals` and `not_equals`" if keys else "neither `equals` nor `not_equals`"
        message = f"`when:` has {said}; give one: `equals: VALUE` or `not_equals: VALUE`"
        return [doc.diagnostic(path, CODE, message)]
    spec = settings[setting] if isinstance(settings[setting], dict) else {}
    problem = f.fits(when[keys[0]], _field_of(spec))
    if problem is None:
        return []
    message = (
        f"`when:` compares the setting `{setting}` with {literal(when[keys[0]])}, a value it never takes: it takes "
        f"{f.accepts(_field_of(spec), with_example=False)}"
    )
    return [doc.diagnostic((*path, keys[0]), CODE, message)]


def _from_setting(doc: Document, where: Path_, spec: dict[str, Any], settings: dict[str, Any]) -> list[Diagnostic]:
    setting = spec["from_setting"]
    path = (*where, "from_setting")
    if setting not in settings:
        message = f"`from_setting` names `{setting}`, which server.settings does not declare"
        message += _unknown(setting, settings)
        return [doc.diagnostic(path, CODE, message)]
    found = settings[setting] if isinstance(settings[setting], dict) else {}
    if found.get("required") is True:
        message = (
            f"`from_setting: {setting}` names a required setting, which is always set, so the field would never be "
            f"published; drop the field and read ctx.settings.{setting} in the handler"
        )
        return [doc.diagnostic(path, CODE, message)]
    mine, theirs = f.json_type(spec), f.json_type(_field_of(found))
    if mine != theirs:
        message = f"`from_setting: {setting}` gives this {mine} field the setting's value, which is a {theirs}"
        return [doc.diagnostic(path, CODE, message)]
    return []


def _field_of(setting: dict[str, Any]) -> dict[str, Any]:
    """A setting's spec as a field's (what its value may be)."""
    return {k: v for k, v in setting.items() if k not in ("flag", "env", "secret", "required", "default_from")}


def holding(when: dict[str, Any], setting: dict[str, Any]) -> Any:
    """A value of the setting under which `when` holds (what a generated test builds its server with)."""
    if "equals" in when:
        return when["equals"]
    value = when.get("not_equals")
    field = _field_of(setting)
    candidates: list[Any] = [*field.get("enum", ()), f.make_example(field), setting.get("default")]
    if f.json_type(field) == "boolean":
        candidates.insert(0, not value)
    elif f.json_type(field) in ("integer", "number") and isinstance(value, int | float):
        candidates += [value + 1, value - 1]
    elif isinstance(value, str):
        candidates.append(value + "-other")
    return next((each for each in candidates if each != value and each is not None and f.conforms(each, field)), None)


def served_by_default(when: Any, settings: dict[str, Any]) -> bool:
    """Whether a definition with this `when:` is served with the example settings a generated test builds its server
    with (each setting's default, a required one's example, else unset)."""
    if not isinstance(when, dict) or when.get("setting") not in settings:
        return True
    spec = settings[when["setting"]] if isinstance(settings[when["setting"]], dict) else {}
    value = f.make_example(_field_of(spec)) if spec.get("required") else spec.get("default")
    return (value == when.get("equals")) if "equals" in when else (value != when.get("not_equals"))


def when_call(callee: str, when: dict[str, Any], settings: dict[str, Any]) -> tuple[str, list[str | Any]]:
    """`When(setting, value, ...)` as a call to lay out, with `callee` before its bracket (`WHEN = When`)."""
    equals = "equals" in when
    value = when["equals"] if equals else when.get("not_equals")
    arguments: list[Any] = [literal(when["setting"]), literal(value)]
    if not equals:
        arguments.append("equals=False")
        arguments.append(f"holding={literal(holding(when, settings.get(when['setting']) or {}))}")
    return (callee, arguments)


def when_line(when: Any, settings: dict[str, Any]) -> str:
    """`WHEN = When(...)`, laid out as `ruff format` does; empty without a `when:`."""
    if not isinstance(when, dict):
        return ""
    return "\n".join(call_lines(when_call("WHEN = When", when, settings), 0))


def fields_when_lines(inputs: dict[str, Any], settings: dict[str, Any]) -> str:
    """`FIELDS_WHEN: dict[str, When] = {...}` for the input fields with a `when:`; empty without any."""
    found = [(name, spec["when"]) for name, spec in inputs.items() if isinstance(spec, dict) and "when" in spec]
    if not found:
        return ""
    lines = ["FIELDS_WHEN: dict[str, When] = {"]
    for name, when in found:
        lines += call_lines(when_call(f"{literal(name)}: When", when, settings), 4, ",")
    return "\n".join([*lines, "}"])


def from_settings(inputs: dict[str, Any]) -> dict[str, str]:
    """Each input field with a `from_setting`, and the setting it takes its value from."""
    return {
        name: spec["from_setting"]
        for name, spec in inputs.items()
        if isinstance(spec, dict) and isinstance(spec.get("from_setting"), str)
    }


def shown(inputs: dict[str, Any]) -> dict[str, Any]:
    """The input fields every server publishes whatever its settings: those without `when:` or `from_setting`."""
    return {
        name: spec
        for name, spec in inputs.items()
        if not (isinstance(spec, dict) and ("when" in spec or "from_setting" in spec))
    }
