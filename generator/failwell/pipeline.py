"""load -> validate -> lint -> model: a spec's text in, every problem or a typed Project out."""

from __future__ import annotations

from functools import lru_cache
from importlib import resources
from pathlib import Path

from .errors import Diagnostic, FailwellError, spec_error
from .lint import lint
from .load import Document, load_text
from .model import Project, build
from .validate import validate
from .wording import lint_wording


def diagnose(text: str, file: str) -> list[Diagnostic]:
    """Every problem in a spec (errors and warnings), without raising."""
    try:
        doc = load_text(text, file)
    except FailwellError as exc:
        return list(exc.diagnostics)
    return _check(doc)


def _check(doc: Document) -> list[Diagnostic]:
    problems = validate(doc)
    broken = frozenset(d.path for d in problems)
    problems += lint(doc, broken)
    if any(d.severity == "error" for d in problems):
        return problems
    return problems + lint_wording(doc, doc.data)


@lru_cache(maxsize=4)
def load_project(text: str, file: str) -> Project:
    """The model of a spec; FailwellError listing every error when there is any.

    Cached: one render checks the spec once, though both failwell and Copier's extension ask for it.
    """
    doc = load_text(text, file)
    diagnostics = _check(doc)
    if any(d.severity == "error" for d in diagnostics):
        raise spec_error(diagnostics)
    return build(doc.data, text)


def starter_spec_text() -> str:
    """The small spec `failwell new` starts a project from."""
    return resources.files("failwell").joinpath("starter.yaml").read_text(encoding="utf-8")


def read_spec(spec: Path) -> str:
    """A spec file's text; FailwellError saying what to do when it cannot be read."""
    try:
        return spec.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise FailwellError(f"{spec}: no such file; pass the path of a failwell.yaml") from None
    except (OSError, UnicodeDecodeError) as exc:
        raise FailwellError(f"{spec}: cannot read the spec ({exc.__class__.__name__})") from None
