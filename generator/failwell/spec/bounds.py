"""What a spec file may hold before and after it is read: the limits that keep failwell's time and memory
bounded on any file, each refused with its own code (FW016, FW020-FW027).

Before a YAML reader builds anything, `scan` reads the text as a stream of parser events, which takes
no recursion and keeps nothing but a stack of open collections. It finds:
- a mapping or list used as a key (FW016);
- a tag other than the core types (FW020);
- aliases that would add more than `MAX_NODES` values, or expand into themselves (FW021);
- nesting deeper than `MAX_DEPTH` (FW023);
- a number written with more than `MAX_DIGITS` digits (FW024).
So a billion laughs or 50,000 brackets never reach a reader that expands or recurses. `check_text` (size
FW022, characters FW027) runs before that, `decode` (FW026) before both, and `check_values` (integers past
2**53 FW024, .inf/.nan/1e400 FW025, control characters FW027) on the data a reader built."""

from __future__ import annotations

import math
import re
from collections.abc import Iterator
from typing import Any, Protocol

from ..errors import Diagnostic


class Document(Protocol):
    """What `check_values` needs of a loaded spec (`load.Document` is one): its data, and a diagnostic at a path.
    A protocol, so that this module, which `load` runs first, does not import `load` back."""

    data: Any

    def diagnostic(
        self, path: tuple[str | int, ...], code: str, message: str, *, key: bool = False, warning: bool = False
    ) -> Diagnostic: ...


MAX_BYTES = 5_000_000
"""The largest spec file read: a spec of a thousand tools is about 1 MB."""
MAX_DEPTH = 64
"""The deepest nesting of mappings and sequences; a spec needs about 10."""
MAX_NODES = 100_000
"""The most values aliases may add to a document when expanded (what it writes out is bounded by its size)."""
MAX_DIGITS = 30
"""The most digits a number may be written with."""
MAX_INTEGER = 2**53
"""The largest integer (in magnitude) a JSON Schema client reads exactly: a JavaScript number."""

_CORE_TAGS = frozenset(
    f"tag:yaml.org,2002:{name}" for name in ("str", "int", "float", "bool", "null", "map", "seq")
) | {"!"}
"""Tags that only say what the plain value is anyway; `!` is the non-specific tag (a string)."""

_CONTROL = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\x7f\ud800-\udfff]")
"""Characters no text of a spec may hold: C0 controls other than tab and line breaks, DEL, lone surrogates."""


def writable(text: str) -> str:
    """`text` as a spec may hold it, for a front end that writes one from outside text: the C0 controls other than
    tab and line breaks, and DEL, dropped; each lone surrogate made U+FFFD."""
    return _CONTROL.sub(lambda found: "\ufffd" if found.group() >= "\ud800" else "", text)


_NUMBER = re.compile(r"[-+]?(?:0[xob][0-9a-fA-F_]+|[0-9_]*\.?[0-9_]*)(?:[eE][-+]?[0-9]+)?\Z")
"""How a plain scalar that a YAML reader may read as a number is written (decimal, 0x, 0o, 0b, float)."""


def decode(raw: bytes, file: str) -> tuple[str, list[Diagnostic]]:
    """The text of a spec file, or FW022/FW026 where it is too large or not UTF-8."""
    if len(raw) > MAX_BYTES:
        message = f"the spec is over {MAX_BYTES:,} bytes; a spec of a thousand tools is about 1 MB"
        return "", [Diagnostic(file, 1, 1, "FW022", message)]
    try:
        return raw.decode("utf-8"), []
    except UnicodeDecodeError as exc:
        line_start = raw.rfind(b"\n", 0, exc.start) + 1
        line = raw.count(b"\n", 0, exc.start) + 1
        col = len(raw[line_start : exc.start].decode("utf-8")) + 1
        message = (
            f"the spec is not UTF-8: byte 0x{raw[exc.start]:02x} here cannot start or continue a character; "
            "save it as UTF-8"
        )
        return "", [Diagnostic(file, line, col, "FW026", message)]


