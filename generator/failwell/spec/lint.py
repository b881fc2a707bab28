"""What the schema cannot say: names that fit Python, placeholders that exist, deadlines that fit, resource URIs
that are level-1 templates of their params and that no two resources share."""

from __future__ import annotations

import dataclasses
import difflib
import re
import string
from typing import Any
from urllib.parse import urlsplit

from ..errors import Diagnostic
from . import aliases, dependency_errors, messages, naming, patterns, rate_limits, schemas, uri
from . import fields as f
from .load import Document
from .naming import (
    DEFAULT_TOKENS_ENV,
    RESERVED_FAILURE_FIELD_NAMES,
    RESERVED_FAILURE_NAMES,
    RESERVED_FIELD_NAMES,
    pascal,
    problem_with_name,
    setting_env,
    setting_flag,
)

_TYPE_ONLY = {
    "pattern": "string", "pattern_name": "string", "minLength": "string", "maxLength": "string",
    "minimum": "number", "maximum": "number", "exclusiveMinimum": "number", "exclusiveMaximum": "number",
    "items": "array", "minItems": "array", "maxItems": "array", "properties": "object",
}  # fmt: skip
_PAIRS = (("minLength", "maxLength"), ("minimum", "maximum"), ("minItems", "maxItems"))


def default_deadline(client_timeout_s: float) -> float:
    """The deadline a tool gets when it sets none: 50 s for the usual 60 s client timeout.

    It leaves the client at least max(2 s, 10%) of its timeout, and at most 5/6 of it goes to the
    tool, so the answer arrives with time to spare: client_timeout - max(2 s, 10%, 1/6).
    """
    return round(min(client_timeout_s - max(2.0, client_timeout_s / 10), client_timeout_s * 5 / 6), 3)


def lint(doc: Document, broken: frozenset[tuple[str | int, ...]] = frozenset()) -> list[Diagnostic]:
    """Every semantic problem in a spec.

    Parts at or under a path in `broken` failed the schema and are reported already; they are skipped.
    """
    out: list[Diagnostic] = []
    doc = _Linted(doc, broken)
    data = doc.data
    server = data.get("server") if isinstance(data.get("server"), dict) else {}
    assert isinstance(server, dict)
    timeout = server.get("client_timeout_s", 60)
    timeout = timeout if isinstance(timeout, int | float) and not isinstance(timeout, bool) else 60
    if default_deadline(timeout) <= 0:
        message = f"client_timeout_s {timeout} leaves no time for a tool deadline; use at least 3 seconds"
        out.append(doc.diagnostic(("server", "client_timeout_s"), "FW120", message))
    package = server.get("package")
    if isinstance(package, str):
        _name(doc, out, ("server", "package"), package, "package", frozenset())
    defaults = data.get("messages") if isinstance(data.get("messages"), dict) else {}
    assert isinstance(defaults, dict)
    for failure_class, template in defaults.items():
        if isinstance(template, str) and not doc.is_broken(("messages", failure_class)):
            allowed = builtin_placeholders(failure_class) | ({"deadline_s"} if failure_class == "timeout" else set())
            _placeholders(doc, out, ("messages", failure_class), template, sorted(allowed))
    auth = server.get("auth")
    scope_message = auth.get("scope_message") if isinstance(auth, dict) else None
    if isinstance(scope_message, str) and not doc.is_broken(("server", "auth", "scope_message")):
        _placeholders(doc, out, ("server", "auth", "scope_message"), scope_message, list(SCOPE_PLACEHOLDERS))
    issuers = auth.get("authorization_servers") if isinstance(auth, dict) else None
    for index, issuer in enumerate(issuers if isinstance(issuers, list) else ()):
        path = ("server", "auth", "authorization_servers", index)
        problem = issuer_problem(issuer) if isinstance(issuer, str) else None
        if problem and not doc.is_broken(path):
            message = (
                f"authorization server {issuer!r} {problem}; write its issuer URL, such as https://auth.example.com"
            )
            out.append(doc.diagnostic(path, "FW137", message))
    upstreams = data.get("upstreams") if isinstance(data.get("upstreams"), dict) else {}
    assert isinstance(upstreams, dict)
    for name in upstreams:
        _name(doc, out, ("upstreams", name), name, "upstream", frozenset(), key=True)
    if not doc.is_broken(("server", "rate_limit")):
        limit = server.get("rate_limit")
        out.extend(rate_limits.lint(doc, ("server", "rate_limit"), limit, server.get("settings"), None))
    dependencies = data.get("dependencies") if isinstance(data.get("dependencies"), dict) else {}
    assert isinstance(dependencies, dict)
    for name in dependencies:
        _name(doc, out, ("dependencies", name), name, "dependency", frozenset(), key=True)
        dependency = dependencies[name]
        if isinstance(dependency, dict) and not doc.is_broken(("dependencies", name, "errors")):
            out.extend(dependency_errors.lint(doc, ("dependencies", name, "errors"), dependency.get("errors")))
    tools = data.get("tools")
    if isinstance(tools, dict):
        for name, tool in tools.items():
            _name(doc, out, ("tools", name), name, "tool", frozenset(), key=True, published=True)
            if isinstance(tool, dict):
                _tool(doc, out, ("tools", name), tool, timeout, defaults)
                _check_with(doc, out, ("tools", name), tool, tools)
                _uses(doc, out, ("tools", name), tool, timeout, upstreams)
                _dependencies_used(doc, out, ("tools", name), tool, timeout, dependencies)
                _scopes(doc, out, ("tools", name), tool, auth)
                if not doc.is_broken(("tools", name, "rate_limit")):
                    inputs = tool.get("input") if isinstance(tool.get("input"), dict) else {}
                    limit = tool.get("rate_limit")
                    out.extend(
                        rate_limits.lint(doc, ("tools", name, "rate_limit"), limit, server.get("settings"), inputs)
                    )
    resources = data.get("resources")
    if isinstance(resources, dict):
        for name, resource in resources.items():
            _name(doc, out, ("resources", name), name, "resource", frozenset(), key=True, published=True)
            if isinstance(resource, dict):
                _resource(doc, out, ("resources", name), resource, timeout, defaults)
                _uses(doc, out, ("resources", name), resource, timeout, upstreams)
                _dependencies_used(doc, out, ("resources", name), resource, timeout, dependencies)
                _scopes(doc, out, ("resources", name), resource, auth)
        _overlapping(doc, out, resources)
        _subscribed_but_unchanged(doc, out, resources, tools)
    prompts = data.get("prompts")
    if isinstance(prompts, dict):
        for name, prompt in prompts.items():
            _name(doc, out, ("prompts", name), name, "prompt", frozenset(), key=True, published=True)
            if isinstance(prompt, dict):
                _prompt(doc, out, ("prompts", name), prompt, timeout, defaults)
                _uses(doc, out, ("prompts", name), prompt, timeout, upstreams)
                _dependencies_used(doc, out, ("prompts", name), prompt, timeout, dependencies)
                _scopes(doc, out, ("prompts", name), prompt, auth)
    _settings(doc, out, server, upstreams)
    _buildable(doc, out)
    return out


