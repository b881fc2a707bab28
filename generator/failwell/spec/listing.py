"""How a tool is shown in `tools/list` where a ported server's original shows it otherwise (issue 40 point 8):
the hints its annotations publish (`annotations.hints`, a hint left out meaning MCP's default) and their `title`;
its description with the whitespace around it (`verbatim_description`);
keywords at the root of its input and output schemas (`schema_root`: `$schema`, `title`, `required: []`,
`additionalProperties`, `$defs` no field refers to, `x-` extension keys, ...). Its input schema left open
(`extra_arguments: allow`) is `fields.published_schema(closed=False)`;
failwell's own specs publish inputs closed and all four hints."""

from __future__ import annotations

from typing import Any

from . import fields, schemas

HINTS = ("readOnlyHint", "destructiveHint", "idempotentHint", "openWorldHint")


def published_annotations(spec: dict[str, Any], hints: dict[str, bool]) -> dict[str, bool | str]:
    """The annotations published: the hints the effect gives that `annotations.hints` names (all four by default),
    after `annotations.title` when the spec gives one."""
    shown = spec.get("annotations") or {}
    named = shown.get("hints", HINTS)
    out: dict[str, bool | str] = {"title": shown["title"]} if "title" in shown else {}
    out.update((hint, value) for hint, value in hints.items() if hint in named)
    return out


def description(spec: dict[str, Any]) -> str:
    """The tool's description as published: stripped of leading and trailing whitespace (a YAML block's last line
    break), or exactly as written with `verbatim_description: true` (a docstring's indentation, as a port's
    original publishes it)."""
    text = str(spec["description"])
    return text if spec.get("verbatim_description") is True else text.strip()


def dialect(spec: dict[str, Any], schema: dict[str, Any], which: str) -> dict[str, Any]:
    """A published schema (`which`: input or output) with the spec's `schema_root` keywords for it, as written
    (`$schema` first)."""
    root = (spec.get("schema_root") or {}).get(which) or {}
    if not root:
        return schema
    first = {key: root[key] for key in ("$schema", "$id") if key in root}
    if isinstance(root.get("additionalProperties"), dict) and schema.get("properties") == {}:
        schema = {key: value for key, value in schema.items() if key != "properties"}  # a map, as written
    out = {**first, **schema, **{key: value for key, value in root.items() if key not in first}}
    if isinstance(root.get("$defs"), dict):  # beside the `schema:` fields' own (FW164 refuses a name given twice)
        out["$defs"] = {**root["$defs"], **(schema.get("$defs") or {})}
    return out


def further_keys(spec: dict[str, Any]) -> dict[str, Any] | None:
    """The JSON Schema each further key of a tool's output fits (`schema_root.output.additionalProperties` as a
    schema: a map such as path -> size), or None when the output holds its fields only."""
    said = ((spec.get("schema_root") or {}).get("output") or {}).get("additionalProperties")
    return said if isinstance(said, dict) and isinstance(spec.get("output"), dict) else None


