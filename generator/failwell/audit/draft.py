"""The way out: a draft failwell.yaml from what an audited server listed (its name and version, each tool's
description, input schema as fields, annotations as `effect`), so its author can regenerate it hardened. What
cannot be read from a listing (the ways each tool fails, and their messages) is left as marked drafts: a
`# DRAFT:` comment per tool, which `failwell validate` ignores, so the draft validates as written. A name the
spec cannot take (a Python keyword or a generated name such as `from` or `json`, a nested field in camelCase, a
tool named like a builtin) is renamed to one it takes, and the rename is marked as a draft too."""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

import yaml

from ..client.terminal import visible
from ..spec import naming
from .findings import Report

_FIELD_KEYS = (
    "minLength",
    "maxLength",
    "minimum",
    "maximum",
    "exclusiveMinimum",
    "exclusiveMaximum",
    "minItems",
    "maxItems",
    "pattern",
)
_FORMATS = {"date", "date-time", "time", "email", "uri", "uuid", "ipv4", "ipv6", "hostname"}
_TYPES = ("string", "integer", "number", "boolean", "array", "object")
_NAME = re.compile(r"[^a-z0-9_-]+")
_PLAIN_NAME = re.compile(r"[A-Za-z0-9_.$-]{1,64}")


MAX_NAME = 64
"""The longest name a spec takes (a server's, a tool's, a field's)."""


def server_name(report: Report | Mapping[str, Any]) -> str:
    """The server's name as a spec takes it (lowercase letters, digits, `-` and `_`, starting with a letter, at
    most 64 characters); from a report or its `server` (serverInfo)."""
    server = report.server if isinstance(report, Report) else report
    name = _NAME.sub("-", str(server.get("name") or "server").lower()).strip("-_")
    name = re.sub(r"^[^a-z]+", "", name)[:MAX_NAME].rstrip("-_")
    return name or "server"


def version(report: Report | Mapping[str, Any]) -> str:
    server = report.server if isinstance(report, Report) else report
    found = re.match(r"^[0-9]+(\.[0-9]+)*", str(server.get("version") or ""))
    return found.group(0) if found else "0.1.0"


def _field_fits(name: str, published: bool) -> bool:
    """Whether the spec takes `name` for a field: a tool's argument (`published`) as MCP allows, a nested one
    in snake_case; neither a keyword nor a name the generated model already uses."""
    if published:  # a keyword or a name the models use is published as written, its attribute `schema_`
        if naming.problem_with_published_name(name, "field", naming.RESERVED_FIELD_NAMES, aliased=True):
            return False
        return naming.reserved_model_field_name(naming.field_attribute(name)) is None
    if naming.problem_with_name(name, "field", naming.RESERVED_FIELD_NAMES):
        return False
    return naming.reserved_model_field_name(name) is None


def _tool_fits(name: str) -> bool:
    if naming.problem_with_published_name(name, "tool"):
        return False
    return naming.reserved_tool_name(naming.python_name(name)) is None


def fitted(name: str, fits: Any, taken: set[str]) -> str:
    """`name` when the spec takes it and its Python name is not `taken` yet, else the nearest snake_case name that
    is (`oldText` -> `old_text`, `from` -> `from_value`); the Python name chosen is added to `taken`."""
    base = re.sub(r"^[^a-z]+", "", naming.python_name(name))[:50].strip("_") or "field"
    candidate, count = name, 1
    while len(candidate) > MAX_NAME or not fits(candidate) or naming.python_name(candidate) in taken:
        count += 1
        candidate = base if count == 2 else f"{base}_value" if count == 3 else f"named_{base}_{count}"
    taken.add(naming.python_name(candidate))
    return candidate