def _subscribed_but_unchanged(doc: Document, out: list[Diagnostic], resources: dict[str, Any], tools: Any) -> None:
    """FW186: a resource takes subscriptions, yet every tool is a read, so no tool can change what it holds."""
    effects = [
        tool.get("effect") for tool in (tools if isinstance(tools, dict) else {}).values() if isinstance(tool, dict)
    ]
    if any(effect in ("write", "destructive") for effect in effects):
        return
    for name, resource in resources.items():
        if isinstance(resource, dict) and resource.get("subscribe") is True:
            message = (
                f"resource `{name}` takes subscriptions, but every tool of this server is a read, so none changes "
                "it; a subscriber hears of an update only if a handler calls ctx.notify_updated for a change made "
                "elsewhere (drop `subscribe`, or give the tool that changes it effect: write)"
            )
            out.append(doc.diagnostic(("resources", name, "subscribe"), "FW186", message, warning=True))


SERVER_FLAGS = frozenset(
    {"-h", "--help", "--http", "--host", "--port", "--path", "--allowed-hosts", "--allowed-origins", "--stateful",
     "--max-connections", "--resource-url"}
)  # fmt: skip
"""The flags the generated command line takes itself (`runtime/cli.py`)."""
SERVER_ENV = frozenset(
    {"LOG_LEVEL", "MCP_HOST", "MCP_PORT", "MCP_PATH", "MCP_ALLOWED_HOSTS", "MCP_ALLOWED_ORIGINS", "MCP_STATEFUL",
     "MCP_MAX_CONNECTIONS", "MCP_RESOURCE_URL", "FAILWELL_SQLITE_PATH"}
)  # fmt: skip
"""The environment variables the generated server reads itself (besides the spec's own)."""
_SETTING_PLACEHOLDER = re.compile(r"\{settings\.([^{}]*)\}")


def _settings(doc: _Linted, out: list[Diagnostic], server: dict[str, Any], upstreams: dict[str, Any]) -> None:
    """`server.settings`: each one's constraints as a field's, flags and variables taken once, and every
    `{settings.<name>}` of a description naming a declared setting that is not a secret."""
    specs = server.get("settings") if isinstance(server.get("settings"), dict) else {}
    assert isinstance(specs, dict)
    name = str(server["name"]) if isinstance(server.get("name"), str) else "server"
    taken: dict[str, str] = {flag: "the server itself" for flag in SERVER_FLAGS}
    taken.update((env, "the server itself") for env in SERVER_ENV)
    auth = server.get("auth") if isinstance(server.get("auth"), dict) else {}
    assert isinstance(auth, dict)
    taken[str(auth.get("tokens_env", DEFAULT_TOKENS_ENV))] = "the server's bearer tokens"
    taken[str(server.get("redis_url_env", "REDIS_URL"))] = "the server's Redis store"
    for upstream, spec in upstreams.items():
        if isinstance(spec, dict) and isinstance(spec.get("base_url_env"), str):
            taken[spec["base_url_env"]] = f"the `{upstream}` upstream"
    for setting, spec in specs.items():
        path = ("server", "settings", setting)
        if not isinstance(spec, dict) or doc.is_broken(path, below=False):
            continue
        if setting.startswith("model_"):
            message = f"setting `{setting}`: names starting with model_ are pydantic's own; rename it"
            out.append(doc.diagnostic(path, "FW193", message, key=True))
        if spec.get("required") is True and "default" in spec:
            message = f"setting `{setting}` is required and has a default, so it is never missing; drop one of them"
            out.append(doc.diagnostic((*path, "required"), "FW193", message))
        for key, value in (("flag", setting_flag(setting, spec)), ("env", setting_env(name, setting, spec))):
            if value in taken:
                message = (
                    f"setting `{setting}` is read from {value}, which {taken[value]} already takes; "
                    f"give it another `{key}`"
                )
                out.append(doc.diagnostic((*path, key) if key in spec else path, "FW190", message, key=key not in spec))
            else:
                taken[value] = f"setting `{setting}`"
        _field(doc, out, path, {k: v for k, v in spec.items() if k not in ("flag", "env", "secret")})
    for kind in ("tools", "resources", "prompts"):
        parts = doc.data.get(kind) if isinstance(doc.data.get(kind), dict) else {}
        assert isinstance(parts, dict)
        for part, spec in parts.items():
            text = spec.get("description") if isinstance(spec, dict) else None
            if not isinstance(text, str) or doc.is_broken((kind, part, "description")):
                continue
            for wanted in _SETTING_PLACEHOLDER.findall(text):
                where = (kind, part, "description")
                if wanted not in specs:
                    near = difflib.get_close_matches(wanted, list(specs), n=1)
                    listed = f"; the settings are {', '.join(specs)}" if specs else "; declare it under server.settings"
                    hint = f"; did you mean {{settings.{near[0]}}}?" if near else listed
                    out.append(doc.diagnostic(where, "FW191", f"{{settings.{wanted}}} names no setting{hint}"))
                elif isinstance(specs[wanted], dict) and specs[wanted].get("secret"):
                    message = (
                        f"{{settings.{wanted}}} would publish a secret setting in a description every client "
                        "lists; leave it out"
                    )
                    out.append(doc.diagnostic(where, "FW192", message))
                elif messages.secret_named(wanted):
                    message = (
                        f"{{settings.{wanted}}} is named like a secret, so every client would list `[redacted]` in "
                        f"its place; leave it out, and mark the setting `secret: true` if it holds one"
                    )
                    out.append(doc.diagnostic(where, "FW192", message))


_SCOPED_VERB = {"tools": "call it", "resources": "read or list it", "prompts": "get it"}


