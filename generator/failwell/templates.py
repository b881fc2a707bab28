"""Where the Copier template lives: inside the installed wheel, or beside the source tree."""

from __future__ import annotations

from pathlib import Path


def template_root() -> Path:
    """The folder holding `copier.yml` and `template/`."""
    bundled = Path(__file__).parent / "_template"
    if (bundled / "copier.yml").is_file():
        return bundled
    source = Path(__file__).resolve().parents[2]
    if (source / "copier.yml").is_file():
        return source
    raise FileNotFoundError("failwell's template is missing: reinstall failwell")
