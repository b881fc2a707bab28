"""A tool's, resource's or prompt's declared failures, and a tool's `check_with`."""

from __future__ import annotations

from typing import Any

from ...errors import Diagnostic
from .. import messages
from ..naming import (
    RESERVED_FAILURE_FIELD_NAMES,
    RESERVED_FAILURE_NAMES,
    pascal,
)
from .common import _Linted, _name, _placeholders, builtin_placeholders, verbatim_fields


def _failures(
    doc: _Linted,
    out: list[Diagnostic],
    path: tuple[str, ...],
    failures: dict[str, Any],
    fields: dict[str, Any],
    defaults: dict[str, Any],
    nested_models: set[str],
    noun: str = "an input field",
    models: frozenset[str] = frozenset({"Input", "Output", "Item"}),
) -> None:
    """The failures of a tool, resource or prompt, whose messages may name `fields` (its inputs, params or
    arguments) and whose classes live in a module beside the `models` (`Input`, `Output` and `Item` for a tool,
    `Params` for a resource or prompt) and `nested_models`."""
    model_names = set(models) | nested_models
    for fname, failure in failures.items():
        fpath = (*path, "failures", fname)
        _name(doc, out, fpath, fname, "failure", RESERVED_FAILURE_NAMES, key=True)
        if pascal(fname) in model_names:
            message = (
                f"failure `{fname}` becomes class {pascal(fname)}, which a generated model already uses; rename it"
            )
            out.append(doc.diagnostic(fpath, "FW104", message, key=True))
        if (
            isinstance(failure, dict)
            and not doc.is_broken((*fpath, "message"))
            and (*fpath, "fields") not in doc.broken  # a field of a wrong type still declares its name
        ):
            _failure(doc, out, fpath, failure, fields, defaults, noun)


def _check_with(
    doc: _Linted, out: list[Diagnostic], path: tuple[str, ...], tool: dict[str, Any], tools: dict[str, Any]
) -> None:
    """`check_with` names a read tool of this spec: the model is told to call it."""
    name = tool.get("check_with")
    if not isinstance(name, str) or doc.is_broken((*path, "check_with")):
        return
    target = tools.get(name)
    if not isinstance(target, dict) or target.get("effect") != "read":
        reads = sorted(n for n, t in tools.items() if isinstance(t, dict) and t.get("effect") == "read")
        known = ", ".join(reads) or "none"
        message = f"check_with `{name}` is not a read tool of this spec; the read tools are: {known}"
        out.append(doc.diagnostic((*path, "check_with"), "FW139", message))


def _failure(
    doc: _Linted,
    out: list[Diagnostic],
    path: tuple[str, ...],
    failure: dict[str, Any],
    inputs: dict[str, Any],
    defaults: dict[str, Any],
    noun: str,
) -> None:
    declared = failure.get("fields", [])
    declared_names = [n for n in declared if isinstance(n, str)] if isinstance(declared, list | dict) else []
    for name in declared_names:
        _name(doc, out, (*path, "fields"), name, "failure field", RESERVED_FAILURE_FIELD_NAMES)
        if name in inputs:
            message = f"failure field `{name}` has the name of {noun}, whose value fills {{{name}}} already"
            out.append(doc.diagnostic((*path, "fields"), "FW104", message))
    for name in verbatim_fields(declared) if isinstance(declared, dict) else ():
        if messages.secret_named(name):
            message = (
                f"failure field `{name}` is shown verbatim but is named like a secret, so its value would reach the "
                "model unscrubbed; remove `verbatim: true`, or rename the field if it holds no secret"
            )
            out.append(doc.diagnostic((*path, "fields", name), "FW209", message, warning=True, key=True))
    failure_class = failure.get("class")
    template = failure.get("message")
    template_path: tuple[str | int, ...] = (*path, "message")
    if template is None and isinstance(failure_class, str):
        template = defaults.get(failure_class)
        if template is None:
            message = (
                f"this failure has no `message`, and `messages` gives none for class {failure_class}; "
                f"add `message:` here or `messages: {{{failure_class}: ...}}` at the top of the spec"
            )
            out.append(doc.diagnostic(path, "FW113", message, key=True))
            return
        template_path = ("messages", failure_class)
    if not isinstance(template, str):
        return
    known = [*inputs, *declared_names, *sorted(builtin_placeholders(str(failure_class)))]
    used = _placeholders(doc, out, template_path, template, known, noun)
    for name in declared_names:
        if used is not None and name not in used:
            message = f"declared field `{name}` is not used in the message; show it with {{{name}}} or remove it"
            out.append(doc.diagnostic((*path, "fields"), "FW111", message, warning=True))