def _scopes(doc: _Linted, out: list[Diagnostic], path: tuple[str, str], part: dict[str, Any], auth: Any) -> None:
    """Scopes need `auth` (FW136); with `auth`, every tool, resource and prompt says which scopes it needs, `[]`
    when any token may use it, so none is public by omission (FW160)."""
    kind, name = path
    noun = kind[:-1]
    if part.get("scopes") and not isinstance(auth, dict):
        message = (
            "scopes are checked against the caller's bearer token, and the server has no `auth`; "
            f"add `auth: {{}}` under `server:` (tokens from {DEFAULT_TOKENS_ENV}), or remove `scopes`"
        )
        out.append(doc.diagnostic((*path, "scopes"), "FW136", message, key=True))
    if isinstance(auth, dict) and "scopes" not in part and not doc.is_broken(path):
        message = (
            f"{noun} `{name}` does not say which scopes a token needs to {_SCOPED_VERB[kind]}, and the server has "
            f"`auth`; add `scopes: [...]` naming them (such as `scopes: [{name.split('_')[0]}:read]`), or "
            "`scopes: []` if any valid token may, so that nothing is public by omission"
        )
        out.append(doc.diagnostic(path, "FW160", message, key=True))


def _uses(
    doc: _Linted,
    out: list[Diagnostic],
    path: tuple[str, ...],
    tool: dict[str, Any],
    timeout: float,
    upstreams: dict[str, Any],
) -> None:
    """Each upstream a tool, resource or prompt uses exists, and one attempt fits inside its deadline."""
    noun = {"resources": "resource", "prompts": "prompt"}.get(path[0], "tool")
    deadline = tool.get("deadline_s", default_deadline(timeout))
    for index, name in enumerate(tool.get("upstreams") or []):
        if not isinstance(name, str) or (name not in upstreams and doc.is_broken(("upstreams",))):
            continue  # the upstreams failed the schema, reported already: which exist is not known
        if name not in upstreams:
            close = difflib.get_close_matches(name, list(upstreams), n=1)
            hint = f" (did you mean `{close[0]}`?)" if close else ""
            known = ", ".join(upstreams) or "none are declared"
            message = f"unknown upstream `{name}`{hint}; declare it under `upstreams:` ({known})"
            out.append(doc.diagnostic((*path, "upstreams", index), "FW124", message))
            continue
        upstream = upstreams[name]
        limit = upstream.get("timeout_s") if isinstance(upstream, dict) else None
        if isinstance(limit, int | float) and isinstance(deadline, int | float) and limit >= deadline:
            message = (
                f"upstream `{name}` allows {limit} s per attempt, not less than this {noun}'s {deadline:g} s deadline; "
                f"lower its timeout_s below {deadline:g} so an attempt can fail in time to answer"
            )
            out.append(doc.diagnostic((*path, "upstreams", index), "FW123", message))


def _dependencies_used(
    doc: _Linted,
    out: list[Diagnostic],
    path: tuple[str, ...],
    part: dict[str, Any],
    timeout: float,
    dependencies: dict[str, Any],
) -> None:
    """Each dependency a tool, resource or prompt lists in `uses` is declared (FW181), and one use of it fits
    inside its deadline (FW182)."""
    noun = {"resources": "resource", "prompts": "prompt"}.get(path[0], "tool")
    deadline = part.get("deadline_s", default_deadline(timeout))
    for index, name in enumerate(part.get("uses") or []):
        if not isinstance(name, str) or (name not in dependencies and doc.is_broken(("dependencies",))):
            continue  # the dependencies failed the schema, reported already: which exist is not known
        if name not in dependencies:
            close = difflib.get_close_matches(name, list(dependencies), n=1)
            hint = f" (did you mean `{close[0]}`?)" if close else ""
            known = ", ".join(dependencies) or "none are declared"
            message = f"unknown dependency `{name}`{hint}; declare it under `dependencies:` ({known})"
            out.append(doc.diagnostic((*path, "uses", index), "FW181", message))
            continue
        dependency = dependencies[name]
        limit = dependency.get("timeout_s") if isinstance(dependency, dict) else None
        if isinstance(limit, int | float) and isinstance(deadline, int | float) and limit >= deadline:
            message = (
                f"dependency `{name}` allows {limit} s per use, not less than this {noun}'s {deadline:g} s deadline; "
                f"lower its timeout_s below {deadline:g} so a use can fail in time to answer"
            )
            out.append(doc.diagnostic((*path, "uses", index), "FW182", message))


def issuer_problem(url: str) -> str | None:
    """What is wrong with an OAuth issuer URL (RFC 8414: https, a host, no query or fragment), or None.
    Plain http is allowed on loopback hosts, for an authorization server run locally while developing."""
    try:
        parts = urlsplit(url)
    except ValueError:  # such as an unclosed IPv6 host, `https://[::1`
        return "is not a valid URL"
    if parts.scheme not in ("https", "http") or not parts.hostname:
        return "is not an absolute https URL"
    if parts.scheme == "http" and parts.hostname not in ("127.0.0.1", "localhost", "::1"):
        return "uses plain http, which only a loopback host may"
    if parts.query or parts.fragment:
        return "has a query or fragment, which an issuer URL may not"
    return None


SCOPE_PLACEHOLDERS = ("tool", "scope", "granted", "reference")
"""What `server.auth.scope_message` may use."""


def builtin_placeholders(failure_class: str) -> set[str]:
    """Placeholders every message of a class may use without declaring them."""
    names = {"tool", "reference"}
    if failure_class in ("rate_limited", "upstream_unavailable"):
        names.add("retry_after_s")
    if failure_class == "permission_denied":
        names |= {"permission", "role"}
    return names


def _name(
    doc: _Linted, out: list[Diagnostic], path: tuple[str | int, ...], name: str, kind: str,
    reserved: frozenset[str], *, key: bool = False, published: bool = False,
) -> None:  # fmt: skip
    check = naming.problem_with_published_name if published else problem_with_name
    problem = check(name, kind, reserved)
    if problem:
        out.append(doc.diagnostic(path, problem[0], problem[1], key=key))


class _Linted(Document):
    """A document plus the paths that failed the schema, whose data holds only what the schema accepted:
    each part at a path in `broken` is None, so lint never walks a value of the wrong shape (`upstreams: 5`,
    `tools: [1]`), while the keys stay and a broken field still counts as declared."""

    def __init__(self, doc: Document, broken: frozenset[tuple[str | int, ...]]) -> None:
        self.__dict__.update(doc.__dict__)
        self.broken = broken
        above = frozenset(path[:end] for path in broken for end in range(len(path)))
        self.data = _hollow(doc.data, (), broken, above)
        self._above = above  # every proper prefix of a broken path
        self._parents = frozenset(path[:-1] for path in broken if path)  # the parent of each broken path

    def is_broken(self, path: tuple[str | int, ...], *, below: bool = True) -> bool:
        """Whether the schema rejected `path` itself or, with `below`, anything under it (or, without,
        a direct child of it); set lookups, so a spec with an error in each of its tools lints in linear time."""
        path = tuple(path)
        return path in self.broken or path in (self._above if below else self._parents)


