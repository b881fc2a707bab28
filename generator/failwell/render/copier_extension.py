"""The Jinja extension copier.yml loads: it turns the `spec` answer into the project model."""

from __future__ import annotations

from functools import lru_cache
from importlib import resources
from pathlib import Path
from typing import Any

from jinja2 import Environment
from jinja2.ext import Extension

from ..errors import FailwellError
from ..pyliteral import json_string, markdown_code, markdown_text, shell_word
from ..version import VERSION
from .manifest import MANIFEST
from .model import SPEC_FILE
from .pipeline import load_project, server_name, starter_spec_text


class FailwellExtension(Extension):
    """Adds `failwell_project(spec_path, dest)`, `failwell_schema()` and `failwell_version` to the template globals,
    and the filters the README prints outside text through (`markdown_text`, `markdown_code`, `shell_word`,
    `json_string`, from `pyliteral`)."""

    def __init__(self, environment: Environment) -> None:
        super().__init__(environment)
        environment.globals["failwell_project"] = project_context
        environment.globals["failwell_schema"] = schema_text
        environment.globals["failwell_version"] = VERSION
        for name, helper in (
            ("markdown_text", markdown_text),
            ("markdown_code", markdown_code),
            ("shell_word", shell_word),
            ("json_string", json_string),
        ):
            environment.filters[name] = helper  # outside text in the README: as text or code, never as Markdown


def schema_text() -> str:
    """spec.schema.json, copied into each project so editors complete failwell.yaml offline."""
    return resources.files("failwell").joinpath("spec.schema.json").read_text(encoding="utf-8")


def project_context(spec_path: str, dest: str = "") -> dict[str, Any]:
    """The render context for the spec at `spec_path`, or, when it is empty, for the starter spec named after
    the destination folder `dest` (as `failwell new DEST` names it).

    Copier prints a UserMessageError as one message and exits 1, so a spec error shows its diagnostics
    (not a traceback), and rendering into a failwell project (`copier update`, `copier recopy`, a second
    `copier copy`) stops before anything is written, saying to run `failwell generate` there instead.
    """
    from copier.errors import UserMessageError

    if dest and (Path(dest) / MANIFEST).is_file():
        raise UserMessageError(
            f"{dest} is a failwell project already: run `failwell generate` there, which re-renders failwell's "
            "files from its failwell.yaml and keeps yours (copier update and recopy do not apply); nothing was changed"
        )
    try:
        if spec_path:
            return _context(Path(spec_path).expanduser().read_text(encoding="utf-8"), spec_path)
        return _context(starter_spec_text(server_name(Path(dest).resolve().name) if dest else None), SPEC_FILE)
    except FailwellError as exc:
        raise UserMessageError("\n".join([*map(str, exc.diagnostics), f"failwell: {exc.message}"])) from None
    except OSError as exc:
        raise UserMessageError(f"failwell: {spec_path}: cannot read the spec ({exc.__class__.__name__})") from None


@lru_cache(maxsize=4)
def _context(text: str, file: str) -> dict[str, Any]:
    return load_project(text, file).context()
