"""The typed model templates print: every name, literal and example already computed."""

from __future__ import annotations

import dataclasses
import hashlib
import json
from dataclasses import dataclass
from typing import Any

from . import fields as f
from .lint import default_deadline, placeholders
from .messages import render_template, shown
from .naming import pascal
from .pyliteral import docstring, inline, literal, string

SPEC_FILE = "failwell.yaml"
_FIELD_TYPES = {"string": "str", "integer": "int", "number": "float", "boolean": "bool"}
_FIELD_EXAMPLES: dict[str, Any] = {"string": "example", "integer": 3, "number": 2.5, "boolean": True}
_ANNOTATIONS = {
    "read": {"readOnlyHint": True, "destructiveHint": False, "idempotentHint": True, "openWorldHint": False},
    "write": {"readOnlyHint": False, "destructiveHint": False, "idempotentHint": False, "openWorldHint": False},
    "destructive": {"readOnlyHint": False, "destructiveHint": True, "idempotentHint": False, "openWorldHint": False},
}
_WRONG_VALUES: dict[str, Any] = {
    "string": 12345,
    "integer": "not a number",
    "number": "not a number",
    "boolean": "yes",
    "array": "not a list",
    "object": "not an object",
}


@dataclass(frozen=True)
class Param:
    """A keyword argument of a declared failure."""

    name: str
    annotation: str


@dataclass(frozen=True)
class Failure:
    """A way a tool can fail, as the spec declares it."""

    name: str
    name_literal: str
    class_name: str
    failure_class: str
    class_literal: str
    template: str
    template_literal: str
    template_doc: str
    params: tuple[Param, ...]
    example_kwargs: str
    test_arguments: str
    expected_text: str


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
    has_output: bool
    input_schema: str
    output_schema: str
    annotations: str
    accepts: str
    failures: tuple[Failure, ...]
    uses_literal: bool
    uses_annotated: bool
    uses_any: bool
    example_arguments: str
    example_arguments_inline: str
    missing_field: str | None
    missing_field_literal: str
    missing_accepts_literal: str
    wrong_field: str
    wrong_field_literal: str
    wrong_value: str
    wrong_value_json: str
    wrong_accepts_literal: str
    outside_field: str | None
    outside_field_literal: str
    outside_value: str
    outside_expected: str


@dataclass(frozen=True)
class Project:
    """The whole generated project."""

    spec_text: str
    spec_sha256: str
    name: str
    name_literal: str
    package: str
    version: str
    version_literal: str
    description: str
    description_literal: str
    description_line: str
    client_timeout_s: float
    tools: tuple[Tool, ...]
    stdio_calls: str

    def context(self) -> dict[str, Any]:
        """Plain data for the templates."""
        return dataclasses.asdict(self)


def build(data: dict[str, Any], spec_text: str) -> Project:
    """The model of a spec that passed validation and lint."""
    server = data["server"]
    timeout = float(server.get("client_timeout_s", 60))
    name = server["name"]
    description = server.get("description", "").strip()
    version = str(server.get("version", "0.1.0"))
    tool_specs = sorted(data.get("tools", {}).items())
    tools = tuple(_tool(tool_name, spec, timeout) for tool_name, spec in tool_specs)
    return Project(
        spec_text=spec_text,
        spec_sha256=hashlib.sha256(spec_text.encode()).hexdigest(),
        name=name,
        name_literal=string(name),
        package=server.get("package") or f"{name.replace('-', '_')}_mcp",
        version=version,
        version_literal=string(version),
        description=description,
        description_literal=string(description),
        description_line=docstring(description or f"The {name} MCP server."),
        client_timeout_s=timeout,
        tools=tools,
        stdio_calls=literal({n: f.example_arguments(s.get("input") or {}) for n, s in tool_specs}),
    )


