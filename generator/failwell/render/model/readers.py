"""Resources and prompts: reads with parameters, declared failures and a handler."""

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
    markdown_text,
    string,
)
from ...spec import chosen, listing, messages
from ...spec import fields as f
from ...spec.failures import (
    failure_spec_has_params,
)
from ...spec.lint import default_deadline
from ...spec.naming import python_name
from .asks import Asking, asking
from .common import _registration
from .failures import Failure, _failure


@dataclass(frozen=True)
class Reader:
    """A resource or a prompt: a read with parameters (a template's, a prompt's arguments), declared failures,
    and a handler, whose failures are JSON-RPC errors."""

    kind: str
    """`resource` or `prompt`."""
    name: str
    name_literal: str
    label_literal: str
    """How messages name it: `The task resource`."""
    title_literal: str
    description_literal: str
    description_doc: str
    deadline_s: float
    models: tuple[f.ModelClass, ...]
    uses_annotated: bool
    uses_field: bool
    uses_formats: bool
    uses_literal: bool
    params_schema: str
    accepts: str
    completions: str
    failures: tuple[Failure, ...]
    failures_with_params: bool
    registration: str
    example_arguments: str
    """Parameters (or arguments) that pass the schema."""
    wrong_field_literal: str
    wrong_value_line: str
    wrong_expected_line: str
    missing_field_literal: str
    missing_expected_line: str
    uri_literal: str = ""
    mime_type_literal: str = ""
    mime_type_doc: str = ""
    """The MIME type as a docstring holds it."""
    output_annotation: str = "str"
    template: bool = False
    example_uri_literal: str = ""
    arguments_literal: str = ""
    """A prompt's `ARGUMENTS = [PromptArgument(...), ...]`."""
    scopes: tuple[str, ...] = ()
    """The scopes an HTTP caller's token must grant to read it (and to see it listed)."""
    upstreams: tuple[str, ...] = ()
    """The upstreams its handler reads from (`ctx.upstreams.<name>`)."""
    uses: tuple[str, ...] = ()
    """The dependencies its handler uses (`ctx.deps.<name>`)."""
    context_type: str = "ToolContext[None]"
    """The handler's `Context`: `ToolContext[upstreams, deps, settings, asks]`, each argument only as far as needed."""
    asking: Asking = Asking()
    scopes_line: str = ""
    scopes_list: str = "[]"
    first_scope_literal: str = '""'
    subscribe: bool = False
    """A resource a client may subscribe to (the spec's `subscribe: true`)."""
    when_line: str = ""
    """`WHEN = When(...)`: served only when its `when:` holds for the settings (empty: always)."""
    name_markdown: str = ""
    """Its name, URI and MIME type as the README's tables print them (`markdown_code`, `markdown_text`)."""
    uri_markdown: str = ""
    mime_type_markdown: str = ""
    listed_literal: str = ""
    """A resource's `listed={...}` (its `name:` as written, the keys `unlisted` leaves out); empty: none."""
    unlisted_arguments: bool = False
    """A prompt listed with no `arguments` key (`unlisted: [arguments]`)."""


def _text_kind(mime_type: str) -> str:
    """The handler's return type for a resource of this MIME type (as runtime/readers/resources.py sends it)."""
    base = mime_type.split(";")[0].strip().lower()
    if base == "application/json" or base.endswith("+json"):
        return "dict[str, Any] | list[Any]"
    if base.startswith("text/") or base.endswith("+xml") or base in ("application/xml", "application/yaml"):
        return "str"
    return "bytes"


