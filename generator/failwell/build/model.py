"""The typed model templates print: every name, literal and example already computed."""

from __future__ import annotations

import dataclasses
import json
import re
import urllib.parse
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from ..pyliteral import (
    LINE_LENGTH,
    Call,
    assignment,
    call_lines,
    def_lines,
    docstring,
    fitted,
    inline,
    literal,
    markdown_code,
    markdown_text,
    number,
    string,
    toml_string,
)
from ..spec import aliases, dependency_errors, messages, rate_limits, schemas
from ..spec import fields as f
from ..spec.failures import (
    FIELD_TYPES,
    Param,
    example_values,
    failure_params,
    failure_spec_has_params,
    failure_template,
    scope_template,
    scope_text,
    with_idempotency_key,
)
from ..spec.lint import default_deadline, verbatim_fields
from ..spec.listing import listing_order
from ..spec.naming import DEFAULT_TOKENS_ENV, import_order, pascal, python_name, setting_env, setting_flag

SPEC_FILE = "failwell.yaml"
_ANNOTATIONS = {
    "read": {"readOnlyHint": True, "destructiveHint": False, "idempotentHint": True, "openWorldHint": False},
    "write": {"readOnlyHint": False, "destructiveHint": False, "idempotentHint": False, "openWorldHint": False},
    "destructive": {"readOnlyHint": False, "destructiveHint": True, "idempotentHint": False, "openWorldHint": False},
}
REFERENCE_MARK = "\x00\ufdd0reference\ufdd0\x00"
"""Stands for the reference id while an expected message is composed, so a literal `{reference}` in the
spec's words (written `{{reference}}`) stays literal in the generated test."""
_WRONG_VALUES: dict[str, Any] = {
    "string": 12345,
    "integer": "not a number",
    "number": "not a number",
    "boolean": "yes",
    "array": "not a list",
    "object": "not an object",
}


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


@dataclass(frozen=True)
class Upstream:
    """A service tools call."""

    name: str
    config: str


@dataclass(frozen=True)
class Dependency:
    """A thing the person's code opens once at start (`handlers/dependencies/<name>.py`)."""

    name: str
    constant: str
    """Its `DependencyConfig`'s name in `_generated/dependencies.py`: `DB` for `db`."""
    config: str
    """The `DependencyConfig(...)` call's keyword lines after `open` and `close`."""
    description: str
    errors: str
    """Its `errors:` entries as a tuple of `ErrorRule(...)`, in the order written."""
    lazy: bool = False


REDIS_URL_EXAMPLE = "redis://127.0.0.1:6379/0"
"""A Redis URL the generated server accepts: the README's example and the start-up error's."""


@dataclass(frozen=True)
class Variable:
    """An environment variable the generated server reads."""

    name: str
    meaning: str
    needed: bool = False
    """Whether the server needs it set to start on stdio (an upstream's base URL, the Redis URL)."""
    example: str = ""
    """A value the server accepts, for the README's commands and client entries (empty: none shown)."""
    secret: bool = False
    """Whether its value is a credential (the bearer tokens): never written into a file made to be shared."""
    meaning_markdown: str = ""
    """`meaning` as the README prints it, where it holds text from the spec (each piece through `markdown_text` or
    `markdown_code`); empty: `meaning` is failwell's own words, printed as they are."""
    check: str = ""
    """The runtime's check of its value (`base_url`, `redis_url`, `tokens`; empty: none), which
    `failwell install` runs on a value before writing it (`launch.preflight`)."""


@dataclass(frozen=True)
class Setting:
    """One of `server.settings`: where it is read from, and the runtime's declaration of it."""

    name: str
    flag: str
    env: str
    accepts: str
    description: str
    required: bool
    secret: bool
    boolean: bool
    example: str
    """A value it accepts, as a flag's text (for the README and client entries)."""
    declaration: str
    """The `Setting(...)` expression of the generated settings module, laid out as `ruff format` does."""
    field: dict[str, Any] = dataclasses.field(default_factory=dict)
    """Its type and constraints as a field's, which `failwell install` checks a value against."""


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

    @property
    def has_content(self) -> bool:
        return bool(self.content_kinds)

    @property
    def may_word_its_text(self) -> bool:
        """Whether its handler may return `WithText(output, text)`: a tool with output, without content or a batch."""
        return self.has_output and not self.has_content and self.batch_policy is None and self.has_text_block


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
    name_markdown: str = ""
    """Its name, URI and MIME type as the README's tables print them (`markdown_code`, `markdown_text`)."""
    uri_markdown: str = ""
    mime_type_markdown: str = ""


