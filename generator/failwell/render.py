"""Render a spec into a fresh folder through Copier, then add the per-tool files."""

from __future__ import annotations

import shutil
import tempfile
import warnings
from pathlib import Path

from .expand import expand
from .model import Project
from .pipeline import load_project, read_spec, starter_spec_text
from .templates import template_root


def render(spec: Path | None, staging: Path) -> Project:
    """Render the project for `spec` (None: the starter spec) into the empty folder `staging`."""
    if spec is None:
        project = load_project(starter_spec_text(), "failwell.yaml")
    else:
        project = load_project(read_spec(spec), str(spec))
    from copier import run_copy  # imported here: it is slow to import and `validate` never needs it

    with tempfile.TemporaryDirectory(prefix="failwell-template-") as tmp:
        source = _plain_copy_of_template(Path(tmp))
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            run_copy(
                str(source),
                staging,
                data={"spec": str(spec) if spec else "", "failwell_inprocess": True},
                defaults=True,
                overwrite=True,
                quiet=True,
                unsafe=True,
            )
    expand(staging, project)
    return project


def _plain_copy_of_template(tmp: Path) -> Path:
    """The template outside any git repository, so Copier renders the files, not the latest tag."""
    root = template_root()
    shutil.copy2(root / "copier.yml", tmp / "copier.yml")
    shutil.copytree(root / "template", tmp / "template", ignore=shutil.ignore_patterns("__pycache__", "*.pyc"))
    return tmp
