"""One tool and everything its generated modules print."""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from ...pyliteral import (
    assignment,
    call_lines,
    docstring,
    fitted,
    inline,
    literal,
    markdown_code,
    string,
)
from ...spec import aliases, by_setting, chosen, listing, messages, schemas
from ...spec import fields as f
from ...spec.failures import (
    failure_spec_has_params,
    scope_text,
    with_idempotency_key,
)
from ...spec.lint import default_deadline
from ...spec.naming import python_name
from .asks import Asking, _confirm_asked_line, asking, confirm_lines
from .common import REFERENCE_MARK, _rate_limit, _registration, with_reference
from .content import NO_TEXT, _content, _text_line
from .failures import Failure, _failure, _scope_envelope
from .schemas import _checks_lines, _item_annotation, _output_schema, _wrong_argument

_ANNOTATIONS = {
    "read": {"readOnlyHint": True, "destructiveHint": False, "idempotentHint": True, "openWorldHint": False},
    "write": {"readOnlyHint": False, "destructiveHint": False, "idempotentHint": False, "openWorldHint": False},
    "destructive": {"readOnlyHint": False, "destructiveHint": True, "idempotentHint": False, "openWorldHint": False},
}


@dataclass(frozen=True)
class Tool:
    """One tool and everything its generated modules print."""

    name: str
    name_literal: str
    title_literal: str
    description: str
    description_literal: str
    description_doc: str
    effect: str
    effect_literal: str
    deadline_s: float
    input_models: tuple[f.ModelClass, ...]
    output_models: tuple[f.ModelClass, ...]
    output_extra: str
    """The type of each further key `Output` takes (a map: `schema_root.output.additionalProperties` as a
    schema), checked; empty: its fields only."""
    has_output: bool
    input_schema: str
    output_schema: str
    annotations: str
    extra_arguments: bool
    refused_in_tests: bool
    """Whether a generated error test refuses a call before its handler (`never_called`): a field to get wrong,
    a closed input, or a scope."""
    execution: str
    accepts: str
    failures: tuple[Failure, ...]
    uses_literal: bool
    failures_with_params: bool
    """Whether a declared failure has keyword arguments (its `__init__` then takes `changed` too)."""
    uses_annotated: bool
    uses_field: bool
    """Whether the module imports pydantic's `Field` (a constraint, or an argument published by another name)."""
    uses_formats: bool
    """Whether a field has a string `format`, checked by the runtime's `formats`."""
    uses_alias_choices: bool
    """Whether an output field is published by another name (`addedObservations` for `added_observations`)."""
    checks_lines: str
    """`_CHECKS = Checks(...)` and its constants: the `schema:` fields the runtime checks (empty without one)."""
    example_arguments: str
    example_arguments_indented: str
    missing_field: str | None
    missing_field_literal: str
    missing_accepts_line: str
    wrong_field: str
    wrong_field_literal: str
    wrong_value: str
    wrong_value_json_line: str
    wrong_accepts_line: str
    outside_field: str | None
    outside_field_literal: str
    outside_value_line: str
    outside_expected_line: str
    upstreams: tuple[str, ...]
    upstream_env: str
    uses: tuple[str, ...]
    """The dependencies its handler uses (`ctx.deps.<name>`)."""
    keyed: bool
    retried: bool
    not_retried_line: str
    """`why = "..."`: why the generated test expects no retry of its upstream call (when `retried` is false)."""
    rate_limit: str
    scopes: tuple[str, ...]
    scopes_line: str
    scopes_list: str
    scope_expected_line: str
    scope_envelope: str
    batch_items: str | None
    batch_policy: str | None
    item_annotation: str
    output_example: str
    reconcilable: bool
    """A keyed write that is not a batch: its handler module may define `reconcile`."""
    rerun_safe: bool
    task: str
    """The spec's `task` (`optional` or `required`: it runs as a task for a client that declares the extension);
    empty when it always runs inline."""
    text_line: str
    """`text=...,` in the definition: the spec's `text` template over the output's fields (empty: none)."""
    idempotent: bool
    """A write without a key that the spec says is naturally idempotent: published so, and retried as safe."""
    check_with_literal: str
    broken_changed_literal: str
    """The envelope's `changed` when the tool breaks mid-way (a crash, a missed deadline, a failing upstream)."""
    registration: str
    """The tool's entry in `build_server`'s list, laid out as ruff formats it."""
    context_type: str = "ToolContext[None]"
    """The handler's `Context`: `ToolContext[upstreams, deps, settings, asks]`, each argument only as far as needed."""
    asking: Asking = Asking()
    confirm_lines: str = ""
    """`confirm=Confirm(...),` in its definition (the spec's `confirm:`)."""
    confirm_message: str = ""
    confirm_asked_line: str = ""
    """`asked = "..."`: the confirmation's message filled with the example arguments, for the generated tests."""
    confirm_refuses: bool = True
    """Whether a client that cannot ask is refused (`without_elicitation: refuse`), else the tool runs."""
    confirm_expires_s: float = 300.0
    content_lines: str = ""
    """`CONTENT = ContentPolicy(...)`: the spec's `content` (empty: none), laid out as ruff formats it."""
    content_kinds: tuple[str, ...] = ()
    """The kinds of block its handler may return (the spec's `content.kinds`)."""
    content_tests: tuple[tuple[str, str], ...] = ()
    """For the generated tests: (kind, a block of it that the tool accepts, as Python source)."""
    too_large_block: str = ""
    """A block over the tool's budget, as Python source, for the generated test of `too_large`."""
    content_max_bytes: int = 0
    name_markdown: str = ""
    """Its name as the README's table prints it (`markdown_code`)."""
    has_text_block: bool = True
    """Whether a success result carries a text block (false for the spec's `text: none`: structured content only)."""
    aliases: str = ""
    """`{alias: name}`: other names its arguments are accepted by, renamed before checking (empty: none)."""
    when_line: str = ""
    """`WHEN = When(...)`: served only when its `when:` holds for the settings (empty: always)."""
    fields_when_lines: str = ""
    """`FIELDS_WHEN = {...}`: the input fields taken only when their `when:` holds (empty: none)."""
    from_setting_line: str = ""
    """`FROM_SETTING = {...}`: the input fields given a setting's value when it is set (empty: none)."""
    by_setting_lines: str = ""
    """`DESCRIPTION_BY`/`EFFECT_BY = BySetting(...)`: the description or effect a setting chooses (empty: none)."""

    @property
    def has_content(self) -> bool:
        return bool(self.content_kinds)

    @property
    def may_word_its_text(self) -> bool:
        """Whether its handler may return `WithText(output, text)`: a tool with output, without content or a batch."""
        return self.has_output and not self.has_content and self.batch_policy is None and self.has_text_block


