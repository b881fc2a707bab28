"""What a declared failure's message holds, as both the wording lint and the model need it: the failure's words
(`failure_template`), the keyword arguments a handler raises it with (`failure_params`), example values to show
it with (`example_values`), a keyed tool's `idempotency_key` input, and the words for a missing scope."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from . import fields as f
from . import messages
from .lint import placeholders

FIELD_TYPES = {"string": "str", "integer": "int", "number": "float", "boolean": "bool"}
"""The Python type of each scalar JSON type."""

_PARAM_EXAMPLES: dict[str, Any] = {"int": 3, "float": 2.5, "bool": True}
"""Example values for a failure's typed keyword arguments; a string reads `<name>`."""


@dataclass(frozen=True)
class Param:
    """A keyword argument of a declared failure."""

    name: str
    annotation: str
    default: str | None = None


IDEMPOTENCY_KEY = {
    "type": "string",
    "pattern": "^[A-Za-z0-9_.:-]{16,255}$",
    "description": (
        "A key you make up once for this change (16 to 255 letters, digits or _.:-, such as a UUID) and send "
        "again, unchanged, on every retry of the same change: the change is applied at most once per key."
    ),
    "example": "3f0c9b1e-7d2a-4c55-9e61-0a8f2b7c4d10",
}


def with_idempotency_key(spec: dict[str, Any]) -> dict[str, Any]:
    """The tool's input fields, plus `idempotency_key` when the tool declares idempotency."""
    inputs: dict[str, Any] = dict(spec.get("input") or {})
    mode = spec.get("idempotency", "none")
    if spec.get("effect") != "read" and mode in ("required", "optional"):
        inputs["idempotency_key"] = {**IDEMPOTENCY_KEY, "required": mode == "required"}
    return inputs


def scope_template(auth: dict[str, Any]) -> str:
    """The words for a token without a tool's scope: the spec's `server.auth.scope_message`, else the runtime's."""
    return " ".join(auth.get("scope_message", messages.scope_message()).split())


def scope_text(tool: str, effect: str, scope: str, template: str, reference: str = "{reference}") -> str:
    """What a caller whose token grants no scope reads from `tool` (with `{reference}` left in by default)."""
    values = {"tool": tool, "scope": scope, "granted": "none", "reference": reference}
    return messages.compose(template, "permission_denied", effect, values)


def failure_template(spec: dict[str, Any], defaults: dict[str, str]) -> str:
    """The failure's own message, else the server-wide one for its class."""
    return " ".join(str(spec.get("message") or defaults.get(spec["class"], "")).split())


def failure_spec_has_params(spec: dict[str, Any]) -> bool:
    """Whether a declared failure's class is raised with keyword arguments."""
    return bool(failure_params(spec["class"], spec.get("fields") or []))


def failure_params(failure_class: str, declared: list[str] | dict[str, Any], template: str = "") -> tuple[Param, ...]:
    """The keyword arguments a handler passes when it raises the failure. A permission_denied failure takes
    `permission` and `role`: required when its `fields` declare them or its words show them, else optional (a
    refusal by policy, such as a site's robots.txt, names no role, and its words then say none)."""
    if isinstance(declared, dict):
        kinds = {name: kind.get("type") if isinstance(kind, dict) else kind for name, kind in declared.items()}
    else:
        kinds = {field: None for field in declared}
    params = [Param(field, FIELD_TYPES[kind] if kind else "str | int | float") for field, kind in kinds.items()]
    if failure_class == "permission_denied":
        shown = set(placeholders(template)) if template else set()
        params += [
            Param(field, "str") if field in shown else Param(field, "str | None", "None")
            for field in ("permission", "role")
            if field not in kinds
        ]
    if failure_class == "rate_limited":
        params.append(Param("retry_after_s", "float"))
    if failure_class == "upstream_unavailable":
        params.append(Param("retry_after_s", "float | None", "None"))
    return tuple(params)


def example_values(
    template: str, params: tuple[Param, ...], tool: str, inputs: dict[str, Any], example: dict[str, Any]
) -> tuple[dict[str, Any], dict[str, Any], dict[str, str]]:
    """(arguments for the call, keyword arguments for the failure, placeholder values) made up for examples."""
    kwargs: dict[str, Any] = {}
    for param in params:
        if param.name in ("permission", "role") and param.default is not None:
            continue  # optional: the example shows the words without the role sentence
        if param.name != "retry_after_s":
            kwargs[param.name] = _PARAM_EXAMPLES.get(param.annotation, f"<{param.name}>")
        elif param.default is None:
            kwargs[param.name] = 30
    arguments = dict(example)
    for placeholder in placeholders(template):
        if placeholder in inputs and placeholder not in arguments:
            arguments[placeholder] = f.make_example(inputs[placeholder])
    values = {key: messages.display(value) for key, value in arguments.items()}
    values.update({key: messages.scrub(messages.display(value)) for key, value in kwargs.items()})
    values.update(tool=tool, reference="{reference}")
    return arguments, kwargs, values