def _reader(
    kind: str,
    name: str,
    spec: dict[str, Any],
    timeout: float,
    defaults: dict[str, str],
    settings: dict[str, Any] | None = None,
) -> Reader:
    """A resource (`params`) or a prompt (`arguments`), for its generated module, handler and tests."""
    fields: dict[str, Any] = dict(spec.get("params" if kind == "resource" else "arguments") or {})
    label = f"The {name} {kind}"
    models = tuple(f.models("Params", fields, published=True))  # a template's `{resourceId}`: `resource_id`
    annotations = f.annotation_code(models)
    example = f.example_arguments(fields)
    as_read = {"effect": "read"}
    failures = tuple(
        _failure(failure, failure_spec, label, as_read, fields, example, defaults)
        for failure, failure_spec in (spec.get("failures") or {}).items()
    )
    completions = {n: [str(v) for v in (s.get("enum") or s.get("examples") or [])] for n, s in fields.items()}
    wrong = next(iter(fields), "")
    wrong_value: Any = "not a number" if wrong and f.json_type(fields[wrong]) in ("integer", "number") else None
    violations = ((n, f.violation(s)) for n, s in fields.items())
    # A URI part cannot be empty: a template parameter's refused value must be one a URI can hold.
    outside = next(((n, v) for n, v in violations if v[0] and (kind == "prompt" or v[1] != "")), None)
    if wrong_value is None and outside is not None:
        wrong, wrong_value = outside[0], outside[1][1]
    if kind == "resource" and wrong_value is None:
        # A URI holds no null: refuse a boolean with a word, and test no refusal when every part takes any text.
        boolean = next((n for n, s in fields.items() if f.json_type(s) == "boolean"), "")
        wrong, wrong_value = (boolean, "not a boolean") if boolean else ("", None)
    if kind == "prompt" and wrong_value is None:
        wrong = ""  # prompt arguments are strings (a client sends no null): every one takes any text, so none to refuse
    missing = next((n for n, s in fields.items() if f.is_required(s)), "") if kind == "prompt" else ""
    uri = spec.get("uri", "")
    example_uri = uri
    for field, value in example.items():
        example_uri = example_uri.replace("{" + field + "}", _uri_part(value))
    mime_type = spec.get("mime_type", "text/plain")
    asked = asking(spec, 12)
    reader = Reader(
        kind=kind,
        name=python_name(name),
        name_literal=string(name),
        name_markdown=markdown_code(name, table=True),
        label_literal=string(label),
        title_literal=string(spec["title"]) if "title" in spec else "None",
        description_literal=string(spec["description"].strip()),
        description_doc=docstring(spec["description"]),
        deadline_s=float(spec.get("deadline_s", default_deadline(timeout))),
        models=models,
        uses_annotated="Annotated[" in annotations or asked.uses_annotated,
        uses_field="Field(" in annotations
        or any(m.alias for model in models for m in model.fields)
        or asked.uses_field,
        uses_formats="_formats.check(" in annotations or asked.uses_formats,
        uses_literal="Literal[" in annotations or asked.uses_literal,
        params_schema=literal(f.published_schema(fields)),
        accepts=literal(f.accepts_table(fields)),
        completions=literal({n: v for n, v in completions.items() if v}),
        failures=failures,
        failures_with_params=any(failure_spec_has_params(s) for s in (spec.get("failures") or {}).values()),
        registration=_registration(
            f"{python_name(name)}_{kind}",
            f"{python_name(name)}_{kind}_handler",
            f"{kind}:{name}",
            "listing" if kind == "resource" and "{" in uri else None,
        ),
        example_arguments=literal(example),
        wrong_field_literal=string(wrong),
        wrong_value_line=assignment("value: Any", inline(wrong_value), 4),
        wrong_expected_line=assignment(
            "expected", string(f"`{wrong}` received {messages.shown(wrong_value)}" if wrong else ""), 4
        ),
        missing_field_literal=string(missing),
        missing_expected_line=assignment("expected", string(f"`{missing}` is required" if missing else ""), 4),
        uri_literal=string(uri),
        mime_type_literal=string(mime_type),
        uri_markdown=markdown_code(uri, table=True),
        mime_type_markdown=markdown_text(mime_type),
        mime_type_doc=docstring(mime_type),
        upstreams=tuple(spec.get("upstreams") or ()),
        uses=tuple(spec.get("uses") or ()),
        output_annotation=_text_kind(mime_type) if kind == "resource" else "str | list[Message] | Described",
        template="{" in uri,
        example_uri_literal=string(example_uri),
        arguments_literal=_prompt_arguments(fields),
        scopes=tuple(spec.get("scopes") or ()),
        scopes_line=fitted("scopes=", list(spec.get("scopes") or ()), ",", 12),
        scopes_list=inline(list(spec.get("scopes") or ())),
        first_scope_literal=string((spec.get("scopes") or [""])[0]),
        asking=asked,
        subscribe=kind == "resource" and spec.get("subscribe") is True,
        when_line=chosen.when_line(spec.get("when"), settings or {}),
        listed_literal=literal(listed, 8) if (listed := listing.reader_listed(kind, spec)) else "",
        unlisted_arguments=listing.unlisted_arguments(kind, spec),
    )
    return reader


def _prompt_arguments(fields: dict[str, Any]) -> str:
    """`ARGUMENTS = [PromptArgument(...), ...]` for a prompt's module, laid out as ruff formats it."""
    if not fields:
        return "ARGUMENTS: list[PromptArgument] = []"
    lines = ["ARGUMENTS: list[PromptArgument] = ["]
    for name, spec in fields.items():
        described = f"description={string(' '.join(spec['description'].split()))}" if "description" in spec else ""
        arguments = [f"name={string(name)}", *([described] if described else []), f"required={f.is_required(spec)}"]
        lines += call_lines(("PromptArgument", list(arguments)), 4, ",")
    return "\n".join([*lines, "]"])


def _uri_part(value: Any) -> str:
    """A parameter's value as it stands in a URI (percent-encoded, as the runtime expands it)."""
    from urllib.parse import quote

    return quote(json.dumps(value) if isinstance(value, bool) else str(value), safe="")
