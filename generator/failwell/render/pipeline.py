"""load -> validate -> lint -> model: a spec's text in, every problem or a typed Project out."""

from __future__ import annotations

import re
from functools import lru_cache
from importlib import resources
from pathlib import Path

from ..errors import Diagnostic, FailwellError, spec_error
from ..spec.bounds import MAX_BYTES, decode
from ..spec.by_setting import flat
from ..spec.lint import lint
from ..spec.load import Document, load_text
from ..spec.validate import validate
from ..spec.wording import lint_wording
from .model import Project, build


def diagnose(text: str | bytes, file: str) -> list[Diagnostic]:
    """Every problem in a spec (errors and warnings), without raising; bytes are a spec file's content."""
    try:
        doc = load_text(decode_spec(text, file) if isinstance(text, bytes) else text, file)
    except FailwellError as exc:
        return list(exc.diagnostics)
    return _check(doc)


def _check(doc: Document) -> list[Diagnostic]:
    problems = validate(doc)
    if any(d.code == "FW004" for d in problems):
        return problems  # another format: its parts mean something else, so nothing more is checked
    broken = frozenset(d.path for d in problems)
    problems += lint(doc, broken)
    if any(d.severity == "error" for d in problems):
        return problems
    return problems + lint_wording(doc, flat(doc.data))


def load_project(text: str, file: str) -> Project:
    """The model of a spec; FailwellError listing every error when there is any."""
    return load_checked(text, file)[0]


@lru_cache(maxsize=4)
def load_checked(text: str, file: str) -> tuple[Project, tuple[Diagnostic, ...]]:
    """The model of a spec and its warnings, sorted; FailwellError listing every error when there is any.

    Cached: one render checks the spec once, though both failwell and Copier's extension ask for it.
    """
    doc = load_text(text, file)
    diagnostics = _check(doc)
    if any(d.severity == "error" for d in diagnostics):
        raise spec_error(diagnostics)
    warnings = tuple(sorted(diagnostics, key=lambda d: (d.line, d.col, d.code, d.message)))
    return build(flat(doc.data), text), warnings


STARTER_NAME = "notes"
"""The server name of the starter spec, which `failwell new DEST` replaces with one made from DEST."""


def starter_spec_text(name: str | None = None) -> str:
    """The small spec `failwell new` starts a project from, its server called `name` (default: notes)."""
    text = resources.files("failwell").joinpath("starter.yaml").read_text(encoding="utf-8")
    return text if name is None else text.replace(f"\n  name: {STARTER_NAME}\n", f"\n  name: {name}\n", 1)


def server_name(folder: str) -> str:
    """A server name (`^[a-z][a-z0-9_-]*$`, at most 64 characters) made from a folder's name: `My Server` is
    `my-server`; FailwellError when nothing of it can be used."""
    name = re.sub(r"[^a-z0-9_-]+", "-", folder.lower()).strip("-_")
    name = re.sub(r"^[^a-z]+", "", name)[:64].rstrip("-_")
    if not name:
        raise FailwellError(f"cannot make a server name from {folder!r}; pass one with --name, such as --name notes")
    return name


def read_spec(spec: Path) -> str:
    """A spec file's text; FailwellError saying what to do when it cannot be read, or the diagnostic
    when it is too large or not UTF-8 (no more than MAX_BYTES + 1 bytes are read)."""
    try:
        with spec.open("rb") as stream:
            raw = stream.read(MAX_BYTES + 1)
    except FileNotFoundError:
        raise FailwellError(f"{spec}: no such file; pass the path of a failwell.yaml") from None
    except OSError as exc:
        raise FailwellError(f"{spec}: cannot read the spec ({exc.__class__.__name__})") from None
    return decode_spec(raw, str(spec))


def decode_spec(raw: bytes, file: str) -> str:
    """A spec file's text, as read_text(encoding="utf-8") gives it; FW022/FW026 when too large or not UTF-8."""
    text, refused = decode(raw, file)
    if refused:
        raise spec_error(refused)
    return text.replace("\r\n", "\n").replace("\r", "\n")  # universal newlines, as read_text reads
