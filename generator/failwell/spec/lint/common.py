"""What every lint room shares: the collected diagnostics (`_Linted`), names and placeholders, deadlines,
and where in a scalar a problem sits."""

from __future__ import annotations

import dataclasses
import difflib
import re
import string
from typing import Any

from ...errors import Diagnostic
from .. import naming
from ..load import Document
from ..naming import (
    pascal,
    problem_with_name,
)


def default_deadline(client_timeout_s: float) -> float:
    """The deadline a tool gets when it sets none: 50 s for the usual 60 s client timeout.

    It leaves the client at least max(2 s, 10%) of its timeout, and at most 5/6 of it goes to the
    tool, so the answer arrives with time to spare: client_timeout - max(2 s, 10%, 1/6).
    """
    return round(min(client_timeout_s - max(2.0, client_timeout_s / 10), client_timeout_s * 5 / 6), 3)


SCOPE_PLACEHOLDERS = ("tool", "scope", "granted", "reference")
"""What `server.auth.scope_message` may use."""


def builtin_placeholders(failure_class: str) -> set[str]:
    """Placeholders every message of a class may use without declaring them."""
    names = {"tool", "reference"}
    if failure_class in ("rate_limited", "upstream_unavailable"):
        names.add("retry_after_s")
    if failure_class == "permission_denied":
        names |= {"permission", "role"}
    return names


def _name(
    doc: _Linted, out: list[Diagnostic], path: tuple[str | int, ...], name: str, kind: str,
    reserved: frozenset[str], *, key: bool = False, published: bool = False, variable: bool = False,
) -> None:  # fmt: skip
    """FW101/FW102 for a name the spec does not take: a published one as MCP allows it (a field's keyword or model
    name aliased), a URI variable's param in camelCase too (`resourceId`, its attribute derived), else snake_case."""
    if published or variable:
        problem = naming.problem_with_published_name(name, kind, reserved, aliased=published and kind == "field")
    else:
        problem = problem_with_name(name, kind, reserved)
    if problem:
        out.append(doc.diagnostic(path, problem[0], problem[1], key=key))


class _Linted(Document):
    """A document plus the paths that failed the schema, whose data holds only what the schema accepted:
    each part at a path in `broken` is None, so lint never walks a value of the wrong shape (`upstreams: 5`,
    `tools: [1]`), while the keys stay and a broken field still counts as declared."""

    def __init__(self, doc: Document, broken: frozenset[tuple[str | int, ...]]) -> None:
        self.__dict__.update(doc.__dict__)
        self.broken = broken
        above = frozenset(path[:end] for path in broken for end in range(len(path)))
        self.data = _hollow(doc.data, (), broken, above)
        self._above = above  # every proper prefix of a broken path
        self._parents = frozenset(path[:-1] for path in broken if path)  # the parent of each broken path

    def is_broken(self, path: tuple[str | int, ...], *, below: bool = True) -> bool:
        """Whether the schema rejected `path` itself or, with `below`, anything under it (or, without,
        a direct child of it); set lookups, so a spec with an error in each of its tools lints in linear time."""
        path = tuple(path)
        return path in self.broken or path in (self._above if below else self._parents)


def _hollow(value: Any, path: tuple[str | int, ...], broken: frozenset[Any], above: frozenset[Any]) -> Any:
    """`value` with each part at a path in `broken` replaced by None; copied only along the way to one."""
    if path in broken:
        return None
    if path not in above:
        return value
    if isinstance(value, dict):
        return {key: _hollow(item, (*path, key), broken, above) for key, item in value.items()}
    if isinstance(value, list):
        return [_hollow(item, (*path, index), broken, above) for index, item in enumerate(value)]
    return value


def _deadline(doc: _Linted, out: list[Diagnostic], path: tuple[str, ...], spec: dict[str, Any], timeout: float) -> None:
    """A tool's, resource's or prompt's deadline is shorter than the client's timeout."""
    deadline = spec.get("deadline_s")
    if doc.is_broken((*path, "deadline_s")):
        deadline = None
    if isinstance(deadline, int | float) and not isinstance(deadline, bool) and deadline >= timeout:
        message = (
            f"deadline_s {deadline} is not shorter than the client's timeout ({timeout} s), so the client would "
            f"give up first; use at most {default_deadline(timeout)}"
        )
        out.append(doc.diagnostic((*path, "deadline_s"), "FW120", message))


