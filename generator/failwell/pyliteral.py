"""Python source for JSON-like values, in the exact layout `ruff format` keeps; and outside text as the README
prints it (Markdown text and code, a shell word, a JSON string).
"""

from __future__ import annotations

import json
import math
import re
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
        return number(value)
    raise TypeError(f"no Python literal for {type(value).__name__}")


def number(value: int | float) -> str:
    """A number exactly (`repr` round-trips every float), written as `ruff format` writes it (`1e16`, not
    `1e+16`); ValueError for infinity and NaN, which have no literal."""
    if isinstance(value, float) and not math.isfinite(value):
        raise ValueError(f"{value!r} has no Python literal")
    return repr(value).replace("e+", "e")


def string(text: str) -> str:
    """A string literal for any text, quoted the way ruff's formatter prefers: double quotes unless the text
    holds more double than single quotes. Whatever does not print plainly (C0 and C1 controls, DEL, line and
    paragraph separators, format characters, lone surrogates) is escaped as `repr` escapes it, so the source
    holds only printable characters."""
    quote = "'" if text.count('"') > text.count("'") else '"'
    if "\\" not in text and text.isprintable():  # the usual text: only the quote is escaped (no loop per char)
        return quote + text.replace(quote, "\\" + quote) + quote
    return quote + "".join(_escaped(char, quote) for char in text) + quote


def _escaped(char: str, quote: str) -> str:
    if char == quote or char == "\\":
        return "\\" + char
    if char in "'\"":
        return char
    return repr(char)[1:-1]


def inline(value: Any) -> str:
    """A one-line Python expression for a small JSON-like value."""
    if isinstance(value, dict):
        return "{" + ", ".join(f"{string(str(k))}: {inline(v)}" for k, v in value.items()) + "}"
    if isinstance(value, list | tuple):
        return "[" + ", ".join(inline(v) for v in value) + "]"
    return literal(value)


def docstring(text: str) -> str:
    """Text that is safe inside a one-line triple-quoted docstring, as `ruff format` keeps it: whitespace runs
    (line separators too) become one space; backslashes, what does not print plainly, a run of three or more
    quotes and a quote at either end are escaped."""
    joined = " ".join(text.split())
    printable = joined.isprintable()  # the usual text: only backslashes are escaped, with no loop per character
    flat = joined.replace("\\", "\\\\") if printable else "".join(_escaped(char, "") for char in joined)
    return _QUOTES.sub(lambda found: '\\"' * len(found.group()), flat)


_QUOTES = re.compile(r'"{3,}|^"|"+$')


def toml_string(text: str) -> str:
    """A one-line TOML basic string (pyproject's `description` is one line of package metadata): whitespace
    runs become one space, what does not print plainly is `\\u` escaped, and a lone surrogate, which TOML
    cannot hold, becomes U+FFFD."""
    out = []
    for char in " ".join(text.split()):
        if "\ud800" <= char <= "\udfff":
            char = "\ufffd"
        if char in '"\\':
            out.append("\\" + char)
        elif char.isprintable():
            out.append(char)
        else:
            out.append(f"\\u{ord(char):04x}" if ord(char) <= 0xFFFF else f"\\U{ord(char):08x}")
    return '"' + "".join(out) + '"'


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


Call = tuple[str, list["str | Call"]]
"""A call expression to lay out: its callee, and its arguments (source text, or calls)."""


def call_lines(call: Call, indent: int, suffix: str = "") -> list[str]:
    """A call (with `suffix` after it) as `ruff format` lays it out: on one line when it fits; else its
    arguments on a line of their own when they fit there; else one per line with a trailing comma (a lone
    argument that is a call laid out the same way, one level in)."""
    pad = " " * indent
    flat = _flat(call)
    if len(pad) + len(flat) + len(suffix) <= LINE_LENGTH:
        return [f"{pad}{flat}{suffix}"]
    callee, arguments = call
    if len(arguments) == 1 and not isinstance(arguments[0], str):
        return [f"{pad}{callee}(", *call_lines(arguments[0], indent + 4), f"{pad}){suffix}"]
    joined = ", ".join(_flat(argument) for argument in arguments)
    if len(pad) + 4 + len(joined) <= LINE_LENGTH:
        return [f"{pad}{callee}(", f"{pad}    {joined}", f"{pad}){suffix}"]
    body = [line for argument in arguments for line in _argument_lines(argument, indent + 4)]
    return [f"{pad}{callee}(", *body, f"{pad}){suffix}"]


def _argument_lines(argument: str | Call, indent: int) -> list[str]:
    if isinstance(argument, str):
        return [f"{' ' * indent}{argument},"]
    return call_lines(argument, indent, ",")


def _flat(call: str | Call) -> str:
    if isinstance(call, str):
        return call
    callee, arguments = call
    return f"{callee}({', '.join(_flat(argument) for argument in arguments)})"