def _hollow(value: Any, path: tuple[str | int, ...], broken: frozenset[Any], above: frozenset[Any]) -> Any:
    """`value` with each part at a path in `broken` replaced by None; copied only along the way to one."""
    if path in broken:
        return None
    if path not in above:
        return value
    if isinstance(value, dict):
        return {key: _hollow(item, (*path, key), broken, above) for key, item in value.items()}
    if isinstance(value, list):
        return [_hollow(item, (*path, index), broken, above) for index, item in enumerate(value)]
    return value


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


def _confirm(
    doc: _Linted, out: list[Diagnostic], path: tuple[str, ...], tool: dict[str, Any], inputs: list[str]
) -> None:
    """A tool's `confirm` is for a write, and its messages are templates over the tool's arguments."""
    confirm = tool.get("confirm")
    if not isinstance(confirm, dict):
        return
    if tool.get("effect") == "read":
        message = (
            "`confirm` asks the person before a change, and a read changes nothing; remove it, or make the tool a "
            "write or destructive one"
        )
        out.append(doc.diagnostic((*path, "confirm"), "FW148", message, key=True))
    for key in ("message", "declined", "unavailable"):
        template = confirm.get(key)
        if not isinstance(template, str):
            continue
        try:
            used = placeholders(template)
        except ValueError as exc:
            out.append(doc.diagnostic((*path, "confirm", key), "FW112", f"message template: {exc}"))
            continue
        for name in used:
            if name not in inputs and name != "tool":
                close = difflib.get_close_matches(name, inputs, n=1)
                hint = f" (did you mean {{{close[0]}}}?)" if close else ""
                message = (
                    f"placeholder {{{name}}} in `confirm.{key}` is not an argument of this tool{hint}; use one of: "
                    + ", ".join(f"{{{argument}}}" for argument in ["tool", *inputs])
                )
                out.append(doc.diagnostic((*path, "confirm", key), "FW149", message))


_FORM_TYPES = ("string", "number", "integer", "boolean")
"""What a form's field may be: elicitation asks for a flat object of primitives."""


def _asks(
    doc: _Linted, out: list[Diagnostic], path: tuple[str, ...], asks: Any, batch: bool = False, task: bool = False
) -> None:
    """Questions: not from a batch tool; a form's fields flat primitives, none a secret; its message well formed;
    `before_task` only on a task tool."""
    if not isinstance(asks, dict):
        return
    if batch:
        message = "a batch tool cannot ask while it runs (its items are handled one by one); remove `asks`"
        out.append(doc.diagnostic((*path, "asks"), "FW183", message, key=True))
    for name, ask in asks.items():
        if isinstance(ask, dict) and ask.get("before_task") is True and not task:
            message = (
                f"`before_task` on `{name}`, which is not a task tool's question (only a tool with `task:` makes a "
                "task to ask before); remove `before_task`, or give the tool `task: optional` or `task: required`"
            )
            out.append(doc.diagnostic((*path, "asks", name, "before_task"), "FW161", message, key=True))
        if not isinstance(ask, dict) or not isinstance(ask.get("fields"), dict):
            continue
        apath = (*path, "asks", name)
        template = ask.get("message")
        if isinstance(template, str):
            try:
                placeholders(template)
            except ValueError as exc:
                out.append(doc.diagnostic((*apath, "message"), "FW112", f"message template: {exc}"))
        for field, spec in ask["fields"].items():
            fpath = (*apath, "fields", field)
            if not isinstance(spec, dict) or doc.is_broken(fpath, below=False):
                continue
            kind = f.json_type(spec)
            if (
                kind not in _FORM_TYPES
                or spec.get("nullable")
                or ("format" in spec and spec["format"] not in _FORM_FORMATS)
            ):
                message = (
                    f"form field `{field}` is {'nullable' if spec.get('nullable') else kind}; a form asks for flat "
                    "values: a string (with pattern, length, or the format email, uri, date or date-time), a number, "
                    "an integer, a boolean or an enum"
                )
                out.append(doc.diagnostic(fpath, "FW183", message, key=True))
            if messages.secret_named(field):
                message = (
                    f"form field `{field}` is named like a secret; a form must not ask the person for a password, a "
                    "token or a key (the client shows and keeps what they type); use the server's settings or OAuth"
                )
                out.append(doc.diagnostic(fpath, "FW184", message, key=True))


_FORM_FORMATS = ("email", "uri", "date", "date-time")
"""The string formats an elicitation form's schema allows."""


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


def _deadline(doc: _Linted, out: list[Diagnostic], path: tuple[str, ...], spec: dict[str, Any], timeout: float) -> None:
    """A tool's, resource's or prompt's deadline is shorter than the client's timeout."""
    deadline = spec.get("deadline_s")
    if doc.is_broken((*path, "deadline_s")):
        deadline = None
    if isinstance(deadline, int | float) and not isinstance(deadline, bool) and deadline >= timeout:
        message = (
            f"deadline_s {deadline} is not shorter than the client's timeout ({timeout} s), so the client would "
            f"give up first; use at most {default_deadline(timeout)}"
        )
        out.append(doc.diagnostic((*path, "deadline_s"), "FW120", message))


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


PARAM_TYPES = ("string", "integer", "number", "boolean")
"""What a URI template's params may be: each is parsed from its part of the URI."""


def _resource(
    doc: _Linted, out: list[Diagnostic], path: tuple[str, ...], resource: dict[str, Any], timeout: float,
    defaults: dict[str, Any],
) -> None:  # fmt: skip
    """A resource's deadline, params (scalars, each required: a URI has every part), URI, questions and failures."""
    _deadline(doc, out, path, resource, timeout)
    _asks(doc, out, path, resource.get("asks"))
    params = resource.get("params")
    declared: dict[str, Any] = params if isinstance(params, dict) else {}
    _fields(doc, out, (*path, "params"), declared)
    for name, spec in declared.items():
        ppath = (*path, "params", name)
        if not isinstance(spec, dict) or doc.is_broken(ppath, below=False):
            continue
        kind = f.json_type(spec)
        if kind not in PARAM_TYPES:
            message = (
                f"param `{name}` is of type {kind}, and a URI template's params are parsed from the URI: "
                f"use {', '.join(PARAM_TYPES[:-1])} or {PARAM_TYPES[-1]}"
            )
            out.append(doc.diagnostic((*ppath, "type"), "FW176", message))
        optional = "default" if "default" in spec else "required" if spec.get("required") is False else None
        if optional:
            message = (
                f"param `{name}` has `{optional}`, but a URI always has every part, so no param is optional; "
                f"remove `{optional}` (a URI without this part is another resource)"
            )
            out.append(doc.diagnostic((*ppath, optional), "FW177", message, key=True))
    text = resource.get("uri")
    if isinstance(text, str) and not doc.is_broken((*path, "uri")):
        _uri(doc, out, path, text, None if "params" in resource and params is None else declared)
    failures = resource.get("failures")
    if isinstance(failures, dict):
        nested = _nested_names("Params", declared)
        _failures(doc, out, path, failures, declared, defaults, nested, "a param", frozenset({"Params"}))


