"""The manifest: what failwell wrote last time, so `generate` can tell a hand edit from a stale file,
and skip the whole render when nothing it depends on has changed."""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping
from functools import cache
from pathlib import Path
from typing import Any

from .. import safewrite
from ..templates import template_root
from ..version import VERSION
from .sync import files, is_needed, is_owned

MANIFEST = "failwell.manifest.json"
COPIER_ANSWERS = ".copier-answers.yml"
"""Copier's record of a `copier copy` (not failwell's, and not a seed: failwell never writes it)."""


def digest(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


@cache
def template_digest() -> str:
    """One hash of copier.yml, every template file and failwell's own code (which computes the model the
    templates print): a changed failwell or template renders anew, even at the same version."""
    root = template_root()
    parts = [b"copier.yml", (root / "copier.yml").read_bytes()]
    for relative, path in files(root / "template").items():
        parts += [relative.encode(), path.read_bytes()]
    code = Path(__file__).resolve().parents[1]  # the failwell package, every stage's folder
    for pattern in ("*.py", "*.json", "*.yaml"):
        for path in sorted(code.rglob(pattern)):
            if "__pycache__" not in path.parts:
                parts += [path.relative_to(code).as_posix().encode(), path.read_bytes()]
    return digest(b"\0".join(parts))


def text(files: Mapping[str, bytes], package: str, spec_text: str) -> str:
    """The manifest of a project's files (project-relative POSIX path -> content): its owned files' hashes,
    and the names of the files it seeds (created once, then the person's), so a deleted one is noticed."""
    owned = {
        relative: digest(content)
        for relative, content in files.items()
        if is_owned(relative, package) and relative != MANIFEST
    }
    recorded = {
        "failwell": VERSION,
        "package": package,
        "spec_sha256": digest(spec_text.encode()),
        "template_sha256": template_digest(),
        "files": owned,
        "seeds": sorted(
            relative for relative in files if not is_owned(relative, package) and relative != COPIER_ANSWERS
        ),
    }
    return json.dumps(recorded, indent=2, sort_keys=True) + "\n"


def write(root: Path, package: str, spec_text: str) -> None:
    """Write the manifest of the files under `root` into `root`."""
    # Only owned files are hashed; the others are listed by name, so their bytes are not read.
    on_disk = {
        relative: path.read_bytes() if is_owned(relative, package) else b"" for relative, path in files(root).items()
    }
    safewrite.write(root / MANIFEST, text(on_disk, package, spec_text).encode(), root=root)


def read(project: Path) -> dict[str, Any] | None:
    """The project's manifest, or None (a project from before manifests, or a broken file)."""
    try:
        loaded = json.loads((project / MANIFEST).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    return loaded if isinstance(loaded, dict) and isinstance(loaded.get("files"), dict) else None


VERSION_FIELDS = ("failwell", "template_sha256")
"""What a newer failwell changes in the manifest of a project whose files it renders byte for byte the same."""


def version_only(on_disk: Path, rendered: bytes) -> bool:
    """Whether the manifest on disk differs from the rendered one only in failwell's version and template hash:
    such a difference is not stale, and is not written."""
    try:
        old, new = json.loads(on_disk.read_text(encoding="utf-8")), json.loads(rendered)
    except (OSError, ValueError):
        return False
    if not isinstance(old, dict) or not isinstance(new, dict):
        return False
    return {k: v for k, v in old.items() if k not in VERSION_FIELDS} == {
        k: v for k, v in new.items() if k not in VERSION_FIELDS
    }


def handed_over(manifest: dict[str, Any] | None) -> list[str]:
    """The seed files the manifest lists: created once and handed over to the person."""
    seeds = (manifest or {}).get("seeds")
    return [str(relative) for relative in seeds] if isinstance(seeds, list) else []


def hand_edited(project: Path, manifest: dict[str, Any]) -> list[str]:
    """Owned files whose bytes are no longer what failwell wrote."""
    edited = []
    for relative, expected in sorted(manifest["files"].items()):
        path = project / relative
        if path.is_file() and digest(path.read_bytes()) != expected:
            edited.append(relative)
    return edited


def unchanged(project: Path, manifest: dict[str, Any], spec_text: str) -> bool:
    """True when a render would write exactly what is on disk: same spec, failwell and template, no edits,
    and every handler module still there (a render would create a deleted one again; the other seeds,
    once handed over, stay deleted)."""
    package = str(manifest.get("package", ""))
    if (
        manifest.get("failwell") != VERSION
        or manifest.get("spec_sha256") != digest(spec_text.encode())
        or manifest.get("template_sha256") != template_digest()
    ):
        return False
    seeds = manifest.get("seeds")
    if not isinstance(seeds, list) or not all(
        (project / str(relative)).is_file() for relative in seeds if is_needed(str(relative), package)
    ):
        return False
    on_disk = {relative for relative in files(project) if is_owned(relative, package) and relative != MANIFEST}
    return on_disk == set(manifest["files"]) and not hand_edited(project, manifest)