def _properties(
    properties: Mapping[str, Any],
    required: set[str],
    depth: int,
    renamed: list[str],
    defs: Mapping[str, Any] | None = None,
) -> dict[str, dict[str, Any]]:
    """Fields by the names the spec takes; each rename noted in `renamed` (`oldText` as `old_text`). A tool's own
    argument (`defs`: its input schema's `$defs`) is drafted in the curated keys when they publish it exactly as
    listed, else as a `schema:` field holding it as written."""
    out: dict[str, dict[str, Any]] = {}
    taken: set[str] = set()
    for key, value in properties.items():
        if not isinstance(value, Mapping):
            continue
        name = fitted(str(key), lambda n: _field_fits(n, published=depth == 0), taken)
        if name != key:
            renamed.append(f"`{key}` as `{name}`")
        if defs is None:
            out[name] = field(name, value, key in required, depth, renamed)
        else:
            out[name] = exact_field(name, value, key in required, defs, renamed)
    return out


def exact_field(
    name: str, schema: Mapping[str, Any], required: bool, defs: Mapping[str, Any], renamed: list[str]
) -> dict[str, Any]:
    """One argument (or output field) that publishes `schema` as listed: the curated keys when they do (and keep
    nothing the listing does not say), else `schema:` with the listed schema and the root `$defs` it refers to."""
    from ..spec import fields, schemas

    noted: list[str] = []
    short = field(name, schema, required, 0, noted)
    try:
        published = fields._published(short, {})
    except (KeyError, TypeError, ValueError):
        published = None
    if (published == dict(schema) and fields.is_required(short) == required) or not _names_fit(schema):
        renamed.extend(noted)
        return short  # exact; or holding a name no client could send, renamed in the curated keys
    written: dict[str, Any] = dict(schema)
    used = _referenced(written, defs)
    if used:
        written["$defs"] = {**used, **(written.get("$defs") or {})}
    out: dict[str, Any] = {"schema": written}
    if required != ("default" not in written):
        out["required"] = required
    if schemas.example(out) is None:
        found = _example(out, schema)
        if found is not _NONE:
            out["example"] = found
    return out


_NONE = object()


def _example(spec: dict[str, Any], schema: Mapping[str, Any]) -> Any:
    """A value that fits a `schema:` field, for its generated tests: one the listing gives, else a plain one."""
    from ..spec import fields, schemas

    candidates: list[Any] = []
    for option in [schema, *(o for key in ("anyOf", "oneOf") for o in schema.get(key) or [] if isinstance(o, Mapping))]:
        candidates += [*(option.get("examples") or []), option.get("default"), option.get("const")]
        candidates += [*(option.get("enum") or []), fields.FORMAT_EXAMPLES.get(str(option.get("format")))]
    candidates += [_value(spec["schema"], spec["schema"], 0), "example", 1, 1.5, True, [], {}, [{}]]
    for value in candidates:
        if value is not None and schemas.fits(value, spec) is None:
            return value
    return _NONE


def _value(schema: Any, root: Mapping[str, Any], depth: int) -> Any:
    """A value made to fit `schema`, a string of a `format` as that format's example (a draft's last try)."""
    from ..spec import fields

    if not isinstance(schema, Mapping) or depth > 8:
        return None
    for key in ("const", "default"):
        if schema.get(key) is not None:
            return schema[key]
    for key in ("examples", "enum"):
        if isinstance(schema.get(key), list) and schema[key]:
            return schema[key][0]
    reference = schema.get("$ref")
    if isinstance(reference, str) and reference.startswith("#/$defs/"):
        return _value((root.get("$defs") or {}).get(reference.removeprefix("#/$defs/")), root, depth + 1)
    for key in ("anyOf", "oneOf", "allOf"):
        options = [o for o in schema.get(key) or [] if isinstance(o, Mapping) and o.get("type") != "null"]
        if options:
            return _value(options[0], root, depth + 1)
    kind = schema.get("type")
    kind = next((k for k in kind if k != "null"), None) if isinstance(kind, list) else kind
    if kind == "string":
        text = fields.FORMAT_EXAMPLES.get(str(schema.get("format")), "example")
        return text[: schema.get("maxLength", len(text))].ljust(schema.get("minLength", 0), "x")
    if kind in ("integer", "number"):
        return schema.get("minimum", 1)
    if kind == "boolean":
        return True
    if kind == "array":
        return [_value(schema.get("items", {"type": "string"}), root, depth + 1)] * max(
            int(schema.get("minItems", 1)), 0
        )
    if kind == "object" or isinstance(schema.get("properties"), Mapping):
        properties = schema.get("properties") or {}
        return {name: _value(properties.get(name), root, depth + 1) for name in schema.get("required") or []}
    return None