@dataclass(frozen=True)
class Project:
    """The whole generated project."""

    spec_text: str
    name: str
    name_literal: str
    package: str
    version: str
    version_literal: str
    description: str
    description_literal: str
    description_toml: str
    """The description as a one-line TOML string, for pyproject.toml."""
    description_line: str
    instructions_line: str
    tools: tuple[Tool, ...]
    stdio_calls: str
    messages_literal: str
    outcome_unknown_literal: str
    """The spec's `messages.outcome_unknown`, or empty for the runtime's words."""
    upstreams: tuple[Upstream, ...]
    store: str
    store_expression: str
    rate_limit: str
    idempotency_ttl_s: str
    environment: tuple[Variable, ...]
    tool_names_line: str
    auth: bool
    tokens_env: str
    tokens_env_literal: str
    scopes_line: str
    scope_message_literal: str
    authorization_servers_line: str
    """`AUTHORIZATION_SERVERS = [...]` when the spec names OAuth authorization servers, else empty."""
    resources: tuple[Reader, ...] = ()
    prompts: tuple[Reader, ...] = ()
    tool_failure_envelope: bool = True
    """Whether error results also carry the SEP-3313 draft's `io.modelcontextprotocol/toolFailure` object."""
    dependencies: tuple[Dependency, ...] = ()
    dependencies_not_opened: str = "{}"
    """`/healthz`'s report of the dependencies before any is opened, as a Python literal."""
    sqlite_path: str = ""
    settings: tuple[Setting, ...] = ()
    settings_models: tuple[f.ModelClass, ...] = ()
    settings_uses_annotated: bool = False
    settings_uses_literal: bool = False
    settings_example: str = ""
    """The `EXAMPLE_SETTINGS = Settings.model_validate(...)` line: the settings of a server built without any."""
    settings_apart: tuple[str, ...] = ()
    """The lines of `settings_in`'s `update={...}`: each path-like setting under a test's folder, each URL on
    127.0.0.1 port 9 (nothing listens), so starter tests touch nothing outside their `tmp_path`."""
    """With the SQLite store, the spec's `server.sqlite_path` (absolute, or relative to the project's `.failwell/`)."""
    tasks: bool = False
    """Whether a tool runs as a task (the spec's `task:`): the generated tests then poll it as a client would."""
    asking: bool = False
    """Whether a tool confirms or a tool or prompt asks (the generated tests then answer as a person would)."""
    confirmed_line: str = "CONFIRMED: frozenset[str] = frozenset([])"
    """`CONFIRMED = frozenset(...)`: the tools that run only after their person confirms them."""
    subscriptions: bool = False
    """Whether a resource takes subscriptions (the spec's `subscribe: true`)."""
    notifier_tool: str = ""
    """The tool the generated subscription tests inject a notifying handler into: the first that neither confirms,
    asks nor runs as a task (so its handler runs at once, in-process)."""
    listed_tools: tuple[Tool, ...] = ()
    """The tools in the order `tools/list` shows them (the spec's `server.tool_order`)."""
    before_task_answers_line: str = ""
    """`BEFORE_TASK_ANSWERS = {...}`: an answer that fits every form a task tool asks before its task is made (the
    generated tests' person fills those in, as a handler injected in a test cannot answer them)."""

    def context(self) -> dict[str, Any]:
        """The model as JSON data, keys sorted: what copier.yml's `project` answer holds (Jinja's `tojson`)."""
        data: dict[str, Any] = json.loads(json.dumps(self, default=_fields, sort_keys=True))
        return data


def _fields(value: Any) -> dict[str, Any]:
    return {name: getattr(value, name) for name in _field_names(type(value))}


_FIELD_NAMES: dict[type, tuple[str, ...]] = {}


def _field_names(kind: type) -> tuple[str, ...]:
    """A dataclass's field names (`dataclasses.fields` rebuilds them on every call: 6,000 calls for 1,000 tools)."""
    names = _FIELD_NAMES.get(kind)
    if names is None:
        names = _FIELD_NAMES[kind] = tuple(field.name for field in dataclasses.fields(kind))
    return names


