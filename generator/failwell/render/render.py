"""Render a spec in memory: the template's files as `copier copy` renders them, the per-tool files, the manifest.

`failwell new` and `generate` do not run Copier (slow to import and run): they render copier.yml's
template folder with Jinja under the same settings, read from copier.yml itself. The template uses
only this much of Copier: `_subdirectory`, `_templates_suffix`, `_jinja_extensions`, `_envops`,
`_exclude` (names without a slash, matched against each part of a path), file and folder names that
are templates (one that renders empty is skipped), and the answers `spec`, `project` and `package`. The one
file only Copier writes, its answers file (`{{_copier_conf.answers_file}}.jinja`, which `copier update`
reads), is not rendered here.
tests/test_copier.py holds `copier copy --trust` and `failwell new` to the same tree.
"""

from __future__ import annotations

from dataclasses import dataclass
from fnmatch import fnmatchcase
from functools import cache
from pathlib import Path
from typing import Any

import yaml
from jinja2 import Environment, FileSystemLoader, StrictUndefined, Undefined

from ..errors import Diagnostic
from ..templates import compiled_cache, template_root
from . import manifest
from .expand import tool_files
from .model import SPEC_FILE, Project
from .pipeline import load_checked, read_spec, starter_spec_text


@dataclass(frozen=True)
class Rendered:
    """A rendered project: its model, every file by project-relative POSIX path, sorted, and the spec's warnings."""

    project: Project
    files: dict[str, bytes]
    warnings: tuple[Diagnostic, ...] = ()


def render(spec: Path | None, name: str | None = None) -> Rendered:
    """Render the project for `spec` (None: the starter spec, its server called `name` when given)."""
    text, file = (starter_spec_text(name), SPEC_FILE) if spec is None else (read_spec(spec), str(spec))
    project, warnings = load_checked(text, file)
    files = _template_files(project, str(spec) if spec else "")
    files.update((relative, content.encode()) for relative, content in tool_files(project).items())
    files[manifest.MANIFEST] = manifest.text(files, project.package, project.spec_text).encode()
    return Rendered(project, dict(sorted(files.items())), warnings)


_UNDEFINED: dict[str, type[Undefined]] = {"jinja2.StrictUndefined": StrictUndefined, "jinja2.Undefined": Undefined}
"""The two `_envops.undefined` values Copier accepts, by name."""


@cache
def _settings() -> dict[str, Any]:
    """copier.yml, read with PyYAML as Copier reads it."""
    text = (template_root() / "copier.yml").read_text(encoding="utf-8")
    loaded: dict[str, Any] = yaml.load(text, Loader=getattr(yaml, "CSafeLoader", yaml.SafeLoader))
    return loaded


def _template_files(project: Project, spec: str) -> dict[str, bytes]:
    """The files `copier copy` renders from the template folder for `project`."""
    settings = _settings()
    root = template_root()
    folder, suffix = settings["_subdirectory"], settings["_templates_suffix"]
    envops = {**settings["_envops"], "undefined": _UNDEFINED[settings["_envops"]["undefined"]]}
    options = {"extensions": settings["_jinja_extensions"], "keep_trailing_newline": True, **envops}
    env = Environment(loader=FileSystemLoader(root), bytecode_cache=compiled_cache(options), **options)
    answers = {"spec": spec, "failwell_inprocess": True, "project": project.context(), "package": project.package}
    files = {}
    names: dict[str, str] = {}
    """Each templated part of a path, rendered (most files are under `{{ package }}`: it is compiled once)."""
    for path in sorted((root / folder).rglob("*")):
        if not path.is_file():
            continue
        source = path.relative_to(root / folder).as_posix()
        if "_copier_conf" in source:
            continue
        templated = source.endswith(suffix)
        target = source[: -len(suffix)] if templated else source
        for part in target.split("/"):
            if "{" in part and part not in names:
                names[part] = env.from_string(part).render(answers)
        parts = [names.get(part, part) for part in target.split("/")]
        if not all(parts) or any(fnmatchcase(part, pattern) for part in parts for pattern in settings["_exclude"]):
            continue
        if templated:
            files["/".join(parts)] = env.get_template(f"{folder}/{source}").render(answers).encode()
        else:
            files["/".join(parts)] = path.read_bytes()
    return files
