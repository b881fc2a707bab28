"""The whole generated project, and `build`: the model of a checked spec."""

from __future__ import annotations

import dataclasses
import json
from dataclasses import dataclass, replace
from typing import Any

from ...pyliteral import (
    assignment,
    docstring,
    fitted,
    inline,
    literal,
    number,
    string,
    toml_string,
)
from ...spec import chosen, messages, setting_kinds
from ...spec import fields as f
from ...spec.failures import (
    scope_template,
    with_idempotency_key,
)
from ...spec.naming import DEFAULT_TOKENS_ENV, import_order, python_name
from ...spec.tool_order import listing_order
from .asks import _before_task_answers_line
from .common import _rate_limit, context_type
from .dependencies import Dependency, Upstream, _dependency, _upstream
from .readers import Reader, _reader
from .settings import Setting, Variable, _environment, _settings, _transport_flags
from .tools import Tool, _tool


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
    setting_hooks: tuple[tuple[str, str], ...] = ()
    """Each setting whose default `handlers/settings.py` computes at start (`default_from: hook`), and its type."""
    settings_apart: tuple[str, ...] = ()
    """The lines of `settings_in`'s `update={...}`: each path-like setting under a test's folder, each URL on
    127.0.0.1 port 9 (nothing listens), so starter tests touch nothing outside their `tmp_path`."""
    settings_uses_any: bool = False
    """Whether a setting's type says `Any` (a JSON setting's schema without a Python type for all of it)."""
    settings_rest: bool = False
    """Whether a setting takes the remaining arguments (`positional: rest`: the settings module imports `REST`)."""
    settings_conflicts: str = ""
    """The spec's `conflicts` as the `Declared(...)`'s tuple of tuples (empty without them)."""
    transport_flags_line: str = ""
    """`TRANSPORT_FLAGS = {...}`: the spec's `server.transport_flags`, each key's spellings (empty without them)."""
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
        _tool(tool_name, spec, timeout, defaults, envs, scope_message, retries, open_world, chosen.settings_of(data))
        for tool_name, spec in tool_specs
    )
    resources = tuple(
        _reader("resource", n, spec, timeout, defaults, chosen.settings_of(data))
        for n, spec in sorted(
            (data.get("resources") or {}).items(), key=lambda item: import_order(python_name(item[0]))
        )
    )
    prompts = tuple(
        _reader("prompt", n, spec, timeout, defaults, chosen.settings_of(data))
        for n, spec in sorted((data.get("prompts") or {}).items(), key=lambda item: import_order(python_name(item[0])))
    )
    settings = bool(setting_kinds.declared(server.get("settings")))
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
        stdio_calls=literal(
            {
                n: f.example_arguments(with_idempotency_key(s))
                for n, s in tool_specs
                if chosen.served_by_default(s.get("when"), chosen.settings_of(data))
            }
        ),
        asking=any(t.confirm_lines or t.asking.asks for t in tools) or any(p.asking.asks for p in prompts),
        tasks=any(t.task for t in tools),
        before_task_answers_line=_before_task_answers_line(tool_specs),
        subscriptions=any(r.subscribe for r in resources),
        notifier_tool=next(  # one the example settings serve: its EXAMPLE_ARGUMENTS are there
            (
                n
                for n, s in tool_specs
                if not (s.get("confirm") or s.get("asks") or s.get("task") or s.get("batch"))
                and chosen.served_by_default(s.get("when"), chosen.settings_of(data))
            ),
            "",
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
        tool_names_line=fitted(
            "TOOL_NAMES: list[str] = ",
            [name for name, spec in tool_specs if chosen.served_by_default(spec.get("when"), chosen.settings_of(data))],
            "",
            0,
        ),
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
        **_transport_flags(server),
    )


def _all_scopes(tools: tuple[Tool, ...], readers: tuple[Reader, ...]) -> list[str]:
    """Every scope a tool, resource or prompt needs: what the default verifier grants a plain token, and what
    the RFC 9728 metadata lists as `scopes_supported`."""
    return sorted({scope for tool in tools for scope in tool.scopes} | {s for reader in readers for s in reader.scopes})


def _store_expression(kind: str, server: dict[str, Any], name: str) -> str:
    """The Python expression that opens the configured store."""
    if kind == "memory":
        return "MemoryStore()"
    if kind == "redis":
        env = string(server.get("redis_url_env", "REDIS_URL"))
        return f"RedisStore.from_env({env})"
    return f"SQLiteStore(sqlite_path({string(server.get('sqlite_path', f'{name}.sqlite3'))}))"