def build(data: dict[str, Any], spec_text: str) -> Project:
    """The model of a spec that passed validation and lint."""
    server = data["server"]
    timeout = float(server.get("client_timeout_s", 60))
    auth = server.get("auth")
    name = server["name"]
    description = server.get("description", "").strip()
    version = str(server.get("version", "0.1.0"))
    tool_specs = sorted(data.get("tools", {}).items(), key=lambda item: import_order(python_name(item[0])))
    store = server.get("store", "sqlite")
    needs_store = bool(server.get("rate_limit")) or any(
        s.get("rate_limit") or s.get("confirm") or "idempotency_key" in with_idempotency_key(s) for _, s in tool_specs
    )
    # With Redis, a resource's updates reach the subscribers of every replica through it (pub/sub).
    needs_store = needs_store or (
        store == "redis" and any(r.get("subscribe") for r in (data.get("resources") or {}).values())
    )
    worded = {key: " ".join(text.split()) for key, text in (data.get("messages") or {}).items()}
    outcome_unknown = worded.pop("outcome_unknown", "")
    overrides = worded
    defaults = {**messages.default_messages(), **overrides}
    envs = {n: u["base_url_env"] for n, u in (data.get("upstreams") or {}).items()}
    auth_spec = auth or {}
    scope_message = scope_template(auth_spec)
    issuers = list(auth_spec.get("authorization_servers", ()))
    retries = {n: int(u.get("retries", 2)) for n, u in (data.get("upstreams") or {}).items()}
    open_world = frozenset(n for n, d in (data.get("dependencies") or {}).items() if d.get("open_world"))
    tools = tuple(
        _tool(tool_name, spec, timeout, defaults, envs, scope_message, retries, open_world)
        for tool_name, spec in tool_specs
    )
    resources = tuple(
        _reader("resource", n, spec, timeout, defaults)
        for n, spec in sorted(
            (data.get("resources") or {}).items(), key=lambda item: import_order(python_name(item[0]))
        )
    )
    prompts = tuple(
        _reader("prompt", n, spec, timeout, defaults)
        for n, spec in sorted((data.get("prompts") or {}).items(), key=lambda item: import_order(python_name(item[0])))
    )
    settings = bool(server.get("settings"))
    tools = tuple(
        replace(t, context_type=context_type(bool(t.upstreams), bool(t.uses), settings, bool(t.asking.asks)))
        for t in tools
    )
    resources, prompts = (
        tuple(
            replace(r, context_type=context_type(bool(r.upstreams), bool(r.uses), settings, bool(r.asking.asks)))
            for r in readers
        )
        for readers in (resources, prompts)
    )
    return Project(
        spec_text=spec_text,
        name=name,
        name_literal=string(name),
        package=server.get("package") or f"{name.replace('-', '_')}_mcp",
        version=version,
        version_literal=string(version),
        description=description,
        description_literal=string(description),
        description_toml=toml_string(description),
        description_line=docstring(description or f"The {name} MCP server."),
        instructions_line=assignment("INSTRUCTIONS", string(description), 0),
        tools=tools,
        listed_tools=listing_order(tools, list(data.get("tools") or {}), server.get("tool_order", "name")),
        stdio_calls=literal({n: f.example_arguments(with_idempotency_key(s)) for n, s in tool_specs}),
        asking=any(t.confirm_lines or t.asking.asks for t in tools) or any(p.asking.asks for p in prompts),
        tasks=any(t.task for t in tools),
        before_task_answers_line=_before_task_answers_line(tool_specs),
        subscriptions=any(r.subscribe for r in resources),
        notifier_tool=next(
            (n for n, s in tool_specs if not (s.get("confirm") or s.get("asks") or s.get("task") or s.get("batch"))), ""
        ),
        confirmed_line=fitted(
            "CONFIRMED: frozenset[str] = frozenset(", sorted(n for n, s in tool_specs if s.get("confirm")), ")", 0
        ),
        messages_literal=literal(overrides),
        outcome_unknown_literal=string(outcome_unknown) if outcome_unknown else "",
        upstreams=tuple(_upstream(n, u) for n, u in sorted((data.get("upstreams") or {}).items())),
        store=store if needs_store else "",
        store_expression=_store_expression(store, server, name) if needs_store else "None",
        rate_limit=_rate_limit(server.get("rate_limit")),
        idempotency_ttl_s=number(float(server.get("idempotency_ttl_s", 86_400))),
        environment=_environment(data, store if needs_store else "", name),
        tool_names_line=fitted("TOOL_NAMES: list[str] = ", [name for name, _ in tool_specs], "", 0),
        auth=auth is not None,
        tokens_env=auth_spec.get("tokens_env", DEFAULT_TOKENS_ENV),
        tokens_env_literal=string(auth_spec.get("tokens_env", DEFAULT_TOKENS_ENV)),
        scopes_line=fitted("SCOPES: list[str] = ", _all_scopes(tools, (*resources, *prompts)), "", 0),
        scope_message_literal=string(scope_message) if "scope_message" in auth_spec else "",
        authorization_servers_line=fitted("AUTHORIZATION_SERVERS: list[str] = ", issuers, "", 0) if issuers else "",
        resources=resources,
        prompts=prompts,
        tool_failure_envelope=bool(server.get("tool_failure_envelope", True)),
        sqlite_path=server.get("sqlite_path", f"{name}.sqlite3") if needs_store and store == "sqlite" else "",
        dependencies=tuple(_dependency(n, d) for n, d in sorted((data.get("dependencies") or {}).items())),
        dependencies_not_opened=inline({n: "not_opened" for n in sorted(data.get("dependencies") or {})}),
        **_settings(name, server.get("settings") or {}),
    )


def _setting_value_text(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value)