def _names_fit(schema: Any) -> bool:
    """Whether every property name in `schema`, at any depth, is a plain one (letters, digits, `_`, `-`, `.`, `$`; a
    keyword such as `from` too): one that no line break or quote in a listing's text makes."""
    if isinstance(schema, Mapping):
        names: Mapping[str, Any] = schema["properties"] if isinstance(schema.get("properties"), Mapping) else {}
        if not all(_PLAIN_NAME.fullmatch(str(name)) for name in names):
            return False
        return all(_names_fit(value) for value in schema.values())
    if isinstance(schema, list):
        return all(_names_fit(value) for value in schema)
    return True


def _referenced(schema: Any, defs: Mapping[str, Any], found: dict[str, Any] | None = None) -> dict[str, Any]:
    """The root `$defs` entries `schema` refers to (`#/$defs/Name`), and those they refer to."""
    found = {} if found is None else found
    if isinstance(schema, Mapping):
        reference = schema.get("$ref")
        if isinstance(reference, str) and reference.startswith("#/$defs/"):
            name = reference.removeprefix("#/$defs/")
            if name in defs and name not in found:
                found[name] = defs[name]
                _referenced(defs[name], defs, found)
        for value in schema.values():
            _referenced(value, defs, found)
    elif isinstance(schema, list):
        for value in schema:
            _referenced(value, defs, found)
    return found


def field(
    name: str, schema: Mapping[str, Any], required: bool, depth: int = 0, renamed: list[str] | None = None
) -> dict[str, Any]:
    """One argument in failwell's subset of JSON Schema: what maps is kept, the rest dropped."""
    renamed = [] if renamed is None else renamed
    out: dict[str, Any] = {}
    kind = schema.get("type")
    nullable = False
    if isinstance(kind, list):
        nullable = "null" in kind
        kinds = [k for k in kind if k != "null"]
        kind = kinds[0] if len(kinds) == 1 else None
    if kind is None:
        for union in ("anyOf", "oneOf"):
            options = [o for o in schema.get(union) or [] if isinstance(o, Mapping)]
            if options:
                nullable = nullable or any(o.get("type") == "null" for o in options)
                rest = [o for o in options if o.get("type") != "null"]
                if len(rest) == 1:
                    return {
                        **field(name, {**rest[0], **_own(schema)}, required, depth, renamed),
                        **({"nullable": True} if nullable else {}),
                    }
    enum = schema.get("enum")
    if isinstance(enum, list) and enum and all(isinstance(v, str | int | float | bool) for v in enum):
        out["enum"] = list(enum)
    elif kind in _TYPES:
        out["type"] = kind
    else:
        out["type"] = "string"  # what the listing did not say: a draft to check
    description = schema.get("description")
    if isinstance(description, str) and description.strip():
        out["description"] = description  # as listed, line breaks kept; none is made up where the listing has none
    if nullable:
        out["nullable"] = True
    for key in _FIELD_KEYS:
        value = schema.get(key)
        if value is not None and (key != "pattern" or out.get("type") == "string"):
            out[key] = value
    if schema.get("format") in _FORMATS and out.get("type") == "string":
        out["format"] = schema["format"]
    if "default" in schema and schema["default"] is not None:
        out["default"] = schema["default"]
        if required:
            out["required"] = True
    elif depth == 0 and not required:
        out["required"] = False
    examples = schema.get("examples")
    if isinstance(examples, list) and examples and all(value is not None for value in examples):
        out["examples"] = list(examples)
    if out.get("type") == "array" and isinstance(schema.get("items"), Mapping) and depth < 3:
        out["items"] = field("item", schema["items"], True, depth + 1, renamed)
    if out.get("type") == "object" and isinstance(schema.get("properties"), Mapping) and depth < 3:
        inner_required = set(schema.get("required") or [])
        out["properties"] = _properties(schema["properties"], inner_required, depth + 1, renamed)
    return out


