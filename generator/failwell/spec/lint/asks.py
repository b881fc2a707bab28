"""What a handler may ask (`asks:`) and a tool's confirmation (`confirm:`)."""

from __future__ import annotations

import difflib
from typing import Any

from ...errors import Diagnostic
from .. import fields as f
from .. import messages
from .common import _Linted, placeholders


def _confirm(
    doc: _Linted, out: list[Diagnostic], path: tuple[str, ...], tool: dict[str, Any], inputs: list[str]
) -> None:
    """A tool's `confirm` is for a write, and its messages are templates over the tool's arguments."""
    confirm = tool.get("confirm")
    if not isinstance(confirm, dict):
        return
    if tool.get("effect") == "read":
        message = (
            "`confirm` asks the person before a change, and a read changes nothing; remove it, or make the tool a "
            "write or destructive one"
        )
        out.append(doc.diagnostic((*path, "confirm"), "FW148", message, key=True))
    for key in ("message", "declined", "unavailable"):
        template = confirm.get(key)
        if not isinstance(template, str):
            continue
        try:
            used = placeholders(template)
        except ValueError as exc:
            out.append(doc.diagnostic((*path, "confirm", key), "FW112", f"message template: {exc}"))
            continue
        for name in used:
            if name not in inputs and name != "tool":
                close = difflib.get_close_matches(name, inputs, n=1)
                hint = f" (did you mean {{{close[0]}}}?)" if close else ""
                message = (
                    f"placeholder {{{name}}} in `confirm.{key}` is not an argument of this tool{hint}; use one of: "
                    + ", ".join(f"{{{argument}}}" for argument in ["tool", *inputs])
                )
                out.append(doc.diagnostic((*path, "confirm", key), "FW149", message))


_FORM_TYPES = ("string", "number", "integer", "boolean")
"""What a form's field may be: elicitation asks for a flat object of primitives."""


def _asks(
    doc: _Linted, out: list[Diagnostic], path: tuple[str, ...], asks: Any, batch: bool = False, task: bool = False
) -> None:
    """Questions: not from a batch tool; a form's fields flat primitives, none a secret; its message well formed;
    `before_task` only on a task tool."""
    if not isinstance(asks, dict):
        return
    if batch:
        message = "a batch tool cannot ask while it runs (its items are handled one by one); remove `asks`"
        out.append(doc.diagnostic((*path, "asks"), "FW183", message, key=True))
    for name, ask in asks.items():
        if isinstance(ask, dict) and ask.get("before_task") is True and not task:
            message = (
                f"`before_task` on `{name}`, which is not a task tool's question (only a tool with `task:` makes a "
                "task to ask before); remove `before_task`, or give the tool `task: optional` or `task: required`"
            )
            out.append(doc.diagnostic((*path, "asks", name, "before_task"), "FW161", message, key=True))
        if not isinstance(ask, dict) or not isinstance(ask.get("fields"), dict):
            continue
        apath = (*path, "asks", name)
        template = ask.get("message")
        if isinstance(template, str):
            try:
                placeholders(template)
            except ValueError as exc:
                out.append(doc.diagnostic((*apath, "message"), "FW112", f"message template: {exc}"))
        for field, spec in ask["fields"].items():
            fpath = (*apath, "fields", field)
            if not isinstance(spec, dict) or doc.is_broken(fpath, below=False):
                continue
            kind = f.json_type(spec)
            if (
                kind not in _FORM_TYPES
                or spec.get("nullable")
                or ("format" in spec and spec["format"] not in _FORM_FORMATS)
            ):
                message = (
                    f"form field `{field}` is {'nullable' if spec.get('nullable') else kind}; a form asks for flat "
                    "values: a string (with pattern, length, or the format email, uri, date or date-time), a number, "
                    "an integer, a boolean or an enum"
                )
                out.append(doc.diagnostic(fpath, "FW183", message, key=True))
            if messages.secret_named(field):
                message = (
                    f"form field `{field}` is named like a secret; a form must not ask the person for a password, a "
                    "token or a key (the client shows and keeps what they type); use the server's settings or OAuth"
                )
                out.append(doc.diagnostic(fpath, "FW184", message, key=True))


_FORM_FORMATS = ("email", "uri", "date", "date-time")
"""The string formats an elicitation form's schema allows."""
