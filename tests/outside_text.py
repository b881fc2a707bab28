"""Hostile text for tests/test_outside_text.py: the payloads, a spec with one put at every position that takes it,
and the shape of a generated module (its AST with the text taken out), to compare with plain text's."""

from __future__ import annotations

import ast
import copy
import json
import re
from collections.abc import Iterator
from typing import Any

from failwell.render.pipeline import diagnose

MARKER = "PWNED"
"""The file a payload writes when it runs as code: in the folder it runs in (a generated project's, where its
modules are imported and its tests run)."""

ATOMS = (
    '"""',
    "'''",
    '"',
    "'",
    "\\",
    "\\\\",
    "{{ 7 * 7 }}",
    "{% if true %}x{% endif %}",
    "{#",
    "${HOME}",
    "\n",
    "\r",
    "\r\n",
    "\u2028",
    "\u2029",
    "\x85",
    "\x0b",
    "\x0c",
    "\x00",
    "\x1b[2J",
    "\\N{BULLET}",
    "\\x41\\u0041\\0",
    "#",
    "\nimport os\n",
    f"\nopen({MARKER!r}, 'w')\n",
    f"__import__('os').system('touch {MARKER}')",
    " ",
    "getPet",
    "Annotated[Literal[Field(formats.check(",
)
"""The pieces hostile text is made of: quotes that end a literal or a docstring, backslashes (one at the end of a
literal escapes its quote), template syntax, every line break Python, YAML or a reader may take, NUL, escapes a
literal would read, a comment sign, code that leaves a marker file when it runs, and the words a generator might
look for in the code it made."""

PAYLOADS = (
    f'getPet"""\nimport os; open({MARKER!r}, "w")\n"""',
    f"getPet'''\nimport os; open({MARKER!r}, 'w')\n'''",
    f'"\nimport os\nos.system("touch {MARKER}")\n#',
    "a trailing backslash \\",
    '"quoted at both ends"',
    "'quoted at both ends'",
    f"{{{{ cycler.__init__.__globals__.os.system('touch {MARKER}') }}}} {{% raw %}}",
    "${x} {{x}} {% x %}",
    f"line\u2028import os\u2029open({MARKER!r}, 'w')\x85#\r\nx\rnul\x00end",
    "\\N{DIGIT ONE} \\N{ \\x41 \\u0041 \\U00000041 \\0",
    f"# \nimport os  # {MARKER}",
    "\ud800 a lone surrogate",
    "Annotated[str] Literal['x'] Field(gt=1) formats.check('uri') import",
)
"""Whole payloads: the issue's operationId first. Each holds a letter, as all text does here: the plain twin of text
without one would be blank, which a front end may treat as absent."""


KEPT_AS_IS = "\x00-\x08\x0b-\x1f\x7f-\x9f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069\ud800-\udfff"
"""Characters the plain twin keeps as they are: controls (but tab and newline), C1, bidi controls and lone
surrogates, which a front end drops, escapes or refuses: it does the same in both twins."""


def plain(text: str) -> str:
    """`text` with each character made a space but ASCII letters, digits, `-` and `_` (which names keep) and
    `KEPT_AS_IS`: what the same positions hold in the plain twin (names made from it are the same: a front end
    makes a run of other characters one `_` or `-`)."""
    return re.sub(f"[^-_A-Za-z0-9{KEPT_AS_IS}]", " ", text)


# A spec with hostile text at every position that takes it -------------------------------------------------------

Path_ = tuple[Any, ...]


def positions(tree: Any, prefix: Path_ = ()) -> Iterator[Path_]:
    """The path of every string value in `tree`, and of every mapping key (a key's path ends in `("key", name)`)."""
    if isinstance(tree, dict):
        for key, value in tree.items():
            yield (*prefix, ("key", key))
            yield from positions(value, (*prefix, key))
    elif isinstance(tree, list):
        for index, value in enumerate(tree):
            yield from positions(value, (*prefix, index))
    elif isinstance(tree, str):
        yield prefix


