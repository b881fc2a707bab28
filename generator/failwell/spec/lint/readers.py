"""Resources and prompts: URIs that are level-1 templates of their params, none overlapping, subscriptions."""

from __future__ import annotations

import difflib
from typing import Any

from ...errors import Diagnostic
from .. import fields as f
from .. import listing, uri
from ..load import Document
from .asks import _asks
from .common import _at_offset, _deadline, _Linted, _nested_names
from .failures import _failures
from .fields import _fields


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
    out.extend(listing.reader_lint(doc, path, "prompt", prompt))
    failures = prompt.get("failures")
    if isinstance(failures, dict):
        nested = _nested_names("Params", declared)
        _failures(doc, out, path, failures, declared, defaults, nested, "an argument", frozenset({"Params"}))
