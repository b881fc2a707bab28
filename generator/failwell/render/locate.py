"""Where a project is: the nearest folder, at or above the one given, that holds failwell.yaml."""

from __future__ import annotations

from pathlib import Path

from ..errors import FailwellError
from .model import SPEC_FILE


def find_project(start: Path) -> Path:
    """The project folder holding `start` (a folder in a project, or the project itself); FailwellError when
    neither it nor any folder above it has a failwell.yaml."""
    folder = start.resolve()
    if not folder.is_dir():
        raise FailwellError(f"{start}: no such folder; run this inside a failwell project or pass its folder")
    for candidate in (folder, *folder.parents):
        if (candidate / SPEC_FILE).is_file():
            return candidate if candidate != folder else start
    raise FailwellError(
        f"no {SPEC_FILE} in {start} or any folder above it; run this inside a failwell project or pass its folder"
    )


def find_spec(spec: Path) -> Path:
    """`spec` when it exists or names a file other than the default; else the nearest failwell.yaml above the
    current folder (so `failwell validate` works from a project's subfolder)."""
    if spec.exists() or spec != Path(SPEC_FILE):
        return spec
    return find_project(Path.cwd()) / SPEC_FILE
