"""What the schema cannot say: names that fit Python, placeholders that exist, deadlines that fit, resource URIs
that are level-1 templates of their params and that no two resources share. One module a concept (`tools`, `asks`,
`failures`, `readers`, `fields`, `settings`, `auth`, `dependencies`, `buildable`, `common`; `whole` runs them all);
this package re-exports what the rest of failwell imports."""

from __future__ import annotations

from .auth import issuer_problem
from .buildable import _PEP440
from .common import (
    SCOPE_PLACEHOLDERS,
    builtin_placeholders,
    default_deadline,
    placeholders,
    published_names,
    verbatim_fields,
)
from .readers import PARAM_TYPES
from .settings import SERVER_ENV, SERVER_FLAGS
from .whole import lint

__all__ = [
    "PARAM_TYPES",
    "SCOPE_PLACEHOLDERS",
    "SERVER_ENV",
    "SERVER_FLAGS",
    "_PEP440",
    "builtin_placeholders",
    "default_deadline",
    "issuer_problem",
    "lint",
    "placeholders",
    "published_names",
    "verbatim_fields",
]
