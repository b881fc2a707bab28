"""The round trip of issue 40 point 8: a real server's listings (a snapshot, tests/roundtrip/<key>.json) drafted into
a spec by the code `failwell audit --write-spec` runs (`failwell.audit.draft.drafted`), generated with `failwell new`,
started over stdio and listed by the real `mcp` client in the 2025 era (`mode="legacy"`, as the snapshots were
taken), and compared with the original's as JSON.

What is set aside, and only this: `_meta` on every item; on a tool the original does not mark `idempotentHint: true`,
the `idempotency_key` argument failwell adds to a write (its property, and its name in `required`, the `required`
list itself when nothing else is in it and the original has none); `annotations: {}` is the same as none; a schema's
`required` is compared as a set (JSON Schema gives its order no meaning, and a snapshot may list properties sorted).
Each port's generated code is also given to ruff, with the project's own settings: a format check or lint that fails
is a difference named `project` (the generator lays code out as `ruff format` does, and real listings bring shapes
failwell's own specs never had).

    python tests/roundtrip/report.py [FOLDER]          # the table: server, tools, exact, what differs by kind
    python tests/roundtrip/report.py [FOLDER] --write  # also rewrite known.yaml (the test compares with it)
"""

from __future__ import annotations

import asyncio
import copy
import json
import os
import subprocess
import sys
import tempfile
from collections import Counter
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

import yaml

HERE = Path(__file__).resolve().parent
KNOWN = HERE / "known.yaml"
KINDS = (
    ("tools", "list_tools", "tools", "name"),
    ("resources", "list_resources", "resources", "uri"),
    ("resourceTemplates", "list_resource_templates", "resource_templates", "uriTemplate"),
    ("prompts", "list_prompts", "prompts", "name"),
)
"""Each listing: its key in a snapshot, the client's method, the result's attribute, and the key naming an item."""


def snapshots(folder: Path = HERE) -> list[dict[str, Any]]:
    """Every snapshot in `folder`, by key."""
    found = [json.loads(path.read_text(encoding="utf-8")) for path in sorted(folder.glob("*.json"))]
    return sorted(found, key=lambda snapshot: str(snapshot["key"]))


def draft(snapshot: Mapping[str, Any]) -> str:
    from failwell.audit.draft import drafted

    command = " ".join(snapshot.get("command") or []) or str(snapshot.get("package") or snapshot["key"])
    return drafted(snapshot.get("serverInfo") or {}, snapshot["listings"], command)


def port(snapshot: Mapping[str, Any], dest: Path) -> Path:
    """The generated project of the snapshot's draft, in `dest`."""
    from failwell import new

    dest.parent.mkdir(parents=True, exist_ok=True)
    spec = dest.parent / f"{dest.name}.yaml"
    spec.write_text(draft(snapshot), encoding="utf-8")
    new(dest, spec)
    return dest


def _package(project: Path) -> str:
    return next(path.name for path in sorted((project / "src").iterdir()) if (path / "__main__.py").is_file())


async def listed(project: Path) -> dict[str, list[dict[str, Any]]]:
    """What the generated server lists over stdio, each item as the audit dumps it (JSON, no nulls)."""
    from mcp import Client, StdioServerParameters

    env = {
        "PATH": os.environ.get("PATH", ""),
        "PYTHONPATH": str(project / "src"),
        "FAILWELL_SQLITE_PATH": str(project / "store.sqlite3"),
    }
    params = StdioServerParameters(command=sys.executable, args=["-m", _package(project)], env=env)
    out: dict[str, list[dict[str, Any]]] = {}
    async with Client(params, mode="legacy") as client:  # the 2025 era, as the snapshots were listed
        for key, method, attribute, _ in KINDS:
            items: list[dict[str, Any]] = []
            cursor: str | None = None
            for _page in range(100):
                try:
                    result = await getattr(client, method)(cursor=cursor)
                except Exception:  # a kind the port does not serve: nothing listed
                    break
                page = getattr(result, attribute)
                items.extend(item.model_dump(mode="json", by_alias=True, exclude_none=True) for item in page)
                cursor = result.next_cursor
                if not cursor:
                    break
            out[key] = items
    return out