def _tool(
    name: str,
    spec: dict[str, Any],
    timeout: float,
    defaults: dict[str, str],
    upstream_envs: dict[str, str],
    scope_message: str,
    upstream_retries: dict[str, int] | None = None,
    open_world_dependencies: frozenset[str] = frozenset(),
    settings: dict[str, Any] | None = None,
) -> Tool:
    inputs = with_idempotency_key(spec)
    retries_of_first = (upstream_retries or {}).get((spec.get("upstreams") or [""])[0], 2)
    outputs: dict[str, Any] | None = spec.get("output")
    batch: dict[str, str] | None = spec.get("batch")
    scopes: list[str] = list(spec.get("scopes") or ())
    first_scope = scopes[0] if scopes else ""
    py = python_name(name)
    idempotent = spec["effect"] != "read" and spec.get("idempotent") is True and "idempotency_key" not in inputs
    checks: list[dict[str, Any]] = []
    input_models = tuple(f.models("Input", inputs, published=True, checks=checks))
    output_models = (
        tuple(f.models("Output", outputs, published=True, output=True, checks=checks)) if outputs is not None else ()
    )
    output_extra = ""  # a map: the type of each further key of its root, checked against its schema
    if output_models and (further := listing.further_keys(spec)) is not None:
        checks.append(further)
        output_extra = f"Annotated[{schemas.annotation(further)}, _CHECKS.check({len(checks) - 1})]"
    annotations = f.annotation_code((*input_models, *output_models)) + output_extra
    example = f.example_arguments(inputs)
    wrong_field, wrong_value = _wrong_argument(chosen.shown(inputs))
    missing_field = next((n for n, s in inputs.items() if f.is_required(s)), None)
    outside = [(n, f.violation(s)) for n, s in chosen.shown(inputs).items()]
    outside_field, (_, outside_value) = next(((n, v) for n, v in outside if v[0]), (None, (False, None)))
    asked = asking(spec)

    def annotations_of(effect: str) -> dict[str, Any]:
        """The annotations a tool of `effect` publishes (only the hints `annotations.hints` names, on a port)."""
        return listing.published_annotations(
            spec,
            {
                **_ANNOTATIONS[effect],
                **({"idempotentHint": True} if spec.get("idempotency") == "required" or idempotent else {}),
                "openWorldHint": bool(
                    spec.get(
                        "open_world",
                        bool(spec.get("upstreams")) or bool(open_world_dependencies & set(spec.get("uses") or ())),
                    )
                ),
            },
        )

    return Tool(
        name=py,
        name_literal=string(name),
        name_markdown=markdown_code(name, table=True),
        title_literal=string(spec["title"]) if "title" in spec else "None",
        description=spec["description"].strip(),
        description_literal=string(listing.description(spec)),
        description_doc=docstring(spec["description"]),
        effect=spec["effect"],
        effect_literal=string(spec["effect"]),
        deadline_s=float(spec.get("deadline_s", default_deadline(timeout))),
        input_models=input_models,
        output_models=output_models,
        output_extra=output_extra,
        has_output=outputs is not None,
        batch_items=batch["items"] if batch else None,
        batch_policy=batch["policy"] if batch else None,
        item_annotation=_item_annotation(inputs[batch["items"]], batch["items"]) if batch else "",
        input_schema=literal(
            listing.dialect(spec, f.published_schema(inputs, closed=spec.get("extra_arguments") != "allow"), "input")
        ),
        output_schema=literal(listing.dialect(spec, _output_schema(spec, outputs), "output"))
        if outputs is not None or batch
        else "None",
        annotations=literal(annotations_of(spec["effect"]), 8),
        by_setting_lines=_by_setting_lines(spec, settings or {}, annotations_of),
        extra_arguments=spec.get("extra_arguments") == "allow",
        refused_in_tests=bool(
            missing_field or wrong_field or outside_field or spec.get("extra_arguments") != "allow" or scopes
        ),
        execution=literal(spec["execution"], 8) if spec.get("execution") else "",
        accepts=literal(f.accepts_table(inputs)),
        aliases=literal(renamed) if (renamed := aliases.renames(spec.get("input") or {})) else "",
        when_line=chosen.when_line(spec.get("when"), settings or {}),
        fields_when_lines=chosen.fields_when_lines(spec.get("input") or {}, settings or {}),
        from_setting_line=assignment("FROM_SETTING: dict[str, str]", literal(given), 0)
        if (given := chosen.from_settings(spec.get("input") or {}))
        else "",
        failures=tuple(
            _failure(failure, failure_spec, name, spec, inputs, example, defaults)
            for failure, failure_spec in (spec.get("failures") or {}).items()
        ),
        uses_literal="Literal[" in annotations or asked.uses_literal,
        failures_with_params=any(failure_spec_has_params(f) for f in (spec.get("failures") or {}).values()),
        uses_annotated="Annotated[" in annotations or asked.uses_annotated,
        uses_field="Field(" in annotations
        or any(m.alias for model in (*input_models, *output_models) for m in model.fields)
        or bool(output_extra)
        or asked.uses_field,
        uses_alias_choices=any(m.alias for model in output_models for m in model.fields),
        checks_lines=_checks_lines(checks),
        uses_formats="_formats.check(" in annotations or asked.uses_formats,
        example_arguments=literal(example),
        example_arguments_indented=literal(example, 4),
        missing_field=missing_field,
        missing_field_literal=string(missing_field or ""),
        missing_accepts_line=assignment(
            "accepts", string(f.accepts(inputs[missing_field]) if missing_field else ""), 4
        ),
        wrong_field=wrong_field,
        wrong_field_literal=string(wrong_field),
        wrong_value=inline(wrong_value),
        wrong_value_json_line=assignment("shown", string(json.dumps(wrong_value)), 4),
        wrong_accepts_line=assignment("accepts", string(f.accepts(inputs[wrong_field]) if wrong_field else ""), 4),
        outside_field=outside_field,
        outside_field_literal=string(outside_field or ""),
        outside_value_line=(
            fitted("value: Any = ", outside_value, "", 4)
            if isinstance(outside_value, list)
            else assignment("value: Any", inline(outside_value), 4)
        ),
        outside_expected_line=assignment(
            "expected", string(f"`{outside_field}` received {messages.shown(outside_value)}"), 4
        ),
        upstreams=tuple(spec.get("upstreams") or ()),
        uses=tuple(spec.get("uses") or ()),
        keyed="idempotency_key" in inputs,
        retried=(spec["effect"] == "read" or idempotent or "idempotency_key" in example) and retries_of_first > 0,
        not_retried_line=assignment(
            "why",
            string(
                "the upstream declares retries: 0"
                if retries_of_first == 0
                else "a write without an idempotency key is never retried"
            ),
            4,
        ),
        rate_limit=_rate_limit(spec.get("rate_limit"), spec.get("input")),
        scopes=tuple(scopes),
        scopes_line=fitted("scopes=", scopes, ",", 8),
        scopes_list=inline(scopes),
        scope_expected_line=assignment(
            "expected",
            string(with_reference(scope_text(name, spec["effect"], first_scope, scope_message, REFERENCE_MARK))),
            4,
        ),
        scope_envelope=literal(_scope_envelope(first_scope), 4),
        upstream_env=string(upstream_envs.get((spec.get("upstreams") or [""])[0], "")),
        output_example=literal(f.example_arguments(outputs), 8) if outputs is not None else "None",
        broken_changed_literal=string(messages.default_changed("internal", spec["effect"])),
        reconcilable="idempotency_key" in inputs and not batch,
        rerun_safe=bool(spec.get("rerun_safe")),
        task=str(spec.get("task") or ""),
        idempotent=idempotent,
        text_line=_text_line(spec.get("text")) if outputs is not None and not batch else "",
        has_text_block=spec.get("text") != NO_TEXT,
        check_with_literal=string(spec["check_with"]) if spec.get("check_with") else "",
        registration=_registration(
            py, f"{py}_handler", name, "reconcile" if "idempotency_key" in inputs and not batch else None
        ),
        asking=asked,
        confirm_lines=confirm_lines(spec),
        confirm_message=" ".join(spec["confirm"]["message"].split()) if spec.get("confirm") else "",
        confirm_asked_line=_confirm_asked_line(name, spec, example),
        confirm_refuses=(spec.get("confirm") or {}).get("without_elicitation", "refuse") == "refuse",
        confirm_expires_s=float((spec.get("confirm") or {}).get("expires_s", 300)),
        **_content(spec.get("content")),
    )