def _uri(doc: _Linted, out: list[Diagnostic], path: tuple[str, ...], text: str, params: dict[str, Any] | None) -> None:
    """A resource's URI is a URI or a level-1 template, whose variables are its params (None: not known)."""
    where = (*path, "uri")
    try:
        template = uri.parse(text)
    except uri.UriError as exc:
        out.append(_at_offset(doc, where, text, exc.offset, exc.code, exc.message))
        return
    seen: set[str] = set()
    for index, (name, offset, before) in enumerate(
        zip(template.variables, template.offsets, template.literals, strict=False)
    ):
        if name in seen:
            message = f"{{{name}}} is in the URI twice; a param fills one part of it, so use it once"
            out.append(_at_offset(doc, where, text, offset, "FW174", message))
        elif not before:
            message = (
                f"{{{name}}} follows another variable with nothing between them, so a URI cannot be split into "
                "the two; put a literal part between them that the first cannot hold, such as `/`"
            )
            out.append(_at_offset(doc, where, text, offset, "FW175", message))
        elif params is not None and name not in params:
            close = difflib.get_close_matches(name, list(params), n=1)
            hint = f" (did you mean {{{close[0]}}}?)" if close else ""
            message = (
                f"URI variable {{{name}}} is not a declared param{hint}; declare it under `params:`, "
                f"such as `{name}: {{type: string}}`"
            )
            out.append(_at_offset(doc, where, text, offset, "FW172", message))
        elif separated := _inseparable(template, index, params):
            out.append(_at_offset(doc, where, text, offset, "FW180", separated))
        seen.add(name)
    for name in params or ():
        if name not in seen:
            message = (
                f"param `{name}` is not in the URI, which has no variables: a static URI takes no params; "
                f"put {{{name}}} in the URI or remove the param"
                if template.is_static
                else f"param `{name}` is not in the URI; put {{{name}}} in it or remove the param"
            )
            out.append(doc.diagnostic((*path, "params", name), "FW173", message, key=True))


def _inseparable(template: uri.Template, index: int, params: dict[str, Any] | None) -> str | None:
    """FW180: the variable before variable `index` may hold the first character of the literal between them,
    so the server, which ends a variable where that literal first occurs, could split a URI wrongly."""
    if index == 0 or params is None:
        return None
    earlier, later, literal = template.variables[index - 1], template.variables[index], template.literals[index]
    spec = params.get(earlier)
    if not literal or not isinstance(spec, dict) or f.json_type(spec) not in PARAM_TYPES or literal[0] in "/?#":
        return None  # FW175, FW172, FW176; or a character no variable holds
    char = literal[0]
    why = uri.may_hold(spec, f.json_type(spec), char)
    if why is None:
        return None
    return (
        f"{{{earlier}}} and {{{later}}} are separated by `{literal}`, but {{{earlier}}} may hold `{char}` ({why}), "
        f"so a URI's parts cannot be told apart: the server ends {{{earlier}}} at the first `{literal}`. Separate "
        f"them with a character {{{earlier}}} cannot hold (such as `/`), or give `{earlier}` an enum or a pattern "
        f"anchored with ^ and $ that excludes `{char}` (such as ^[0-9]+$)"
    )


def _overlapping(doc: _Linted, out: list[Diagnostic], resources: dict[str, Any]) -> None:
    """FW178: two resources whose URIs can match the same URI, so a read of it could not tell which is meant;
    each is reported once, naming the first resource it clashes with."""
    names: list[str] = []
    templates: list[uri.Template] = []
    for name, resource in resources.items():
        text = resource.get("uri") if isinstance(resource, dict) else None
        if not isinstance(name, str) or not isinstance(text, str) or doc.is_broken(("resources", name, "uri")):
            continue
        try:
            templates.append(uri.parse(text))
        except uri.UriError:
            continue  # FW170, FW171
        names.append(name)
    reported: set[int] = set()
    for first, later, example in uri.clashes(templates):
        if later in reported:
            continue
        reported.add(later)
        line, col = doc.position(("resources", names[first], "uri"))
        message = (
            f"resources `{names[later]}` and `{names[first]}` (at {doc.file}:{line}:{col}) can both match the URI "
            f"{example}, so a read of it could not tell which is meant; make a literal part of their URIs differ"
        )
        out.append(doc.diagnostic(("resources", names[later], "uri"), "FW178", message))


def _prompt(
    doc: _Linted,
    out: list[Diagnostic],
    path: tuple[str, ...],
    prompt: dict[str, Any],
    timeout: float,
    defaults: dict[str, Any],
) -> None:
    """A prompt's deadline, arguments (strings: MCP prompt arguments are), questions and failures."""
    _deadline(doc, out, path, prompt, timeout)
    _asks(doc, out, path, prompt.get("asks"))
    arguments = prompt.get("arguments")
    declared: dict[str, Any] = arguments if isinstance(arguments, dict) else {}
    _fields(doc, out, (*path, "arguments"), declared)
    for name, spec in declared.items():
        apath = (*path, "arguments", name)
        if isinstance(spec, dict) and not doc.is_broken(apath, below=False) and f.json_type(spec) != "string":
            message = (
                f"argument `{name}` is of type {f.json_type(spec)}, and MCP prompt arguments are strings; make it a "
                "string and say what it accepts with pattern, enum, minLength or maxLength"
            )
            out.append(doc.diagnostic((*apath, "type" if "type" in spec else "enum"), "FW179", message))
    failures = prompt.get("failures")
    if isinstance(failures, dict):
        nested = _nested_names("Params", declared)
        _failures(doc, out, path, failures, declared, defaults, nested, "an argument", frozenset({"Params"}))


def _nested_names(prefix: str, fields: dict[str, Any]) -> set[str]:
    names: set[str] = set()
    for name, spec in fields.items():
        if isinstance(spec, dict):
            inner = f"{prefix}{pascal(naming.python_name(name))}"
            if isinstance(spec.get("properties"), dict):
                names |= {inner} | _nested_names(inner, spec["properties"])
            if isinstance(spec.get("items"), dict) and isinstance(spec["items"].get("properties"), dict):
                names |= {f"{inner}Item"} | _nested_names(f"{inner}Item", spec["items"]["properties"])
    return names


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


