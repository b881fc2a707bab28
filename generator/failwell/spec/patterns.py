"""Spec patterns: read as ECMA-262 with the `u` flag, as clients read them, and run by the Rust `regex` engine.

A JSON Schema `pattern` means what ECMA-262 says it means: ajv and every JavaScript client compile it with
`new RegExp(pattern, "u")`. The generated server checks arguments with pydantic-core's Rust engine, which
runs in linear time, so no argument can stall the event loop. The two read the same syntax differently in
places (`\\d`, `\\w`, `\\b` and `.` are wider in Rust; `[` and `&&` inside a class mean something else), so
`translate` parses a pattern as ECMA-262 and writes the Rust pattern that accepts exactly the same strings.

The subset understood: literals; escapes of syntax characters (and `\\/`, and `\\-` in a class); `\\f \\n
\\r \\t \\v \\0 \\cX \\xHH \\uXXXX \\u{...}`; `.`, `^`, `$`; classes with ranges and negation; `\\d \\D \\w \\W
\\s \\S \\b \\B`; `\\p{..}`/`\\P{..}` for a General_Category value, a binary property, or `Script=` /
`Script_Extensions=` one of the common scripts in `_SCRIPTS`; groups `( )`, `(?: )`, `(?<name> )` with an
ASCII name; alternation; quantifiers `* + ? {n} {n,} {n,m}` and their lazy forms. Everything else is
refused with a `PatternError` naming the lint code, the offset in the pattern and a suggested rewrite:

- FW133: not a regular expression in any engine (an unclosed group or class, nothing to repeat, a
  range or count out of order);
- FW140: Python-only syntax, which JavaScript clients cannot compile (`(?P<n>...)`, `\\A`, `\\Z`, `(?i)`,
  `{,n}`, possessive quantifiers, atomic groups);
- FW141: other syntax ECMA-262 refuses with the `u` flag (`\\e`, `\\-` outside a class, a lone `{`,
  `}` or `]`, POSIX classes, a range from `\\d`, a quantified assertion, a duplicate group name);
- FW142: valid ECMA-262 that needs backtracking, which the Rust engine refuses (look-around,
  backreferences);
- FW143: valid ECMA-262 outside the subset above (lone surrogates, other Unicode properties, deep nesting);
- FW144: the Rust engine refuses the translation (counted repetitions too large for its size limit).

Unicode property tables follow each engine's Unicode version, so a character assigned in the latest
Unicode release may be classified differently by a client and by the server.
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass
from functools import lru_cache

from pydantic_core import SchemaError, SchemaValidator, core_schema

from ..errors import Refusal

_SYNTAX = frozenset("^$\\.*+?()[]{}|")
"""ECMA-262's SyntaxCharacter: what must be escaped to be literal (and what `\\` may escape)."""
_RUST_META = frozenset("\\.+*?()|[]{}^$")
"""Characters escaped in the Rust pattern, outside a class."""
_RUST_CLASS_META = frozenset("\\[]^-&~")
"""Characters escaped inside a Rust class: `[` opens a nested class, `&&`, `--`, `~~` are set operations."""
_CONTROL_ESCAPES = {"f": "\f", "n": "\n", "r": "\r", "t": "\t", "v": "\v"}
_MAX_DEPTH = 100

_SETS = {
    "d": ("0-9", "[^0-9]"),
    "w": ("A-Za-z0-9_", "[^A-Za-z0-9_]"),
    "s": (r"[\s\x{FEFF}--\x{85}]", r"[^\s\x{FEFF}--\x{85}]"),
}
r"""ECMA-262's `\d \w \s` and their negations, as items of a Rust class. Its `\s` (WhiteSpace and
LineTerminator: TAB, LF, VT, FF, CR, every Zs, U+2028, U+2029, U+FEFF) is Unicode's White_Space, which is
Rust's `\s`, with U+FEFF and without U+0085; a nested class, since `--` binds after the union around it."""
_DOT = r"[^\n\r\x{2028}\x{2029}]"
"""ECMA-262's `.` without the `s` flag: any character but a line terminator."""