def _put(tree: Any, path: Path_, text: str) -> Any:
    """`tree` (a copy) with the string at `path` replaced by `text` (a key: `text` put before its name)."""
    if not path:
        return text
    head, rest = path[0], path[1:]
    if isinstance(head, tuple):  # a key: renamed, its value kept, its place in the mapping kept
        return {(text + k if k == head[1] else k): v for k, v in tree.items()}
    if isinstance(tree, dict):
        return {k: (_put(v, rest, text) if k == head else v) for k, v in tree.items()}
    return [(_put(v, rest, text) if i == head else v) for i, v in enumerate(tree)]


def with_text(tree: Any, chosen: list[Path_], text: str) -> Any:
    """`tree` with `text` put at each chosen position (deepest first, so a renamed key keeps the paths below it)."""
    out = copy.deepcopy(tree)
    for path in sorted(chosen, key=len, reverse=True):
        out = _put(out, path, text)
    return out


def spec_text(tree: Any) -> str:
    """The spec as JSON, which is YAML: every character escaped, so any text at all reaches the reader."""
    return json.dumps(tree, ensure_ascii=True, indent=1)


def _data_path(path: Path_) -> Path_:
    """A position's path in the data (a key's ends in the key's name)."""
    return tuple(part[1] if isinstance(part, tuple) else part for part in path)


def _unrenamed(path: Path_, text: str) -> Path_:
    """A problem's path with each renamed key (`text` + its name) back to its name."""
    return tuple(part[len(text) :] if isinstance(part, str) and part.startswith(text) else part for part in path)


def accepting(tree: Any, texts: list[str], rounds: int = 40) -> list[Path_]:
    """The positions of `tree` that take every one of `texts`: each text is put at every position, and the ones a
    problem points at are taken back (else those above it, else under it, else its whole tool) until the spec is
    accepted with each text. Keys are tried first, then values, then both together."""
    every = list(positions(tree))
    keys = _fixed(tree, texts, [p for p in every if isinstance(p[-1], tuple)], rounds)
    values = _fixed(tree, texts, [p for p in every if not isinstance(p[-1], tuple)], rounds)
    return _fixed(tree, texts, keys + values, rounds)


def _fixed(tree: Any, texts: list[str], chosen: list[Path_], rounds: int) -> list[Path_]:
    for _ in range(rounds):
        exact: dict[Path_, list[Path_]] = {}  # each path -> the positions at it
        under: dict[Path_, list[Path_]] = {}  # each path -> the positions at it or under it
        for position in chosen:
            data = _data_path(position)
            exact.setdefault(data, []).append(position)
            for depth in range(len(data) + 1):
                under.setdefault(data[:depth], []).append(position)
        refused: set[Path_] = set()
        for text in texts:
            problems = diagnose(spec_text(with_text(tree, chosen, text)), "failwell.yaml")
            for problem in (d for d in problems if d.severity == "error"):
                refused.update(_blamed(chosen, exact, under, _unrenamed(tuple(problem.path), text)))
        if not refused:
            return chosen
        chosen = [p for p in chosen if p not in refused]
    raise AssertionError(f"no fixed point in {rounds} rounds")


def _blamed(
    chosen: list[Path_], exact: dict[Path_, list[Path_]], under: dict[Path_, list[Path_]], where: Path_
) -> list[Path_]:
    """The positions a problem at `where` is blamed on: those at it, else above it, else the nearest under it or
    under one of its parents (a field's example that no longer fits its pattern blames the pattern)."""
    at = exact.get(where, [])
    above = [p for depth in range(len(where)) for p in exact.get(where[:depth], [])]
    nearest = next((under[where[:depth]] for depth in range(len(where), 0, -1) if where[:depth] in under), [])
    return at or above or nearest or chosen


# The shape of generated Python ----------------------------------------------------------------------------------


class _Blank(ast.NodeTransformer):
    """Blanks every string constant."""

    def visit_Constant(self, node: ast.Constant) -> ast.AST:
        if isinstance(node.value, str | bytes):
            return ast.Constant(value="")
        return node