def _tool(name: str, spec: dict[str, Any], timeout: float) -> Tool:
    inputs: dict[str, Any] = spec.get("input") or {}
    outputs: dict[str, Any] | None = spec.get("output")
    input_models = tuple(f.models("Input", inputs))
    output_models = tuple(f.models("Output", outputs)) if outputs is not None else ()
    annotations = " ".join(member.annotation for model in (*input_models, *output_models) for member in model.fields)
    example = f.example_arguments(inputs)
    wrong_field = next((n for n, s in inputs.items() if f.is_required(s)), next(iter(inputs), ""))
    wrong_kind = f.json_type(inputs[wrong_field]) if wrong_field else "string"
    wrong_value = _WRONG_VALUES[wrong_kind] if wrong_field else None
    if wrong_field and "enum" in inputs[wrong_field] and wrong_kind != "string":
        wrong_value = "not-a-choice"
    missing_field = next((n for n, s in inputs.items() if f.is_required(s)), None)
    outside = [(n, f.violation(s)) for n, s in inputs.items()]
    outside_field, (_, outside_value) = next(((n, v) for n, v in outside if v[0]), (None, (False, None)))
    return Tool(
        name=name,
        name_literal=string(name),
        title_literal=string(spec["title"]) if "title" in spec else "None",
        description=spec["description"].strip(),
        description_literal=string(spec["description"].strip()),
        description_doc=docstring(spec["description"]),
        effect=spec["effect"],
        effect_literal=string(spec["effect"]),
        deadline_s=float(spec.get("deadline_s", default_deadline(timeout))),
        input_models=input_models,
        output_models=output_models,
        has_output=outputs is not None,
        input_schema=literal(f.published_schema(inputs)),
        output_schema=literal(f.published_schema(outputs, closed=False)) if outputs is not None else "None",
        annotations=literal(_ANNOTATIONS[spec["effect"]], 8),
        accepts=literal(f.accepts_table(inputs)),
        failures=tuple(_failure(n, s, inputs, example) for n, s in (spec.get("failures") or {}).items()),
        uses_literal="Literal[" in annotations,
        uses_annotated="Annotated[" in annotations,
        uses_any="Any]" in annotations,
        example_arguments=literal(example),
        example_arguments_inline=inline(example),
        missing_field=missing_field,
        missing_field_literal=string(missing_field or ""),
        missing_accepts_literal=string(f.accepts(inputs[missing_field]) if missing_field else ""),
        wrong_field=wrong_field,
        wrong_field_literal=string(wrong_field),
        wrong_value=inline(wrong_value),
        wrong_value_json=string(json.dumps(wrong_value)),
        wrong_accepts_literal=string(f.accepts(inputs[wrong_field]) if wrong_field else ""),
        outside_field=outside_field,
        outside_field_literal=string(outside_field or ""),
        outside_value=inline(outside_value),
        outside_expected=string(f"`{outside_field}` received {shown(outside_value)}"),
    )


def _failure(name: str, spec: dict[str, Any], inputs: dict[str, Any], example: dict[str, Any]) -> Failure:
    declared = spec.get("fields") or []
    kinds = declared if isinstance(declared, dict) else {field: None for field in declared}
    params = tuple(Param(field, _FIELD_TYPES[kind] if kind else "str | int | float") for field, kind in kinds.items())
    kwargs = {field: _FIELD_EXAMPLES[kind or "string"] for field, kind in kinds.items()}
    arguments = dict(example)
    for placeholder in placeholders(spec["message"]):
        if placeholder in inputs and placeholder not in arguments:
            arguments[placeholder] = f.make_example(inputs[placeholder])
    expected = render_template(spec["message"].strip(), {**arguments, **kwargs})
    return Failure(
        name=name,
        name_literal=string(name),
        class_name=pascal(name),
        failure_class=spec["class"],
        class_literal=string(spec["class"]),
        template=spec["message"].strip(),
        template_literal=string(spec["message"].strip()),
        template_doc=docstring(spec["message"]),
        params=params,
        example_kwargs=", ".join(f"{k}={literal(v)}" for k, v in kwargs.items()),
        test_arguments=literal(arguments, 4),
        expected_text=string(expected),
    )
