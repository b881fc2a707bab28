"""Fuzzing the spec (issue 15.3): the example specs and the starter spec, mutated by Hypothesis.

Property A, on every mutant: `failwell validate`, `new` and `generate` (the API the CLI calls, and the CLI
itself for a share of cases) end with exit 0 or 1 in bounded time, every problem one `FILE:LINE:COL: CODE
message` line, never a traceback, a warning or "internal error"; a mutant that validates renders, its
Python compiles and passes `ruff check` and `ruff format --check`. Property B, on a few accepted mutants: the
project `failwell new` writes imports and passes ruff, mypy --strict and its own tests; and on a bounded sample of
accepted mutants (FAILWELL_FUZZ_RUNS, 1 by default, plus a URL example with `retries: 0`), the generated tests
run and pass: each follows what its spec says (mild mutants set examples to URLs and paths, retries to 0..3).

`FAILWELL_FUZZ_EXAMPLES=20000 pytest tests/test_fuzz_specs.py -m slow` is the long run: 20,000 mutants and 10
builds (FAILWELL_FUZZ_BUILDS sets the builds alone), randomized; without the variable the mutants are the same
every run (300 and 3: about 15 s and 1 minute on 2 cores).
"""

from __future__ import annotations

import copy
import json
import keyword
import os
import re
import signal
import subprocess
import sys
import tempfile
import warnings
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
import yaml
from hypothesis import HealthCheck, Phase, assume, example, given, settings
from hypothesis import strategies as st
from typer.testing import CliRunner

import failwell
from conftest import BIN, EXAMPLES, REPO
from failwell.cli import app
from failwell.errors import INTERNAL_ERROR, Diagnostic, FailwellError
from failwell.render.pipeline import diagnose
from failwell.render.render import render
from failwell.spec.load import load_text