def lint(doc: Any, path: tuple[str | int, ...], tool: dict[str, Any]) -> list[Any]:
    """FW165 for what the listing keys say the tool does not do: an `execution.taskSupport` other than its `task`;
    an input published open (`additionalProperties: true`) that refuses extra arguments, or closed while it takes
    them; `required: []` beside a required field."""
    out = []
    execution = tool.get("execution")
    support = execution.get("taskSupport") if isinstance(execution, dict) else None
    if isinstance(support, str) and support != (tool.get("task") or "forbidden"):
        message = (
            f"`execution.taskSupport: {support}` is published, but the tool's `task` is "
            f"{tool.get('task') or 'not set'}; publish `{tool.get('task') or 'forbidden'}`"
        )
        out.append(doc.diagnostic((*path, "execution", "taskSupport"), "FW165", message))
    roots = tool.get("schema_root")
    if not isinstance(roots, dict):
        return out
    further = (roots.get("output") or {}).get("additionalProperties") if isinstance(roots.get("output"), dict) else None
    if isinstance(further, dict):
        where = (*path, "schema_root", "output", "additionalProperties")
        out.extend(
            doc.diagnostic((*where, *at), code, text, key=bool(at)) for at, code, text in schemas.problems(further)
        )
        if not isinstance(tool.get("output"), dict):
            message = "a schema for the output's further keys needs an `output` (`output: {}` for a map alone)"
            out.append(doc.diagnostic(where, "FW165", message))
    allow = tool.get("extra_arguments") == "allow"
    said = (roots.get("input") or {}).get("additionalProperties") if isinstance(roots.get("input"), dict) else None
    if said is True and not allow:
        message = (
            "the input schema is published open (`additionalProperties: true`) but the tool refuses an argument it "
            "does not take; add `extra_arguments: allow`, or remove it"
        )
        out.append(doc.diagnostic((*path, "schema_root", "input", "additionalProperties"), "FW165", message))
    if said is False and allow:
        message = (
            "the input schema is published closed (`additionalProperties: false`) but `extra_arguments: allow` "
            "takes arguments it does not list; remove one of them"
        )
        out.append(doc.diagnostic((*path, "schema_root", "input", "additionalProperties"), "FW165", message))
    for which in ("input", "output"):
        root = roots.get(which)
        section = tool.get(which)
        if isinstance(root, dict) and isinstance(root.get("$defs"), dict) and isinstance(section, dict):
            out.extend(_defs_twice(doc, (*path, "schema_root", which, "$defs"), root["$defs"], section))
        if not isinstance(root, dict) or "required" not in root or not isinstance(section, dict):
            continue
        required = [name for name, field in section.items() if isinstance(field, dict) and fields.is_required(field)]
        if required:
            message = (
                f"`required: []` is published while `{required[0]}` is required; remove it, or make the field optional"
            )
            out.append(doc.diagnostic((*path, "schema_root", which, "required"), "FW165", message))
    return out


def _defs_twice(doc: Any, path: tuple[str | int, ...], defs: dict[str, Any], section: dict[str, Any]) -> list[Any]:
    """FW164 for a `schema_root` `$defs` name a `schema:` field of the same schema defines differently: both are
    published in the one root `$defs`."""
    out = []
    for name, value in _field_defs(section):
        if name in defs and defs[name] != value:
            message = (
                f"`$defs` `{name}` is defined differently by a `schema:` field; both are published at the root of "
                "the tool's schema, so give one definition, or another name"
            )
            out.append(doc.diagnostic((*path, name), "FW164", message, key=True))
    return out


def _field_defs(section: dict[str, Any]) -> list[tuple[str, Any]]:
    """Every `$defs` entry of the `schema:` fields in `section`, at any depth."""
    out: list[tuple[str, Any]] = []
    for spec in section.values():
        if not isinstance(spec, dict):
            continue
        if isinstance(spec.get("schema"), dict):
            out.extend((spec["schema"].get("$defs") or {}).items())
        if isinstance(spec.get("properties"), dict):
            out.extend(_field_defs(spec["properties"]))
        if isinstance(spec.get("items"), dict):
            out.extend(_field_defs({"item": spec["items"]}))
    return out


UNLISTED_KEYS = {"description": "description", "mime_type": "mimeType"}
"""A resource's `unlisted` keys, and the listing's key each leaves out."""


def reader_listed(kind: str, spec: dict[str, Any]) -> dict[str, str | None]:
    """What a resource's listing shows otherwise than failwell's (`ResourceDefinition.listed`, by MCP's keys): its
    `name:` as written, None for each key its `unlisted` leaves out. A prompt's is `unlisted_arguments`."""
    if kind != "resource":
        return {}
    out: dict[str, str | None] = {"name": spec["name"]} if isinstance(spec.get("name"), str) else {}
    out.update((UNLISTED_KEYS[key], None) for key in spec.get("unlisted") or () if key in UNLISTED_KEYS)
    return out


def unlisted_arguments(kind: str, spec: dict[str, Any]) -> bool:
    """Whether a prompt is listed with no `arguments` key at all (`unlisted: [arguments]`)."""
    return kind == "prompt" and "arguments" in (spec.get("unlisted") or ())


def reader_lint(doc: Any, path: tuple[str | int, ...], kind: str, spec: dict[str, Any]) -> list[Any]:
    """FW165 for a prompt whose `unlisted: [arguments]` would hide arguments it takes."""
    if kind == "prompt" and unlisted_arguments(kind, spec) and spec.get("arguments"):
        index = list(spec["unlisted"]).index("arguments")
        message = (
            "`arguments` is left out of the listing, but the prompt takes arguments a client must see; "
            "remove `arguments` from `unlisted`, or the arguments"
        )
        return [doc.diagnostic((*path, "unlisted", index), "FW165", message)]
    return []
