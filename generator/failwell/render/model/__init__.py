"""The typed model templates print: every name, literal and example already computed. One module a concept
(`tools`, `readers` for resources and prompts, `failures`, `asks`, `content`, `schemas`, `settings`, `dependencies`,
`project` with `build`, `common`); this package re-exports what the rest of failwell imports."""

from __future__ import annotations

from .asks import Ask, Asking, asking, confirm_lines
from .common import REFERENCE_MARK, SPEC_FILE, context_type, with_reference
from .content import NO_TEXT
from .dependencies import Dependency, Upstream
from .failures import Failure
from .project import Project, build
from .readers import Reader, _text_kind
from .settings import REDIS_URL_EXAMPLE, Setting, Variable
from .tools import Tool

__all__ = [
    "NO_TEXT",
    "REDIS_URL_EXAMPLE",
    "REFERENCE_MARK",
    "SPEC_FILE",
    "Ask",
    "Asking",
    "Dependency",
    "Failure",
    "Project",
    "Reader",
    "Setting",
    "Tool",
    "Upstream",
    "Variable",
    "_text_kind",
    "asking",
    "build",
    "confirm_lines",
    "context_type",
    "with_reference",
]
