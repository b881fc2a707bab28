"""One tool: its fields, failures, questions, content and text."""

from __future__ import annotations

from typing import Any

from ...errors import Diagnostic
from .. import aliases, listing, schemas
from .asks import _asks, _confirm
from .common import _deadline, _Linted, _nested_names, _placeholders, placeholders
from .failures import _failures
from .fields import _fields


def _tool(
    doc: _Linted,
    out: list[Diagnostic],
    path: tuple[str, ...],
    tool: dict[str, Any],
    timeout: float,
    defaults: dict[str, Any],
) -> None:
    if tool.get("task") not in ("optional", "required"):
        _deadline(doc, out, path, tool, timeout)  # a task's creation answers at once: only it must beat the timeout
    effect, mode = tool.get("effect"), tool.get("idempotency")
    idempotent = tool.get("idempotent") is True
    if effect in ("write", "destructive") and mode is None and not idempotent:
        message = (
            f"a {effect} tool must say how a retry is kept from applying it twice: `idempotency: required` "
            "(adds an idempotency_key argument), `optional`, `none` with an `idempotency_reason`, or `idempotent: "
            "true` when repeating it changes nothing more"
        )
        out.append(doc.diagnostic((*path, "effect"), "FW126", message))
    if mode == "none" and effect != "read" and not tool.get("idempotency_reason") and not idempotent:
        message = "`idempotency: none` needs an `idempotency_reason`, such as why a repeat cannot change anything twice"
        out.append(doc.diagnostic((*path, "idempotency"), "FW127", message))
    if effect == "read" and mode in ("required", "optional"):
        message = "`idempotency` applies to write and destructive tools; a read changes nothing, so remove it"
        out.append(doc.diagnostic((*path, "idempotency"), "FW128", message))
    keyed = effect in ("write", "destructive") and mode in ("required", "optional")
    if idempotent and (effect == "read" or keyed):
        why = (
            "a read is idempotent already" if effect == "read" else "a write with an idempotency key is retried safely"
        )
        message = f"`idempotent: true` is for a write without an idempotency key; {why}, so remove it"
        out.append(doc.diagnostic((*path, "idempotent"), "FW145", message))
    elif idempotent and effect == "destructive" and not tool.get("idempotency_reason"):
        message = (
            "`idempotent: true` on a destructive tool needs an `idempotency_reason`: why deleting twice changes "
            "nothing more than deleting once"
        )
        out.append(doc.diagnostic((*path, "idempotent"), "FW146", message))
    for option in ("rerun_safe", "check_with"):
        if option in tool and not keyed:
            message = (
                f"`{option}` applies to a write with an idempotency key (`idempotency: required` or `optional`); "
                "add the key or remove it"
            )
            out.append(doc.diagnostic((*path, option), "FW138", message))
    _text(doc, out, path, tool)
    _content(doc, out, path, tool)
    inputs = tool.get("input") if isinstance(tool.get("input"), dict) else {}
    assert isinstance(inputs, dict)
    _confirm(doc, out, path, tool, [*inputs, *(["idempotency_key"] if keyed else [])])
    _asks(doc, out, path, tool.get("asks"), batch=tool.get("batch") is not None, task=tool.get("task") is not None)
    for section in ("input", "output"):
        fields = tool.get(section)
        if isinstance(fields, dict):
            _fields(doc, out, (*path, section), fields)
            out.extend(schemas.defs_conflicts(doc, (*path, section), fields))
    out.extend(aliases.claims(doc, (*path, "input"), inputs, keyed))
    out.extend(listing.lint(doc, path, tool))
    failures = tool.get("failures")
    if not isinstance(failures, dict):
        return
    batch = tool.get("batch")
    item_fields: list[str] = []
    if isinstance(batch, dict) and isinstance(batch.get("items"), str):
        field = inputs.get(batch["items"])
        if not (isinstance(field, dict) and field.get("type") == "array"):
            message = f"batch items `{batch['items']}` must name an input field of type array; the items go in it"
            out.append(doc.diagnostic((*path, "batch", "items"), "FW129", message))
        elif isinstance(field.get("items"), dict) and isinstance(field["items"].get("properties"), dict):
            item_fields = list(field["items"]["properties"])
    known = {**inputs, **{key: {} for key in item_fields}}
    _failures(doc, out, path, failures, known, defaults, _nested_names("Input", inputs))


_CONTENT_PLACEHOLDERS = ("size", "max_bytes", "tool", "reference")
"""What a tool's `content.too_large` may name besides its inputs."""


def _content(doc: _Linted, out: list[Diagnostic], path: tuple[str, ...], tool: dict[str, Any]) -> None:
    """A tool's `content`: not on a batch tool (its items answer one by one); each `mime_types` entry carried by a
    declared kind (image/... by image, audio/... by audio, anything by resource or resource_link); the `too_large`
    message a template over the inputs, `{size}` and `{max_bytes}`."""
    content = tool.get("content")
    cpath = (*path, "content")
    if not isinstance(content, dict) or doc.is_broken(cpath, below=False):
        return
    if tool.get("batch") is not None:
        message = "`content` is for a tool that answers once; a batch tool answers per item, so remove one of them"
        out.append(doc.diagnostic(cpath, "FW185", message, key=True))
    kinds = content.get("kinds")
    mime_types = content.get("mime_types")
    if isinstance(kinds, list) and isinstance(mime_types, list) and not doc.is_broken((*cpath, "mime_types")):
        for index, mime in enumerate(mime_types):
            if not isinstance(mime, str):
                continue
            family = mime.split("/", 1)[0].lower()
            carried = (
                "resource" in kinds or "resource_link" in kinds or (family in ("image", "audio") and family in kinds)
            )
            if not carried:
                wanted = family if family in ("image", "audio") else "resource or resource_link"
                message = (
                    f"`content.mime_types` lists {mime}, which none of the declared kinds "
                    f"({', '.join(map(str, kinds))}) can carry; add {wanted} to `kinds` or remove it"
                )
                out.append(doc.diagnostic((*cpath, "mime_types", index), "FW185", message))
    template = content.get("too_large")
    if isinstance(template, str) and not doc.is_broken((*cpath, "too_large")):
        inputs = list(tool.get("input") or {}) if isinstance(tool.get("input"), dict) else []
        if tool.get("effect") != "read" and tool.get("idempotency") in ("required", "optional"):
            inputs.append("idempotency_key")
        _placeholders(doc, out, (*cpath, "too_large"), template, [*inputs, *_CONTENT_PLACEHOLDERS])


def _text(doc: _Linted, out: list[Diagnostic], path: tuple[str, ...], tool: dict[str, Any]) -> None:
    """A tool's `text` is a template over its output's fields."""
    text, outputs = tool.get("text"), tool.get("output")
    if not isinstance(text, str):
        return
    if not isinstance(outputs, dict) or tool.get("batch") is not None:
        message = "`text` is a template over the output's fields: declare an `output` (a batch tool cannot have it)"
        out.append(doc.diagnostic((*path, "text"), "FW147", message))
        return
    try:
        names = placeholders(text)
    except ValueError as problem:
        out.append(doc.diagnostic((*path, "text"), "FW147", f"text template: {problem}"))
        return
    for name in names:
        if name not in outputs:
            known = ", ".join(f"{{{field}}}" for field in outputs) or "none"
            message = f"text template: {{{name}}} is not an output field; use one of: {known}"
            out.append(doc.diagnostic((*path, "text"), "FW147", message))