def _settings(server: str, specs: dict[str, Any]) -> dict[str, Any]:
    """The Project fields of `server.settings` (none without it, so other projects render as before)."""
    if not specs:
        return {}
    found = []
    fields: dict[str, dict[str, Any]] = {}
    example: dict[str, Any] = {}
    for name, spec in specs.items():
        required = bool(spec.get("required", False))
        field_spec = {k: v for k, v in spec.items() if k not in ("flag", "env", "secret", "required")}
        fields[name] = {**field_spec, "required": required}
        flag, env = setting_flag(name, spec), setting_env(server, name, spec)
        accepts = f.accepts(field_spec, with_example=not spec.get("secret"))
        boolean = f.json_type(spec) == "boolean" and "enum" not in spec
        value = f.make_example(field_spec)
        if required:
            example[name] = value
        arguments: list[str | Call] = [string(name), string(flag), string(env), string(accepts)]
        arguments += ["required=True"] if required else []
        arguments += ["secret=True"] if spec.get("secret") else []
        arguments += ["boolean=True"] if boolean else []
        described = " ".join(str(spec.get("description", "")).split())
        arguments += [f"description={string(described)}"] if described else []
        declaration = "\n".join(call_lines(("Setting", arguments), 8, ","))
        found.append(
            Setting(
                name=name,
                flag=flag,
                env=env,
                accepts=accepts,
                description=described,
                required=required,
                secret=bool(spec.get("secret")),
                boolean=boolean,
                example=_setting_value_text(value),
                declaration=declaration,
                field=field_spec,
            )
        )
    models = tuple(f.models("Settings", fields))
    annotations = f.annotation_code(models)
    return {
        "settings": tuple(found),
        "settings_models": models,
        "settings_uses_annotated": "Annotated[" in annotations,
        "settings_uses_literal": "Literal[" in annotations,
        "settings_example": _settings_example(example),
        "settings_apart": tuple(_apart_lines(specs, example)),
    }


def _settings_example(example: dict[str, Any]) -> str:
    """`EXAMPLE_SETTINGS = Settings.model_validate({...})` as `ruff format` lays it out: the call split at its
    own parentheses (never wrapped in new ones), its dict exploded when even that does not fit."""
    flat = f"EXAMPLE_SETTINGS = Settings.model_validate({inline(example)})"
    if len(flat) <= LINE_LENGTH:
        return flat
    argument = inline(example) if 4 + len(inline(example)) <= LINE_LENGTH else literal(example, 4)
    return f"EXAMPLE_SETTINGS = Settings.model_validate(\n    {argument}\n)"


_URL = re.compile(r"^[A-Za-z][A-Za-z0-9+.-]*://")
_FOLDER_WORDS = ("dir", "directory", "folder", "root", "repo", "repository", "workspace")
_FILE_WORDS = ("file", "db", "database", "sqlite", "log")
_PATH_WORDS = ("path", *_FOLDER_WORDS, *_FILE_WORDS)


def _apart_lines(specs: dict[str, Any], example: dict[str, Any]) -> list[str]:
    """The entries of `settings_in`'s update, indented for it: every string setting that names a file or folder
    (by its name or its example: `db_path`, `exports_dir`, `/srv/repo`, `./data/bm.db`) moves under the test's
    folder, its file's name kept; every other URL keeps its scheme and path on 127.0.0.1 port 9, where nothing
    listens. Secrets, and settings that are unset, stay as they are."""
    lines = []
    for name, spec in specs.items():
        value = example.get(name, spec.get("default"))
        if spec.get("secret") or f.json_type(spec) != "string" or "enum" in spec or not isinstance(value, str):
            continue
        words = set(re.split(r"[^a-z]+", name.lower()))
        url = _URL.match(value)
        if url and not value.lower().startswith(("file:", "sqlite:")):
            moved = urllib.parse.urlsplit(value)._replace(netloc="127.0.0.1:9").geturl()
            lines.append(f"            {string(name)}: {string(moved)},")
            continue
        path = value[url.end() :] if url else value
        looks = path.startswith(("/", "./", "../", "~")) or "/" in path or "\\" in path
        if not (looks or words & set(_PATH_WORDS)):
            continue
        leaf = re.split(r"[/\\]", path.rstrip("/\\"))[-1] or name
        is_file = bool(words & set(_FILE_WORDS)) or ("." in leaf.strip(".") and not words & set(_FOLDER_WORDS))
        arguments = ["folder", string(name)]
        arguments += [string(leaf if len(leaf) <= 40 else name + Path(leaf).suffix[:8])] if is_file else []
        arguments += [f"scheme={string(value[: url.end()])}"] if url else []
        flat = f"            {string(name)}: inside({', '.join(arguments)}),"
        if len(flat) <= LINE_LENGTH:
            lines.append(flat)
        else:  # one argument a line, kept so by the trailing comma
            lines += [
                f"            {string(name)}: inside(",
                *(f"                {a}," for a in arguments),
                "            ),",
            ]
    return lines


