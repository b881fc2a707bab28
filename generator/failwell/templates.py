"""Where the Copier template lives (inside the installed wheel, or beside the source tree), and where its compiled
templates are kept between runs."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from jinja2 import BytecodeCache


def template_root() -> Path:
    """The folder holding `copier.yml` and `template/`."""
    bundled = Path(__file__).parent / "_template"
    if (bundled / "copier.yml").is_file():
        return bundled
    source = Path(__file__).resolve().parents[2]
    if (source / "copier.yml").is_file():
        return source
    raise FileNotFoundError("failwell's template is missing: reinstall failwell")


def compiled_cache(options: dict[str, Any]) -> BytecodeCache | None:
    """Jinja's cache of compiled templates, so that a run compiles only the templates that changed since the last
    (compiling every template is most of what a small project's generation costs). It is Jinja's own per-user
    folder (created 0700 and checked to be the user's own before use), and each entry is checked against its
    template's source; the names carry a digest of the environment's `options`, which the compiled code depends
    on. None, and templates compiled afresh, when that folder cannot be used."""
    from jinja2 import FileSystemBytecodeCache  # imported here: `validate` needs no Jinja

    digest = hashlib.sha256(json.dumps(options, sort_keys=True, default=repr).encode()).hexdigest()[:16]
    try:
        return FileSystemBytecodeCache(pattern=f"__failwell_{digest}_%s.cache")
    except (OSError, RuntimeError):  # no writable temporary folder, or one another user could have planted
        return None
