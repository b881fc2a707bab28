"""The closed set of failure classes and how a message is shown to the model."""

from __future__ import annotations

import json
from typing import Any

FAILURE_CLASSES = (
    "invalid_input",
    "not_found",
    "permission_denied",
    "conflict",
    "rate_limited",
    "upstream_unavailable",
    "timeout",
    "internal",
)


def display(value: Any) -> str:
    """How an argument's value reads inside a message: strings bare, anything else as JSON.

    The generated runtime shows values the same way; generated tests rely on it.
    """
    if isinstance(value, str):
        return value
    return json.dumps(value, ensure_ascii=False)


def render_template(template: str, values: dict[str, Any]) -> str:
    """Fill a spec message's `{placeholders}`."""
    return template.format_map({name: display(value) for name, value in values.items()})


def shown(value: Any) -> str:
    """How an invalid argument's value is quoted back to the model (the runtime's `_shown`, without the kind)."""
    text = json.dumps(value, ensure_ascii=False, default=str)
    return text[:77] + "..." if len(text) > 80 else text