class _Ordered(_Blank):
    """Also puts the items of each literal, the names of each import and the module's statements in one order: the
    order of what is named after the text (a name cut to 64 characters ends in a digest of the whole text) may
    differ between twins; what is there may not."""

    def generic_visit(self, node: ast.AST) -> ast.AST:
        super().generic_visit(node)
        if isinstance(node, ast.Dict):
            pairs = sorted(zip(node.keys, node.values, strict=True), key=lambda pair: ast.dump(ast.Tuple(
                [pair[0] or ast.Constant(None), pair[1]])))  # fmt: skip
            node.keys, node.values = [k for k, _ in pairs], [v for _, v in pairs]
        elif isinstance(node, ast.List | ast.Tuple | ast.Set):
            node.elts.sort(key=ast.dump)
        elif isinstance(node, ast.ImportFrom):
            node.names.sort(key=ast.dump)
        elif isinstance(node, ast.Module):
            node.body.sort(key=ast.dump)
        return node


def shape(source: str | bytes, name: str, ordered: bool = False) -> str:
    """A module's AST with every string constant blanked (and, `ordered`, collections in one order): what it does,
    whatever text it holds."""
    tree = ast.parse(source, name)
    return ast.dump((_Ordered if ordered else _Blank)().visit(tree))


MARKDOWN_PAYLOADS = (
    "`code` ``x`` and a lone ` backtick",
    "<script>alert(1)</script> <b>bold</b> <!-- c --> &amp; &#x41;",
    "line\n# A heading\n```sh\nrm -rf ~\n```\n",
    "| a | b |\n|---|---|\n| c | d |",
    "[a link](javascript:alert(1)) ![image](x.png) <https://example.com> *em* **strong** _em_ ~~s~~",
    "\n- a list\n1. ordered\n> a quote\n---\n    indented code",
    "' \" $(touch PWNED) `touch PWNED` ; && | > x",
)
"""Text that is Markdown (or a shell's syntax): a heading, a fence that closes a code block, HTML, a table row, links,
lists, a rule; printed as text or code in the README, it changes none of the README's structure."""


def markdown_shape(source: str | bytes) -> list[str]:
    """A Markdown document's structure as CommonMark with GitHub's tables and strikethrough reads it: every block and
    inline token's type, tag and nesting (headings, code blocks and their language, tables and cells, code spans,
    links, HTML, emphasis), with the text taken out (runs of text read as one), and a table's rows in one order (a
    front end orders tools by a name it may cut and end in a digest of the text)."""
    from markdown_it import MarkdownIt

    text = source.decode("utf-8") if isinstance(source, bytes) else source
    out: list[str] = []
    rows: list[str] | None = None
    row: list[str] = []
    for token in MarkdownIt("commonmark").enable(["table", "strikethrough"]).parse(text):
        kinds = [f"{token.type}/{token.tag}/{token.nesting}" + (f"/{token.info}" if token.type == "fence" else "")]
        for child in token.children or ():
            plain_text = child.type in ("text", "text_special")
            if not (plain_text and kinds[-1] == "text"):
                kinds.append("text" if plain_text else f"{child.type}/{child.tag}/{child.nesting}")
        if token.type == "tbody_open":
            rows = []
        elif token.type == "tbody_close" and rows is not None:
            out.extend(sorted(rows))
            rows = None
        if rows is not None and token.type not in ("tbody_open",):
            row.extend(kinds)
            if token.type == "tr_close":
                rows.append(" ".join(row))
                row = []
            continue
        out.extend(kinds)
    return out


def top_level(source: str | bytes, name: str) -> list[str]:
    """Each top-level statement's kind and the names it binds or imports, for a message that reads."""
    out = []
    for node in ast.parse(source, name).body:
        names = sorted({n.id for n in ast.walk(node) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store)})
        if isinstance(node, ast.Import | ast.ImportFrom):
            names = [alias.asname or alias.name for alias in node.names]
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            names = [node.name]
        out.append(f"{type(node).__name__} {' '.join(names)}")
    return out


# An OpenAPI document with hostile text in every string a person's document may hold ------------------------------

KEPT = frozenset({"$ref", "type", "format", "in", "openapi", "scheme", "style", "nullable", "required", "readOnly"})
"""What the document says in OpenAPI's own words: kept as written (the importer reads them, never prints them)."""

