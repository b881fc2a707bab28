"""Names the generated code uses, computed once in Python so templates only print them."""

from __future__ import annotations

import keyword
import re

IDENTIFIER = re.compile(r"^[a-z][a-z0-9_]*$")

RESERVED_FIELD_NAMES = frozenset(
    {"ctx", "params", "self", "cls", "idempotency_key", "copy", "dict", "json", "schema", "validate", "construct"}
    | {"tool", "reference", "retry_after_s", "deadline_s"}
)
"""Input and output field names the generated models or handlers already use."""

DEFAULT_TOKENS_ENV = "MCP_TOKENS"
"""Where the default verifier finds bearer tokens when `server.auth.tokens_env` does not say."""

RESERVED_FAILURE_NAMES = frozenset({"input", "output", "handler", "tool_context", "tool_failure", "definition"})
"""Failure names whose class names would collide with the per-tool module's own names."""


def pascal(name: str) -> str:
    """`task_missing` -> `TaskMissing`."""
    return "".join(part[:1].upper() + part[1:] for part in name.split("_") if part)


def problem_with_name(name: str, kind: str, reserved: frozenset[str] = frozenset()) -> tuple[str, str] | None:
    """(code, message) when `name` cannot be a generated identifier, else None."""
    if not IDENTIFIER.match(name) or "__" in name or name.endswith("_"):
        suggestion = re.sub(r"_+", "_", re.sub(r"[^a-z0-9]+", "_", name.lower())).strip("_")
        hint = f"; try `{suggestion}`" if suggestion and IDENTIFIER.match(suggestion) else ""
        return "FW101", f"{kind} name `{name}` must be snake_case: a lowercase letter, then a-z, 0-9, _{hint}"
    if keyword.iskeyword(name) or keyword.issoftkeyword(name):
        return "FW102", f"{kind} name `{name}` is a Python keyword; pick another name"
    if name in reserved or name.startswith("model_"):
        return "FW103", f"{kind} name `{name}` is reserved by the generated code; pick another name"
    return None