LONG_RUN = "FAILWELL_FUZZ_EXAMPLES" in os.environ
MUTANTS = int(os.environ.get("FAILWELL_FUZZ_EXAMPLES", "300"))
"""Mutants of the slow property-A test (the smoke test runs 20)."""
BUILDS = int(os.environ.get("FAILWELL_FUZZ_BUILDS", max(2, MUTANTS // 2000)))
"""Accepted mutants whose generated project is checked (about 30 s each): 3, or one per 2,000 mutants."""
SECONDS = 10
"""The most one mutant may take, all of it, before it counts as a hang (Hypothesis's deadline is 5 s)."""

SOURCES: dict[str, str] = {
    **{path.parent.name: path.read_text(encoding="utf-8") for path in sorted(EXAMPLES.glob("*/failwell.yaml"))},
    "starter": (REPO / "generator" / "failwell" / "starter.yaml").read_text(encoding="utf-8"),
}
TREES: dict[str, dict[str, Any]] = {name: load_text(text, name).data for name, text in SOURCES.items()}

PROBLEM = re.compile(r"^.+:\d+:\d+: FW\d{3} .+$")
"""One printed problem."""


# What a mutant is made of ----------------------------------------------------------------------------------


def _schema_words() -> tuple[list[str], list[str]]:
    """Every key and every enum value the spec's JSON Schema names."""
    keys: set[str] = set()
    values: set[str] = set()

    def walk(node: object) -> None:
        if isinstance(node, dict):
            for key, value in node.items():
                if key == "properties" and isinstance(value, dict):
                    keys.update(value)
                if key == "enum" and isinstance(value, list):
                    values.update(str(v) for v in value)
                walk(value)
        elif isinstance(node, list):
            for item in node:
                walk(item)

    walk(failwell.schema())
    return sorted(keys), sorted(values)


SCHEMA_KEYS, SCHEMA_VALUES = _schema_words()

PYTHON_NAMES = [
    *keyword.kwlist,
    *keyword.softkwlist,
    *("list", "dict", "str", "int", "float", "bool", "id", "type", "print", "object", "input", "format", "hash"),
    *("len", "open", "super", "property", "exception", "self", "cls", "ctx", "params", "changed", "reference"),
    *("json", "mcp", "typing", "sys", "os", "re", "pydantic", "anyio", "test", "tests", "server", "handlers"),
    *("main", "serve", "http", "stdio", "runtime", "model_config", "model_dump", "parse_obj", "schema_json"),
    *("idempotency_key", "tool", "retry_after_s", "deadline_s", "input", "output", "item", "items", "batch"),
]
"""Names the generated Python code could collide with."""

ODD_NAMES = [
    *("", "_", "__", "_x", "x_", "x__y", "x1", "x_1", "x__1", "X", "Notes_Get", "notes-get", "notes get", "1x"),
    *("x" * 64, "x" * 65, "é", "ñame", "straße", "ǅ", "x\u0301", "עברית", "اسم", "🙂", "a.b", "a/b", "{x}", "$ref"),
    *("<<", "true", "null", "~", "yes", "1", "0x1", "1e3", "Input", "Output", "InputItem", "x_handler", "x_errors"),
    "spec_version",
]
"""Names that are not quite snake_case, or only just are."""

TEXTS = [
    *("", " ", "\t", "\n", "x", "a" * 70_000, "word " * 20_000, "\u202eevil\u202c", "שלום עולם", "مرحبا بالعالم"),
    *("abc \u202edef\u202c ghi", "😀", "👩\u200d💻 🏳️\u200d🌈", "e\u0301\u0302\u0303", "\u0301", "Z\u0351\u0352\u0353"),
    *("line\u2028line", "para\u2029para", "nel\x85nel", "\x01", "\x1b[31mred", "\x7f", "\x9f", "\ufeff", "\u200b"),
    *("\u00a0", '"', "'", '"""', "'''", "\\", "\\u0000", "{", "}", "{x}", "{{x}}", "{ref}", "{0}", "{tool}"),
    *("{note_id}", "{text}", "{limit}", "%s", "${x}", "`", "</script>", "#", "- x", ": x", "? x", "*a", "&a"),
    *("!tag", "|", ">", "@", "null", "~", "yes", "NO", "on", "1", "0x1A", "1e3", "-.inf", "1_000", "::"),
    *("http://x", "https://auth.example.com/?q#f", "https://127.0.0.1", "1.0foo", "0.1.0", "v1", "^$", "^(a|b)+$"),
    *("(?P<n>a)", "\\d{2,}", "[", "(?=a)", "\\p{L}", "a{,3}", "\\A\\Z", "(a*)*b", "TOKENS", "MCP_TOKENS", "tasks:read"),
]
"""Text values: empty, huge, RTL, emoji, combining marks, separators, controls, quotes, braces, YAML syntax."""

NUMBERS: list[int | float] = [
    *(0, 1, -1, 2, 7, 59, 60, 61, 1000, 10**6, 10**6 + 1, 10_000, 10_001, 2**31, 2**53 - 1, 2**53, 2**53 + 1),
    *(-(2**53), 10**29, 10**30, 2**64, 0.0, -0.0, 0.5, -0.5, 0.1, 1.5, 2.5, 1e-300, 5e-324, 1e300),
    *(1.7976931348623157e308, 0.30000000000000004, float("inf"), float("-inf"), float("nan")),
]
"""Numbers: zero, signs, fractions, the 2**53 and digit bounds, the length bounds, the float edges."""

OTHERS: list[object] = [True, False, None, [], {}, [None], [[]], {"": ""}, [1, "a"], {"type": "string"}]

Tree = Any
Steps = list[str]
Draw = Callable[[st.SearchStrategy[Any]], Any]


def _paths(value: Tree, prefix: tuple[Any, ...] = ()) -> Iterator[tuple[Any, ...]]:
    yield prefix
    if isinstance(value, dict):
        for key, child in value.items():
            yield from _paths(child, (*prefix, key))
    elif isinstance(value, list):
        for index, child in enumerate(value):
            yield from _paths(child, (*prefix, index))


def _get(tree: Tree, path: tuple[Any, ...]) -> Tree:
    for part in path:
        tree = tree[part]
    return tree


def _put(tree: Tree, path: tuple[Any, ...], value: object) -> Tree:
    """`tree` with the value at `path` replaced (the new root when `path` is empty)."""
    if not path:
        return value
    _get(tree, path[:-1])[path[-1]] = value
    return tree


def _variants(name: object) -> list[object]:
    """Names differing from `name` by underscores, digits or case."""
    text = str(name)
    return [text + "_", "_" + text, text.replace("_", ""), text.replace("_", "__"), text + "1", text + "_1",
            text.upper(), text.capitalize(), text[:-1], text + text, text.replace("_", "-")]  # fmt: skip


def _retyped(value: object, kind: str) -> object:
    """`value` as another type: str, int, float, bool, null, list or dict."""
    if kind == "str":
        return value if isinstance(value, str) else json.dumps(value)
    if kind == "int":
        if isinstance(value, str | list | dict):
            return len(value)
        return int(value) if isinstance(value, int | float) and abs(value) < 1e300 else 1
    if kind == "float":
        return float(value) + 0.5 if isinstance(value, int | float) and abs(value) < 1e300 else 1.5
    if kind == "bool":
        return bool(value)
    if kind == "null":
        return None
    if kind == "list":
        return list(value.values()) if isinstance(value, dict) else [value]
    return {"value": value} if not isinstance(value, list) else dict(enumerate(value))


def _name_strategy(current: object) -> st.SearchStrategy[Any]:
    return st.one_of(
        st.sampled_from(PYTHON_NAMES + ODD_NAMES + SCHEMA_KEYS),
        st.sampled_from(_variants(current)),
        st.from_regex(r"[a-z][a-z0-9_]{0,12}", fullmatch=True),
        st.integers(-3, 3),
        st.none(),
        st.booleans(),
        st.text(max_size=8),
    )


VALUES: st.SearchStrategy[Any] = st.one_of(
    st.sampled_from(TEXTS),
    st.sampled_from(NUMBERS),
    st.sampled_from(OTHERS).map(copy.deepcopy),  # a fresh one: mutations change what they are put in
    st.sampled_from(SCHEMA_VALUES),
    st.sampled_from(PYTHON_NAMES + ODD_NAMES),
    st.text(max_size=30),
    st.integers(),
    st.floats(),
)


# Mutations of the loaded data ------------------------------------------------------------------------------


def _pick(draw: Draw, tree: Tree, want: Callable[[tuple[Any, ...], Tree], bool]) -> tuple[Any, ...] | None:
    paths = [path for path in _paths(tree) if want(path, _get(tree, path))]
    return draw(st.sampled_from(paths)) if paths else None


def _in_mapping(tree: Tree) -> Callable[[tuple[Any, ...], Tree], bool]:
    return lambda path, _value: bool(path) and isinstance(_get(tree, path[:-1]), dict)


def retype(draw: Draw, tree: Tree, steps: Steps) -> Tree:
    path = _pick(draw, tree, lambda _p, _v: True)
    kind = draw(st.sampled_from(["str", "int", "float", "bool", "null", "list", "dict"]))
    steps.append(f"retype {path} to {kind}")
    return _put(tree, path or (), _retyped(_get(tree, path or ()), kind))


def edge_value(draw: Draw, tree: Tree, steps: Steps) -> Tree:
    path = _pick(draw, tree, lambda _p, v: not isinstance(v, dict | list))
    value = draw(VALUES)
    steps.append(f"set {path} to {value!r:.60}")
    return _put(tree, path or (), value)


def delete(draw: Draw, tree: Tree, steps: Steps) -> Tree:
    path = _pick(draw, tree, lambda p, _v: bool(p))
    if path is not None:
        steps.append(f"delete {path}")
        del _get(tree, path[:-1])[path[-1]]
    return tree


def rename(draw: Draw, tree: Tree, steps: Steps) -> Tree:
    path = _pick(draw, tree, _in_mapping(tree))
    if path is not None:
        parent, old = _get(tree, path[:-1]), path[-1]
        new = draw(_name_strategy(old))
        steps.append(f"rename {path} to {new!r}")
        items = [((new if key == old else key), value) for key, value in parent.items()]
        parent.clear()
        parent.update(items)
    return tree


def duplicate(draw: Draw, tree: Tree, steps: Steps) -> Tree:
    path = _pick(draw, tree, _in_mapping(tree))
    if path is not None:
        new = draw(_name_strategy(path[-1]))
        steps.append(f"copy {path} to {new!r}")
        _get(tree, path[:-1])[new] = copy.deepcopy(_get(tree, path))
    return tree


def insert(draw: Draw, tree: Tree, steps: Steps) -> Tree:
    path = _pick(draw, tree, lambda _p, v: isinstance(v, dict))
    if path is not None:
        key = draw(st.one_of(st.sampled_from(SCHEMA_KEYS), _name_strategy("x")))
        value = draw(VALUES)
        steps.append(f"insert {key!r}: {value!r:.60} at {path}")
        _get(tree, path)[key] = value
    return tree


def wrap(draw: Draw, tree: Tree, steps: Steps) -> Tree:
    path = _pick(draw, tree, lambda _p, _v: True) or ()
    as_list = draw(st.booleans())
    steps.append(f"wrap {path} in a {'list' if as_list else 'mapping'}")
    value = _get(tree, path)
    return _put(tree, path, [value] if as_list else {draw(_name_strategy("x")): value})


def flatten(draw: Draw, tree: Tree, steps: Steps) -> Tree:
    """A mapping replaced by its children's entries, or a collection by one of its items."""
    path = _pick(draw, tree, lambda _p, v: isinstance(v, dict | list) and bool(v))
    if path is None:
        return tree
    value = _get(tree, path)
    children = list(value.values()) if isinstance(value, dict) else list(value)
    if isinstance(value, dict) and draw(st.booleans()):
        merged: dict[Any, Any] = {}
        for child in children:
            merged.update(child if isinstance(child, dict) else {})
        steps.append(f"flatten {path}")
        return _put(tree, path, merged)
    index = draw(st.integers(0, len(children) - 1))
    steps.append(f"replace {path} by its item {index}")
    return _put(tree, path, children[index])


def transplant(draw: Draw, tree: Tree, steps: Steps) -> Tree:
    """A part replaced by a part from elsewhere in this spec or another one."""
    donor_name = draw(st.sampled_from(sorted(TREES)))
    donor = TREES[donor_name]
    source = draw(st.sampled_from(list(_paths(donor))))
    path = _pick(draw, tree, lambda _p, _v: True) or ()
    steps.append(f"put {donor_name}'s {source} at {path}")
    return _put(tree, path, copy.deepcopy(_get(donor, source)))


DATA_MUTATIONS = [retype, edge_value, delete, rename, duplicate, insert, wrap, flatten, transplant]


# Mutations of the text -------------------------------------------------------------------------------------

TAGS = ["!!str", "!!int", "!!float", "!!bool", "!!null", "!!map", "!!seq", "!", "!!binary", "!!timestamp",
        "!!set", "!!omap", "!!pairs", "!!python/object:os.system", "!custom", "!<tag:yaml.org,2002:str>"]  # fmt: skip
SCALARS = ["0o17", "0x1F", "0b101", "1_000", "+1", "1:20", ".NaN", "-.inf", "yes", "~", "2001-12-14", "=", "<<",
           "|", ">-", "{", "[a, b", "'open", '"\\x41"', '"\\ud800"', '"\\0"', '"\\U0001F600"', "*a", "&a x", "? x",
           "1e400", "9" * 40, "- a", '""', "''", "[]", "{}", "!!binary aGVsbG8=", "@", "`x`", "%x"]  # fmt: skip
CHARACTERS = ["\t", "\x00", "\x1b", "\x7f", "\u2028", "\ufeff", "\r", '"', "'", "{", "}", "[", "]", "&", "*", "!",
              "|", ">", "%", "@", "`", "#", ": ", "- ", "\\", ",", "?", "\u0301", "😀", "\u202e"]  # fmt: skip
MAPPING_START = re.compile(r"^(\s*)([A-Za-z_][\w-]*):\s*$")
KEY_VALUE = re.compile(r"^(\s*-?\s*[A-Za-z_][\w-]*:)\s+(\S.*)$")


def _line(draw: Draw, lines: list[str]) -> int:
    return draw(st.integers(0, max(len(lines) - 1, 0)))


def text_mutation(draw: Draw, text: str, steps: Steps) -> str:
    lines = text.split("\n")
    op = draw(st.sampled_from(["delete", "duplicate", "swap", "indent", "anchor", "tag", "scalar", "character",
                               "truncate", "documents"]))  # fmt: skip
    i = _line(draw, lines)
    if op == "delete" and lines:
        del lines[i]
    elif op == "duplicate" and lines:
        lines.insert(i, lines[i])
    elif op == "swap":
        j = _line(draw, lines)
        lines[i], lines[j] = lines[j], lines[i]
    elif op == "indent":
        change = draw(st.sampled_from([-4, -2, -1, 1, 2, 4, 0]))
        lines[i] = "\t" + lines[i] if change == 0 else " " * change + lines[i] if change > 0 else lines[i][-change:]
    elif op == "anchor":
        starts = [n for n, line in enumerate(lines) if MAPPING_START.match(line)]
        if starts:
            anchored = draw(st.sampled_from(starts))
            lines[anchored] += " &a"
            where = _line(draw, lines)
            indent = re.match(r"\s*", lines[where])
            merge = draw(st.sampled_from(["<<: *a", "<<: [*a, *a]", "<<: *b", "<<: {x: 1}", "<<: [1]", "x: *a"]))
            lines.insert(where, (indent.group(0) if indent else "") + merge)
    elif op in ("tag", "scalar"):
        candidates = [n for n, line in enumerate(lines) if KEY_VALUE.match(line)]
        if candidates:
            n = draw(st.sampled_from(candidates))
            match = KEY_VALUE.match(lines[n])
            assert match is not None
            if op == "tag":
                lines[n] = f"{match.group(1)} {draw(st.sampled_from(TAGS))} {match.group(2)}"
            else:
                lines[n] = f"{match.group(1)} {draw(st.sampled_from(SCALARS))}"
    elif op == "character" and lines:
        col = draw(st.integers(0, len(lines[i])))
        lines[i] = lines[i][:col] + draw(st.sampled_from(CHARACTERS)) + lines[i][col:]
    elif op == "truncate":
        cut = draw(st.integers(0, len(text)))
        steps.append(f"truncate at {cut}")
        return text[:cut]
    elif op == "documents":
        extra = draw(st.sampled_from(["%YAML 1.1\n---\n", "--- ", "---\nx: 1\n---\n", "%TAG ! tag:x,2000:\n---\n"]))
        lines.insert(0 if draw(st.booleans()) else len(lines), extra.rstrip("\n"))
    steps.append(f"text: {op} at line {i + 1}")
    return "\n".join(lines)


def _dump(draw: Draw, tree: Tree) -> str:
    style = draw(st.sampled_from(["block", "flow", "json", "json-ascii", "block-ascii"]))
    if style.startswith("json"):
        return json.dumps(tree, ensure_ascii=style == "json-ascii", indent=draw(st.sampled_from([None, 2])))
    flow = style == "flow"
    return yaml.safe_dump(tree, sort_keys=False, allow_unicode=style != "block-ascii", default_flow_style=flow)


BAD_BYTES = [b"\xff", b"\xc3", b"\xed\xa0\x80", b"\xc0\xaf", b"\x00", b"\xf4\x90"]
"""Not UTF-8: a byte no character starts with, a cut character, a surrogate, an overlong form, NUL, past U+10FFFF."""


def _encode(draw: Draw, text: str, steps: Steps) -> bytes:
    how = draw(st.sampled_from(["utf-8"] * 6 + ["crlf", "bom", "bad byte", "utf-16", "latin-1"]))
    if how == "utf-8":
        return text.encode("utf-8", "surrogatepass")
    steps.append(f"bytes: {how}")
    if how == "crlf":
        return text.replace("\n", "\r\n").encode("utf-8", "surrogatepass")
    if how == "bom":
        return b"\xef\xbb\xbf" + text.encode("utf-8", "surrogatepass")
    if how == "utf-16":
        return text.encode("utf-16", "surrogatepass")
    if how == "latin-1":
        return text.encode("latin-1", "replace")
    raw = text.encode("utf-8", "surrogatepass")
    at = draw(st.integers(0, len(raw)))
    return raw[:at] + draw(st.sampled_from(BAD_BYTES)) + raw[at:]


@dataclass(frozen=True)
class Mutant:
    """A spec file's bytes and how they were made from an example."""

    source: str
    steps: tuple[str, ...]
    raw: bytes


@st.composite
def mutants(draw: Draw) -> Mutant:
    """An example spec with one to four changes to its data, its text or both, and sometimes its bytes."""
    source = draw(st.sampled_from(sorted(SOURCES)))
    steps: Steps = []
    mode = draw(st.sampled_from(["data", "data", "data and text", "text"]))
    text = SOURCES[source]
    if mode != "text":
        tree = copy.deepcopy(TREES[source])
        for _ in range(draw(st.integers(1, 4))):
            tree = draw(st.sampled_from(DATA_MUTATIONS))(draw, tree, steps)
        text = _dump(draw, tree)
    if mode != "data":
        for _ in range(draw(st.integers(1, 3))):
            text = text_mutation(draw, text, steps)
    return Mutant(source, tuple(steps), _encode(draw, text, steps))


NAMED = {"tools", "input", "output", "failures", "properties", "fields", "upstreams"}


def _is_name(path: tuple[Any, ...], _value: object) -> bool:
    """Whether `path` ends in a name the spec gives: a tool, a field, a failure or an upstream."""
    return len(path) >= 2 and path[-2] in NAMED and isinstance(path[-1], str)


FIELDS = st.fixed_dictionaries(
    {"type": st.sampled_from(["string", "integer", "number", "boolean"])},
    optional={
        "required": st.booleans(),
        "description": st.sampled_from(TEXTS),
        "minimum": st.sampled_from(NUMBERS),
        "maxLength": st.sampled_from(NUMBERS),
    },
)
"""An input or output field to add."""


EXAMPLES_SEEN = [
    "https://example.com/docs",
    "http://127.0.0.1:8080/x?q=1",
    "/vercel/next.js",
    "SELECT 1",
    "a/b/c.txt",
    "pydantic",
    "validation error",
]
"""Example values the ported real servers use, which a generated test must not mistake for a leak."""


@st.composite
def mild_mutants(draw: Draw) -> Mutant:
    """Changes a spec can still be accepted with: names, texts and numbers at their edges, parts removed or
    copied under another name, fields added."""
    source = draw(st.sampled_from(sorted(SOURCES)))
    tree = copy.deepcopy(TREES[source])
    steps: Steps = []
    for _ in range(draw(st.integers(1, 4))):
        op = draw(st.sampled_from(["name", "text", "number", "delete", "copy", "field", "example", "retries"]))
        if op in ("name", "copy"):
            path = _pick(draw, tree, _is_name)
            if path is None:
                continue
            parent, old = _get(tree, path[:-1]), path[-1]
            edge = st.sampled_from(PYTHON_NAMES + ODD_NAMES + _variants(old))
            new = draw(st.one_of(edge, edge, edge, st.from_regex(r"[a-z][a-z0-9_]{0,12}", fullmatch=True)))
            steps.append(f"{op} {path} as {new!r}")
            if op == "copy":
                parent[new] = copy.deepcopy(parent[old])
            else:
                items = [((new if key == old else key), value) for key, value in parent.items()]
                parent.clear()
                parent.update(items)
        elif op == "text":
            path = _pick(draw, tree, lambda p, v: isinstance(v, str) and not _is_name(p, v))
            if path is not None:
                value = draw(st.one_of(st.sampled_from(TEXTS), st.text(max_size=40)))
                steps.append(f"set {path} to {value!r:.60}")
                tree = _put(tree, path, value)
        elif op == "number":
            path = _pick(draw, tree, lambda _p, v: isinstance(v, int | float) and not isinstance(v, bool))
            if path is not None:
                value = draw(st.sampled_from(NUMBERS))
                steps.append(f"set {path} to {value!r}")
                tree = _put(tree, path, value)
        elif op == "example":  # what a real spec writes as an example: a URL, a path, a name with a slash
            path = _pick(draw, tree, lambda p, v: bool(p) and p[-1] == "example" and isinstance(v, str))
            if path is not None:
                value = draw(st.sampled_from(EXAMPLES_SEEN))
                steps.append(f"set {path} to {value!r}")
                tree = _put(tree, path, value)
        elif op == "retries":
            path = _pick(draw, tree, lambda p, v: bool(p) and p[-1] == "retries")
            if path is not None:
                value = draw(st.integers(0, 3))
                steps.append(f"set {path} to {value!r}")
                tree = _put(tree, path, value)
        elif op == "delete":
            tree = delete(draw, tree, steps)
        else:
            path = _pick(draw, tree, lambda p, v: bool(p) and p[-1] in ("input", "output", "properties"))
            if path is not None:
                name = draw(st.sampled_from(PYTHON_NAMES + ODD_NAMES))
                field = draw(FIELDS)
                steps.append(f"add {name!r}: {field!r:.80} at {path}")
                _get(tree, path)[name] = field
    return Mutant(source, tuple(steps), _dump(draw, tree).encode("utf-8", "surrogatepass"))


# Property A: any file ends in diagnostics and exit 0 or 1 ----------------------------------------------------


class Hang(Exception):
    """A mutant took longer than SECONDS."""


@contextmanager
def time_limit(seconds: int) -> Iterator[None]:
    def expired(_signum: int, _frame: object) -> None:
        raise Hang(f"still running after {seconds} s")

    previous = signal.signal(signal.SIGALRM, expired)
    signal.alarm(seconds)
    try:
        yield
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, previous)


def _assert_problems(diagnostics: list[Diagnostic] | tuple[Diagnostic, ...]) -> None:
    for diagnostic in diagnostics:
        printed = str(diagnostic)
        assert PROBLEM.fullmatch(printed) and len(printed.splitlines()) == 1, printed  # no \n, \r, \x85, U+2028
        assert diagnostic.line >= 1 and diagnostic.col >= 1, printed
        assert diagnostic.severity in ("error", "warning"), printed


def _where(diagnostics: list[Diagnostic] | tuple[Diagnostic, ...]) -> list[tuple[int, int, str]]:
    return sorted({(d.line, d.col, d.code) for d in diagnostics})


REPORTS = re.compile(r"(?:failwell|wrote|created|removed): .+|  \S.*")
"""The CLI's other lines: its summary on stderr, what `generate` wrote, and the next steps `new` prints, indented."""


def _cli(*args: str) -> tuple[int, str]:
    """The CLI in this process: exit 0 or 1, every line a problem or a report, no traceback."""
    result = CliRunner().invoke(app, list(args))
    assert result.exception is None or isinstance(result.exception, SystemExit), result.exc_info
    assert "Traceback" not in result.output and INTERNAL_ERROR not in result.output, result.output
    assert result.exit_code in (0, 1), (result.exit_code, result.output)
    for line in result.output.split("\n"):
        assert not line or PROBLEM.fullmatch(line) or REPORTS.fullmatch(line), line
    return result.exit_code, result.output


SILENT = (DeprecationWarning, PendingDeprecationWarning, ImportWarning, ResourceWarning)
"""What Python does not print by default; any other warning would reach the CLI's stderr."""


def check_mutant(raw: bytes, via: str, folder: Path) -> bool:
    """Property A for one spec file's bytes; True when it was accepted."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        accepted = _check_mutant(raw, via, folder)
    shown = [str(w.message) for w in caught if not issubclass(w.category, SILENT)]
    assert not shown, shown
    return accepted


def _check_mutant(raw: bytes, via: str, folder: Path) -> bool:
    with time_limit(SECONDS):
        found = diagnose(raw, "failwell.yaml")
        _assert_problems(found)
        refused = any(d.severity == "error" for d in found)
        spec = folder / "failwell.yaml"
        spec.write_bytes(raw)
        if via == "api":
            try:
                listed = failwell.validate(spec)
            except FailwellError as exc:
                assert refused, exc.message
                _assert_problems(exc.diagnostics)
                assert _where(exc.diagnostics) == _where(found)
            else:
                assert not refused and _where(listed) == _where(found)
        elif via == "validate":
            code, output = _cli("validate", str(spec))
            assert code == int(refused), output
            assert sum(1 for line in output.split("\n") if PROBLEM.fullmatch(line)) == len(set(found)), output
        elif via == "new":
            code, output = _cli("new", str(folder / "out"), "--spec", str(spec))
            assert code == int(refused), output
            assert (folder / "out" / "failwell.yaml").is_file() != refused, output
        else:
            code, output = _cli("generate", str(folder))
            if "migrated failwell.yaml" in output:  # a format-0 spec, rewritten in place: judged as it is now
                refused = any(d.severity == "error" for d in diagnose(spec.read_bytes(), "failwell.yaml"))
            assert code == int(refused), output
            assert (folder / "failwell.manifest.json").is_file() != refused, output
        if not refused:
            _assert_renders_clean(spec, folder / "rendered")
    return not refused


def _assert_renders_clean(spec: Path, dest: Path) -> None:
    """The project of an accepted spec renders, its Python compiles, and it is ruff-clean and formatted."""
    for name, content in render(spec).files.items():
        if name.endswith(".py") and "/_generated/runtime/" not in name:
            compile(content, name, "exec", dont_inherit=True)
        (dest / name).parent.mkdir(parents=True, exist_ok=True)
        (dest / name).write_bytes(content)
    for command in (["check"], ["format", "--check"]):
        ruff = subprocess.run(
            [str(BIN / "ruff"), *command, "--no-cache", "."], cwd=dest, capture_output=True, text=True, timeout=60
        )
        assert ruff.returncode == 0, (command, ruff.stdout[-3000:])


FAST = settings(
    deadline=5000,
    derandomize=not LONG_RUN,
    database=None,
    print_blob=True,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large, HealthCheck.filter_too_much],
)
WAYS = st.sampled_from(["api", "api", "api", "api", "api", "validate", "new", "generate"])


@settings(FAST, max_examples=20)
@given(mutant=mutants(), via=WAYS)
def test_twenty_mutants_end_in_diagnostics_or_a_valid_spec(mutant: Mutant, via: str) -> None:
    with tempfile.TemporaryDirectory() as folder:
        check_mutant(mutant.raw, via, Path(folder))


@pytest.mark.slow  # about 15 s
@settings(FAST, max_examples=MUTANTS)
@given(mutant=mutants(), via=WAYS)
def test_any_mutant_ends_in_diagnostics_or_a_valid_spec(mutant: Mutant, via: str) -> None:
    with tempfile.TemporaryDirectory() as folder:
        check_mutant(mutant.raw, via, Path(folder))


# Property B: what is accepted builds a project that passes its own checks ----------------------------------


def check_project(raw: bytes, folder: Path) -> None:
    """`failwell new` from the spec, then the project's import, ruff, ruff format, mypy --strict and pytest."""
    spec = folder / "failwell.yaml"
    spec.write_bytes(raw)
    dest = folder / "project"
    created = subprocess.run(
        [str(BIN / "failwell"), "new", str(dest), "--spec", str(spec)], capture_output=True, text=True, timeout=120
    )
    assert created.returncode == 0, created.stdout + created.stderr
    package = next(path.name for path in (dest / "src").iterdir() if (path / "__init__.py").is_file())
    env = {**os.environ, "MYPYPATH": "src", "PYTHONPATH": "src"}
    for command in (
        ["-c", f"import {package}._generated.server"],
        ["-m", "ruff", "check", "--no-cache", "."],
        ["-m", "ruff", "format", "--check", "--no-cache", "."],
        ["-m", "mypy", "--no-incremental", "--cache-dir", os.devnull, "."],
        ["-m", "pytest", "-q", "-p", "no:cacheprovider"],
    ):
        result = subprocess.run(
            [sys.executable, *command], cwd=dest, env=env, capture_output=True, text=True, timeout=300
        )
        assert result.returncode == 0, (command, result.stdout[-4000:], result.stderr[-2000:])


@pytest.mark.slow  # about 30 s a mutant
@settings(
    FAST,
    max_examples=BUILDS,
    deadline=None,
    phases=[Phase.explicit, Phase.generate],  # no shrinking: each try is a build; the failure prints the spec
)
@given(mutant=mild_mutants())
def test_an_accepted_mutant_builds_a_project_that_passes_its_checks(mutant: Mutant) -> None:
    assume(not any(d.severity == "error" for d in diagnose(mutant.raw, "failwell.yaml")))
    with tempfile.TemporaryDirectory() as folder:
        check_project(mutant.raw, Path(folder))


RUNS = int(os.environ.get("FAILWELL_FUZZ_RUNS", max(1, MUTANTS // 2000)))
"""Accepted mutants whose generated tests are run (about 10 to 30 s each): 1 in CI (the suite's time is bounded), or one
per 2,000 mutants in a long run (FAILWELL_FUZZ_EXAMPLES=20000 runs 10)."""

PAGES = """\
failwell: 1
server: {name: pages, description: Reads web pages.}
upstreams:
  fetcher: {base_url_env: FETCHER_URL, timeout_s: 3, retries: 0}
tools:
  pages_fetch:
    description: Fetch one page by its address.
    effect: read
    deadline_s: 10
    upstreams: [fetcher]
    input:
      url: {type: string, minLength: 1, example: "https://example.com/docs"}
"""


def run_generated_tests(raw: bytes, folder: Path) -> None:
    """`failwell new` from the spec, then the project's own generated tests: each follows what the spec says."""
    spec = folder / "failwell.yaml"
    spec.write_bytes(raw)
    dest = folder / "project"
    failwell.new(dest, spec)
    result = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-x", "tests/generated"],
        cwd=dest,
        env={**os.environ, "PYTHONPATH": "src"},
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert result.returncode == 0, (result.stdout[-4000:], result.stderr[-2000:])


@pytest.mark.slow  # 10 to 30 s a mutant
@settings(FAST, max_examples=RUNS, deadline=None, phases=[Phase.explicit, Phase.generate])
@given(mutant=mild_mutants())
@example(mutant=Mutant("pages", ("an https:// example, retries: 0",), PAGES.encode()))
def test_an_accepted_mutants_generated_tests_pass(mutant: Mutant) -> None:
    assume(not any(d.severity == "error" for d in diagnose(mutant.raw, "failwell.yaml")))
    with tempfile.TemporaryDirectory() as folder:
        run_generated_tests(mutant.raw, Path(folder))


# What fuzzing found -----------------------------------------------------------------------------------------
# Refusals found by fuzzing are in tests/invalid/ (tag_bool_not_boolean, tag_int_not_integer, tag_float_empty,
# tag_str_number, c1_control_raw, failwell_newline, pattern_newline); these are what a refusal snapshot cannot hold.

SHOP = """\
failwell: 1
server: {name: shop, description: A shop.}
tools:
  orders_get:
    description: Read one order by its id, such as O-1.
    effect: read
    deadline_s: 1e1
    input:
      id: {type: string, example: O-1}
"""

FOUND = {
    "an anchor defined twice (ruamel.yaml warned on stderr)": SHOP.replace("server: {", "server: &a {").replace(
        "input:", "input: &a"
    ),
    "a YAML 1.1 float without a dot (ruamel.yaml warned on stderr)": "%YAML 1.1\n---\n" + SHOP,
    "a string input with maxLength 80 and no minLength (the made-up value overflows a test line)": SHOP.replace(
        "id: {type: string, example: O-1}", "note: {type: string, maxLength: 80}"
    ),
    "an input named with 40 characters (the wrong-type test line overflows)": SHOP.replace(
        "id: {type: string, example: O-1}", "n" * 40 + ": {type: integer, maximum: 5}"
    ),
    "an input named with 64 characters (the missing-argument test line overflows)": SHOP.replace(
        "id: {type: string, example: O-1}", "n" * 64 + ": {type: integer}"
    ),
}


@pytest.mark.parametrize("text", list(FOUND.values()), ids=list(FOUND))
@pytest.mark.parametrize("via", ["api", "validate"])
def test_found_by_fuzzing(text: str, via: str) -> None:
    with tempfile.TemporaryDirectory() as folder:
        assert check_mutant(text.encode(), via, Path(folder))