OPENAPI: dict[str, Any] = {
    "openapi": "3.1.0",
    "info": {"title": "Shop", "version": "1.0.0", "description": "A shop that sells things."},
    "servers": [{"url": "https://shop.example.com/v1"}],
    "tags": [{"name": "items", "description": "The items for sale."}],
    "security": [{"bearer": []}],
    "paths": {
        "/items": {
            "get": {
                "operationId": "listItems",
                "summary": "List the items.",
                "description": "Every item for sale, newest first.",
                "tags": ["items"],
                "parameters": [
                    {
                        "name": "kind",
                        "in": "query",
                        "description": "Only items of this kind.",
                        "schema": {"type": "string", "enum": ["book", "toy"], "default": "book", "title": "Kind"},
                        "example": "toy",
                    },
                    {"name": "X-Trace", "in": "header", "schema": {"type": "string", "examples": ["t-1"]}},
                ],
                "responses": {
                    "200": {
                        "description": "The items.",
                        "content": {
                            "application/json": {
                                "schema": {"type": "array", "items": {"$ref": "#/components/schemas/Item"}}
                            }
                        },
                    },
                    "429": {"description": "Too many requests; slow down."},
                },
            },
            "post": {
                "operationId": "createItem",
                "summary": "Add an item.",
                "tags": ["items"],
                "requestBody": {
                    "required": True,
                    "content": {"application/json": {"schema": {"$ref": "#/components/schemas/Item"}}},
                },
                "responses": {
                    "201": {
                        "description": "The item added.",
                        "content": {"application/json": {"schema": {"$ref": "#/components/schemas/Item"}}},
                    },
                    "409": {"description": "An item with this name exists."},
                    "503": {"description": "The shop is closed."},
                },
            },
        },
        "/items/{itemId}": {
            "parameters": [
                {"name": "itemId", "in": "path", "required": True, "schema": {"type": "integer", "minimum": 1}}
            ],
            "get": {
                "operationId": "getItem",
                "summary": "Read one item.",
                "responses": {
                    "200": {
                        "description": "The item.",
                        "content": {"application/json": {"schema": {"$ref": "#/components/schemas/Item"}}},
                    },
                    "404": {"description": "No item has this id."},
                },
            },
            "delete": {
                "summary": "Remove an item.",
                "responses": {"204": {"description": "Removed."}, "403": {"description": "Only staff may."}},
            },
        },
    },
    "components": {
        "securitySchemes": {
            "bearer": {"type": "http", "scheme": "bearer", "description": "A staff token."},
            "key": {"type": "apiKey", "in": "header", "name": "X-Api-Key", "description": "An API key."},
        },
        "schemas": {
            "Item": {
                "type": "object",
                "title": "Item",
                "description": "One item for sale.",
                "required": ["name"],
                "properties": {
                    "name": {"type": "string", "maxLength": 80, "description": "Its name.", "example": "Rex"},
                    "kind": {"type": "string", "enum": ["book", "toy"], "default": "toy", "title": "Kind"},
                    "price": {"type": "number", "description": "Its price.", "default": 1.5},
                    "note": {"type": "string", "default": "none", "examples": ["gift"]},
                },
            }
        },
    },
}
"""A small shop's document: every kind of text the issue names (operationId, path, summary, description, parameter
and property names, enum values, defaults, examples, the server URL, tags, titles), and an operation without an
operationId (named from its method and path)."""


def openapi_with(text: str, doc: Any = None, parent: str = "") -> Any:
    """`OPENAPI` with `text` put before every string a document's author writes: values, a path's part after its
    first `/`, the names of properties, and the `required` names that refer to them."""
    doc = OPENAPI if doc is None else doc
    if isinstance(doc, dict):
        out = {}
        for key, value in doc.items():
            if parent == "paths":
                key = "/" + text + key[1:]
            elif parent == "properties":
                key = text + key
            kept = key in KEPT and not (key == "required" and isinstance(value, list))
            out[key] = value if kept else openapi_with(text, value, key)
        return out
    if isinstance(doc, list):
        return [openapi_with(text, value, parent) for value in doc]
    if isinstance(doc, str) and parent != "security":
        return text + doc
    return doc