_GENERAL_CATEGORY = {
    alias: short
    for short, names in {
        "C": "Other", "Cc": "Control cntrl", "Cf": "Format", "Cn": "Unassigned", "Co": "Private_Use",
        "L": "Letter", "LC": "Cased_Letter", "Ll": "Lowercase_Letter", "Lm": "Modifier_Letter",
        "Lo": "Other_Letter", "Lt": "Titlecase_Letter", "Lu": "Uppercase_Letter",
        "M": "Mark Combining_Mark", "Mc": "Spacing_Mark", "Me": "Enclosing_Mark", "Mn": "Nonspacing_Mark",
        "N": "Number", "Nd": "Decimal_Number digit", "Nl": "Letter_Number", "No": "Other_Number",
        "P": "Punctuation punct", "Pc": "Connector_Punctuation", "Pd": "Dash_Punctuation",
        "Pe": "Close_Punctuation", "Pf": "Final_Punctuation", "Pi": "Initial_Punctuation",
        "Po": "Other_Punctuation", "Ps": "Open_Punctuation",
        "S": "Symbol", "Sc": "Currency_Symbol", "Sk": "Modifier_Symbol", "Sm": "Math_Symbol", "So": "Other_Symbol",
        "Z": "Separator", "Zl": "Line_Separator", "Zp": "Paragraph_Separator", "Zs": "Space_Separator",
    }.items()
    for alias in (short, *names.split())
}  # fmt: skip
"""ECMA-262's General_Category values and aliases -> the short name (Cs, the surrogates, is left out)."""

_BINARY = {
    alias: names.split()[0]
    for names in (
        "ASCII", "ASCII_Hex_Digit AHex", "Alphabetic Alpha", "Any", "Assigned", "Bidi_Control Bidi_C",
        "Bidi_Mirrored Bidi_M", "Case_Ignorable CI", "Cased", "Changes_When_Casefolded CWCF",
        "Changes_When_Casemapped CWCM", "Changes_When_Lowercased CWL", "Changes_When_Titlecased CWT",
        "Changes_When_Uppercased CWU", "Dash", "Default_Ignorable_Code_Point DI", "Deprecated Dep",
        "Diacritic Dia", "Emoji", "Emoji_Component EComp", "Emoji_Modifier EMod", "Emoji_Modifier_Base EBase",
        "Emoji_Presentation EPres", "Extended_Pictographic ExtPict", "Extender Ext", "Grapheme_Base Gr_Base",
        "Grapheme_Extend Gr_Ext", "Hex_Digit Hex", "IDS_Binary_Operator IDSB", "IDS_Trinary_Operator IDST",
        "ID_Continue IDC", "ID_Start IDS", "Ideographic Ideo", "Join_Control Join_C",
        "Logical_Order_Exception LOE", "Lowercase Lower", "Math", "Noncharacter_Code_Point NChar",
        "Pattern_Syntax Pat_Syn", "Pattern_White_Space Pat_WS", "Quotation_Mark QMark", "Radical",
        "Regional_Indicator RI", "Sentence_Terminal STerm", "Soft_Dotted SD", "Terminal_Punctuation Term",
        "Unified_Ideograph UIdeo", "Uppercase Upper", "Variation_Selector VS", "White_Space space",
        "XID_Continue XIDC", "XID_Start XIDS",
    )
    for alias in names.split()
}  # fmt: skip
"""ECMA-262's binary properties and aliases -> the long name (Changes_When_NFKC_Casefolded: Rust lacks it)."""

