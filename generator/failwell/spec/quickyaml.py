"""Read a spec with libyaml (PyYAML's C parser) into exactly the values and positions ruamel.yaml gives.

load.py reads specs as YAML 1.2 with ruamel.yaml, whose pure-Python parser takes seconds on a spec
of a thousand tools. libyaml parses the same text far faster but resolves plain scalars by YAML 1.1
(`yes` is true, `0777` octal), so here libyaml only composes the nodes, and plain scalars are resolved
as ruamel.yaml resolves YAML 1.2. Only documents made of what this module can vouch for are read: a
mapping at the top; mappings whose keys are strings, each once; sequences; quoted and block scalars;
plain scalars that are strings, null, true/false, decimal integers or plain decimals; anchors, aliases
and merge keys (`<<: *anchor` or a list of them). For anything else (a tag, a directive, another number
or a timestamp as a plain scalar, unusual line breaks, a syntax error) `load` returns None, and load.py
asks ruamel.yaml, which gives the same values or the same error as ever. tests/test_load.py holds the two
to the same data and positions.
"""

from __future__ import annotations

import re
from typing import Any

from yaml import YAMLError
from yaml._yaml import CParser
from yaml.nodes import MappingNode, Node, ScalarNode
from yaml.resolver import BaseResolver

Path_ = tuple[str | int, ...]
Positions = dict[Path_, tuple[int, int]]

_PLAIN = "failwell:plain"
_QUOTED = "failwell:quoted"
_MAPPING = "failwell:mapping"
_SEQUENCE = "failwell:sequence"
_TAGGED = "failwell:tagged"

_NEEDS_RUAMEL = re.compile(
    r"""
     \t                                    # a tab: ruamel.yaml refuses some that libyaml takes
    |[\x85\u2028\u2029]|\r(?!\n)           # a line break other than \n and \r\n
    |^\ufeff?%                             # a directive: `%YAML 1.1` resolves scalars another way
    |[|>][-+0-9]*(?:\#|[ ]*(?:\#.*)?\r?\n[ ]+\r?\n)
                                           # a block scalar header right before a `#`, or whose first
                                           # line holds only spaces: ruamel.yaml refuses some
    """,
    re.MULTILINE | re.VERBOSE,
)
"""What only ruamel.yaml reads right (or may: this errs on the side of asking it)."""

_NULLS = frozenset({"", "~", "null", "Null", "NULL"})
_BOOLEANS = {"true": True, "True": True, "TRUE": True, "false": False, "False": False, "FALSE": False}
_INTEGER = re.compile(r"[-+]?(?:0|[1-9][0-9]*)\Z")
_DECIMAL = re.compile(r"[-+]?[0-9]+\.[0-9]+\Z")
_OTHER = re.compile(
    r"""^(?:
     [-+]?(?:[0-9][0-9_]*)\.[0-9_]*(?:[eE][-+]?[0-9]+)?
    |[-+]?(?:[0-9][0-9_]*)(?:[eE][-+]?[0-9]+)
    |[-+]?\.[0-9_]+(?:[eE][-+][0-9]+)?
    |[-+]?\.(?:inf|Inf|INF)
    |\.(?:nan|NaN|NAN)
    |[-+]?0b[0-1_]+
    |[-+]?0o?[0-7_]+
    |[-+]?[0-9_]+
    |[-+]?0x[0-9a-fA-F_]+
    |<<
    |[0-9][0-9][0-9][0-9]-[0-9][0-9]-[0-9][0-9]
    |[0-9][0-9][0-9][0-9] -[0-9][0-9]? -[0-9][0-9]?
     (?:[Tt]|[ \t]+)[0-9][0-9]?
     :[0-9][0-9] :[0-9][0-9] (?:\.[0-9]*)?
     (?:[ \t]*(?:Z|[-+][0-9][0-9]?(?::[0-9][0-9])?))?
    |=
    |[!&*]
    )$""",
    re.VERBOSE,
)
"""ruamel.yaml's YAML 1.2 implicit resolvers other than str, null and bool: floats, integers, merge keys,
timestamps, `=` and the `!`, `&`, `*` it lists too."""


class _Unsupported(Exception):
    """The document holds something only ruamel.yaml reads right."""


