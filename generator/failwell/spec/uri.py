"""A resource's URI: a static URI, or an RFC 6570 level-1 template of `{name}` variables.

A variable matches one or more characters other than `/`: level-1 expansion percent-encodes every reserved
character, so an expanded value never holds a `/`, and a URI has as many `/` as its template's literal text.
`parse` reads a URI (or an absolute path, `/article/{title}`, as some servers publish their templates) and
refuses what is not one (FW170) or what level 1 does not have (FW171); `overlap`
says whether two URIs can match the same URI, and gives one such URI. The server matches a URI from left to
right without going back, ending each variable where the literal after it first occurs; `may_hold` says
whether a param's values may hold a literal's first character, which would make that split wrong (FW180).
"""

from __future__ import annotations

import importlib
import itertools
import re
from collections import deque
from dataclasses import dataclass
from typing import Any
from urllib.parse import quote

from ..errors import Refusal

MAX_LENGTH = 2048
"""The longest URI a resource may have: what browsers and proxies commonly accept."""
SCHEME = re.compile(r"[a-z][a-z0-9+.-]*:")
VARIABLE = re.compile(r"[a-z][A-Za-z0-9_]*\Z")
"""A variable's name: snake_case (`ref`) or, as a ported original names it, camelCase (`resourceId`); its param's
Python attribute is derived (`resource_id`)."""
RELATIVE = re.compile(r"/(?!/)")
"""A URI reference that is an absolute path (`/article/{title}`), as some servers publish it: taken as written."""
_OPERATORS = frozenset("+#./;?&=,!@|")
"""The characters that start an RFC 6570 level 2-4 expression (and those it reserves for extensions)."""
_LEVEL_1 = "failwell supports RFC 6570 level 1 only: one plain {name} per pair of braces, such as tasks://{ref}"


class UriError(Refusal):
    """A URI failwell refuses: the lint code, where in the URI (0-based), and why."""


@dataclass(frozen=True)
class Template:
    """A parsed URI: its literal text around its variables (one more literal than variables), and where
    each variable's `{` is in the URI."""

    literals: tuple[str, ...]
    variables: tuple[str, ...]
    offsets: tuple[int, ...]

    @property
    def is_static(self) -> bool:
        return not self.variables


def parse(uri: str) -> Template:
    """The URI's literals and variables; UriError when it is not a URI or not a level-1 template."""
    if len(uri) > MAX_LENGTH:
        raise UriError(
            "FW170", 0, f"the URI is {len(uri):,} characters long; a resource URI has at most {MAX_LENGTH:,}"
        )
    if not SCHEME.match(uri) and not RELATIVE.match(uri):
        cased = re.match(r"[A-Za-z][A-Za-z0-9+.-]*:", uri)
        if cased:
            scheme = cased.group()[:-1]
            raise UriError("FW170", 0, f"the URI's scheme `{scheme}` is written lowercase: `{scheme.lower()}`")
        raise UriError(
            "FW170",
            0,
            "the URI has no scheme; start it with one, such as tasks:// or file:///, or write it as an absolute path "
            "(/items/{id})",
        )
    space = re.search(r"\s", uri)
    if space:
        raise UriError("FW170", space.start(), "the URI holds whitespace, which a URI cannot; percent-encode it (%20)")
    literals: list[str] = []
    variables: list[str] = []
    offsets: list[int] = []
    start = 0
    for brace in re.finditer(r"[{}]", uri):
        at = brace.start()
        if at < start:
            continue  # inside the expression just read
        if brace.group() == "}":
            raise UriError("FW171", at, f"a `}}` that closes no `{{`; {_LEVEL_1}")
        end = uri.find("}", at)
        if end < 0:
            raise UriError("FW171", at, f"a `{{` that is never closed; {_LEVEL_1}")
        if "{" in uri[at + 1 : end]:
            raise UriError("FW171", at, f"a `{{` inside a variable's braces; {_LEVEL_1}")
        variables.append(_variable(uri[at + 1 : end], at))
        literals.append(uri[start:at])
        offsets.append(at)
        start = end + 1
    literals.append(uri[start:])
    return Template(tuple(literals), tuple(variables), tuple(offsets))


