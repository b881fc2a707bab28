"""The one error type failwell raises, and the diagnostics a spec can earn."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal

Severity = Literal["error", "warning"]


@dataclass(frozen=True)
class Diagnostic:
    """One problem in a spec, pointing at the YAML line it came from."""

    file: str
    line: int
    col: int
    code: str
    message: str
    severity: Severity = "error"
    path: tuple[str | int, ...] = field(default=(), compare=False, repr=False)

    def __str__(self) -> str:
        label = "" if self.severity == "error" else "warning: "
        return printable(f"{self.file}:{self.line}:{self.col}: {self.code} {label}{self.message}")  # one line


class FailwellError(Exception):
    """A problem the user can fix; the CLI prints `message` and exits with `exit_code`."""

    exit_code = 1

    def __init__(self, message: str, diagnostics: tuple[Diagnostic, ...] = ()) -> None:
        super().__init__(message)
        self.message = message
        self.diagnostics = diagnostics


INTERNAL_ERROR = "failwell hit an internal error on this spec; please report it with the spec"
"""What the CLI prints, with exit code 2, for an exception no spec should cause (a bug in failwell)."""
INTERNAL_EXIT_CODE = 2


def printable(text: str) -> str:
    """Outside text as a message shows it: on one line, each character that does not print (line breaks, controls,
    format characters, lone surrogates) escaped as Python's `repr` escapes it."""
    if text.isprintable():
        return text
    return "".join(char if char.isprintable() else repr(char)[1:-1] for char in text)


def spec_error(diagnostics: list[Diagnostic]) -> FailwellError:
    """The error for a spec with problems: every diagnostic, sorted by position."""
    ordered = tuple(sorted(set(diagnostics), key=lambda d: (d.file, d.line, d.col, d.code, d.message)))
    errors = sum(1 for d in ordered if d.severity == "error")
    warnings = len(ordered) - errors
    summary = f"{errors} error(s), {warnings} warning(s); nothing was written."
    return FailwellError(summary, ordered)


class Refusal(ValueError):
    """A piece of a spec failwell refuses (a pattern, a URI): the lint code, where in the piece (0-based), and why."""

    def __init__(self, code: str, offset: int, message: str) -> None:
        super().__init__(message)
        self.code = code
        self.offset = offset
        self.message = message