def _all_scopes(tools: tuple[Tool, ...], readers: tuple[Reader, ...]) -> list[str]:
    """Every scope a tool, resource or prompt needs: what the default verifier grants a plain token, and what
    the RFC 9728 metadata lists as `scopes_supported`."""
    return sorted({scope for tool in tools for scope in tool.scopes} | {s for reader in readers for s in reader.scopes})


def _environment(data: dict[str, Any], store: str, name: str) -> tuple[Variable, ...]:
    """Every environment variable the server reads, with what it is for."""
    server = data["server"]
    found = [
        Variable(
            spec["base_url_env"],
            f"the base URL of the `{upstream}` upstream"
            + (f" (default {spec['base_url']})" if spec.get("base_url") else ""),
            meaning_markdown=f"the base URL of the {markdown_code(upstream, table=True)} upstream"
            + (f" (default {markdown_code(spec['base_url'], table=True)})" if spec.get("base_url") else ""),
            needed=not spec.get("base_url"),
            check="base_url",
            example=spec.get("base_url")
            or f"https://{spec['base_url_env'].lower().removesuffix('_url').replace('_', '-')}.example.com",
        )
        for upstream, spec in sorted((data.get("upstreams") or {}).items())
    ]
    for setting, spec in (server.get("settings") or {}).items():
        flag, env = setting_flag(setting, spec), setting_env(name, setting, spec)
        what = " ".join(str(spec.get("description", "")).split()) or f"the `{setting}` setting"
        shown = markdown_text(what) if spec.get("description") else f"the {markdown_code(setting, table=True)} setting"
        found.append(
            Variable(
                env,
                f"{what} (or `{flag}`)",
                secret=bool(spec.get("secret")),
                meaning_markdown=f"{shown} (or {markdown_code(flag, table=True)})",
            )
        )
    if store == "sqlite":
        path = server.get("sqlite_path", f"{name}.sqlite3")
        where = path if path.startswith("/") else f"`.failwell/{path}` in the project"
        shown = (
            markdown_code(path, table=True)
            if path.startswith("/")
            else f"{markdown_code(f'.failwell/{path}', table=True)} in the project"
        )
        found.append(
            Variable(
                "FAILWELL_SQLITE_PATH",
                f"the SQLite file for idempotency records and rate limits ({where})",
                meaning_markdown=f"the SQLite file for idempotency records and rate limits ({shown})",
            )
        )
    if store == "redis":
        found.append(
            Variable(
                server.get("redis_url_env", "REDIS_URL"),
                "the Redis URL every replica shares",
                needed=True,
                check="redis_url",
                example=REDIS_URL_EXAMPLE,
            )
        )
    auth = server.get("auth")
    if auth is not None:
        tokens = auth.get("tokens_env", DEFAULT_TOKENS_ENV)
        found.append(
            Variable(
                tokens,
                "with `--http`: the bearer tokens the default verifier accepts (`auth.py`)",
                example="change-me-to-a-long-random-token",
                secret=True,
                check="tokens",
            )
        )
        if auth.get("authorization_servers"):
            found.append(
                Variable(
                    "MCP_RESOURCE_URL",
                    "with `--http`: this server's public URL, such as https://mcp.example.com/mcp (the resource "
                    "its tokens are issued for; derived from the bind on loopback)",
                )
            )
    found += [
        Variable("LOG_LEVEL", "INFO by default; logs are JSON lines on stderr"),
        Variable("MCP_HOST, MCP_PORT, MCP_PATH", "with `--http`: where to listen (127.0.0.1, 8000, /mcp)"),
        Variable(
            "MCP_ALLOWED_HOSTS, MCP_ALLOWED_ORIGINS",
            "with `--http`: the Host names (and extra browser Origins) DNS-rebinding protection accepts",
        ),
        Variable(
            "MCP_MAX_CONNECTIONS",
            "with `--http`: the most connections open at once (by default derived from the open-file limit)",
        ),
    ]
    return tuple(found)


def _item_annotation(field: dict[str, Any], name: str) -> str:
    """The type of one item of a batch tool's items field."""
    items = field.get("items") or {}
    if items.get("properties"):
        return f"Input{pascal(name)}Item"
    if "enum" in items:
        return "Literal[" + ", ".join(inline(v) for v in items["enum"]) + "]"
    return FIELD_TYPES.get(f.json_type(items), "Any") if items else "Any"


