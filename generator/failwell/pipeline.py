"""load -> validate -> lint -> model: a spec's text in, every problem or a typed Project out."""

from __future__ import annotations

from importlib import resources

from .errors import Diagnostic, FailwellError, spec_error
from .lint import lint
from .load import Document, load_text
from .model import Project, build
from .validate import validate


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
    return problems + lint(doc, broken)


def load_project(text: str, file: str) -> Project:
    """The model of a spec; FailwellError listing every error when there is any."""
    doc = load_text(text, file)
    diagnostics = _check(doc)
    if any(d.severity == "error" for d in diagnostics):
        raise spec_error(diagnostics)
    return build(doc.data, text)


def starter_spec_text() -> str:
    """The small spec `failwell new` starts a project from."""
    return resources.files("failwell").joinpath("starter.yaml").read_text(encoding="utf-8")