def _own(schema: Mapping[str, Any]) -> dict[str, Any]:
    return {key: schema[key] for key in ("description", "title", "default", "examples") if key in schema}


def effect(annotations: Mapping[str, Any] | None) -> str:
    """The effect the hints say, a hint left out meaning MCP's default: not read-only, destructive."""
    annotations = annotations or {}
    if annotations.get("readOnlyHint") is True:
        return "read"
    if annotations.get("destructiveHint") is False:
        return "write"
    return "destructive"


HINTS = ("readOnlyHint", "destructiveHint", "idempotentHint", "openWorldHint")


def tool(listed: Mapping[str, Any], renamed: list[str] | None = None) -> dict[str, Any]:
    """One tool of the draft; the fields renamed to names the spec takes are noted in `renamed`."""
    renamed = [] if renamed is None else renamed
    annotations = listed.get("annotations") or {}
    description = str(listed.get("description") or "")
    out: dict[str, Any] = {"description": description if description.strip() else f"The {listed['name']} tool."}
    if description.strip():
        out["verbatim_description"] = True  # published as listed, the whitespace around it too (a docstring's)
    out["effect"] = effect(annotations)
    if isinstance(listed.get("title"), str) and listed["title"].strip():
        out["title"] = listed["title"]
    if out["effect"] != "read" and annotations.get("idempotentHint") is True:
        out["idempotency"] = "none"  # idempotent by nature, as the server says: no key needed
        out["idempotent"] = True
        out["idempotency_reason"] = (
            "DRAFT: the server's idempotentHint says a second call changes nothing more; say why."
        )
    elif out["effect"] != "read":
        out["idempotency"] = "optional"  # a key the model may send; `required` once every client sends one
    out["open_world"] = annotations.get("openWorldHint") is not False  # left out: MCP's default, an open world
    shown = [hint for hint in HINTS if hint in annotations]
    annotations_title = annotations.get("title")
    if len(shown) < len(HINTS) or isinstance(annotations_title, str):
        out["annotations"] = {
            **({"title": annotations_title} if isinstance(annotations_title, str) else {}),
            **({"hints": shown} if len(shown) < len(HINTS) else {}),
        }
    schema = listed.get("inputSchema") or {}
    required = set(schema.get("required") or [])
    properties = schema.get("properties") or {}
    defs: Mapping[str, Any] = schema["$defs"] if isinstance(schema.get("$defs"), Mapping) else {}
    out["input"] = _properties(properties, required, 0, renamed, defs)
    if schema.get("additionalProperties") is not False:
        out["extra_arguments"] = "allow"  # the original leaves its arguments open: extras ignored, and logged
    output = listed.get("outputSchema")
    roots = {
        which: said
        for which, published in (("input", schema), ("output", output))
        if isinstance(published, Mapping) and (said := _root(published, which))
    }
    if roots:
        out["schema_root"] = roots
    execution = listed.get("execution")
    support = execution.get("taskSupport") if isinstance(execution, Mapping) and len(execution) == 1 else None
    if support in ("forbidden", "optional", "required"):
        if support != "forbidden":
            out["task"] = support  # run as a task, as the original says (failwell's `task:`)
        out["execution"] = {"taskSupport": support}
    if isinstance(output, Mapping) and output.get("type") == "object" and isinstance(output.get("properties"), Mapping):
        output_defs: Mapping[str, Any] = output["$defs"] if isinstance(output.get("$defs"), Mapping) else {}
        out["output"] = _properties(output["properties"], set(output.get("required") or []), 0, renamed, output_defs)
    elif (
        isinstance(output, Mapping)
        and output.get("type") == "object"
        and isinstance(output.get("additionalProperties"), Mapping)
    ):
        out["output"] = {}  # a map alone: its keys' schema is `schema_root.output.additionalProperties`
    return out