def _placeholders(
    doc: _Linted,
    out: list[Diagnostic],
    path: tuple[str | int, ...],
    template: str,
    known: list[str],
    noun: str = "an input field",
) -> list[str] | None:
    """Check a template's placeholders against `known`; the names used, or None when it is malformed."""
    try:
        used = placeholders(template)
    except ValueError as exc:
        out.append(doc.diagnostic(path, "FW112", f"message template: {exc}"))
        return None
    for name in used:
        if name not in known:
            close = difflib.get_close_matches(name, known, n=1)
            hint = f" (did you mean {{{close[0]}}}?)" if close else ""
            message = (
                f"placeholder {{{name}}} is neither {noun} nor a declared field{hint}; "
                f"add `fields: [{name}]` to the failure or use one of: {', '.join(known) or 'none declared'}"
            )
            out.append(doc.diagnostic(path, "FW110", message))
    return used


def verbatim_fields(declared: list[str] | dict[str, Any]) -> list[str]:
    """The declared fields shown as they are (`{type: string, verbatim: true}`), not scrubbed."""
    if not isinstance(declared, dict):
        return []
    return [name for name, kind in declared.items() if isinstance(kind, dict) and kind.get("verbatim") is True]


def placeholders(template: str) -> list[str]:
    """The `{name}` placeholders of a message, in order; ValueError when the template is malformed."""
    names: list[str] = []
    try:
        parsed = list(string.Formatter().parse(template))
    except ValueError:
        raise ValueError("a lone `{` or `}`; write {{ or }} for a literal brace") from None
    for _literal, name, spec, conversion in parsed:
        if name is None:
            continue
        if not name:
            raise ValueError("`{}` needs a name inside the braces; write {{ or }} for a literal brace")
        if not re.fullmatch(r"[A-Za-z_][A-Za-z0-9_-]*", name):  # a field's name, which may be `libraryName`
            raise ValueError(
                f"{{{name}}} is not a plain name; use a field name such as {{ref}}, or write {{{{ and }}}} for "
                "literal braces"
            )
        if spec or conversion:
            raise ValueError(
                f"{{{name}}} has a format spec or conversion; use a plain {{{name}}}, or write {{{{ and }}}} for "
                "literal braces"
            )
        if name not in names:
            names.append(name)
    return names


def published_names(path: tuple[str | int, ...]) -> bool:
    """Whether the fields at `path` are published: a tool's input or output, or a prompt's arguments, at any depth
    (`entities[].entityType`). They may be named as MCP allows (`libraryName`): the Python attribute is derived
    at each level, with an alias keeping the published name."""
    return len(path) >= 3 and (path[0], path[2]) in (("tools", "input"), ("tools", "output"), ("prompts", "arguments"))


def _fields(doc: _Linted, out: list[Diagnostic], path: tuple[str | int, ...], fields: dict[str, Any]) -> None:
    for name, spec in fields.items():
        fpath = (*path, name)
        _name(doc, out, fpath, name, "field", RESERVED_FIELD_NAMES, key=True, published=published_names(path))
        if isinstance(spec, dict) and not doc.is_broken(fpath, below=False):
            _field(doc, out, fpath, spec)


def _field(doc: _Linted, out: list[Diagnostic], path: tuple[str | int, ...], spec: dict[str, Any]) -> None:
    out.extend(aliases.misplaced(doc, path, spec))
    if schemas.is_schema(spec):
        out.extend(schemas.lint_field(doc, path, spec))
        return
    kind = f.json_type(spec)
    for key, needs in _TYPE_ONLY.items():
        applies = kind == needs or (needs == "number" and kind == "integer")
        if key in spec and not applies:
            message = f"`{key}` applies to {needs} fields only, and this field is {kind}; remove it or change `type`"
            out.append(doc.diagnostic((*path, key), "FW134", message, key=True))
            return
    for low, high in _PAIRS:
        if (
            isinstance(spec.get(low), int | float)
            and isinstance(spec.get(high), int | float)
            and spec[low] > spec[high]
        ):
            message = f"`{low}` {spec[low]} is greater than `{high}` {spec[high]}, so no value fits"
            out.append(doc.diagnostic((*path, low), "FW132", message))
            return
    if "enum" in spec and isinstance(spec["enum"], list):
        wrong = [v for v in spec["enum"] if not _is_kind(v, kind)]
        if wrong:
            message = f"enum values must all be of type {kind}; these are not: {', '.join(map(str, wrong))}"
            out.append(doc.diagnostic((*path, "enum"), "FW135", message))
            return
    if isinstance(spec.get("pattern"), str):
        try:
            patterns.translate(spec["pattern"])
        except patterns.PatternError as exc:
            out.append(_pattern_diagnostic(doc, (*path, "pattern"), spec["pattern"], exc))
            return
    for key in ("default", "example"):
        if key in spec:
            reason = f.fits(spec[key], spec)
            if reason:
                code = "FW130" if key == "default" else "FW131"
                out.append(doc.diagnostic((*path, key), code, f"{key} does not fit the field: {reason}"))
    for index, value in enumerate(spec.get("examples", []) if isinstance(spec.get("examples"), list) else []):
        reason = f.fits(value, spec)
        if reason:
            out.append(doc.diagnostic((*path, "examples", index), "FW131", f"example does not fit the field: {reason}"))
    if isinstance(spec.get("items"), dict):
        _field(doc, out, (*path, "items"), spec["items"])
    if isinstance(spec.get("properties"), dict):
        _fields(doc, out, (*path, "properties"), spec["properties"])
    needs_example = f.is_required(spec) and kind == "string" and "pattern" in spec and not f.example_values(spec)
    if needs_example and f.pattern_example(spec["pattern"]) is None:
        message = "cannot make up a value matching this pattern for generated tests; add an `example`"
        out.append(doc.diagnostic((*path, "pattern"), "FW131", message))


def _pattern_diagnostic(
    doc: _Linted, path: tuple[str | int, ...], pattern: str, error: patterns.PatternError
) -> Diagnostic:
    """A refused pattern's diagnostic, pointing at the column of the offending part when the YAML scalar is
    on one line (else at the scalar)."""
    shown = "pattern is not a valid regular expression: " if error.code == "FW133" else "pattern: "
    return _at_offset(doc, path, pattern, error.offset, error.code, f"{shown}{error.message}")


