"""What a handler may ask (`asks:`) and a tool's confirmation (`confirm:`)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from ...pyliteral import (
    Call,
    assignment,
    call_lines,
    fitted,
    inline,
    literal,
    number,
    string,
)
from ...spec import fields as f
from ...spec import messages
from ...spec.failures import (
    with_idempotency_key,
)
from ...spec.naming import pascal
from .common import _WRONG_VALUES


@dataclass(frozen=True)
class Ask:
    """One question a handler may ask (the spec's `asks:`), as its generated `Asks` builds it."""

    name: str
    kind: str
    """`form`, `sampling` or `roots`."""
    member_lines: str
    """`self.<name> = Form(...)` (or `Sampling`, `Roots`) in `Asks.__init__`, laid out as ruff formats it."""
    message: str
    """A form's message template (empty for the other kinds)."""
    question: str
    """How a generated test asks it: `ctx.ask.approval()`, `ctx.ask.summary("...")`, `ctx.ask.folders()`."""
    answer_model: str = ""
    """A form's answer model (`ApprovalAnswer`)."""
    form_line: str = ""
    """`APPROVAL_FORM: dict[str, Any] = {...}`: the schema the person's form is drawn from (a form's only)."""


@dataclass(frozen=True)
class Asking:
    """What a tool or prompt may ask, for its module: the questions, the forms' answer models, and the imports."""

    asks: tuple[Ask, ...] = ()
    answer_models: tuple[f.ModelClass, ...] = ()
    kinds: tuple[str, ...] = ()
    """The question classes its module imports (`Form`, `Roots`, `Sampling`)."""
    asked_line: str = ""
    """`asked=frozenset(...),` in its definition."""
    before_task_line: str = ""
    """`before_task=frozenset(...),` in a task tool's definition: the questions asked before its task is made."""
    uses_annotated: bool = False
    uses_field: bool = False
    uses_literal: bool = False
    uses_formats: bool = False
    forms: bool = False
    """Whether a question is a form."""
    beyond_forms: bool = False
    """Whether a question is not a form (sampling, roots): a client that can only confirm cannot answer it."""
    answers_line: str = ""
    """`ANSWERS = {...}`: one answer that fits every form (each form's fields, with example values)."""
    wrong_line: str = ""
    """`WRONG = {...}`: an answer whose first field has the wrong type, for the first form."""
    questions_line: str = ""
    """`questions = [ctx.ask.<name>(...), ...]`, laid out as ruff formats it, for the generated tests."""


_FORM_KEYWORDS = (
    "type",
    "title",
    "description",
    "default",
    "enum",
    "format",
    "minLength",
    "maxLength",
    "minimum",
    "maximum",
)
"""What a form field's schema may say (the protocol's restricted primitive schemas)."""


def _form_schema(fields: dict[str, Any]) -> dict[str, Any]:
    """The schema a form is drawn from: each field's type, description, default, enum, format and bounds, by the
    name the person's client sends back."""
    published = f.published_schema(fields, closed=False)
    properties = {
        name: {key: value for key, value in spec.items() if key in _FORM_KEYWORDS}
        for name, spec in published.get("properties", {}).items()
    }
    schema: dict[str, Any] = {"type": "object", "properties": properties}
    if published.get("required"):
        schema["required"] = published["required"]
    return schema


_ASK_CLASSES = {"form": "Form", "sampling": "Sampling", "roots": "Roots"}
"""The runtime's class for each kind of question."""


def asking(spec: dict[str, Any], indent: int = 8) -> Asking:
    """What a tool's or prompt's handler may ask (`asks:`): each question's member of the generated `Asks`, and the
    pydantic model of each form's answer."""
    asks: dict[str, dict[str, Any]] = spec.get("asks") or {}
    if not asks:
        return Asking()
    questions: list[Ask] = []
    answer_models: list[f.ModelClass] = []
    answers: dict[str, Any] = {}
    wrong: dict[str, Any] = {}
    for name, ask in asks.items():
        kind = ask["kind"]
        if kind == "form":
            model = f"{pascal(name)}Answer"
            answer_models += f.models(model, ask["fields"], published=True)
            form = f"{name.upper()}_FORM"
            form_line = assignment(f"{form}: dict[str, Any]", literal(_form_schema(ask["fields"])), 0)
            call: Call = ("Form", ["conversation", string(name), string(ask["message"]), model, form, "arguments"])
            example = f.example_arguments(ask["fields"])
            answers.update({field: f.make_example(spec) for field, spec in ask["fields"].items()})  # every field
            if not wrong and ask["fields"]:
                first, spec = next(iter(ask["fields"].items()))
                wrong = {**example, first: _WRONG_VALUES[f.json_type(spec)] if "enum" not in spec else "not-a-choice"}
            question = f"ctx.ask.{name}()"
        elif kind == "sampling":
            form_line = ""
            call = ("Sampling", ["conversation", string(name), str(int(ask.get("max_tokens", 1000)))])
            question = f'ctx.ask.{name}("A question for the model.")'
        else:
            form_line = ""
            call = ("Roots", ["conversation", string(name)])
            question = f"ctx.ask.{name}()"
        lines = call_lines((f"self.{name} = {call[0]}", call[1]), 8)
        model_name = f"{pascal(name)}Answer" if kind == "form" else ""
        questions.append(Ask(name, kind, "\n".join(lines), ask.get("message", ""), question, model_name, form_line))
    annotations = f.annotation_code(answer_models)
    kinds = sorted({_ASK_CLASSES[a["kind"]] for a in asks.values()})
    first = sorted(name for name, ask in asks.items() if ask.get("before_task") is True)
    return Asking(
        asks=tuple(questions),
        answer_models=tuple(answer_models),
        kinds=tuple(kinds),
        asked_line=fitted("asked=frozenset(", sorted(asks), "),", indent),
        before_task_line=fitted("before_task=frozenset(", first, "),", indent) if first else "",
        uses_annotated="Annotated[" in annotations,
        uses_field="Field(" in annotations or any(m.alias for model in answer_models for m in model.fields),
        uses_literal="Literal[" in annotations,
        uses_formats="_formats.check(" in annotations,
        forms=any(a["kind"] == "form" for a in asks.values()),
        beyond_forms=any(a["kind"] != "form" for a in asks.values()),
        answers_line=assignment("ANSWERS: dict[str, Any]", inline(answers), 0) if answers else "",
        wrong_line=assignment("WRONG: dict[str, Any]", inline(wrong), 0) if wrong else "",
        questions_line=assignment("questions", f"[{', '.join(q.question for q in questions)}]", 4),
    )


def _before_task_answers_line(tool_specs: list[tuple[str, Any]]) -> str:
    """`BEFORE_TASK_ANSWERS = {...}`: the example answer of every form a task tool asks before its task is made."""
    answers: dict[str, Any] = {}
    for _, spec in tool_specs:
        for ask in (spec.get("asks") or {}).values():
            if ask.get("before_task") is True and ask.get("kind") == "form":
                answers.update({field: f.make_example(spec) for field, spec in ask["fields"].items()})
    return assignment("BEFORE_TASK_ANSWERS: dict[str, Any]", inline(answers), 0) if answers else ""


def _as_validated(field: dict[str, Any], value: Any) -> Any:
    """`value` as the runtime's validation hands it over: a `number` field's integer is a float (`0` reads `0.0`)."""
    is_int = isinstance(value, int) and not isinstance(value, bool)
    return float(value) if field.get("type") == "number" and is_int else value


def _confirm_asked_line(tool: str, spec: dict[str, Any], example: dict[str, Any]) -> str:
    """`asked = "..."`: the confirmation's message with the example arguments, as the person reads it."""
    if not spec.get("confirm"):
        return ""
    template = " ".join(spec["confirm"]["message"].split())
    inputs = with_idempotency_key(spec)
    keyed = "idempotency_key" in inputs  # as the tool's definition says (`keyed=True`)
    received = {  # what the handler receives, as the runtime shows it: the example and every default not null
        name: _as_validated(field, example[name] if name in example else field.get("default"))
        for name, field in inputs.items()
        if name in example or field.get("default") is not None
    }
    return assignment("asked", string(messages.confirmation(template, tool, received, keyed)), 4)


def confirm_lines(spec: dict[str, Any]) -> str:
    """`confirm=Confirm(...),` for a tool's definition (the spec's `confirm:`), laid out as ruff formats it."""
    confirm = spec.get("confirm")
    if not confirm:
        return ""
    arguments: list[str | Call] = [f"message={string(' '.join(confirm['message'].split()))}"]
    if confirm.get("without_elicitation", "refuse") != "refuse":
        arguments.append(f"without_elicitation={string(confirm['without_elicitation'])}")
    if "expires_s" in confirm:
        arguments.append(f"expires_s={number(float(confirm['expires_s']))}")
    for key in ("declined", "unavailable"):
        if key in confirm:
            arguments.append(f"{key}={string(' '.join(confirm[key].split()))}")
    return "\n".join(call_lines(("confirm=Confirm", arguments), 8, ","))