def _readers(spec: Mapping[str, Any], listings: Mapping[str, Any]) -> dict[str, dict[str, Any]]:
    """The resources, resource templates and prompts a server listed, each as the spec says it; one the spec
    cannot take as listed (a relative URI, a name it refuses) is left out, for its author to write by hand."""
    from ..render.pipeline import diagnose

    out: dict[str, dict[str, Any]] = {"resources": {}, "prompts": {}}
    listed = [
        *(("resources", "uri", item) for item in listings.get("resources") or []),
        *(("resources", "uriTemplate", item) for item in listings.get("resourceTemplates") or []),
        *(("prompts", "", item) for item in listings.get("prompts") or []),
    ]
    taken: dict[str, set[str]] = {"resources": set(), "prompts": set()}
    for kind, key, item in map(lambda one: (one[0], one[1], _shown(one[2])), listed):
        if not isinstance(item, Mapping) or not isinstance(item.get("name"), str):
            continue
        name = fitted(item["name"], lambda n: not naming.problem_with_published_name(n, "tool"), set(taken[kind]))
        drafted = _resource(item, key) if kind == "resources" else _prompt(item)
        if kind == "resources" and name != item["name"]:
            drafted = {"name": item["name"], **drafted}  # listed as written; the key names its module
        alone = {**spec, "tools": {}, kind: {name: drafted}}
        text = yaml.safe_dump(dict(alone), sort_keys=False, allow_unicode=True)
        if any(found.severity == "error" for found in diagnose(text, "draft.yaml")):
            continue
        taken[kind].add(naming.python_name(name))
        out[kind][name] = drafted
    return {kind: items for kind, items in out.items() if items}


def _resource(listed: Mapping[str, Any], key: str) -> dict[str, Any]:
    out: dict[str, Any] = {"uri": listed.get(key)}
    if isinstance(listed.get("title"), str) and listed["title"].strip():
        out["title"] = listed["title"]
    out["description"] = str(listed.get("description") or "").strip() or f"The {listed['name']} resource."
    if isinstance(listed.get("mimeType"), str):
        out["mime_type"] = listed["mimeType"]
    unlisted = [
        *(["description"] if not str(listed.get("description") or "").strip() else []),
        *(["mime_type"] if "mimeType" not in listed else []),
    ]
    if unlisted:
        out["unlisted"] = unlisted  # listed without them, as the original is
    if key == "uriTemplate":
        variables = re.findall(r"\{([^{}]+)\}", str(listed.get(key)))
        out["params"] = {variable: {"type": "string"} for variable in variables}
    return out