def check_text(text: str, file: str) -> list[Diagnostic]:
    """FW022 for text over the size bound, FW027 at the first control character or lone surrogate."""
    if len(text) > MAX_BYTES:
        message = f"the spec is over {MAX_BYTES:,} characters; a spec of a thousand tools is about 1 MB"
        return [Diagnostic(file, 1, 1, "FW022", message)]
    found = _CONTROL.search(text)
    if found is None:
        return []
    line = text.count("\n", 0, found.start()) + 1
    col = found.start() - (text.rfind("\n", 0, found.start()) + 1) + 1
    return [Diagnostic(file, line, col, "FW027", _character_message(found.group()))]


def _character_message(char: str) -> str:
    kind = "a lone surrogate" if "\ud800" <= char <= "\udfff" else "a control character"
    return f"{kind} (U+{ord(char):04X}) where text is expected; remove it (tabs and line breaks are fine)"


class _Frame:
    """An open mapping or sequence: its anchor, the running node count when it opened, and (for a mapping)
    whether the next node is a key."""

    __slots__ = ("anchor", "key_next", "mapping", "start")

    def __init__(self, anchor: str | None, start: int, mapping: bool) -> None:
        self.anchor, self.start, self.mapping, self.key_next = anchor, start, mapping, mapping


def scan(text: str, file: str, *, max_depth: int = MAX_DEPTH) -> list[Diagnostic]:
    """FW020, FW021, FW023 and FW024 from the text's parser events, before any reader builds the document.
    (`failwell import openapi` reads an OpenAPI document's aliases with the same bound, nested up to `max_depth`.)

    A syntax error ends the scan quietly: the reader reports it, with what the scan saw so far checked."""
    out: list[Diagnostic] = []
    for events in (_libyaml_events, _ruamel_events):
        try:
            out = _scan_events(events(text), file, max_depth)
        except Exception as exc:  # any parser's syntax error: try the next parser, then let the reader say
            if not _is_yaml_error(exc):
                raise
            continue
        break
    return out


def _scan_events(events: Iterator[Any], file: str, max_depth: int) -> list[Diagnostic]:
    out: list[Diagnostic] = []
    stack: list[_Frame] = []
    sizes: dict[str, int] = {}
    total = added = 0
    collections: set[str] = set()
    for event in events:
        kind = type(event).__name__
        line, col = event.start_mark.line + 1, event.start_mark.column + 1
        if kind in ("MappingEndEvent", "SequenceEndEvent"):
            frame = stack.pop()
            if frame.anchor is not None:
                sizes[frame.anchor] = total - frame.start
            continue
        if kind not in ("ScalarEvent", "AliasEvent", "MappingStartEvent", "SequenceStartEvent"):
            continue
        if stack and stack[-1].mapping:
            is_key, stack[-1].key_next = stack[-1].key_next, not stack[-1].key_next
            collection = kind != "ScalarEvent" and (kind != "AliasEvent" or event.anchor in collections)
            if is_key and collection:
                message = "a mapping or list used as a key; a key in a spec is a plain name, such as `tasks_get`"
                return [*out, Diagnostic(file, line, col, "FW016", message)]
        if kind in ("MappingStartEvent", "SequenceStartEvent") and event.anchor is not None:
            collections.add(event.anchor)
        elif kind == "ScalarEvent" and event.anchor is not None:
            collections.discard(event.anchor)
        if kind == "AliasEvent":
            if event.anchor not in sizes:
                if any(frame.anchor == event.anchor for frame in stack):
                    message = (
                        f"alias *{event.anchor} sits inside its own anchor, so it expands forever; "
                        "copy the part instead"
                    )
                    return [*out, Diagnostic(file, line, col, "FW021", message)]
                continue  # an undefined alias: the reader says so
            total += sizes[event.anchor]
            added += sizes[event.anchor]
        else:
            total += 1
        if added > MAX_NODES:
            message = (
                f"aliases add more than {MAX_NODES:,} values to the spec here; "
                "a spec needs far fewer, so write the repeated parts out or share less"
            )
            return [*out, Diagnostic(file, line, col, "FW021", message)]
        tag = None if kind == "AliasEvent" or event.tag is None else str(event.tag)
        if tag is not None and tag not in _CORE_TAGS:
            shown = tag.replace("tag:yaml.org,2002:", "!!")
            message = f"tag `{shown}` is not allowed; a spec holds plain strings, numbers, booleans, lists and mappings"
            out.append(Diagnostic(file, line, col, "FW020", message))
        if kind == "ScalarEvent":
            anchor = event.anchor
            if anchor is not None:
                sizes[anchor] = 1
            if _may_be_number(event, tag):
                digits = sum(char.isdigit() for char in re.split("[eE]", event.value)[0])
                if digits > MAX_DIGITS:
                    message = f"a number of {digits} digits; numbers in a spec have at most {MAX_DIGITS}"
                    out.append(Diagnostic(file, line, col, "FW024", message))
        elif kind in ("MappingStartEvent", "SequenceStartEvent"):
            if event.anchor is not None:
                sizes.pop(event.anchor, None)  # redefined: the old one no longer counts
            stack.append(_Frame(event.anchor, total, kind == "MappingStartEvent"))
            if len(stack) > max_depth:
                message = f"nested more than {max_depth} levels deep; a spec needs about 10"
                return [*out, Diagnostic(file, line, col, "FW023", message)]
    return out