def _wrong_argument(inputs: dict[str, Any]) -> tuple[str, Any]:
    """The argument the generated test sends a value of the wrong type, and that value: the first required one (a
    `schema:` field only when a value of another type is refused at its top, as the test expects)."""
    required = [n for n, s in inputs.items() if f.is_required(s)] or list(inputs)[:1]
    for name in required:
        spec = inputs[name]
        kind = f.json_type(spec)
        if not schemas.is_schema(spec):
            return name, "not-a-choice" if "enum" in spec and kind != "string" else _WRONG_VALUES[kind]
        for value in (*_WRONG_VALUES.values(), {"unexpected": True}, ["unexpected"], 12.5, False):
            reason = schemas.fits(value, spec)
            if reason is not None and reason.endswith(f"at the value is not {f.accepts(spec)}"):
                return name, value
    return "", None


def _checks_lines(checks: list[dict[str, Any]]) -> str:
    """`_CHECKS = Checks(...)`: the tool's `schema:` fields, as written, with their patterns' translations."""
    if not checks:
        return ""
    translated: dict[str, str] = {}
    for schema in checks:
        translated.update(schemas.translations(schema))
    lines = f"_SCHEMAS: list[dict[str, Any]] = {literal(checks)}\n\n"
    if translated:
        lines += f"_PATTERNS: dict[str, str] = {literal(translated)}\n\n"
        return lines + "_CHECKS = Checks(_SCHEMAS, _PATTERNS)"
    return lines + "_CHECKS = Checks(_SCHEMAS)"


def _output_schema(spec: dict[str, Any], outputs: dict[str, Any] | None) -> dict[str, Any]:
    """The published output schema: the spec's, or for a batch tool the shape the runtime answers with (the
    `$defs` of its `schema:` fields at its root)."""
    item: dict[str, Any] = f.published_schema(outputs, closed=False) if outputs is not None else {"type": "string"}
    batch = spec.get("batch")
    if not batch:
        return item
    defs = item.pop("$defs", None)
    return {**_batch_schema(batch, item), **({"$defs": defs} if defs else {})}


def _batch_schema(batch: dict[str, Any], item: dict[str, Any]) -> dict[str, Any]:
    if batch["policy"] == "all_or_nothing":
        return {"type": "object", "properties": {"results": {"type": "array", "items": item}}, "required": ["results"]}
    failure = {
        "type": "object",
        "properties": {
            k: {"type": "integer" if k == "index" else "string"} for k in ("index", "class", "failure", "message")
        },
    }
    success = {"type": "object", "properties": {"index": {"type": "integer"}, "result": item}}
    return {
        "type": "object",
        "properties": {
            "succeeded": {"type": "array", "items": success},
            "failed": {"type": "array", "items": failure},
        },
        "required": ["succeeded", "failed"],
    }


def _rate_limit(spec: dict[str, Any] | None, inputs: dict[str, Any] | None = None) -> str:
    """The `RateLimit(...)` expression of a limit, or empty when there is none."""
    return rate_limits.expression(spec, inputs)


def _store_expression(kind: str, server: dict[str, Any], name: str) -> str:
    """The Python expression that opens the configured store."""
    if kind == "memory":
        return "MemoryStore()"
    if kind == "redis":
        env = string(server.get("redis_url_env", "REDIS_URL"))
        return f"RedisStore.from_env({env})"
    return f"SQLiteStore(sqlite_path({string(server.get('sqlite_path', f'{name}.sqlite3'))}))"


def _upstream(name: str, spec: dict[str, Any]) -> Upstream:
    breaker = spec.get("breaker") or {}
    arguments = {
        "name": string(name),
        "base_url_env": string(spec["base_url_env"]),
        **({"base_url": string(spec["base_url"])} if spec.get("base_url") else {}),
        "timeout_s": number(float(spec["timeout_s"])),
        "retries": number(int(spec.get("retries", 2))),
        "breaker_failures": number(int(breaker.get("failures", 5))),
        "breaker_reset_s": number(float(breaker.get("reset_s", 30))),
    }
    lines = "".join(f"        {key}={value},\n" for key, value in arguments.items())
    return Upstream(name, f"UpstreamConfig(\n{lines}    )")


def _dependency(name: str, spec: dict[str, Any]) -> Dependency:
    breaker = spec.get("breaker") or {}
    arguments = {
        "timeout_s": number(float(spec["timeout_s"])),
        "retries": number(int(spec.get("retries", 0))),
        "breaker_failures": number(int(breaker.get("failures", 5))),
        "breaker_reset_s": number(float(breaker.get("reset_s", 30))),
        "lazy": "True" if spec.get("lazy") else "False",
        "errors": f"{name.upper()}_ERRORS",
    }
    lines = "".join(f"    {key}={value},\n" for key, value in arguments.items())
    description = " ".join(str(spec.get("description") or f"The {name} dependency.").split())
    errors = dependency_errors.rules_literal(spec.get("errors") or {})
    return Dependency(name, name.upper(), lines, docstring(description), errors, bool(spec.get("lazy")))