def _prompt(listed: Mapping[str, Any]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    if isinstance(listed.get("title"), str) and listed["title"].strip():
        out["title"] = listed["title"]
    out["description"] = str(listed.get("description") or "").strip() or f"The {listed['name']} prompt."
    arguments: dict[str, Any] = {}
    for argument in listed.get("arguments") or []:
        if isinstance(argument, Mapping) and isinstance(argument.get("name"), str):
            one: dict[str, Any] = {"type": "string"}
            if isinstance(argument.get("description"), str) and argument["description"].strip():
                one["description"] = argument["description"]
            if argument.get("required") is not True:
                one["required"] = False
            arguments[argument["name"]] = one
    if arguments:
        out["arguments"] = arguments
    elif "arguments" not in listed:
        out["unlisted"] = ["arguments"]  # listed with no `arguments` key, as the original is
    return out


def _root(schema: Mapping[str, Any], which: str) -> dict[str, Any]:
    """The keywords at a listed schema's root that failwell's would not say the same (`schema_root`)."""
    out = {key: schema[key] for key in ("$schema", "$id", "title", "description") if isinstance(schema.get(key), str)}
    if schema.get("required") == []:
        out["required"] = []
    said = schema.get("additionalProperties")
    if isinstance(said, bool) and (which == "output" or said is True):
        out["additionalProperties"] = said
    elif isinstance(said, Mapping) and which == "output":
        out["additionalProperties"] = dict(said)  # a map: each further key fits it
    out.update((key, value) for key, value in schema.items() if isinstance(key, str) and key.startswith("x-"))
    defs = schema.get("$defs")
    if isinstance(defs, Mapping) and isinstance(schema.get("properties"), Mapping):
        used = _referenced(schema["properties"], defs)  # those go with the `schema:` fields that refer to them
        unused = {str(name): value for name, value in defs.items() if name not in used}
        if unused:
            out["$defs"] = unused
    return out


def draft(report: Report) -> str:
    """The draft spec's text from an audit's report: YAML with a comment on each tool saying what to fill in."""
    listings = {
        "tools": report.tools,
        "resources": report.resources,
        "resourceTemplates": report.resource_templates,
        "prompts": report.prompts,
    }
    return drafted(report.server, listings, report.target)


def drafted(info: Mapping[str, Any], listings: Mapping[str, Any], target: str) -> str:
    """The draft spec's text from what a server listed: its `serverInfo` (`name`, `version`) and its listings as
    JSON (`tools`, `resources`, `resourceTemplates`, `prompts`, each as its list result holds them); `target` is
    the audited command or URL the draft's first comment names. One path for `audit --write-spec` and the round
    trip's corpus (tests/test_roundtrip.py)."""
    server = server_name(info)
    description = f"{server}, as `failwell audit` listed it."
    listed_name = str(info.get("name") or "")
    tools: dict[str, Any] = {}
    renames: dict[str, list[str]] = {}
    taken: set[str] = set()
    for listed in map(_shown, listings.get("tools") or []):
        name = fitted(str(listed["name"]), _tool_fits, taken)
        renames[name] = [f"the tool `{listed['name']}` as `{name}`"] if name != listed["name"] else []
        tools[name] = tool(listed, renames[name])
    spec: dict[str, Any] = {
        "failwell": 1,
        "server": {"name": server, "version": version(info), "description": description},
        "tools": tools,
    }
    readers = _readers(spec, listings)
    spec.update(readers)
    text = yaml.safe_dump(spec, sort_keys=False, allow_unicode=True, width=110)
    lines = [
        f"# A DRAFT written by `failwell audit --write-spec` from what {_comment(target)} listed.",
        "# Check each tool's effect and fields, then declare the ways each tool fails (the lines marked DRAFT),",
        "# and run `failwell new DEST --spec THIS_FILE` to generate the server, hardened.",
    ]
    for line in text.splitlines():
        lines.append(line)
        key = line.strip().rstrip(":")
        if line == f"  name: {server}" and listed_name and listed_name != server:
            lines.append(
                f"  # DRAFT: renamed to a name a spec takes: the server `{_comment(listed_name)}` as `{server}`"
            )
        if line.startswith("  ") and not line.startswith("   ") and line.endswith(":") and key in spec["tools"]:
            lines.append(
                "    # DRAFT: declare its failures: `failures: {name: {class: not_found, message: ...}}`, one per way "
                "it can fail"
            )
            if renames[key]:
                lines.append(
                    "    # DRAFT: renamed to names a spec takes, so clients will see the new ones: "
                    + _comment(", ".join(renames[key]))
                )
    return "\n".join(lines) + "\n"


def _shown(value: Any) -> Any:
    """A listing with each control character in its texts (keys too) written as its escape (`visible`): a spec
    takes none (FW027), and the person reading the draft sees what the server sent."""
    if isinstance(value, str):
        return visible(value)
    if isinstance(value, Mapping):
        return {_shown(key): _shown(item) for key, item in value.items()}
    if isinstance(value, list):
        return [_shown(item) for item in value]
    return value


def _comment(text: str) -> str:
    """Outside text (a name a server listed, the audited command) as one line of a YAML comment: no line break
    ends it, no control reaches a terminal that shows the file."""
    return visible(text, one_line=True)