def _may_be_number(event: Any, tag: str | None) -> bool:
    plain = event.implicit[0] and not event.style
    numeric_tag = tag in ("tag:yaml.org,2002:int", "tag:yaml.org,2002:float")
    value: str = event.value
    return (plain or numeric_tag) and _NUMBER.match(value) is not None


def _libyaml_events(text: str) -> Iterator[Any]:
    import yaml

    loader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)(text)
    try:
        while loader.check_event():
            yield loader.get_event()
    finally:
        loader.dispose()


def _ruamel_events(text: str) -> Iterator[Any]:
    from ruamel.yaml import YAML

    yield from YAML(typ="rt").parse(text)


def _is_yaml_error(exc: Exception) -> bool:
    import yaml
    from ruamel.yaml.error import YAMLError

    # libyaml refuses a lone surrogate with UnicodeEncodeError; check_text reports those first
    return isinstance(exc, yaml.YAMLError | YAMLError | UnicodeError)


def check_values(doc: Document) -> list[Diagnostic]:
    """FW024 for an integer past 2**53, FW025 for a number that is not finite, FW027 for control characters."""
    out: list[Diagnostic] = []
    _check_value(doc, (), doc.data, out)
    return out


def _check_value(doc: Document, path: tuple[str | int, ...], value: Any, out: list[Diagnostic]) -> None:
    if isinstance(value, dict):
        for key, item in value.items():
            child = (*path, key)
            if isinstance(key, str) and _CONTROL.search(key):
                out.append(doc.diagnostic(child, "FW027", _character_message(_CONTROL.findall(key)[0]), key=True))
            _check_value(doc, child, item, out)
    elif isinstance(value, list):
        for index, item in enumerate(value):
            _check_value(doc, (*path, index), item, out)
    elif isinstance(value, str):
        found = _CONTROL.search(value)
        if found:
            out.append(doc.diagnostic(path, "FW027", _character_message(found.group())))
    elif isinstance(value, bool):
        return
    elif isinstance(value, int) and abs(value) > MAX_INTEGER:
        message = f"an integer past 2**53 ({MAX_INTEGER:,}), which JSON Schema clients cannot read exactly"
        out.append(doc.diagnostic(path, "FW024", message))
    elif isinstance(value, float) and not math.isfinite(value):
        message = f"the number {value} is not a finite number; write a finite one such as 1e9"
        out.append(doc.diagnostic(path, "FW025", message))
