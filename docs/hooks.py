"""MkDocs hooks: the pages that are generated, so that they cannot drift from what they describe.

- `<!-- failwell:spec-reference -->` becomes the spec reference: every key of `spec.schema.json` (each object's
  keys in a table: type, default, an example, what it means), the example taken from the schema or from the
  first spec in `examples/` and `tests/ports/` that uses the key;
- `<!-- failwell:diagnostics -->` becomes the table of every diagnostic code, from `failwell.spec.codes.CODES`.

`tests/test_docs.py` builds the site with `mkdocs build --strict` and checks that every schema key has a
description and an example, and every code a line.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import yaml

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "generator"))

from failwell.spec.codes import CODES  # noqa: E402

SCHEMA = json.loads((REPO / "generator" / "failwell" / "spec.schema.json").read_text(encoding="utf-8"))
EXAMPLE_SPECS = sorted(REPO.glob("examples/*/failwell.yaml")) + sorted(REPO.glob("tests/ports/*.yaml"))
SECTIONS = {
    "": "The spec file",
    "server": "server",
    "server.auth": "server.auth",
    "server.rate_limit": "server.rate_limit",
    "messages": "messages",
    "upstream": "upstreams.&lt;name&gt;",
    "tool": "tools.&lt;name&gt;",
    "field": "Fields: input, output, params, arguments",
    "failure": "A tool's failures.&lt;name&gt;",
    "read_failure": "A resource's or prompt's failures.&lt;name&gt;",
    "resource": "resources.&lt;name&gt;",
    "prompt": "prompts.&lt;name&gt;",
    "rate_limit": "rate_limit",
}


def on_page_markdown(markdown: str, **_: Any) -> str:
    """Fill the placeholders of a page with the generated reference."""
    if "<!-- failwell:spec-reference -->" in markdown:
        markdown = markdown.replace("<!-- failwell:spec-reference -->", spec_reference())
    if "<!-- failwell:diagnostics -->" in markdown:
        markdown = markdown.replace("<!-- failwell:diagnostics -->", diagnostics())
    return markdown


def diagnostics() -> str:
    """Every code as one table row: code, severity, what it means."""
    lines = ["| Code | Severity | Problem |", "|---|---|---|"]
    for code, (severity, meaning) in sorted(CODES.items()):
        lines.append(f"| {code} | {severity} | {_cell(meaning)} |")
    return "\n".join(lines) + "\n"


def objects() -> dict[str, dict[str, Any]]:
    """Every object of the schema that has keys, by section id: the root, `server`'s nested objects and each
    `$defs` entry."""
    found = {"": SCHEMA}

    def visit(prefix: str, node: dict[str, Any]) -> None:
        for key, child in (node.get("properties") or {}).items():
            if isinstance(child, dict) and child.get("properties") and "$ref" not in child:
                name = f"{prefix}.{key}" if prefix else key
                found[name] = child
                visit(name, child)

    visit("", SCHEMA)
    for name, node in SCHEMA["$defs"].items():
        if node.get("properties"):
            found[name] = node
            visit(name, node)
    return found


def examples() -> dict[tuple[str, str], Any]:
    """(section id, key) -> the first value a real spec gives that key."""
    seen: dict[tuple[str, str], Any] = {}

    def walk(section: str, node: dict[str, Any], value: Any) -> None:
        node = _resolve(node)
        if not isinstance(value, dict):
            return
        properties = node.get("properties")
        if properties:
            for key, child_value in value.items():
                if key in properties:
                    seen.setdefault((section, key), child_value)
                    child = properties[key]
                    walk(_section_of(section, key, child), child, child_value)
        elif isinstance(node.get("additionalProperties"), dict):
            for child_value in value.values():
                child = node["additionalProperties"]
                walk(_ref_name(child) or section, child, child_value)

    for path in EXAMPLE_SPECS:
        walk("", SCHEMA, yaml.safe_load(path.read_text(encoding="utf-8")))
    return seen


def spec_reference() -> str:
    """One table per object of the schema: each key's type, default, example and description."""
    found, values = objects(), examples()
    out = []
    for section in sorted(found, key=lambda s: (s != "", s)):
        node = found[section]
        out.append(f"### {SECTIONS.get(section, section)} {{#{_anchor(section)}}}\n")
        if node.get("description") and section:
            out.append(node["description"] + "\n")
        out.append("| Key | Type | Default | Example | What it is |")
        out.append("|---|---|---|---|---|")
        required = set(node.get("required") or [])
        for key, child in node["properties"].items():
            name = f"`{key}`" + (" (required)" if key in required else "")
            default = f"`{json.dumps(child['default'])}`" if "default" in child else ""
            example = example_of(section, key, child, values)
            shown = f"`{_short(json.dumps(example, ensure_ascii=False))}`" if example is not None else ""
            kind = type_of(child)
            if child.get("properties") and "$ref" not in child:
                inner = f"{section}.{key}" if section else key
                kind = f"[object](#{_anchor(inner)})"
            out.append(f"| {name} | {kind} | {default} | {_cell(shown)} | {_cell(child.get('description', ''))} |")
        out.append("")
    return "\n".join(out)


def example_of(section: str, key: str, node: dict[str, Any], values: dict[tuple[str, str], Any]) -> Any:
    """An example for one key: the schema's own, else the first real spec's, else None."""
    if isinstance(node.get("examples"), list) and node["examples"]:
        return node["examples"][0]
    return values.get((section, key))


def type_of(node: dict[str, Any]) -> str:
    """How a key's value is written: a JSON type, one of an enum, or a link to another table."""
    if "$ref" in node:
        name = _ref_name(node)
        if not SCHEMA["$defs"][name].get("properties"):
            return type_of(SCHEMA["$defs"][name])
        return f"[{SECTIONS.get(name, name)}](#{_anchor(name)})"
    if "const" in node:
        return f"`{json.dumps(node['const'])}`"
    if "enum" in node:
        return " \\| ".join(f"`{value}`" for value in node["enum"])
    if "oneOf" in node or "anyOf" in node:
        return " or ".join(type_of(option) for option in node.get("oneOf") or node.get("anyOf"))
    kind = node.get("type", "any")
    if kind == "object" and isinstance(node.get("additionalProperties"), dict):
        return f"map of name to {type_of(node['additionalProperties'])}"
    if kind == "array" and isinstance(node.get("items"), dict):
        return f"list of {type_of(node['items'])}"
    return " or ".join(kind) if isinstance(kind, list) else kind


def _resolve(node: dict[str, Any]) -> dict[str, Any]:
    name = _ref_name(node)
    return SCHEMA["$defs"][name] if name else node


def _ref_name(node: dict[str, Any]) -> str:
    ref = node.get("$ref", "")
    return ref.rsplit("/", 1)[-1] if ref.startswith("#/$defs/") else ""


def _section_of(section: str, key: str, node: dict[str, Any]) -> str:
    if _ref_name(node):
        return _ref_name(node)
    return f"{section}.{key}" if section else key


def _anchor(section: str) -> str:
    return "spec-" + (section.replace(".", "-").replace("_", "-") or "file")


def _cell(text: str) -> str:
    return " ".join(str(text).split()).replace("|", "\\|")


def _short(text: str, limit: int = 60) -> str:
    return text if len(text) <= limit else text[: limit - 1] + "…"
