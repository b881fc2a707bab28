"""A declared failure of a tool, resource or prompt, with the message and envelope its generated test expects."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from ...pyliteral import (
    Call,
    assignment,
    call_lines,
    def_lines,
    docstring,
    literal,
    string,
)
from ...spec import messages
from ...spec.failures import (
    Param,
    example_values,
    failure_params,
    failure_template,
)
from ...spec.lint import verbatim_fields
from ...spec.naming import pascal
from .common import REFERENCE_MARK, with_reference


@dataclass(frozen=True)
class Failure:
    """A way a tool can fail, as the spec declares it."""

    name: str
    name_literal: str
    class_name: str
    failure_class: str
    class_literal: str
    template_line: str
    template_doc: str
    changed_literal: str | None
    verbatim_literal: str
    """`frozenset({...})` of the fields shown unscrubbed (`verbatim: true`), or empty when none is."""
    params: tuple[Param, ...]
    super_kwargs: str
    init_line: str
    super_line: str
    """`super().__init__(...)` with the failure's keyword arguments, laid out as `ruff format` does."""
    """The failure's `def __init__(...)` line(s), laid out as `ruff format` does."""
    example_kwargs: str
    test_arguments: str
    expected_line: str
    expected_envelope: str
    jsonrpc_code: int
    """The JSON-RPC error code of the failure where it has no `isError` channel (a resource's, a prompt's)."""


def _scope_envelope(scope: str) -> dict[str, Any]:
    envelope = {"class": "permission_denied", "failure": "scope", "retryable": False, "retry_after_s": None}
    return {**envelope, "changed": "none", "scope": scope}


def _batch_expectation(
    spec: dict[str, Any],
    name: str,
    batch: dict[str, str],
    effect: str,
    keyed: bool,
    template: str,
    arguments: dict[str, Any],
    values: dict[str, str],
    envelope: dict[str, Any],
) -> tuple[str, dict[str, Any]]:
    """What a batch tool answers when its handler raises this failure for every item."""
    items = arguments.get(batch["items"]) or []
    field = batch["items"]
    if batch["policy"] == "all_or_nothing":
        wording = messages.runtime("wording.wording")
        body = f"{template} {wording.all_or_nothing_text(field, len(items), None)}"
        retryable = messages.is_retryable(spec["class"], effect, keyed, changed="none")
        text = messages.compose(body, spec["class"], effect, values, "none", keyed)
        return text, {**envelope, "retryable": retryable, "changed": "none"}
    reasons = []
    for item in items:
        item_values = (
            {**values, **{k: messages.display(v) for k, v in item.items()}} if isinstance(item, dict) else values
        )
        reasons.append(template.format_map(messages.runtime("wording.wording").Values(item_values)))
    failed = [
        {"index": index, "class": spec["class"], "failure": name, "message": reason}
        for index, reason in enumerate(reasons)
    ]
    text = messages.runtime("wording.wording").batch_text(field, len(items), list(enumerate(reasons)))
    batch_envelope = {
        "class": spec["class"],
        "failure": "batch_failed",
        "retryable": messages.is_retryable(spec["class"], effect, keyed),
        "retry_after_s": None,
        "changed": "none",
        "failed": failed,
    }
    return str(text), batch_envelope


def _failure(
    name: str,
    spec: dict[str, Any],
    tool: str,
    tool_spec: dict[str, Any],
    inputs: dict[str, Any],
    example: dict[str, Any],
    defaults: dict[str, str],
) -> Failure:
    effect, keyed, batch = tool_spec["effect"], "idempotency_key" in inputs, tool_spec.get("batch")
    template = failure_template(spec, defaults)
    params = failure_params(spec["class"], spec.get("fields") or [], template)
    arguments, kwargs, values = example_values(template, params, tool, inputs, example)
    values["reference"] = REFERENCE_MARK
    changed = spec.get("changed")
    after = "rerun" if tool_spec.get("rerun_safe") else "refuse"  # a handler's `reconcile` is not known here
    idempotent = bool(tool_spec.get("idempotent"))
    expected = messages.compose(template, spec["class"], effect, values, changed, keyed, after, idempotent=idempotent)
    retryable = messages.is_retryable(
        spec["class"],
        effect,
        keyed,
        changed=changed or messages.default_changed(spec["class"], effect),
        after=after,
        idempotent=idempotent,
    )
    envelope: dict[str, Any] = {
        "class": spec["class"],
        "failure": name,
        "retryable": retryable,
        "retry_after_s": kwargs.get("retry_after_s"),
        "changed": changed or messages.default_changed(spec["class"], effect),
    }
    if spec["class"] == "permission_denied":
        envelope.update({key: values[key] for key in ("permission", "role") if key in kwargs})
    if batch:
        expected, envelope = _batch_expectation(spec, name, batch, effect, keyed, template, arguments, values, envelope)
    if not envelope["retryable"]:
        envelope["retry_after_s"] = None  # the runtime gives no wait for a retry that does not help
    forwarded = [p.name for p in params if p.name != "retry_after_s"]
    super_kwargs = ", ".join(
        (["retry_after_s=retry_after_s"] if any(p.name == "retry_after_s" for p in params) else [])
        + ["changed=changed"]
        + [f"{field}={field}" for field in forwarded]
    )
    super_arguments: list[str | Call] = [*super_kwargs.split(", ")]
    super_call: Call = ("super().__init__", super_arguments)
    init_parameters = [
        "self",
        "*",
        *(f"{p.name}: {p.annotation}" + (f" = {p.default}" if p.default is not None else "") for p in params),
        "changed: Changed | None = None",
    ]
    return Failure(
        name=name,
        name_literal=string(name),
        class_name=pascal(name),
        failure_class=spec["class"],
        class_literal=string(spec["class"]),
        template_line=assignment("template", string(template), 4),
        template_doc=docstring(template),
        changed_literal=string(changed) if changed else None,
        verbatim_literal=(
            "frozenset({" + ", ".join(string(n) for n in verbatim_fields(spec.get("fields") or [])) + "})"
            if verbatim_fields(spec.get("fields") or [])
            else ""
        ),
        params=params,
        super_kwargs=super_kwargs,
        init_line=def_lines("__init__", init_parameters, "None", 4),
        super_line="\n".join(call_lines(super_call, 8)),
        example_kwargs=", ".join(f"{k}={literal(v)}" for k, v in kwargs.items()),
        test_arguments=literal(arguments, 4),
        expected_line=assignment("expected", string(with_reference(expected)), 4),
        expected_envelope=literal(envelope, 4),
        jsonrpc_code=int(messages.runtime("wording.classes").JSONRPC_CODES[spec["class"]]),
    )