def _set_aside(original: Mapping[str, Any], ported: Mapping[str, Any]) -> tuple[dict[str, Any], dict[str, Any]]:
    """Both items without what the comparison sets aside (the module's docstring)."""
    original, ported = copy.deepcopy(dict(original)), copy.deepcopy(dict(ported))
    for item in (original, ported):
        item.pop("_meta", None)
        if item.get("annotations") == {}:
            del item["annotations"]
    idempotent = (original.get("annotations") or {}).get("idempotentHint") is True
    schema = ported.get("inputSchema")
    theirs = (original.get("inputSchema") or {}).get("properties") or {}
    if not idempotent and isinstance(schema, dict) and "idempotency_key" not in theirs:
        if "idempotency_key" in (schema.get("properties") or {}):
            del schema["properties"]["idempotency_key"]
        if "idempotency_key" in (schema.get("required") or []):
            schema["required"].remove("idempotency_key")
            if not schema["required"] and "required" not in (original.get("inputSchema") or {}):
                del schema["required"]
    return original, ported


def _schema_kinds(section: str, original: Any, ported: Any, inside: str = "") -> set[str]:
    """The kinds of difference between two schemas: `inputSchema: additionalProperties added`, and so on; the
    names under `properties`, `$defs` and `patternProperties` are data, so a name missing is `property dropped`."""
    if original == ported:
        return set()
    if inside == "required" and isinstance(original, list) and isinstance(ported, list):
        return set() if sorted(map(str, original)) == sorted(map(str, ported)) else {f"{section}: required changed"}
    if isinstance(original, dict) and isinstance(ported, dict):
        kinds: set[str] = set()
        for key in original.keys() | ported.keys():
            if inside in ("properties", "$defs", "patternProperties", "dependentSchemas"):
                noun = "property" if inside == "properties" else inside
                if key not in ported:
                    kinds.add(f"{section}: {noun} dropped")
                elif key not in original:
                    kinds.add(f"{section}: {noun} added")
                else:
                    kinds |= _schema_kinds(section, original[key], ported[key])
            elif key not in ported:
                kinds.add(f"{section}: {key} dropped")
            elif key not in original:
                kinds.add(f"{section}: {key} added")
            elif isinstance(original[key], dict | list) and type(original[key]) is type(ported[key]):
                if key == "required" and inside not in ("properties", "$defs"):
                    kinds |= _schema_kinds(section, original[key], ported[key], key)
                elif isinstance(original[key], list) and len(original[key]) != len(ported[key]):
                    kinds.add(f"{section}: {key} changed")
                else:
                    kinds |= _schema_kinds(section, original[key], ported[key], key)
            elif original[key] != ported[key]:
                kinds.add(f"{section}: {key} changed")
        return kinds
    if isinstance(original, list) and isinstance(ported, list) and len(original) == len(ported):
        kinds = set()
        for one, other in zip(original, ported, strict=True):
            kinds |= _schema_kinds(section, one, other, inside)
        return kinds
    return {f"{section}: {inside or 'value'} changed"}


def item_kinds(original: Mapping[str, Any], ported: Mapping[str, Any] | None) -> list[str]:
    """The kinds of difference between one original item and its port's (None: the port lists none by its name)."""
    if ported is None:
        return ["missing"]
    one, other = _set_aside(original, ported)
    kinds: set[str] = set()
    for key in one.keys() | other.keys():
        first, second = one.get(key), other.get(key)
        if first == second:
            continue
        if key == "description" and isinstance(first, str) and isinstance(second, str):
            same = " ".join(first.split()) == " ".join(second.split())
            kinds.add("description: line breaks" if same else "description changed")
        elif isinstance(first, dict | list) and type(first) is type(second):
            kinds |= _schema_kinds(key, first, second)
        elif first is None:
            kinds.add(f"{key} added")
        elif second is None:
            kinds.add(f"{key} dropped")
        else:
            kinds.add(f"{key} changed")
    return sorted(kinds)


