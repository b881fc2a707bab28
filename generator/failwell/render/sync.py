"""Bring a project in line with its freshly rendered files, never touching the person's code.

Owned files (the `_generated/` folders and `failwell.schema.json`) are rewritten and their stale
files removed. Everything else is seed: created once, then the person's, never overwritten; the
manifest lists the seeds it handed over, so one the person deleted stays deleted (except a handler
module, which the server imports: it is created again). `failwell.yaml` is the person's and is never
written by `generate`.
"""

from __future__ import annotations

import difflib
import io
from collections.abc import Collection, Mapping
from dataclasses import dataclass, field
from pathlib import Path

from .. import safewrite
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


def is_needed(relative: str, package: str) -> bool:
    """Whether a seed file is created again when missing: a handler module (the server imports it)."""
    return relative.startswith(f"src/{package}/handlers/")


def plan(
    rendered: Mapping[str, bytes],
    project: Path,
    package: str,
    tool_names: list[str],
    handed_over: Collection[str] = (),
) -> Plan:
    """Compare rendered files (project-relative POSIX path -> content) with the project on disk; a missing
    seed in `handed_over` (the seeds the last manifest lists) was deleted by the person and stays deleted."""
    result = Plan()
    given = frozenset(handed_over)
    for relative, content in rendered.items():
        target = project / relative
        if relative == SPEC_FILE:
            continue
        if is_owned(relative, package):
            if not target.is_file() or target.read_bytes() != content:
                result.write.append(relative)
        elif not target.exists() and (relative not in given or is_needed(relative, package)):
            result.create.append(relative)
    for root in owned_roots(package):
        for relative in files(project / root):
            if f"{root}{relative}" not in rendered:
                result.delete.append(f"{root}{relative}")
    result.orphans = orphans(project, package, tool_names)
    return result


def orphans(
    project: Path,
    package: str,
    tool_names: list[str],
    resource_names: Collection[str] = (),
    prompt_names: Collection[str] = (),
) -> list[str]:
    """Handler modules whose tool (resource, prompt) is no longer in the spec, and the per-tool test files of
    such a tool (`tests/test_<tool>.py` beside its handler, or one that still calls it by name): kept, and
    reported."""
    tools = frozenset(tool_names)
    folder = project / "src" / package / "handlers"
    modules = sorted(folder.glob("*.py")) if folder.is_dir() else []
    # a module whose name starts with `_` is a helper the handlers share (no tool's name starts so)
    gone = {m.stem for m in modules if not m.stem.startswith("_") and m.stem not in tools}
    found = [f"src/{package}/handlers/{stem}.py" for stem in sorted(gone)]
    for kinds, names in (("resources", frozenset(resource_names)), ("prompts", frozenset(prompt_names))):
        inner = folder / kinds
        for module in sorted(inner.glob("*.py")) if inner.is_dir() and not inner.is_symlink() else []:
            if module.stem != "__init__" and module.stem not in names:
                found.append(f"src/{package}/handlers/{kinds}/{module.name}")
    for test in sorted((project / "tests").glob("test_*.py")):
        tool = test.stem.removeprefix("test_")
        if tool not in tools and (tool in gone or _calls(test, tool)):
            found.append(f"tests/{test.name}")
    return found


def _calls(test: Path, tool: str) -> bool:
    """Whether a test module calls `tool` by name, as the per-tool test failwell creates does."""
    try:
        return f'call_tool("{tool}"' in test.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError):
        return False


def apply(plan: Plan, rendered: Mapping[str, bytes], project: Path) -> None:
    """Carry out a plan: first refuse it whole (writing nothing) when a symbolic link lies where it would
    write or delete, then write each file atomically, keeping an existing file's mode (`safewrite`)."""
    safewrite.refuse_links_all(project, (project / relative for relative in plan.write + plan.create + plan.delete))
    folders: set[Path] = set()
    files: list[tuple[Path, bytes]] = []
    for relative in plan.write + plan.create:
        target = project / relative
        if target.parent not in folders:
            safewrite.make_folders(project, target.parent)
            folders.add(target.parent)
        files.append((target, rendered[relative]))
    safewrite.write_all(files, root=project)
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