def _variable(expression: str, at: int) -> str:
    shown = "{" + expression + "}"
    if expression[:1] in _OPERATORS:
        raise UriError("FW171", at, f"`{shown}` uses the RFC 6570 operator `{expression[0]}`; {_LEVEL_1}")
    if "," in expression:
        raise UriError("FW171", at, f"`{shown}` lists several variables; {_LEVEL_1}")
    if expression.endswith("*") or ":" in expression:
        modifier = "*" if expression.endswith("*") else expression[expression.index(":") :]
        raise UriError("FW171", at, f"`{shown}` has the RFC 6570 modifier `{modifier}`; {_LEVEL_1}")
    if not expression:
        raise UriError("FW171", at, f"`{{}}` names no variable; {_LEVEL_1}")
    if not VARIABLE.match(expression):
        raise UriError(
            "FW171", at, f"`{shown}` is not a name of a lowercase letter, then letters, digits or `_`; {_LEVEL_1}"
        )
    return expression


_ANY = ""
"""What a variable reads: any one character other than `/` (no literal character is empty)."""
_State = tuple[int, bool]
"""A place in a URI's characters and variables: the index of the next one, and whether it is inside the
variable at that index, having read at least one character of it."""


def _tokens(template: Template) -> list[str]:
    """The URI as one token per literal character, and `_ANY` per variable."""
    tokens = list(template.literals[0])
    for literal in template.literals[1:]:
        tokens += [_ANY, *literal]
    return tokens


def _closure(state: _State) -> tuple[_State, ...]:
    index, inside = state
    return (state, (index + 1, False)) if inside else (state,)


def _move(tokens: list[str], state: _State) -> tuple[str, _State] | None:
    index, inside = state
    if inside or (index < len(tokens) and tokens[index] == _ANY):
        return _ANY, (index, True)
    return (tokens[index], (index + 1, False)) if index < len(tokens) else None


def overlap(a: Template, b: Template) -> str | None:
    """A URI that both match (a variable read as one or more characters other than `/`), or None.

    Their characters are read side by side (the product of the two automata), so this takes time in
    proportion to the product of their lengths at most."""
    if sum(x.count("/") for x in a.literals) != sum(x.count("/") for x in b.literals):
        return None
    for end in (0, -1):  # the literal text before the first variable and after the last agree
        mine, theirs = a.literals[end], b.literals[end]
        agree = mine.startswith(theirs) or theirs.startswith(mine)
        if end and not agree:
            agree = mine.endswith(theirs) or theirs.endswith(mine)
        if not agree:
            return None
    ta, tb = _tokens(a), _tokens(b)
    start: tuple[_State, _State] = ((0, False), (0, False))
    came: dict[tuple[_State, _State], tuple[tuple[_State, _State], str] | None] = {start: None}
    todo = deque([start])
    while todo:
        pair = todo.popleft()
        for sa in _closure(pair[0]):
            for sb in _closure(pair[1]):
                if sa == (len(ta), False) and sb == (len(tb), False):
                    return _spelled(came, pair)
                ma, mb = _move(ta, sa), _move(tb, sb)
                if ma is None or mb is None:
                    continue
                (ca, na), (cb, nb) = ma, mb
                if ca == cb or (ca == _ANY and cb != "/") or (cb == _ANY and ca != "/"):
                    following = (na, nb)
                    if following not in came:
                        came[following] = (pair, ca or cb or "x")
                        todo.append(following)
    return None


def _spelled(
    came: dict[tuple[_State, _State], tuple[tuple[_State, _State], str] | None], pair: tuple[_State, _State]
) -> str:
    """The characters read on the way to `pair`."""
    chars: list[str] = []
    step = came[pair]
    while step is not None:
        pair, char = step
        chars.append(char)
        step = came[pair]
    return "".join(reversed(chars))


