"""`lint`: every check over the whole spec, each problem collected with its code and place."""

from __future__ import annotations

from ...errors import Diagnostic
from .. import by_setting, chosen, dependency_errors, hooks, rate_limits
from ..load import Document
from .auth import _scopes, issuer_problem
from .buildable import _buildable
from .common import SCOPE_PLACEHOLDERS, _Linted, _name, _placeholders, builtin_placeholders, default_deadline
from .dependencies import _dependencies_used, _uses
from .failures import _check_with
from .readers import _overlapping, _prompt, _resource, _subscribed_but_unchanged
from .settings import _settings
from .tools import _tool


def lint(doc: Document, broken: frozenset[tuple[str | int, ...]] = frozenset()) -> list[Diagnostic]:
    """Every semantic problem in a spec.

    Parts at or under a path in `broken` failed the schema and are reported already; they are skipped.
    """
    out: list[Diagnostic] = []
    doc = _Linted(doc, broken)
    out.extend(by_setting.lint(doc, doc.is_broken))
    doc.data = by_setting.flat(doc.data)  # the rest lints each chosen description and effect as generated tests see it
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
    out.extend(chosen.lint(doc, doc.is_broken))
    out.extend(hooks.lint(doc, chosen.settings_of(doc.data)))
    _buildable(doc, out)
    return out
