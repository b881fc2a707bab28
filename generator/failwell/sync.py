"""Bring a project in line with its freshly rendered files, never touching the person's code.

Owned files (the `_generated/` folders and `failwell.schema.json`) are rewritten and their stale
files removed. Everything else is seed: created when missing, never overwritten. `failwell.yaml`
is the person's and is never written by `generate`.
"""

from __future__ import annotations

import difflib
import io
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path

from .model import SPEC_FILE

_IGNORED_PARTS = frozenset({"__pycache__", ".mypy_cache", ".pytest_cache", ".ruff_cache"})


def owned_roots(package: str) -> tuple[str, ...]:
    """Project-relative folders failwell owns outright."""
    return (f"src/{package}/_generated/", "tests/generated/")


OWNED_FILES = ("failwell.schema.json", "failwell.manifest.json")


@dataclass
class Plan:
    """What syncing a staging folder into a project would do."""

    write: list[str] = field(default_factory=list)
    delete: list[str] = field(default_factory=list)
    create: list[str] = field(default_factory=list)
    orphans: list[str] = field(default_factory=list)

    @property
    def stale(self) -> list[str]:
        """Every project file that differs from what the spec renders."""
        return sorted(self.write + self.delete + self.create)


def is_owned(relative: str, package: str) -> bool:
    """Whether failwell owns the file at this project-relative path."""
    return relative in OWNED_FILES or relative.startswith(owned_roots(package))


def files(root: Path) -> dict[str, Path]:
    """Project-relative POSIX path -> file, skipping caches."""
    if not root.is_dir():
        return {}
    found = {}
    for path in root.rglob("*"):
        relative = path.relative_to(root)
        if path.is_file() and not _IGNORED_PARTS.intersection(relative.parts) and path.suffix != ".pyc":
            found[relative.as_posix()] = path
    return dict(sorted(found.items()))


def plan(rendered: Mapping[str, bytes], project: Path, package: str, tool_names: list[str]) -> Plan:
    """Compare rendered files (project-relative POSIX path -> content) with the project on disk."""
    result = Plan()
    for relative, content in rendered.items():
        target = project / relative
        if relative == SPEC_FILE:
            continue
        if is_owned(relative, package):
            if not target.is_file() or target.read_bytes() != content:
                result.write.append(relative)
        elif not target.exists():
            result.create.append(relative)
    for root in owned_roots(package):
        for relative in files(project / root):
            if f"{root}{relative}" not in rendered:
                result.delete.append(f"{root}{relative}")
    result.orphans = orphans(project, package, tool_names)
    return result


def orphans(project: Path, package: str, tool_names: list[str]) -> list[str]:
    """Handler modules whose tool is no longer in the spec: kept, and reported."""
    folder = project / "src" / package / "handlers"
    modules = sorted(folder.glob("*.py")) if folder.is_dir() else []
    return [m.relative_to(project).as_posix() for m in modules if m.stem != "__init__" and m.stem not in tool_names]


def apply(plan: Plan, rendered: Mapping[str, bytes], project: Path) -> None:
    """Carry out a plan."""
    folders: set[Path] = set()
    for relative in plan.write + plan.create:
        target = project / relative
        if target.parent not in folders:
            target.parent.mkdir(parents=True, exist_ok=True)
            folders.add(target.parent)
        target.write_bytes(rendered[relative])
    for relative in plan.delete:
        (project / relative).unlink()


def diff(plan: Plan, rendered: Mapping[str, bytes], project: Path) -> str:
    """A unified diff from the project to its rendered files."""
    chunks: list[str] = []
    for relative in plan.stale:
        old = project / relative
        before = _lines(old.read_bytes()) if old.is_file() else []
        after = _lines(rendered[relative]) if relative in rendered else []
        chunks.extend(difflib.unified_diff(before, after, f"a/{relative}", f"b/{relative}"))
    return "".join(chunks)


def _lines(content: bytes) -> list[str]:
    """A file's lines as `read_text` gives them (universal newlines)."""
    return io.TextIOWrapper(io.BytesIO(content), encoding="utf-8").read().splitlines(keepends=True)