def clashes(templates: list[Template]) -> list[tuple[int, int, str]]:
    """Each pair (i, j), i < j, of `templates` that can match one URI, with such a URI.

    A variable never matches a `/`, so two URIs match one URI when they have as many `/`-separated segments
    and each pair of segments can match one: the URIs go into a trie of segments, which is walked against
    itself, and only the segments of one trie node are compared with each other."""
    root = _Node()
    for index, template in enumerate(templates):
        node = root
        for segment in _segments(template):
            node = node.child(segment)
        node.ends.append(index)
    found: list[tuple[int, int, str]] = []
    stack: list[tuple[_Node, _Node, _Path]] = [(root, root, None)]
    while stack:
        a, b, path = stack.pop()
        if a.ends and b.ends:
            pairs = itertools.combinations(a.ends, 2) if a is b else itertools.product(a.ends, b.ends)
            found += [(min(i, j), max(i, j), _joined(path)) for i, j in pairs]
        if a is b:
            stack += [(child, child, (text, path)) for text, child in a.literals.items()]
        else:
            fewer, more = sorted((a.literals, b.literals), key=len)
            shared_texts = [text for text in fewer if text in more]
            stack += [(a.literals[text], b.literals[text], (text, path)) for text in shared_texts]
        for x, y in ((a, b),) if a is b else ((a, b), (b, a)):
            for matcher, _segment, child in x.patterns.values():
                stack += [(child, other, (text, path)) for text, other in y.literals.items() if matcher.fullmatch(text)]
        mine, theirs = list(a.patterns.values()), list(b.patterns.values())
        for i, (_, segment, child) in enumerate(mine):
            for _, other_segment, other in theirs[i:] if a is b else theirs:
                shared = "x".join(segment.literals) if child is other else overlap(segment, other_segment)
                if shared is not None:
                    stack.append((child, other, (shared, path)))
    return sorted(set(found))


_Path = tuple[str, "_Path"] | None
"""The segments read on the way to a pair of trie nodes, the last one first."""


def _joined(path: _Path) -> str:
    segments: list[str] = []
    while path is not None:
        segments.append(path[0])
        path = path[1]
    return "/".join(reversed(segments))


class _Node:
    """A trie node: the URIs that end here (their indexes), and the next segments, literal or with variables
    (those by their literal text, so `{x}` and `{y}` share a node)."""

    def __init__(self) -> None:
        self.ends: list[int] = []
        self.literals: dict[str, _Node] = {}
        self.patterns: dict[tuple[str, ...], tuple[re.Pattern[str], Template, _Node]] = {}

    def child(self, segment: Template) -> _Node:
        if segment.is_static:
            return self.literals.setdefault(segment.literals[0], _Node())
        if segment.literals not in self.patterns:
            matcher = re.compile("[^/]+".join(re.escape(literal) for literal in segment.literals))
            self.patterns[segment.literals] = (matcher, segment, _Node())
        return self.patterns[segment.literals][2]


def _segments(template: Template) -> list[Template]:
    """The `/`-separated segments of a URI, each a template of its own."""
    segments: list[Template] = []
    literals: list[str] = [""]
    variables: list[str] = []
    for index, literal in enumerate(template.literals):
        first, *rest = literal.split("/")
        literals[-1] += first
        for piece in rest:
            segments.append(Template(tuple(literals), tuple(variables), ()))
            literals, variables = [piece], []
        if index < len(template.variables):
            variables.append(template.variables[index])
            literals.append("")
    segments.append(Template(tuple(literals), tuple(variables), ()))
    return segments


_PERCENT = frozenset("%0123456789ABCDEFabcdef")
"""What a variable's part may hold in any URI, whatever its type: a client may percent-encode any character."""
_BOOLEAN_TAILS = frozenset("rue" + "alse")
_NUMBER_TAILS = frozenset("0123456789.eE+-")


