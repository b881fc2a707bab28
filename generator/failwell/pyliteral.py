"""Python source for JSON-like values, in the exact layout `ruff format` keeps."""

from __future__ import annotations

import json
from typing import Any


def literal(value: Any, indent: int = 0) -> str:
    """A Python expression for `value`; containers are exploded one item per line with trailing commas."""
    pad = " " * (indent + 4)
    if isinstance(value, dict):
        if not value:
            return "{}"
        items = [f"{pad}{string(str(k))}: {literal(v, indent + 4)}," for k, v in value.items()]
        return "{\n" + "\n".join(items) + "\n" + " " * indent + "}"
    if isinstance(value, list | tuple):
        if not value:
            return "[]"
        items = [f"{pad}{literal(v, indent + 4)}," for v in value]
        return "[\n" + "\n".join(items) + "\n" + " " * indent + "]"
    if isinstance(value, str):
        return string(value)
    if value is None or isinstance(value, bool):
        return repr(value)
    if isinstance(value, int | float):
        return repr(value)
    raise TypeError(f"no Python literal for {type(value).__name__}")


def string(text: str) -> str:
    """A string literal quoted the way ruff's formatter prefers (double quotes unless that adds escapes)."""
    if '"' in text and "'" not in text:
        return repr(text)
    return json.dumps(text, ensure_ascii=False)


def inline(value: Any) -> str:
    """A one-line Python expression for a small JSON-like value."""
    if isinstance(value, dict):
        return "{" + ", ".join(f"{string(str(k))}: {inline(v)}" for k, v in value.items()) + "}"
    if isinstance(value, list | tuple):
        return "[" + ", ".join(inline(v) for v in value) + "]"
    return literal(value)


def docstring(text: str) -> str:
    """Text that is safe inside a one-line triple-quoted docstring."""
    flat = " ".join(text.split()).replace("\\", "\\\\").replace('"""', '\\"\\"\\"')
    return flat[:-1] + '\\"' if flat.endswith('"') else flat


LINE_LENGTH = 120
"""The generated project's line length (its pyproject.toml sets the same for ruff)."""


def assignment(target: str, value: str, indent: int) -> str:
    """`target = value` as `ruff format` lays it out: parenthesized only when that makes it fit."""
    pad = " " * indent
    line = f"{pad}{target} = {value}"
    if len(line) <= LINE_LENGTH or len(pad) + 4 + len(value) > LINE_LENGTH:
        return line
    return f"{pad}{target} = (\n{pad}    {value}\n{pad})"


def fitted(prefix: str, value: list[Any], suffix: str, indent: int) -> str:
    """`prefix` + a list + `suffix` on one line when it fits, else the list exploded, as `ruff format` does."""
    line = f"{' ' * indent}{prefix}{inline(value)}{suffix}"
    return line if len(line) <= LINE_LENGTH else f"{' ' * indent}{prefix}{literal(value, indent)}{suffix}"