_SCRIPTS = {
    alias: names.split()[0]
    for names in (
        "Arabic Arab", "Armenian Armn", "Bengali Beng", "Common Zyyy", "Cyrillic Cyrl", "Devanagari Deva",
        "Ethiopic Ethi", "Georgian Geor", "Greek Grek", "Gujarati Gujr", "Gurmukhi Guru", "Han Hani",
        "Hangul Hang", "Hebrew Hebr", "Hiragana Hira", "Inherited Zinh Qaai", "Kannada Knda", "Katakana Kana",
        "Khmer Khmr", "Lao Laoo", "Latin Latn", "Malayalam Mlym", "Myanmar Mymr", "Sinhala Sinh", "Tamil Taml",
        "Telugu Telu", "Thai", "Tibetan Tibt",
    )
    for alias in names.split()
}  # fmt: skip
"""The scripts `\\p{Script=..}` and `\\p{Script_Extensions=..}` may name: the common ones, long and short."""
_LEFT_OUT = {"Cs", "Surrogate", "Changes_When_NFKC_Casefolded", "CWKCF"}
"""ECMA-262 property names Rust cannot run (surrogates are not characters to it; it lacks CWKCF)."""
_SCRIPT_KEYS = {"Script": "sc", "sc": "sc", "Script_Extensions": "scx", "scx": "scx"}

_EXAMPLE_CHARS = "aA1x_-. @é"
"""What a class or `.` is tried with, after the characters it names, when making up an example."""


class PatternError(Refusal):
    """A spec pattern failwell refuses: the lint code, where in the pattern (0-based), and why."""


@dataclass(frozen=True)
class Pattern:
    """A spec pattern, the Rust pattern that accepts the same strings, and a short string it accepts."""

    source: str
    rust: str
    example: str | None


@lru_cache(maxsize=512)
@lru_cache(maxsize=1024)
def translate(source: str) -> Pattern:
    """The pattern `source` (ECMA-262, `u` flag) for the Rust engine; PatternError when it is refused."""
    rust, example = _Parser(source).parse()
    try:
        _validator(rust)
    except SchemaError as exc:
        reason = str(exc).strip().splitlines()[-1].strip().removeprefix("SchemaError: ")
        raise PatternError(
            "FW144",
            0,
            f"the server's Rust regex engine cannot run this pattern ({reason.removeprefix('error: ')}); "
            "use smaller counts in `{n,m}`, or fewer nested repetitions",
        ) from None
    if example is not None and not search(rust, example):
        example = None
    return Pattern(source, rust, example)


def matches(source: str, value: str) -> bool:
    """Whether `value` contains a match of the spec pattern `source`, as a client reads it (a search, not
    anchored, like JSON Schema's `pattern`); PatternError when the pattern is refused."""
    return search(translate(source).rust, value)


def search_as_clients(source: str, value: str) -> bool:
    """Whether `value` contains a match of `source` as a JSON Schema `pattern`, read as ECMA-262 reads it: `$` is
    the end of the text (never before a final line break, as Python's `re` reads it), run by the server's engine.
    A pattern outside the subset `translate` reads is run by `re` with each `$` read as the end of the text (a
    pattern `re` cannot compile raises `re.error`)."""
    try:
        return matches(source, value)
    except PatternError:
        return re.search(end_of_text(source), value) is not None


def end_of_text(source: str) -> str:
    """`source` for Python's `re` with each `$` outside a class (and not escaped) written `\\Z`: the end of the
    text, as ECMA-262 reads `$` without the `m` flag."""
    out: list[str] = []
    index, in_class = 0, False
    while index < len(source):
        char = source[index]
        if char == "\\":
            out.append(source[index : index + 2])
            index += 2
            continue
        if char == "[":
            in_class = True
        elif char == "]":
            in_class = False
        out.append("\\Z" if char == "$" and not in_class else char)
        index += 1
    return "".join(out)


def search(rust: str, value: str) -> bool:
    """Whether the Rust pattern `rust` matches somewhere in `value`, checked as the generated server checks."""
    return _validator(rust).isinstance_python(value)


@lru_cache(maxsize=1024)
def _validator(rust: str) -> SchemaValidator:
    return SchemaValidator(core_schema.str_schema(pattern=rust, regex_engine="rust-regex"))


@dataclass(frozen=True)
class _Piece:
    """A parsed part of a pattern: its Rust text and a string it matches (None when none was found)."""

    rust: str
    example: str | None
    assertion: bool = False


@dataclass(frozen=True)
class _ClassItem:
    """One item of a class: a character (`low == high`), a range, or a set such as `\\d` (`rust` only)."""

    rust: str
    low: int = -1
    high: int = -1

    @property
    def is_set(self) -> bool:
        return self.low < 0