def _nested_names(prefix: str, fields: dict[str, Any]) -> set[str]:
    names: set[str] = set()
    for name, spec in fields.items():
        if isinstance(spec, dict):
            inner = f"{prefix}{pascal(naming.python_name(name))}"
            if isinstance(spec.get("properties"), dict):
                names |= {inner} | _nested_names(inner, spec["properties"])
            if isinstance(spec.get("items"), dict) and isinstance(spec["items"].get("properties"), dict):
                names |= {f"{inner}Item"} | _nested_names(f"{inner}Item", spec["items"]["properties"])
    return names


def _placeholders(
    doc: _Linted,
    out: list[Diagnostic],
    path: tuple[str | int, ...],
    template: str,
    known: list[str],
    noun: str = "an input field",
) -> list[str] | None:
    """Check a template's placeholders against `known`; the names used, or None when it is malformed."""
    try:
        used = placeholders(template)
    except ValueError as exc:
        out.append(doc.diagnostic(path, "FW112", f"message template: {exc}"))
        return None
    for name in used:
        if name not in known:
            close = difflib.get_close_matches(name, known, n=1)
            hint = f" (did you mean {{{close[0]}}}?)" if close else ""
            message = (
                f"placeholder {{{name}}} is neither {noun} nor a declared field{hint}; "
                f"add `fields: [{name}]` to the failure or use one of: {', '.join(known) or 'none declared'}"
            )
            out.append(doc.diagnostic(path, "FW110", message))
    return used


def verbatim_fields(declared: list[str] | dict[str, Any]) -> list[str]:
    """The declared fields shown as they are (`{type: string, verbatim: true}`), not scrubbed."""
    if not isinstance(declared, dict):
        return []
    return [name for name, kind in declared.items() if isinstance(kind, dict) and kind.get("verbatim") is True]


def placeholders(template: str) -> list[str]:
    """The `{name}` placeholders of a message, in order; ValueError when the template is malformed."""
    names: list[str] = []
    try:
        parsed = list(string.Formatter().parse(template))
    except ValueError:
        raise ValueError("a lone `{` or `}`; write {{ or }} for a literal brace") from None
    for _literal, name, spec, conversion in parsed:
        if name is None:
            continue
        if not name:
            raise ValueError("`{}` needs a name inside the braces; write {{ or }} for a literal brace")
        if not re.fullmatch(r"[A-Za-z_][A-Za-z0-9_-]*", name):  # a field's name, which may be `libraryName`
            raise ValueError(
                f"{{{name}}} is not a plain name; use a field name such as {{ref}}, or write {{{{ and }}}} for "
                "literal braces"
            )
        if spec or conversion:
            raise ValueError(
                f"{{{name}}} has a format spec or conversion; use a plain {{{name}}}, or write {{{{ and }}}} for "
                "literal braces"
            )
        if name not in names:
            names.append(name)
    return names


def published_names(path: tuple[str | int, ...]) -> bool:
    """Whether the fields at `path` are published: a tool's input or output, or a prompt's arguments, at any depth
    (`entities[].entityType`). They may be named as MCP allows (`libraryName`): the Python attribute is derived
    at each level, with an alias keeping the published name."""
    return len(path) >= 3 and (path[0], path[2]) in (("tools", "input"), ("tools", "output"), ("prompts", "arguments"))


def _at_offset(
    doc: _Linted, path: tuple[str | int, ...], text: str, offset: int, code: str, message: str
) -> Diagnostic:
    """A diagnostic about the character at `offset` of the string at `path`, pointing at its column when the
    YAML scalar is on one line (else at the scalar)."""
    diagnostic = doc.diagnostic(path, code, message)
    lines = doc.text.splitlines()
    raw = lines[diagnostic.line - 1][diagnostic.col - 1 :] if diagnostic.line <= len(lines) else ""
    starts = _scalar_offsets(raw, text)
    if starts is None:
        return diagnostic
    return dataclasses.replace(diagnostic, col=diagnostic.col + starts[min(offset, len(text))])


def _scalar_offsets(raw: str, text: str) -> list[int] | None:
    """Where each character of the YAML scalar `text` starts in `raw`, the source from the scalar on (plus
    where it ends), or None when `raw` does not hold all of it on this line."""
    quote = raw[:1] if raw[:1] in ("'", '"') else ""
    starts: list[int] = []
    index = len(quote)
    for char in text:
        if index >= len(raw) or (quote and raw[index] == quote and not raw.startswith("''", index)):
            return None
        starts.append(index)
        if quote == '"' and raw[index] == "\\":
            index += {"x": 4, "u": 6, "U": 10}.get(raw[index + 1 : index + 2], 2)
            continue
        if raw[index] != char:
            return None
        index += 2 if quote == "'" and char == "'" else 1
    return [*starts, index]