def _at_offset(
    doc: _Linted, path: tuple[str | int, ...], text: str, offset: int, code: str, message: str
) -> Diagnostic:
    """A diagnostic about the character at `offset` of the string at `path`, pointing at its column when the
    YAML scalar is on one line (else at the scalar)."""
    diagnostic = doc.diagnostic(path, code, message)
    lines = doc.text.splitlines()
    raw = lines[diagnostic.line - 1][diagnostic.col - 1 :] if diagnostic.line <= len(lines) else ""
    starts = _scalar_offsets(raw, text)
    if starts is None:
        return diagnostic
    return dataclasses.replace(diagnostic, col=diagnostic.col + starts[min(offset, len(text))])


def _scalar_offsets(raw: str, text: str) -> list[int] | None:
    """Where each character of the YAML scalar `text` starts in `raw`, the source from the scalar on (plus
    where it ends), or None when `raw` does not hold all of it on this line."""
    quote = raw[:1] if raw[:1] in ("'", '"') else ""
    starts: list[int] = []
    index = len(quote)
    for char in text:
        if index >= len(raw) or (quote and raw[index] == quote and not raw.startswith("''", index)):
            return None
        starts.append(index)
        if quote == '"' and raw[index] == "\\":
            index += {"x": 4, "u": 6, "U": 10}.get(raw[index + 1 : index + 2], 2)
            continue
        if raw[index] != char:
            return None
        index += 2 if quote == "'" and char == "'" else 1
    return [*starts, index]


def _is_kind(value: Any, kind: str) -> bool:
    if kind == "boolean" or isinstance(value, bool):
        return kind == "boolean" and isinstance(value, bool)
    if kind == "integer":
        return isinstance(value, int)
    if kind == "number":
        return isinstance(value, int | float)
    return kind == "string" and isinstance(value, str)


# What the generated project could not be built from although the schema allows it (FW150-FW159).

_PEP440 = re.compile(
    r"v?(?:[0-9]+!)?[0-9]+(?:\.[0-9]+)*"
    r"(?:[-_.]?(?:a|b|c|rc|alpha|beta|pre|preview)[-_.]?[0-9]*)?"
    r"(?:-[0-9]+|[-_.]?(?:post|rev|r)[-_.]?[0-9]*)?"
    r"(?:[-_.]?dev[-_.]?[0-9]*)?"
    r"(?:\+[a-z0-9]+(?:[-_.][a-z0-9]+)*)?",
    re.IGNORECASE,
)
"""A version PEP 440 accepts (its appendix's pattern, without surrounding whitespace)."""


def _buildable(doc: _Linted, out: list[Diagnostic]) -> None:
    """Names that would collide in the generated code, constraints no value meets, nothing to serve, a version
    packaging refuses."""
    server = doc.data.get("server") if isinstance(doc.data.get("server"), dict) else {}
    assert isinstance(server, dict)
    package = server.get("package")
    why = naming.reserved_package_name(package) if isinstance(package, str) else None
    if why and not problem_with_name(str(package), "package"):
        message = f"package `{package}`: {why}; pick another name, such as `{package}_mcp`"
        out.append(doc.diagnostic(("server", "package"), "FW153", message))
    version = server.get("version")
    if isinstance(version, str | int | float) and not isinstance(version, bool) and not _PEP440.fullmatch(str(version)):
        message = f"version {str(version)!r} is not a PEP 440 version, which the package needs; such as 1.0.0 or 1.0rc1"
        out.append(doc.diagnostic(("server", "version"), "FW159", message))
    served = [key for key in ("tools", "resources", "prompts") if key in doc.data]
    if served and all(doc.data[key] == {} for key in served):
        message = "the server has no tools, resources or prompts; declare at least one, such as under `tools:`"
        out.append(doc.diagnostic((served[0],), "FW158", message, key=True))
    claimed: dict[str, tuple[str | int, ...]] = {}
    tools = doc.data.get("tools")
    for name, tool in tools.items() if isinstance(tools, dict) else ():
        path: tuple[str | int, ...] = ("tools", name)
        if not isinstance(name, str) or naming.problem_with_published_name(name, "tool"):
            continue
        py = naming.python_name(name)
        why = naming.reserved_tool_name(py)
        if why:
            out.append(doc.diagnostic(path, "FW150", f"tool name `{name}`: {why}; pick another name", key=True))
        becomes = {
            f"the name `{py}` in _generated/server.py": f"server:{py}",
            f"the name `{py}_handler` in _generated/server.py": f"server:{py}_handler",
            f"a test file named test_{py}.py": f"test:test_{py}",
            f"a test file named test_{py}_errors.py": f"test:test_{py}_errors",
        }
        _claim(doc, out, claimed, path, f"tool `{name}`", becomes)
        if isinstance(tool, dict):
            _tool_buildable(doc, out, path, tool)
    for kind, section in (("resource", "params"), ("prompt", "arguments")):
        specs = doc.data.get(f"{kind}s")
        for name, spec in specs.items() if isinstance(specs, dict) else ():
            path = (f"{kind}s", name)
            if not isinstance(name, str) or naming.problem_with_published_name(name, kind):
                continue
            py = naming.python_name(name)
            test = f"test_{py}_{kind}_errors"
            becomes = {
                f"the name `{py}_{kind}` in _generated/server.py": f"server:{py}_{kind}",
                f"the name `{py}_{kind}_handler` in _generated/server.py": f"server:{py}_{kind}_handler",
                f"a test file named {test}.py": f"test:{test}",
            }
            why = naming.reserved_tool_name(f"{py}_{kind}") or naming.reserved_tool_name(f"{py}_{kind}_handler")
            if why:
                message = (
                    f"{kind} name `{name}`: its names in _generated/server.py would be reserved ({why}); pick another"
                )
                out.append(doc.diagnostic(path, "FW150", message, key=True))
            _claim(doc, out, claimed, path, f"{kind} `{name}`", becomes)
            if isinstance(spec, dict) and isinstance(spec.get(section), dict):
                _fields_buildable(doc, out, (*path, section), spec[section])
            if isinstance(spec, dict) and isinstance(spec.get("failures"), dict):
                _failures_buildable(doc, out, path, spec["failures"], spec.get(section) or {}, [], kind)


def _claim(
    doc: _Linted,
    out: list[Diagnostic],
    claimed: dict[str, tuple[str | int, ...]],
    path: tuple[str | int, ...],
    what: str,
    becomes: dict[str, str],
) -> None:
    """Claim each generated identifier in `becomes` (shown -> key) for `path`; FW154 naming both places when
    another name of the spec claimed it first."""
    for shown, key in becomes.items():
        other = claimed.setdefault(key, path)
        if other != path:
            line, col = doc.position(other, key=True)
            message = f"{what} and the name at {doc.file}:{line}:{col} both become {shown}; rename one of them"
            out.append(doc.diagnostic(path, "FW154", message, key=True))
            return


