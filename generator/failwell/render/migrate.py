"""Spec format migrations, run by `failwell generate`: the YAML is rewritten in place with its
comments and key order kept, and every change is reported.

Format 0 is the draft format of failwell 0.1's first spec files: `spec_version: 1` at the top instead
of `failwell: 1`, and write tools that did not yet declare their idempotency. Format 1 is current.
"""

from __future__ import annotations

import io
from pathlib import Path

from .. import safewrite
from ..errors import FailwellError
from ..spec.load import load_text
from .pipeline import read_spec

CURRENT = 1


def migrate(spec: Path) -> list[str]:
    """Bring `spec` to the current format in place; the changes made (none when it is current)."""
    text = read_spec(spec)  # bounded, and a diagnostic when not UTF-8
    if not _is_format_0(text, str(spec)):
        return []
    from ruamel.yaml import YAML  # imported here: slow to import, and only a format-0 spec needs it
    from ruamel.yaml.comments import CommentedMap

    yaml = YAML(typ="rt")
    yaml.preserve_quotes = True
    yaml.width = 4096
    root = yaml.load(text)
    if not isinstance(root, CommentedMap) or "spec_version" not in root or "failwell" in root:
        return []
    changes = [f"format 0 -> {CURRENT}: `spec_version: {root['spec_version']}` became `failwell: {CURRENT}`"]
    position = list(root).index("spec_version")
    comment = root.ca.items.pop("spec_version", None)
    del root["spec_version"]
    root.insert(position, "failwell", CURRENT)
    if comment is not None:
        root.ca.items["failwell"] = comment
    tools = root.get("tools")
    for name, tool in tools.items() if isinstance(tools, CommentedMap) else []:
        if (
            isinstance(tool, CommentedMap)
            and tool.get("effect") in ("write", "destructive")
            and "idempotency" not in tool
        ):
            tool.insert(list(tool).index("effect") + 1, "idempotency", "optional")
            tool.yaml_add_eol_comment(
                "added by the format 1 migration: choose required, optional or none", "idempotency"
            )
            changes.append(f"tools.{name}: added `idempotency: optional` (writes now declare how retries stay safe)")
    out = io.StringIO()
    yaml.dump(root, out)
    safewrite.write(spec, out.getvalue().encode("utf-8"), root=spec.parent)
    return changes


def _is_format_0(text: str, file: str) -> bool:
    """Whether the spec says `spec_version` and not `failwell` (read the fast way, without rewriting).
    A spec without the words `spec_version` is not read at all: `generate` reads it next anyway."""
    if "spec_version" not in text:
        return False
    try:
        data = load_text(text, file).data
    except FailwellError:
        return False  # not a YAML mapping: `generate` reports why
    return "spec_version" in data and "failwell" not in data