class _Parser:
    """A recursive-descent parser of ECMA-262 Pattern[+UnicodeMode], writing Rust as it goes."""

    def __init__(self, source: str) -> None:
        self.src = source
        self.pos = 0
        self.names: set[str] = set()
        self.depth = 0

    def parse(self) -> tuple[str, str | None]:
        piece = self._disjunction()
        if self.pos < len(self.src):  # only an unmatched `)` stops the top-level disjunction early
            raise PatternError("FW133", self.pos, "`)` closes no group; remove it, or write `\\)` for a literal `)`")
        return piece.rust, piece.example

    # -- helpers -------------------------------------------------------------------------------------

    def _peek(self, ahead: int = 0) -> str:
        index = self.pos + ahead
        return self.src[index] if index < len(self.src) else ""

    def _looking_at(self, text: str) -> bool:
        return self.src.startswith(text, self.pos)

    def _fail(self, code: str, message: str, offset: int | None = None) -> PatternError:
        return PatternError(code, self.pos if offset is None else offset, message)

    # -- Disjunction, Alternative, Term --------------------------------------------------------------

    def _disjunction(self) -> _Piece:
        alternatives = [self._alternative()]
        while self._peek() == "|":
            self.pos += 1
            alternatives.append(self._alternative())
        example = next((a.example for a in alternatives if a.example is not None), None)
        return _Piece("|".join(a.rust for a in alternatives), example)

    def _alternative(self) -> _Piece:
        rust: list[str] = []
        example: list[str] | None = []
        while self.pos < len(self.src) and self._peek() not in "|)":
            piece = self._term()
            rust.append(piece.rust)
            if example is not None and piece.example is not None:
                example.append(piece.example)
            else:
                example = None
        return _Piece("".join(rust), None if example is None else "".join(example))

    def _term(self) -> _Piece:
        start = self.pos
        piece = self._assertion() or self._atom()
        if not self._at_quantifier():
            return piece
        if piece.assertion:
            shown = self.src[start : self.pos]
            raise self._fail(
                "FW141", f"`{shown}` is an assertion; ECMA-262 (u flag) cannot repeat it: remove the quantifier"
            )
        return self._quantified(piece)

    def _assertion(self) -> _Piece | None:
        c = self._peek()
        if c in ("^", "$"):
            self.pos += 1
            return _Piece(c, "", assertion=True)
        if c == "\\" and self._peek(1) in ("b", "B"):
            self.pos += 2
            # ECMA-262's \b and \B look at ASCII word characters only; Rust's are Unicode unless `-u`.
            return _Piece(f"(?-u:\\{self.src[self.pos - 1]})", "", assertion=True)
        for opening, kind in (
            ("(?=", "look-ahead"),
            ("(?!", "look-ahead"),
            ("(?<=", "look-behind"),
            ("(?<!", "look-behind"),
        ):
            if self._looking_at(opening):
                raise self._fail(
                    "FW142",
                    f"`{opening}...)` is a {kind}: it needs backtracking, which the server's linear-time Rust engine "
                    "refuses; say the same with classes and alternation, or check it in the handler",
                )
        return None

    def _at_quantifier(self) -> bool:
        c = self._peek()
        return c in ("*", "+", "?") or (c == "{" and self._count() is not None)

    def _count(self) -> tuple[int, int | None, int] | None:
        """(min, max or None for no limit, length) of a `{n}`, `{n,}` or `{n,m}` at the position, else None."""
        index = self.pos + 1
        digits = self._digits(index)
        if not digits:
            return None
        low, index = int(digits), index + len(digits)
        high: int | None = low
        if self.src[index : index + 1] == ",":
            more = self._digits(index + 1)
            high = int(more) if more else None
            index += 1 + len(more)
        if self.src[index : index + 1] != "}":
            return None
        return low, high, index + 1 - self.pos

    def _count_end(self, index: int) -> bool:
        """Whether digits at `index` are followed by `}`."""
        return self.src[index + len(self._digits(index)) : index + len(self._digits(index)) + 1] == "}"

    def _digits(self, index: int) -> str:
        end = index
        while end < len(self.src) and self.src[end] in "0123456789":
            end += 1
        return self.src[index:end]

    def _quantified(self, piece: _Piece) -> _Piece:
        c = self._peek()
        if c == "{":
            count = self._count()
            assert count is not None
            low, high, length = count
            if high is not None and high < low:
                raise self._fail("FW133", f"`{self.src[self.pos : self.pos + length]}` has its numbers out of order")
            text = self.src[self.pos : self.pos + length]
            self.pos += length
        else:
            low, high = {"*": (0, None), "+": (1, None), "?": (0, 1)}[c]
            text = c
            self.pos += 1
        if self._peek() == "?":
            text += "?"
            self.pos += 1
        if self._peek() in ("*", "+", "?", "{") and (self._peek() != "{" or self._count() is not None):
            if self._peek() == "+":
                raise self._fail(
                    "FW140",
                    f"possessive quantifiers such as `{text}+` are Python-only; JavaScript clients cannot compile "
                    f"them: write `{text}` (the server never backtracks anyway)",
                )
            raise self._fail("FW133", f"nothing to repeat: `{self._peek()}` follows the quantifier `{text}`")
        repeat = low if low > 0 or high == 0 else 1
        example = None if piece.example is None else piece.example * repeat
        return _Piece(piece.rust + text, example)  # every atom is one Rust atom too

    # -- Atom ----------------------------------------------------------------------------------------

    def _atom(self) -> _Piece:
        c = self._peek()
        if c == ".":
            self.pos += 1
            return _Piece(_DOT, _example_char(_DOT, ""))
        if c == "(":
            return self._group()
        if c == "[":
            return self._class()
        if c == "\\":
            return self._atom_escape()
        if c in ("*", "+", "?"):
            raise self._fail(
                "FW133", f"nothing to repeat: `{c}` follows no character or group; write `\\{c}` for a literal `{c}`"
            )
        if c == "{":
            if self._count() is not None:
                raise self._fail("FW133", "nothing to repeat: the count `{...}` follows no character or group")
            if self._peek(1) == "," and self._digits(self.pos + 2) and self._count_end(self.pos + 2):
                raise self._fail("FW140", "`{,n}` is Python-only; JavaScript clients cannot compile it: write `{0,n}`")
        if c in ("{", "}", "]"):
            raise self._fail("FW141", f"a literal `{c}` must be escaped in ECMA-262 (u flag): write `\\{c}`")
        self.pos += 1
        return _Piece(_literal(self._checked_char(c, self.pos - 1)), c)

    def _checked_char(self, c: str, offset: int) -> str:
        if 0xD800 <= ord(c) <= 0xDFFF:
            raise self._fail("FW143", "a lone surrogate cannot be matched by the server's engine; remove it", offset)
        return c

    def _group(self) -> _Piece:
        start = self.pos
        if self._looking_at("(?:"):
            self.pos += 3
            opening = "(?:"
        elif self._looking_at("(?<"):
            self.pos += 3
            opening = f"(?<{self._group_name(start)}>"
        elif self._looking_at("(?"):
            raise self._python_group(start)
        else:
            self.pos += 1
            opening = "("
        self.depth += 1
        if self.depth > _MAX_DEPTH:
            raise self._fail("FW143", f"groups nest more than {_MAX_DEPTH} deep; flatten the pattern", start)
        inner = self._disjunction()
        self.depth -= 1
        if self._peek() != ")":
            raise self._fail("FW133", "this group is never closed; add `)`", start)
        self.pos += 1
        return _Piece(f"{opening}{inner.rust})", inner.example)

    def _group_name(self, start: int) -> str:
        end = self.src.find(">", self.pos)
        name = self.src[self.pos : end] if end >= 0 else ""
        if not name.isascii() or "\\" in name or "$" in name:
            raise self._fail("FW143", "a group name outside ASCII letters, digits and `_` is not supported; rename it")
        if not name.isidentifier():
            raise self._fail(
                "FW141", "a group name must be a name such as `(?<id>...)`; ECMA-262 refuses this one", start
            )
        if name in self.names:
            raise self._fail("FW141", f"the group name `{name}` is used twice; ECMA-262 refuses duplicates", start)
        self.names.add(name)
        self.pos = end + 1
        return name

    def _python_group(self, start: int) -> PatternError:
        rest = self.src[start + 2 :]
        if rest.startswith("P<"):
            message = "`(?P<name>...)` is Python-only; JavaScript clients cannot compile it: write `(?<name>...)`"
        elif rest.startswith("P="):
            message = (
                "`(?P=name)` is a Python-only backreference; JavaScript clients cannot compile it, and the server's "
                "linear-time engine runs no backreferences"
            )
        elif rest.startswith("#"):
            message = "`(?#...)` comments are Python-only; JavaScript clients cannot compile them: remove the comment"
        elif rest.startswith(">"):
            message = "atomic groups `(?>...)` are Python-only; JavaScript clients cannot compile them: write `(?:...)`"
        elif rest.startswith("("):
            message = "conditional groups `(?(...)...)` are Python-only; JavaScript clients cannot compile them"
        elif rest[:1] in tuple("aiLmsux-"):
            message = (
                "inline flags such as `(?i)` are Python-only; JavaScript clients cannot compile them: spell the "
                "cases out, such as `[Tt]`, or use `[\\s\\S]` for any character"
            )
        else:
            return self._fail("FW141", "`(?` must begin `(?:`, `(?<name>`, or a look-around", start)
        return self._fail("FW140", message, start)

    # -- Escapes -------------------------------------------------------------------------------------

    def _atom_escape(self) -> _Piece:
        start = self.pos
        c = self._peek(1)
        if c.lower() in _SETS or c in ("p", "P"):
            item = self._set_escape()
            rust = item.rust if item.rust.startswith(("[", "\\p", "\\P")) else f"[{item.rust}]"
            return _Piece(rust, _example_char(rust, ""))
        if c in tuple("123456789") or (c == "k" and self._peek(2) == "<"):
            end = self.src.find(">", self.pos) + 1 if c == "k" else self.pos + 1 + len(self._digits(self.pos + 1))
            end = max(end, self.pos + 2)
            raise self._fail(
                "FW142",
                f"`{self.src[start:end]}` is a backreference: it needs backtracking, which the server's linear-time "
                "Rust engine refuses; match the text itself instead",
            )
        char = self._char_escape(in_class=False)
        return _Piece(_literal(char), char)

    def _set_escape(self) -> _ClassItem:
        """`\\d \\D \\w \\W \\s \\S \\p{..} \\P{..}` at the position, as a class item."""
        c = self._peek(1)
        if c in ("p", "P"):
            return self._property()
        self.pos += 2
        positive, negative = _SETS[c.lower()]
        return _ClassItem(positive if c.islower() else negative)

    def _property(self) -> _ClassItem:
        start = self.pos
        negated = self._peek(1) == "P"
        end = self.src.find("}", self.pos)
        if self._peek(2) != "{" or end < 0:
            raise self._fail(
                "FW141", f"`\\{self._peek(1)}` needs a property in braces, such as `\\p{{L}}` for any letter"
            )
        body = self.src[self.pos + 3 : end]
        key, value = body.split("=", 1) if "=" in body else (None, body)
        if key in (None, "General_Category", "gc") and value in _GENERAL_CATEGORY:
            rust = f"gc={_GENERAL_CATEGORY[value]}"
        elif key is None and value in _BINARY:
            rust = _BINARY[value]
        elif key in _SCRIPT_KEYS and value in _SCRIPTS:
            rust = f"{_SCRIPT_KEYS[key]}={_SCRIPTS[value]}"
        elif key is None and value in _SCRIPTS:
            raise self._fail("FW141", f"ECMA-262 needs the property's name: write `\\p{{Script={value}}}`")
        elif key in _SCRIPT_KEYS or value in _LEFT_OUT:
            raise self._fail(
                "FW143",
                f"`\\p{{{body}}}` is outside what failwell supports: a General_Category value (such as L, Lu, Nd), "
                "a binary property (such as Alphabetic, White_Space) or Script=<name> for a common script (such as "
                "Latin, Greek, Cyrillic, Han); or write the ranges, such as `[\\u0370-\\u03FF]`",
                start,
            )
        else:
            raise self._fail(
                "FW141",
                f"ECMA-262 knows no property `\\p{{{body}}}`, so JavaScript clients cannot compile it; names are "
                "case-sensitive, such as `\\p{Lu}`, `\\p{Letter}`, `\\p{Script=Greek}`",
                start,
            )
        self.pos = end + 1
        return _ClassItem(f"\\{'P' if negated else 'p'}{{{rust}}}")

    def _char_escape(self, *, in_class: bool) -> str:
        """The character a CharacterEscape (or a class's `\\b`, `\\-`) at the position stands for."""
        start = self.pos
        c = self._peek(1)
        if not c:
            raise self._fail("FW133", "the pattern ends with a lone `\\`; write `\\\\` for a literal backslash")
        self.pos += 2
        if c in _SYNTAX or c == "/" or (in_class and c == "-"):
            return c
        if c in _CONTROL_ESCAPES:
            return _CONTROL_ESCAPES[c]
        if in_class and c == "b":
            return "\b"
        if c == "c" and self._peek().isascii() and self._peek().isalpha():
            self.pos += 1
            return chr(ord(self.src[self.pos - 1]) % 32)
        if c == "0" and not self._peek().isdigit():
            return "\0"
        if c == "x" and _is_hex(self.src[self.pos : self.pos + 2]):
            self.pos += 2
            return chr(int(self.src[self.pos - 2 : self.pos], 16))
        if c == "u":
            return self._unicode_escape(start)
        self.pos = start
        raise self._bad_escape(c, in_class=in_class)

    def _unicode_escape(self, start: int) -> str:
        if self._peek() == "{":
            end = self.src.find("}", self.pos)
            digits = self.src[self.pos + 1 : end] if end > 0 else ""
            if not _is_hex(digits) or int(digits, 16) > 0x10FFFF:
                raise self._fail("FW141", "`\\u{...}` needs hex digits of a code point up to 10FFFF", start)
            self.pos = end + 1
            return self._checked_char(chr(int(digits, 16)), start)
        digits = self.src[self.pos : self.pos + 4]
        if not _is_hex(digits) or len(digits) < 4:
            raise self._fail(
                "FW141", "`\\u` needs four hex digits, such as `\\u00e9`, or braces, such as `\\u{1F600}`", start
            )
        self.pos += 4
        unit = int(digits, 16)
        trail = self.src[self.pos + 2 : self.pos + 6]
        if (
            0xD800 <= unit <= 0xDBFF
            and self._looking_at("\\u")
            and _is_hex(trail)
            and 0xDC00 <= int(trail, 16) <= 0xDFFF
        ):
            self.pos += 6
            return chr(0x10000 + ((unit - 0xD800) << 10) + (int(trail, 16) - 0xDC00))
        return self._checked_char(chr(unit), start)

    def _bad_escape(self, c: str, *, in_class: bool) -> PatternError:
        python_only = {
            "A": "`\\A` is Python-only; JavaScript clients cannot compile it: use `^`",
            "Z": "`\\Z` is Python-only; JavaScript clients cannot compile it: use `$`",
            "z": "`\\z` is not ECMA-262; JavaScript clients cannot compile it: use `$`",
            "N": "`\\N{...}` is Python-only; JavaScript clients cannot compile it: write `\\u{...}`",
            "U": "`\\U` is Python-only; JavaScript clients cannot compile it: write `\\u{...}`, such as `\\u{1F600}`",
        }
        if c in python_only and not in_class:
            return self._fail("FW140", python_only[c])
        hints = {
            "x": "write two hex digits, such as `\\x41`, or `\\u{...}` for more",
            "e": "write `\\x1B` for ESC",
            "a": "write `\\x07` for BEL",
            "0": "octal escapes are refused; write `\\x..` or `\\u{...}`",
            "k": "ECMA-262 reads `\\k` as a backreference only",
            "B": "`\\B` has no meaning inside a class",
        }
        if c in hints:
            hint = hints[c]
        elif c.isdigit():
            hint = "a class cannot hold a backreference; write `\\x..` or `\\u{...}` for a character"
        elif c == "c":
            hint = "`\\c` must be followed by a letter, such as `\\cJ`"
        elif c.isascii() and c.isalnum():
            hint = f"write `{c}` for the letter itself"
        else:
            hint = f"write `{c}` without the backslash"
        return self._fail(
            "FW141", f"`\\{c}` is not an escape in ECMA-262 (u flag), so JavaScript clients cannot compile it: {hint}"
        )

    # -- Classes -------------------------------------------------------------------------------------

    def _class(self) -> _Piece:
        start = self.pos
        self.pos += 1
        negated = self._peek() == "^"
        if negated:
            self.pos += 1
        items: list[_ClassItem] = []
        while self._peek() != "]":
            if not self._peek():
                raise self._fail(
                    "FW133", "this class is never closed; add `]`, or write `\\[` for a literal `[`", start
                )
            low = self._class_atom()
            if self._peek() == "-" and self._peek(1) not in ("]", ""):
                dash = self.pos
                self.pos += 1
                high = self._class_atom()
                if low.is_set or high.is_set:
                    raise self._fail(
                        "FW141",
                        "a range cannot start or end with a class such as `\\d`; write `\\-` for a literal `-`",
                        dash,
                    )
                if low.low > high.low:
                    raise self._fail("FW133", "this range is out of order; put the lower character first", dash)
                items.append(_ClassItem(f"{low.rust}-{high.rust}", low.low, high.low))
            else:
                items.append(low)
        self.pos += 1
        body = "".join(item.rust for item in items)
        if not items:  # ECMA-262: `[]` matches nothing and `[^]` any character; Rust has no empty class
            rust = r"[\x{0}-\x{10FFFF}]" if negated else r"[^\x{0}-\x{10FFFF}]"
        else:
            rust = f"[{'^' if negated else ''}{body}]"
        # Tried first: some letters for a negated class, else what the class names (a range's first character,
        # but 1 rather than 0 so that a made-up number has no leading zero).
        starts = [i.low + 1 if i.low == ord("0") and i.high > i.low else i.low for i in items if not i.is_set]
        hints = "xyzab" if negated else "".join(map(chr, starts))
        return _Piece(rust, _example_char(rust, hints))

    def _class_atom(self) -> _ClassItem:
        c = self._peek()
        if c == "\\":
            if self._peek(1).lower() in _SETS or self._peek(1) in ("p", "P"):
                return self._set_escape()
            char = self._char_escape(in_class=True)
        else:
            if c == "[" and self.src[self.pos + 1 : self.pos + 2] == ":" and ":]" in self.src[self.pos :]:
                raise self._fail(
                    "FW141", "POSIX classes such as `[:alpha:]` are not ECMA-262: write the ranges, such as `A-Za-z`"
                )
            char = self._checked_char(c, self.pos)
            self.pos += 1
        return _ClassItem(_class_literal(char), ord(char), ord(char))


def _is_hex(text: str) -> bool:
    return bool(text) and all(c in "0123456789abcdefABCDEF" for c in text)


def _literal(c: str) -> str:
    """A character as a literal of a Rust pattern, outside a class."""
    return "\\" + c if c in _RUST_META else _plain(c)


def _class_literal(c: str) -> str:
    """A character as a literal inside a Rust class."""
    return "\\" + c if c in _RUST_CLASS_META else _plain(c)


def _plain(c: str) -> str:
    """The character itself when it prints plainly, else a `\\x{...}` escape."""
    if c == " " or not unicodedata.category(c).startswith(("C", "Z")):
        return c
    return f"\\x{{{ord(c):X}}}"


def _example_char(rust: str, hints: str) -> str | None:
    """A character the one-character Rust pattern `rust` matches: one of `hints`, else a usual one."""
    whole = f"^(?:{rust})$"
    return next((c for c in (*hints, *_EXAMPLE_CHARS) if search(whole, c)), None)