def may_hold(spec: dict[str, Any], kind: str, char: str) -> str | None:
    """Why a URI variable of this param (`kind` its JSON type) may hold `char` after its first character, as
    the URI spells it; None when no accepted value can. The server ends a variable where the literal after it
    first occurs, so a literal whose first character the variable may hold leaves the URI's split unknown."""
    if char in _PERCENT:
        return "any value may be percent-encoded, and `%XX` holds `%` and hexadecimal digits"
    values = spec.get("enum")
    if isinstance(values, list) and values:
        texts = [_spelled_value(value) for value in values]
        holding = next((text for text in texts if char in text[1:]), None)
        return None if holding is None else f"its enum value {holding!r} holds it"
    if kind == "integer":
        return None if char not in "0123456789" else "it is an integer"
    if kind == "number":
        return None if char not in _NUMBER_TAILS else "it is a number, such as -1.5e-3"
    if kind == "boolean":
        return None if char not in _BOOLEAN_TAILS else "it is a boolean, true or false"
    pattern = spec.get("pattern")
    if not isinstance(pattern, str):
        return "it is a string with no pattern or enum, so it may hold anything but `/`, `?` and `#`"
    if not (pattern.startswith("^") and pattern.endswith("$")):
        return f"its pattern {pattern} is not anchored with ^ and $, so a value may hold anything around a match"
    return None if _pattern_excludes(pattern, char) else f"its pattern {pattern} may match it"


def _spelled_value(value: Any) -> str:
    text = "true" if value is True else "false" if value is False else str(value)
    return quote(text, safe="")


def _pattern_excludes(pattern: str, char: str) -> bool:
    """Whether no string the pattern matches in full holds `char`, read from its parse (Python's, which reads
    the common ECMA-262 patterns alike and any wider); False when that cannot be told."""
    try:
        parser: Any = importlib.import_module("re._parser")
        constants: Any = importlib.import_module("re._constants")
        parsed = parser.parse(pattern)
    except (ImportError, re.error, ValueError, TypeError, OverflowError, RecursionError):
        return False
    items = list(parsed)
    at, begin, end = constants.AT, constants.AT_BEGINNING, constants.AT_END
    if len(items) < 2 or items[0] != (at, begin) or items[-1] != (at, end):
        return False  # a pattern is a search: unanchored, it allows anything before or after
    chars = {char, char.lower(), char.upper()} if parsed.state.flags & re.IGNORECASE else {char}
    try:
        return not any(_consumes(items, c, constants) for c in chars)
    except (KeyError, TypeError, ValueError, RecursionError):
        return False


def _consumes(items: Any, char: str, c: Any) -> bool:
    """Whether the parsed pattern `items` may consume `char` anywhere (True when unsure)."""
    code = ord(char)
    for op, av in items:
        if op is c.LITERAL:
            if av == code:
                return True
        elif op is c.AT:
            continue
        elif op is c.IN:
            if _in_class(av, char, c):
                return True
        elif op in (c.MAX_REPEAT, c.MIN_REPEAT, c.POSSESSIVE_REPEAT):
            if _consumes(av[2], char, c):
                return True
        elif op is c.SUBPATTERN:
            if _consumes(av[3], char, c):
                return True
        elif op is c.ATOMIC_GROUP:
            if _consumes(av, char, c):
                return True
        elif op is c.BRANCH:
            if any(_consumes(branch, char, c) for branch in av[1]):
                return True
        else:
            return True  # `.`, a negated literal, a back-reference, a look-around: may be anything
    return False


_CATEGORIES = {
    "CATEGORY_DIGIT": str.isdigit,
    "CATEGORY_WORD": lambda ch: ch.isalnum() or ch == "_",
    "CATEGORY_SPACE": str.isspace,
}


def _in_class(items: Any, char: str, c: Any) -> bool:
    code = ord(char)
    if items and items[0][0] is c.NEGATE:
        return True  # a negated class holds nearly everything
    for op, av in items:
        if op is c.LITERAL and av == code:
            return True
        if op is c.RANGE and av[0] <= code <= av[1]:
            return True
        if op is c.CATEGORY:
            test = _CATEGORIES.get(str(av))
            if test is None or test(char):
                return True
        elif op not in (c.LITERAL, c.RANGE):
            return True
    return False
