"""A resource's URI: a static URI, or an RFC 6570 level-1 template of `{name}` variables.

A variable matches one or more characters other than `/`: level-1 expansion percent-encodes every reserved
character, so an expanded value never holds a `/`, and a URI has as many `/` as its template's literal text.
`parse` reads a URI and refuses what is not one (FW170) or what level 1 does not have (FW171); `overlap`
says whether two URIs can match the same URI, and gives one such URI.
"""

from __future__ import annotations

import re
from collections import deque
from dataclasses import dataclass

from .naming import IDENTIFIER

MAX_LENGTH = 2048
"""The longest URI a resource may have: what browsers and proxies commonly accept."""
SCHEME = re.compile(r"[a-z][a-z0-9+.-]*:")
_OPERATORS = frozenset("+#./;?&=,!@|")
"""The characters that start an RFC 6570 level 2-4 expression (and those it reserves for extensions)."""
_LEVEL_1 = "failwell supports RFC 6570 level 1 only: one plain {name} per pair of braces, such as tasks://{ref}"


class UriError(ValueError):
    """A URI failwell refuses: the lint code, where in the URI (0-based), and why."""

    def __init__(self, code: str, offset: int, message: str) -> None:
        super().__init__(message)
        self.code = code
        self.offset = offset
        self.message = message


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
    if not SCHEME.match(uri):
        cased = re.match(r"[A-Za-z][A-Za-z0-9+.-]*:", uri)
        if cased:
            scheme = cased.group()[:-1]
            raise UriError("FW170", 0, f"the URI's scheme `{scheme}` is written lowercase: `{scheme.lower()}`")
        raise UriError("FW170", 0, "the URI has no scheme; start it with one, such as tasks:// or file:///")
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
    if not IDENTIFIER.match(expression):
        raise UriError("FW171", at, f"`{shown}` is not a snake_case name; {_LEVEL_1}")
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
