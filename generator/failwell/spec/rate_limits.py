"""`rate_limit: {calls, per_s, per}`: a budget per caller (the server's, or a tool's), its `calls` a number or
`{settings.<name>}` (an integer setting read at start), and on a tool, with `per`, one budget per value of one of its
arguments (per host for a `format: uri` argument).

Lint refuses `calls` naming a setting that is not declared or not an integer (FW166), and a `per` on the server's
limit, or naming no top-level input argument of the tool, or one that is not a string, integer or boolean (FW167)."""

from __future__ import annotations

import re
from typing import Any

from ..errors import Diagnostic
from ..pyliteral import number, string
from .load import Document

SETTING = re.compile(r"^\{settings\.([a-z_][a-z0-9_]*)\}$")


def setting_of(calls: Any) -> str | None:
    """The setting `calls` is read from (`{settings.search_rpm}` -> `search_rpm`), or None for a number."""
    found = SETTING.match(calls) if isinstance(calls, str) else None
    return found.group(1) if found else None


def expression(spec: dict[str, Any] | None, inputs: dict[str, Any] | None = None) -> str:
    """The `RateLimit(...)` expression of a limit, or empty when there is none."""
    if not spec:
        return ""
    setting = setting_of(spec["calls"])
    arguments = [f"calls={0 if setting else int(spec['calls'])}", f"per_s={number(float(spec['per_s']))}"]
    per = spec.get("per")
    if per is not None:
        arguments.append(f"per={string(per)}")
        field = (inputs or {}).get(per)
        if isinstance(field, dict) and field.get("format") == "uri":
            arguments.append("per_host=True")
    if setting:
        arguments.append(f"calls_setting={string(setting)}")
    return f"RateLimit({', '.join(arguments)})"


def lint(
    doc: Document, path: tuple[str | int, ...], spec: Any, settings: Any, inputs: dict[str, Any] | None
) -> list[Diagnostic]:
    """FW166 for a `calls` setting that is not a declared integer setting; FW167 for a `per` that names no
    argument (or is on the server's limit, which no argument belongs to)."""
    out: list[Diagnostic] = []
    if not isinstance(spec, dict):
        return out
    setting = setting_of(spec.get("calls"))
    declared = settings if isinstance(settings, dict) else {}
    if setting is not None:
        found = declared.get(setting)
        kind = found.get("type") if isinstance(found, dict) else None
        if isinstance(found, dict) and kind is None and isinstance(found.get("enum"), list):
            kind = "integer" if all(type(v) is int for v in found["enum"]) else "enum"
        if found is None:
            known = ", ".join(declared) or "none are declared"
            message = f"`calls` reads the setting `{setting}`, which `server.settings` does not declare ({known})"
            out.append(doc.diagnostic((*path, "calls"), "FW166", message))
        elif kind != "integer":
            message = f"`calls` reads the setting `{setting}`, which is not an integer; give it `type: integer`"
            out.append(doc.diagnostic((*path, "calls"), "FW166", message))
    per = spec.get("per")
    if not isinstance(per, str):
        return out
    if inputs is None:
        message = "`per` applies to a tool's rate_limit (one budget per value of its argument); remove it here"
        out.append(doc.diagnostic((*path, "per"), "FW167", message, key=True))
        return out
    field = inputs.get(per)
    if not isinstance(field, dict):
        known = ", ".join(inputs) or "the tool takes none"
        message = f"`per` names `{per}`, which is not an argument of this tool ({known})"
        out.append(doc.diagnostic((*path, "per"), "FW167", message))
    elif field.get("type", "string" if "enum" in field else None) not in ("string", "integer", "boolean"):
        message = f"`per` names `{per}`, which is not a string, integer or boolean: its values cannot name a budget"
        out.append(doc.diagnostic((*path, "per"), "FW167", message))
    return out