def def_lines(name: str, parameters: list[str], returns: str, indent: int) -> str:
    """A `def` line as `ruff format` lays it out: on one line when it fits; else its parameters on a line of their
    own when they fit there; else one per line with a trailing comma."""
    pad = " " * indent
    joined = ", ".join(parameters)
    flat = f"{pad}def {name}({joined}) -> {returns}:"
    if len(flat) <= LINE_LENGTH:
        return flat
    if len(pad) + 4 + len(joined) <= LINE_LENGTH:
        return f"{pad}def {name}(\n{pad}    {joined}\n{pad}) -> {returns}:"
    body = "".join(f"{pad}    {parameter},\n" for parameter in parameters)
    return f"{pad}def {name}(\n{body}{pad}) -> {returns}:"


# Outside text in the generated README (Markdown): printed as text or code that cannot change its structure ---------

_MARKDOWN_SPECIAL = frozenset("\\`*_[]<>!&|~#")
"""What has a meaning inside a line of Markdown (CommonMark and GitHub's tables and strikethrough): escapes, code,
emphasis, links and images, HTML and autolinks, entities, a table's cells, a heading's closing `#`s."""
_LIST_START = re.compile(r"^(\d{1,9})([.)])")


def _visible(text: str) -> str:
    """`text` with what does not print plainly (controls, format and bidi characters, lone surrogates) written as
    `\\u202e`, so it shows as what it is; blanks and line breaks stay, for the caller to join."""
    if text.isprintable():
        return text
    return "".join(
        char
        if char.isprintable() or char.isspace()
        else (f"\\u{ord(char):04x}" if ord(char) <= 0xFFFF else f"\\U{ord(char):08x}")
        for char in text
    )


def _inside_a_word(text: str, index: int) -> bool:
    """Whether the `_` at `index` joins two letters or digits (`tasks_get`), where it cannot open or close emphasis."""
    return text[index] == "_" and 0 < index < len(text) - 1 and text[index - 1].isalnum() and text[index + 1].isalnum()


def markdown_text(text: str) -> str:
    """Outside text as one line of Markdown text that reads as written and cannot change the document's structure:
    line breaks and runs of blanks become one space; every character with a meaning inside a line (`` ` ``, `*`,
    `_` but between two letters, `[`, `<`, `&`, `|`, `#`, ...) is backslash-escaped; one that would start a block
    at a line's start (a heading, a list item, a quote, a rule) is escaped there; what does not print is written as
    `\\u....`."""
    joined = " ".join(_visible(text).split())
    escaped = "".join(
        "\\" + char if char in _MARKDOWN_SPECIAL and not _inside_a_word(joined, index) else char
        for index, char in enumerate(joined)
    )
    if escaped[:1] in ("-", "+", "="):
        escaped = "\\" + escaped
    return _LIST_START.sub(r"\1\\\2", escaped)


def markdown_code(text: str, table: bool = False) -> str:
    """Outside text as one Markdown code span: fenced with one backtick more than its longest run of backticks
    (padded with a space where it starts or ends with a backtick or a space, which the span drops), line breaks as
    spaces, what does not print as `\\u....`; in a table's cell (`table`) its `|` escaped, which GitHub reads as
    part of the span."""
    flat = _visible(text)
    flat = re.sub(r"\r\n|[\r\n\u2028\u2029\x85\x0b\x0c]", " ", flat)
    if table:
        flat = flat.replace("|", "\\|")
    if not flat:
        return "` `"
    fence = "`" * (max((len(run) for run in re.findall("`+", flat)), default=0) + 1)
    pad = " " if flat[0] in "` " or flat[-1] in "` " else ""
    return f"{fence}{pad}{flat}{pad}{fence}"


_SHELL_PLAIN = re.compile(r"[A-Za-z0-9_@%+=:,./-]+")


def shell_word(text: str) -> str:
    """Outside text as one word of a POSIX shell command on one line: bare when it holds only characters a shell
    leaves alone, else in single quotes (a quote inside written `'"'"'`); a word holding a line break or anything
    that does not print is written in `$'...'` with escapes, so the command stays one line (a code block's fence
    cannot be closed from inside it)."""
    if _SHELL_PLAIN.fullmatch(text):
        return text
    if text.isprintable():
        return "'" + text.replace("'", "'\"'\"'") + "'"
    out = []
    for char in text:
        if char in "\\'":
            out.append("\\" + char)
        elif char.isprintable():
            out.append(char)
        elif ord(char) <= 0xFF:
            out.append(f"\\x{ord(char):02x}")
        else:
            out.append(f"\\u{ord(char):04x}" if ord(char) <= 0xFFFF else f"\\U{ord(char):08x}")
    return "$'" + "".join(out) + "'"


def json_string(text: str) -> str:
    """Outside text as a JSON string on one line (for a JSON example in the README): quotes, backslashes, controls,
    line and paragraph separators, format and bidi characters and lone surrogates escaped."""
    return "".join(
        char if char.isprintable() else json.dumps(char)[1:-1] for char in json.dumps(text, ensure_ascii=False)
    )