def _tool_buildable(doc: _Linted, out: list[Diagnostic], path: tuple[str | int, ...], tool: dict[str, Any]) -> None:
    claimed: dict[str, tuple[str | int, ...]] = {}
    models: list[tuple[str, tuple[str | int, ...]]] = []
    for section, root in (("input", "Input"), ("output", "Output")):
        fields = tool.get(section)
        if isinstance(fields, dict):
            _fields_buildable(doc, out, (*path, section), fields)
            _models(root, fields, (*path, section), models)
    for model, where in models:
        _claim(doc, out, claimed, where, f"`{where[-1]}`", {f"the model class {model}": model})
    failures = tool.get("failures")
    if isinstance(failures, dict):
        _failures_buildable(doc, out, path, failures, tool.get("input") or {}, models, "tool", claimed)


def _failures_buildable(
    doc: _Linted,
    out: list[Diagnostic],
    path: tuple[str | int, ...],
    failures: dict[str, Any],
    inputs: dict[str, Any],
    models: list[tuple[str, tuple[str | int, ...]]],
    kind: str,
    claimed: dict[str, tuple[str | int, ...]] | None = None,
) -> None:
    """Each failure's class name fits the module of its tool, resource or prompt (`kind`), beside `models`."""
    claimed = {} if claimed is None else claimed
    for fname in failures:
        fpath = (*path, "failures", fname)
        if not isinstance(fname, str) or problem_with_name(fname, "failure", naming.RESERVED_FAILURE_NAMES):
            continue
        class_name = pascal(fname)
        root = "Input" if kind == "tool" else "Params"
        if class_name in ({"Input", "Output", "Item"} if kind == "tool" else {"Params"}):
            continue  # FW104
        if class_name in _nested_names(root, inputs):
            continue  # FW104
        module = naming.TOOL_MODULE_NAMES if kind == "tool" else naming.READER_MODULE_NAMES
        why = naming.reserved_class_name(class_name, module, kind) or (
            f"the {kind} module already has the model {class_name}" if class_name in {m for m, _ in models} else None
        )
        if why:
            out.append(doc.diagnostic(fpath, "FW151", f"failure `{fname}` becomes class {class_name}: {why}", key=True))
            continue
        shown = f"the class {class_name} of the {kind} module"
        _claim(doc, out, claimed, fpath, f"failure `{fname}`", {shown: class_name})


def _models(
    prefix: str, fields: dict[str, Any], path: tuple[str | int, ...], found: list[tuple[str, tuple[str | int, ...]]]
) -> None:
    """Each generated model class of these fields (named as fields.models names them) and its field's path."""
    for name, spec in fields.items():
        if isinstance(name, str) and isinstance(spec, dict):
            _model_of(f"{prefix}{pascal(naming.python_name(name))}", spec, (*path, name), found)


def _model_of(
    name: str, spec: dict[str, Any], path: tuple[str | int, ...], found: list[tuple[str, tuple[str | int, ...]]]
) -> None:
    if "enum" in spec:
        return
    kind = f.json_type(spec)
    if kind == "object" and isinstance(spec.get("properties"), dict) and spec["properties"]:
        found.append((name, path))
        _models(name, spec["properties"], (*path, "properties"), found)
    if kind == "array" and isinstance(spec.get("items"), dict):
        _model_of(f"{name}Item", spec["items"], (*path, "items"), found)


def _fields_buildable(doc: _Linted, out: list[Diagnostic], path: tuple[str | int, ...], fields: dict[str, Any]) -> None:
    published = published_names(path)
    check = naming.problem_with_published_name if published else problem_with_name
    attributes: dict[str, tuple[str | int, ...]] = {}
    for name, spec in fields.items():
        fpath = (*path, name)
        if isinstance(name, str) and not check(name, "field", RESERVED_FIELD_NAMES):
            py = naming.python_name(name) if published else name
            why = naming.reserved_model_field_name(py)
            if why:
                out.append(doc.diagnostic(fpath, "FW152", f"field name `{name}`: {why}; pick another name", key=True))
            model = "output" if len(path) >= 3 and path[2] == "output" else "input"
            becomes = {f"the attribute `{py}` of the generated {model} model": py}
            _claim(doc, out, attributes, fpath, f"field `{name}`", becomes)
        if isinstance(spec, dict) and not doc.is_broken(fpath):
            _constraints(doc, out, fpath, spec)
            if isinstance(spec.get("properties"), dict):
                _fields_buildable(doc, out, (*fpath, "properties"), spec["properties"])
            items = spec.get("items")
            if isinstance(items, dict):
                _constraints(doc, out, (*fpath, "items"), items)
                if isinstance(items.get("properties"), dict):
                    _fields_buildable(doc, out, (*fpath, "items", "properties"), items["properties"])


def _constraints(doc: _Linted, out: list[Diagnostic], path: tuple[str | int, ...], spec: dict[str, Any]) -> None:
    """A numeric range no value (or no integer) is in; a pattern whose strings the length limits refuse."""
    kind = f.json_type(spec)
    if kind in ("integer", "number"):
        low, high = f.bounds(spec)
        if low is None or high is None:
            return
        if low.value > high.value and not (low.strict or high.strict):
            return  # FW132
        low_key = "exclusiveMinimum" if low.strict else "minimum"
        high_key = "exclusiveMaximum" if high.strict else "maximum"
        if low.value > high.value or (low.value == high.value and (low.strict or high.strict)):
            message = f"`{low_key}` {low.value} and `{high_key}` {high.value} leave no value between them"
            out.append(doc.diagnostic((*path, low_key), "FW155", message))
            return
        least, greatest = f.integer_bounds(spec)
        if kind == "integer" and least is not None and greatest is not None and least > greatest:
            message = f"no integer is in the range `{low_key}` {low.value} to `{high_key}` {high.value}"
            out.append(doc.diagnostic((*path, low_key), "FW156", message))
    has_lengths = "minLength" in spec or "maxLength" in spec
    if kind == "string" and isinstance(spec.get("pattern"), str) and has_lengths and not f.example_values(spec):
        made = f.pattern_example(spec["pattern"])
        if made is not None and "default" not in spec and f.make_example(spec) is None:
            message = (
                f"pattern {spec['pattern']} matches strings such as {made!r}, which the length limits refuse, and "
                "failwell can make up no string that fits both; add an `example` that does, or change the limits"
            )
            out.append(doc.diagnostic((*path, "pattern"), "FW157", message))
