"""A tool's `description` and `effect` chosen by a setting (issue 40, point 4): `{by_setting: NAME, values: {VALUE:
...}, default: ...}`, chosen once at start from the resolved settings, where `when:` is decided. The annotations
follow the chosen effect, and so does what the effect drives at run time (retries, the `changed` of a failure, its
wording). Lint (FW187) refuses a setting not declared, a value the setting never takes, values that leave some of the
setting's values without one and no `default:`, and an effect whose variants mix `read` with a write unless the tool
says `idempotency: none` (an idempotency key cannot come and go with a setting). `flat` gives the rest of the pipeline
the plain spec it knows: each chosen key the variant under the example settings (what generated tests build their
server with), every variant kept under `_by_setting`. The runtime side is `runtime/setup/chosen.py`'s `BySetting`."""

from __future__ import annotations

from typing import Any

from ..errors import Diagnostic
from ..pyliteral import literal
from . import fields as f
from .chosen import CODE, _field_of, _unknown, settings_of
from .load import Document

KEYS = ("description", "effect")
KEPT = "_by_setting"
"""Where `flat` keeps each chosen key's `{by_setting, values, default}` in a tool's spec."""


def is_chosen(value: Any) -> bool:
    """Whether a `description` or `effect` is `{by_setting: NAME, values: {...}}`."""
    return (
        isinstance(value, dict) and isinstance(value.get("by_setting"), str) and isinstance(value.get("values"), dict)
    )


def example_value(setting: dict[str, Any]) -> Any:
    """The value a setting has in the example settings a generated test builds its server with."""
    return f.make_example(_field_of(setting)) if setting.get("required") else setting.get("default")


def pick(chosen: dict[str, Any], value: Any) -> Any:
    """The variant for the setting's `value`: its own, else the `default:`, else the first."""
    values = chosen["values"]
    if value in values:
        return values[value]
    if isinstance(value, bool) is False and str(value) in values:
        return values[str(value)]
    return chosen["default"] if "default" in chosen else next(iter(values.values()))


def flat(data: dict[str, Any]) -> dict[str, Any]:
    """`data` with each tool's chosen `description` and `effect` as the variant under the example settings; the
    chosen forms kept under `_by_setting` (copied only where there is one)."""
    tools = data.get("tools")
    if not isinstance(tools, dict) or not any(
        isinstance(t, dict) and any(is_chosen(t.get(k)) for k in KEYS) for t in tools.values()
    ):
        return data
    settings = settings_of(data)
    out: dict[str, Any] = {}
    for name, tool in tools.items():
        found = {k: tool[k] for k in KEYS if isinstance(tool, dict) and is_chosen(tool.get(k))}
        if not found:
            out[name] = tool
            continue
        copy = {**tool, KEPT: found}
        for key, chosen in found.items():
            setting = settings.get(chosen["by_setting"])
            value = example_value(setting) if isinstance(setting, dict) else None
            copy[key] = pick(chosen, value)
        out[name] = copy
    return {**data, "tools": out}


def lint(doc: Document, is_broken: Any) -> list[Diagnostic]:
    """FW187: each chosen `description` and `effect` checked against `server.settings`."""
    out: list[Diagnostic] = []
    settings = settings_of(doc.data)
    tools = doc.data.get("tools") if isinstance(doc.data.get("tools"), dict) else {}
    assert isinstance(tools, dict)
    for name, tool in tools.items():
        if not isinstance(tool, dict):
            continue
        for key in KEYS:
            path = ("tools", name, key)
            if is_chosen(tool.get(key)) and not is_broken(path):
                out += _chosen(doc, path, tool[key], settings)
        effect: Any = tool.get("effect")
        if is_chosen(effect) and not is_broken(("tools", name, "effect")):
            variants = {*effect["values"].values(), *([effect["default"]] if "default" in effect else [])}
            if "read" in variants and len(variants) > 1 and tool.get("idempotency") != "none":
                message = (
                    f"the effect chosen by `{effect['by_setting']}` is read for some values and "
                    f"{' or '.join(sorted(variants - {'read'}))} for others, so an idempotency key would come and go "
                    "with the setting; add `idempotency: none` and an `idempotency_reason:` (the write variant is "
                    "then never retried), or give every variant a write effect"
                )
                out.append(doc.diagnostic(("tools", name, "effect", "by_setting"), CODE, message))
    return out


def _chosen(
    doc: Document, path: tuple[str | int, ...], chosen: dict[str, Any], settings: dict[str, Any]
) -> list[Diagnostic]:
    setting = chosen["by_setting"]
    if setting not in settings:
        message = f"`by_setting` names the setting `{setting}`, which server.settings does not declare"
        return [doc.diagnostic((*path, "by_setting"), CODE, message + _unknown(setting, settings))]
    spec = settings[setting] if isinstance(settings[setting], dict) else {}
    field = _field_of(spec)
    out: list[Diagnostic] = []
    for value in chosen["values"]:
        if f.fits(value, field) is not None and f.fits(_typed(value, field), field) is not None:
            message = (
                f"`values` gives {literal(value)}, a value the setting `{setting}` never takes: it takes "
                f"{f.accepts(field, with_example=False)}"
            )
            out.append(doc.diagnostic((*path, "values", value), CODE, message, key=True))
    if "default" not in chosen:
        given = {_typed(value, field) for value in chosen["values"]}
        every = _every(spec)
        missing = None if every is None else [each for each in every if each not in given]
        if missing is None or missing:
            said = (
                f"leaves {', '.join(literal(each) for each in missing)} without one"
                if missing
                else f"cannot name every value the setting `{setting}` takes"
            )
            message = f"`values` {said}; add `default:` (what the other values, and the setting unset, choose)"
            out.append(doc.diagnostic(path, CODE, message))
    return out


def _typed(value: Any, field: dict[str, Any]) -> Any:
    """A `values` key as the setting's type (YAML keys of an integer setting may be written quoted)."""
    kind = f.json_type(field)
    if isinstance(value, str) and kind in ("integer", "number"):
        try:
            return int(value) if kind == "integer" else float(value)
        except ValueError:
            return value
    if isinstance(value, str) and kind == "boolean" and value in ("true", "false"):
        return value == "true"
    return value


def _every(setting: dict[str, Any]) -> list[Any] | None:
    """Every value a setting can have at start (None among them when it can be unset), or None when they are too
    many to list."""
    field = _field_of(setting)
    unset = [] if setting.get("required") or "default" in setting or setting.get("default_from") else [None]
    if isinstance(field.get("enum"), list):
        return [*field["enum"], *unset]
    if f.json_type(field) == "boolean":
        return [True, False, *unset]
    return None