def differences(original: Mapping[str, Any], ported: Mapping[str, Any]) -> dict[str, list[str]]:
    """Every item of the original's listings that the port does not publish exactly (`tools/NAME`,
    `resources/URI`, ...) -> its kinds of difference; plus what the port lists that the original does not."""
    out: dict[str, list[str]] = {}
    for key, _, _, name in KINDS:
        theirs = {str(item.get(name)): item for item in original.get(key) or []}
        ours = {str(item.get(name)): item for item in ported.get(key) or []}
        for label, item in theirs.items():
            kinds = item_kinds(item, ours.get(label))
            if kinds:
                out[f"{key}/{label}"] = kinds
        for label in ours.keys() - theirs.keys():
            out[f"{key}/{label}"] = ["added"]
    return out


def unformatted(project: Path) -> list[str]:
    """What ruff says of a port's generated code, as a difference: its format check and its lint (the project's
    own settings), each named when it fails."""
    out = []
    for label, command in (("ruff format --check", ["format", "--check"]), ("ruff check", ["check"])):
        ran = subprocess.run(
            [sys.executable, "-m", "ruff", *command, "--no-cache", "."], cwd=project, capture_output=True, timeout=300
        )
        if ran.returncode != 0:
            out.append(f"{label} fails")
    return out


def measure(folder: Path = HERE, work: Path | None = None) -> dict[str, dict[str, list[str]]]:
    """Each snapshot's differences: all ported in this process, each server started once."""
    found = snapshots(folder)
    with tempfile.TemporaryDirectory() as scratch:
        root = work or Path(scratch)
        projects: dict[str, Path | None] = {}
        for snapshot in found:
            try:
                projects[snapshot["key"]] = port(snapshot, root / str(snapshot["key"]))
            except Exception as refused:  # the draft does not generate: every item differs, and this says why
                print(f"{snapshot['key']}: {refused}", file=sys.stderr)
                projects[snapshot["key"]] = None

        async def everything() -> dict[str, dict[str, list[str]]]:
            out = {}
            for snapshot in found:
                project = projects[snapshot["key"]]
                ported = await listed(project) if project is not None else {}
                out[snapshot["key"]] = differences(snapshot["listings"], ported)
                if project is not None and (unkept := unformatted(project)):
                    out[snapshot["key"]]["project"] = unkept
            return out

        return asyncio.run(everything())


def table(found: Iterable[Mapping[str, Any]], measured: Mapping[str, Mapping[str, list[str]]]) -> str:
    """server, tools, exact, and what differs by kind (how many tools); then the totals."""
    lines = ["| server | tools | exact | what differs (tools) |", "|---|---|---|---|"]
    totals, by_kind = [0, 0, 0, 0], Counter[str]()
    for snapshot in found:
        key = str(snapshot["key"])
        tools = [str(tool["name"]) for tool in snapshot["listings"].get("tools") or []]
        differing = {label: kinds for label, kinds in measured[key].items() if label.startswith("tools/")}
        exact = sum(f"tools/{name}" not in differing for name in tools)
        kinds = Counter(kind for found_kinds in differing.values() for kind in found_kinds)
        by_kind.update(kinds)
        others = len([label for label in measured[key] if not label.startswith("tools/")])
        said = ", ".join(f"{kind} {count}" for kind, count in kinds.most_common())
        if others:
            said += f"{'; ' if said else ''}{others} resources/templates/prompts differ"
        lines.append(f"| {key} | {len(tools)} | {exact} | {said} |")
        totals[0] += 1
        totals[1] += len(tools)
        totals[2] += exact
        totals[3] += int(exact == len(tools) and not measured[key])
    lines.append(f"| **{totals[0]} servers ({totals[3]} whole)** | {totals[1]} | {totals[2]} | |")
    lines.append("")
    lines.append("By kind (tools): " + "; ".join(f"{kind} {count}" for kind, count in by_kind.most_common()))
    return "\n".join(lines)


def main(argv: list[str]) -> int:
    folder = Path(next((arg for arg in argv if not arg.startswith("--")), HERE))
    measured = measure(folder)
    print(table(snapshots(folder), measured))
    if "--write" in argv:
        KNOWN.write_text(yaml.safe_dump(measured, sort_keys=True, allow_unicode=True, width=120), encoding="utf-8")
        print(f"wrote {KNOWN}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