def _tool(
    name: str,
    spec: dict[str, Any],
    timeout: float,
    defaults: dict[str, str],
    upstream_envs: dict[str, str],
    scope_message: str,
    upstream_retries: dict[str, int] | None = None,
    open_world_dependencies: frozenset[str] = frozenset(),
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
    annotations = f.annotation_code((*input_models, *output_models))
    example = f.example_arguments(inputs)
    wrong_field, wrong_value = _wrong_argument(inputs)
    missing_field = next((n for n, s in inputs.items() if f.is_required(s)), None)
    outside = [(n, f.violation(s)) for n, s in inputs.items()]
    outside_field, (_, outside_value) = next(((n, v) for n, v in outside if v[0]), (None, (False, None)))
    asked = asking(spec)
    return Tool(
        name=py,
        name_literal=string(name),
        name_markdown=markdown_code(name, table=True),
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
        batch_items=batch["items"] if batch else None,
        batch_policy=batch["policy"] if batch else None,
        item_annotation=_item_annotation(inputs[batch["items"]], batch["items"]) if batch else "",
        input_schema=literal(f.published_schema(inputs)),
        output_schema=literal(_output_schema(spec, outputs)) if outputs is not None or batch else "None",
        annotations=literal(
            {
                **_ANNOTATIONS[spec["effect"]],
                **({"idempotentHint": True} if spec.get("idempotency") == "required" or idempotent else {}),
                "openWorldHint": bool(
                    spec.get(
                        "open_world",
                        bool(spec.get("upstreams")) or bool(open_world_dependencies & set(spec.get("uses") or ())),
                    )
                ),
            },
            8,
        ),
        accepts=literal(f.accepts_table(inputs)),
        aliases=literal(renamed) if (renamed := aliases.renames(spec.get("input") or {})) else "",
        failures=tuple(
            _failure(failure, failure_spec, name, spec, inputs, example, defaults)
            for failure, failure_spec in (spec.get("failures") or {}).items()
        ),
        uses_literal="Literal[" in annotations or asked.uses_literal,
        failures_with_params=any(failure_spec_has_params(f) for f in (spec.get("failures") or {}).values()),
        uses_annotated="Annotated[" in annotations or asked.uses_annotated,
        uses_field="Field(" in annotations
        or any(m.alias for model in (*input_models, *output_models) for m in model.fields)
        or asked.uses_field,
        uses_alias_choices=any(m.alias for model in output_models for m in model.fields),
        checks_lines=_checks_lines(checks),
        uses_formats="formats.check(" in annotations or asked.uses_formats,
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


NO_TEXT = "none"
"""The spec's `text: none`: a success result has no text block, only its structured content (and a `content`
tool's blocks), as servers that publish structured content only answer."""


def _text_line(text: str | None) -> str:
    """`text=...,` (the spec's template) or `text_block=False,` (`text: none`) in a tool's definition; empty when the
    text block is the output's JSON."""
    if not text:
        return ""
    if text == NO_TEXT:
        return "        text_block=False,"
    return f"        text={string(' '.join(text.split()))},"


_FAMILY_DEFAULTS = {"image": "image/png", "audio": "audio/wav", "resource": "text/plain", "resource_link": "text/plain"}
"""A MIME type of each kind for the generated tests, when `content.mime_types` lists none of its family."""


def _content(content: dict[str, Any] | None) -> dict[str, Any]:
    """The `Tool` fields of a tool's `content`: its policy's source, its kinds, and the generated tests' blocks."""
    if not content:
        return {}
    kinds: list[str] = list(content["kinds"])
    mime_types: list[str] | None = content.get("mime_types")
    max_bytes = int(content.get("max_bytes", messages.content_max_bytes()))
    allowed = [m.split(";", 1)[0].strip().lower() for m in mime_types] if mime_types is not None else None
    fields: list[tuple[str, Any]] = [("kinds", sorted(kinds))]
    if allowed is not None:
        fields.append(("mime_types", sorted(set(allowed))))
    if "max_bytes" in content:
        fields.append(("max_bytes", max_bytes))
    if "too_large" in content:
        fields.append(("too_large", " ".join(content["too_large"].split())))
    flat = ", ".join(f"{key}={inline(value)}" for key, value in fields)
    if len(f"CONTENT = ContentPolicy({flat})") <= 120:
        lines = [f"CONTENT = ContentPolicy({flat})"]
    elif len(f"    {flat}") <= 120:
        lines = ["CONTENT = ContentPolicy(", f"    {flat}", ")"]
    else:  # one argument per line, a list exploded as ruff lays it out
        body = [
            fitted(f"{key}=", value, ",", 4) if isinstance(value, list) else f"    {key}={inline(value)},"
            for key, value in fields
        ]
        lines = ["CONTENT = ContentPolicy(", *body, ")"]

    def mime_of(kind: str) -> str:
        family = {"image": "image/", "audio": "audio/"}.get(kind, "")
        found = [m for m in allowed if m.startswith(family)] if allowed is not None else []
        return found[0] if found else _FAMILY_DEFAULTS[kind]

    def block(kind: str, size: int) -> str:
        """`block = ...` in a generated test (at 8 spaces, as ruff lays it out): a block of `kind` of `size` bytes."""
        if kind == "text":
            return f'        block = "x" * {size}'
        mime = f"mime_type={string(mime_of(kind))}"
        chosen: list[str] = {
            "image": [f'b"\\x00" * {size}', string(mime_of(kind))],
            "audio": [f'b"\\x00" * {size}', string(mime_of(kind))],
            "resource": ['"test://failwell/content"', f'text="x" * {size}', mime],
            "resource_link": ['"test://failwell/content"', '"content"', mime],
        }[kind]
        arguments: list[str | Call] = list(chosen)
        callee = {"resource": "EmbeddedResource", "resource_link": "ResourceLink"}.get(kind, kind.capitalize())
        return "\n".join(call_lines((f"block = content.{callee}", arguments), 8))

    big = next((kind for kind in kinds if kind != "resource_link"), None)
    return {
        "content_lines": "\n".join(lines),
        "content_kinds": tuple(kinds),
        "content_tests": tuple((kind, block(kind, min(16, max_bytes))) for kind in kinds),
        "too_large_block": block(big, max_bytes + 1) if big else "",
        "content_max_bytes": max_bytes,
    }


def _registration(module: str, handlers: str, key: str, optional: str | None) -> str:
    """`<module>.definition(chosen.get(<key>, <handlers>.handle))` for `build_server`'s lists (with the handler
    module's `optional` function, when it may have one), laid out as ruff formats it."""
    bound: Call = ("chosen.get", [string(key), f"{handlers}.handle"])
    arguments: list[str | Call] = [bound]
    if optional:
        arguments.append(("getattr", [handlers, string(optional), "None"]))
    return "\n".join(call_lines((f"{module}.definition", arguments), 12, ","))


def _text_kind(mime_type: str) -> str:
    """The handler's return type for a resource of this MIME type (as runtime/resources.py sends it)."""
    base = mime_type.split(";")[0].strip().lower()
    if base == "application/json" or base.endswith("+json"):
        return "dict[str, Any] | list[Any]"
    if base.startswith("text/") or base.endswith("+xml") or base in ("application/xml", "application/yaml"):
        return "str"
    return "bytes"


def _reader(kind: str, name: str, spec: dict[str, Any], timeout: float, defaults: dict[str, str]) -> Reader:
    """A resource (`params`) or a prompt (`arguments`), for its generated module, handler and tests."""
    fields: dict[str, Any] = dict(spec.get("params" if kind == "resource" else "arguments") or {})
    label = f"The {name} {kind}"
    models = tuple(f.models("Params", fields, published=kind == "prompt"))
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
        uses_formats="formats.check(" in annotations or asked.uses_formats,
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


def with_reference(text: str) -> str:
    """An expected message as a `str.format` template whose one field is `{reference}`: the message's own
    braces doubled, `REFERENCE_MARK` made the field."""
    return text.replace("{", "{{").replace("}", "}}").replace(REFERENCE_MARK, "{reference}")


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
        wording = messages.runtime("wording")
        body = f"{template} {wording.all_or_nothing_text(field, len(items), None)}"
        retryable = messages.is_retryable(spec["class"], effect, keyed, changed="none")
        text = messages.compose(body, spec["class"], effect, values, "none", keyed)
        return text, {**envelope, "retryable": retryable, "changed": "none"}
    reasons = []
    for item in items:
        item_values = (
            {**values, **{k: messages.display(v) for k, v in item.items()}} if isinstance(item, dict) else values
        )
        reasons.append(template.format_map(messages.runtime("wording").Values(item_values)))
    failed = [
        {"index": index, "class": spec["class"], "failure": name, "message": reason}
        for index, reason in enumerate(reasons)
    ]
    text = messages.runtime("wording").batch_text(field, len(items), list(enumerate(reasons)))
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
        jsonrpc_code=int(messages.runtime("classes").JSONRPC_CODES[spec["class"]]),
    )


def context_type(upstreams: bool, uses: bool, settings: bool, asks: bool = False) -> str:
    """A handler's `Context`: `ToolContext[U, D, S, A]` with its upstreams, its dependencies, the server's settings
    and what it may ask, each type argument written only as far as one is needed (the others default)."""
    arguments = ["Upstreams" if upstreams else "None"]
    if uses or settings or asks:
        arguments.append("Deps" if uses else "None")
    if settings or asks:
        arguments.append("Settings" if settings else "Any")
    if asks:
        arguments.append("Asks")
    return f"ToolContext[{', '.join(arguments)}]"


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
        uses_formats="formats.check(" in annotations,
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