class _Composer(CParser, BaseResolver):
    """libyaml's composer, tagging each node the text leaves untagged with what kind of node it is."""

    def resolve(self, kind: type[Node], value: Any, implicit: tuple[bool, bool] | bool) -> str:
        if kind is ScalarNode:
            if implicit == (True, False):
                return _PLAIN
            return _QUOTED if implicit == (False, True) else _TAGGED
        if not implicit:
            return _TAGGED
        return _MAPPING if kind is MappingNode else _SEQUENCE


def load(text: str) -> tuple[dict[str, Any], Positions, Positions] | None:
    """The top mapping of `text`, the (line, col) of each value and of each key by path; None: ask ruamel.yaml."""
    if _NEEDS_RUAMEL.search(text):
        return None
    positions: Positions = {}
    key_positions: Positions = {}
    try:
        composer = _Composer(text)  # UnicodeEncodeError, a ValueError, on a lone surrogate
        try:
            root = composer.get_single_node()
            if root is None or root.tag != _MAPPING:
                return None
            data = _mapping(root, (), positions, key_positions)
        finally:
            composer.dispose()
    except (YAMLError, _Unsupported, RecursionError, ValueError):
        return None
    return data, positions, key_positions


def _mapping(node: Node, path: Path_, positions: Positions, key_positions: Positions) -> dict[str, Any]:
    out: dict[str, Any] = {}
    merges: list[Node] = []
    for key_node, value_node in node.value:
        if isinstance(key_node, ScalarNode) and key_node.tag == _PLAIN and key_node.value == "<<":
            if merges:
                raise _Unsupported  # two merge keys: ruamel.yaml says what it makes of them
            merges = value_node.value if value_node.tag == _SEQUENCE else [value_node]
            continue
        key = _scalar(key_node)
        if not isinstance(key, str) or key in out:
            raise _Unsupported
        child = (*path, key)
        key_positions[child] = (key_node.start_mark.line + 1, key_node.start_mark.column + 1)
        positions[child] = (value_node.start_mark.line + 1, value_node.start_mark.column + 1)
        out[key] = _value(value_node, child, positions, key_positions)
    for merged in merges:
        _merge(merged, path, out, positions, key_positions)
    return out


def _merge(node: Node, path: Path_, out: dict[str, Any], positions: Positions, key_positions: Positions) -> None:
    """Add the keys of a merged mapping (`<<: *anchor`) that `out` lacks, each where the anchored mapping has it.

    Keys written in the mapping win over merged ones, and an earlier mapping of a `<<` list over a later one."""
    if node.tag != _MAPPING:
        raise _Unsupported  # ruamel.yaml refuses merging anything but a mapping
    merged_positions: Positions = {}
    merged_key_positions: Positions = {}
    merged = _mapping(node, path, merged_positions, merged_key_positions)
    added = {key: value for key, value in merged.items() if key not in out}
    out.update(added)
    depth = len(path)
    for table, into in ((merged_positions, positions), (merged_key_positions, key_positions)):
        into.update((where, at) for where, at in table.items() if where[depth] in added)


def _value(node: Node, path: Path_, positions: Positions, key_positions: Positions) -> Any:
    if node.tag == _MAPPING:
        return _mapping(node, path, positions, key_positions)
    if node.tag == _SEQUENCE:
        items = []
        for index, item in enumerate(node.value):
            positions[(*path, index)] = (item.start_mark.line + 1, item.start_mark.column + 1)
            items.append(_value(item, (*path, index), positions, key_positions))
        return items
    return _scalar(node)


def _scalar(node: Node) -> Any:
    if not isinstance(node, ScalarNode):
        raise _Unsupported
    if node.tag == _QUOTED:
        return node.value
    value: str = node.value
    if node.tag != _PLAIN or node.style or not value:
        raise _Unsupported  # tagged (`! "x"` reads as plain), or empty: ruamel.yaml puts it elsewhere
    if value in _NULLS:
        return None
    if value in _BOOLEANS:
        return _BOOLEANS[value]
    if _INTEGER.match(value):
        return int(value)
    if _DECIMAL.match(value):
        return float(value)
    if _OTHER.match(value):
        raise _Unsupported
    return value