def _by_setting_lines(spec: dict[str, Any], settings: dict[str, Any], annotations_of: Any) -> str:
    """`DESCRIPTION_BY = BySetting(...)`, `EFFECT_BY = ...` and `EFFECT_ANNOTATIONS` for a tool whose description or
    effect a setting chooses (empty without)."""
    kept = spec.get(by_setting.KEPT) or {}
    lines: list[str] = []
    for key, name in (("description", "DESCRIPTION"), ("effect", "EFFECT")):
        if key not in kept:
            continue
        chosen_by = kept[key]
        field = chosen._field_of(settings.get(chosen_by["by_setting"]) or {})
        pairs = [[by_setting._typed(value, field), variant] for value, variant in chosen_by["values"].items()]
        arguments: list[Any] = [literal(chosen_by["by_setting"]), f"{name}_VALUES"]
        if "default" in chosen_by:
            arguments.append(f"default={literal(chosen_by['default'])}")
        lines += [f"{name}_VALUES: list[list[Any]] = {literal(pairs)}", ""]
        lines += call_lines((f"{name}_BY = BySetting", arguments), 0)
        lines += [f'"""The {key} chosen by the setting\'s value at start (the spec\'s `by_setting`)."""', ""]
        if key == "effect":
            effects = sorted({*(v for _, v in pairs), *([chosen_by["default"]] if "default" in chosen_by else [])})
            table = {effect: annotations_of(effect) for effect in effects}
            lines += [f"EFFECT_ANNOTATIONS: dict[str, dict[str, bool | str]] = {literal(table)}", ""]
    return "\n".join(lines).rstrip("\n")
