"""`default_from: hook` on a setting (issue 40, point 4): its default is computed at start (the local time zone, a
folder found on this machine) by `def default_<name>() -> <type>:` in the project's `handlers/settings.py`, created
once and then the person's; called only when the setting is given neither as a flag nor as a variable. Lint (FW193)
refuses it beside a `default:` or `required: true` (either makes the hook dead), and on a server with a tool named
`settings` (whose handler is `handlers/settings.py` too)."""

from __future__ import annotations

from typing import Any

from ..errors import Diagnostic
from . import fields as f
from .load import Document

CODE = "FW193"

PYTHON_TYPES = {"string": "str", "integer": "int", "number": "float", "boolean": "bool"}
"""A hook's return annotation, by the setting's JSON type."""


def hooked(settings: dict[str, Any]) -> list[tuple[str, str]]:
    """Each setting whose default a hook computes, with the Python type its hook returns."""
    return [
        (name, PYTHON_TYPES.get(f.json_type(spec), "str"))
        for name, spec in settings.items()
        if isinstance(spec, dict) and spec.get("default_from") == "hook"
    ]


def lint(doc: Document, settings: dict[str, Any]) -> list[Diagnostic]:
    """FW193: a hook that could never be called, or whose module a tool's handler takes."""
    out: list[Diagnostic] = []
    tools = doc.data.get("tools") if isinstance(doc.data.get("tools"), dict) else {}
    for name, spec in settings.items():
        if not isinstance(spec, dict) or spec.get("default_from") != "hook":
            continue
        path = ("server", "settings", name, "default_from")
        for key, why in (("default", "has a `default:`"), ("required", "is required")):
            if key in spec and (key != "required" or spec[key] is True):
                message = f"setting `{name}` {why}, so its `default_from: hook` would never be called; drop one of them"
                out.append(doc.diagnostic(path, CODE, message))
        if isinstance(tools, dict) and "settings" in tools:
            message = (
                f"setting `{name}` takes its default from handlers/settings.py, which is the handler of the tool "
                "`settings` too; rename the tool"
            )
            out.append(doc.diagnostic(path, CODE, message))
    return out
