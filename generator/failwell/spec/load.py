"""Load a spec file: YAML 1.2 with the line and column of every key and value kept.

ruamel.yaml is the reference reader; quickyaml.py reads the usual spec the same way, much faster, and
says when a document needs ruamel.yaml."""

from __future__ import annotations

import re
import warnings
from dataclasses import dataclass, field
from functools import cache
from typing import TYPE_CHECKING, Any

from ..errors import Diagnostic, spec_error
from . import bounds

try:
    from . import quickyaml
except ImportError:  # a PyYAML built without libyaml: ruamel.yaml reads every spec
    quickyaml = None  # type: ignore[assignment]

Path_ = tuple[str | int, ...]

if TYPE_CHECKING:
    from ruamel.yaml.constructor import DuplicateKeyError
    from ruamel.yaml.error import MarkedYAMLError


@dataclass
class Document:
    """A loaded spec: plain data plus where each part of it sits in the file."""

    file: str
    data: dict[str, Any]
    text: str
    _positions: dict[Path_, tuple[int, int]] = field(default_factory=dict)
    _key_positions: dict[Path_, tuple[int, int]] = field(default_factory=dict)

    def position(self, path: Path_, *, key: bool = False) -> tuple[int, int]:
        """1-based (line, col) of the value at `path` (or of its key), else of its nearest parent."""
        probe = tuple(path)
        while True:
            table = self._key_positions if key else self._positions
            if probe in table:
                return table[probe]
            if probe in self._positions:
                return self._positions[probe]
            if not probe:
                return (1, 1)
            probe = probe[:-1]
            key = True

    def diagnostic(
        self, path: Path_, code: str, message: str, *, key: bool = False, warning: bool = False
    ) -> Diagnostic:
        """A diagnostic pointing at `path` in this document."""
        line, col = self.position(path, key=key)
        return Diagnostic(self.file, line, col, code, message, "warning" if warning else "error", tuple(path))


def load_text(text: str, file: str) -> Document:
    """Parse spec text; raise FailwellError with a diagnostic when it is not a YAML mapping, or holds what
    bounds.py refuses (checked before a reader builds anything, and on the values it built)."""
    refused = bounds.check_text(text, file) or bounds.scan(text, file)
    if refused:
        raise spec_error(refused)
    quick = quickyaml.load(text) if quickyaml is not None else None
    if quick is not None:
        data, positions, key_positions = quick
        doc = Document(file=file, data=data, text=text, _positions=positions, _key_positions=key_positions)
    else:
        doc = _load_with_ruamel(text, file)
    refused = bounds.check_values(doc)
    if refused:
        raise spec_error(refused)
    return doc


def _load_with_ruamel(text: str, file: str) -> Document:
    from ruamel.yaml import YAML  # imported here: slow to import, and most specs never need it
    from ruamel.yaml.comments import CommentedMap, CommentedSeq
    from ruamel.yaml.constructor import DuplicateKeyError
    from ruamel.yaml.error import MarkedYAMLError, YAMLError
    from ruamel.yaml.reader import ReaderError

    yaml = YAML(typ="rt")
    yaml.Constructor = _strict_constructor()
    try:
        with warnings.catch_warnings():  # a reused anchor, a YAML 1.1 float: legal, and no business of stderr's
            warnings.simplefilter("ignore")
            root = yaml.load(text)
    except RecursionError:  # bounds.scan refuses deep nesting first; this is for a parser that disagrees
        message = f"nested more than {bounds.MAX_DEPTH} levels deep; a spec needs about 10"
        raise spec_error([Diagnostic(file, 1, 1, "FW023", message)]) from None
    except DuplicateKeyError as exc:
        raise spec_error([_marked(file, exc, "FW104", _duplicate_message(exc))]) from None
    except MarkedYAMLError as exc:
        raise spec_error([_unclosed(file, exc) or _marked(file, exc, "FW001", _not_yaml(exc))]) from None
    except ReaderError as exc:  # a character YAML does not allow in its text: U+0080 to U+009F but NEL, U+FFFE
        raise spec_error([_unprintable(file, text, exc)]) from None
    except YAMLError as exc:
        raise spec_error([Diagnostic(file, 1, 1, "FW001", f"not valid YAML: {str(exc).splitlines()[0]}")]) from None
    if root is None:
        message = "the spec is empty; start from `failwell new` or see `failwell schema`"
        raise spec_error([Diagnostic(file, 1, 1, "FW002", message)])
    if not isinstance(root, CommentedMap):
        kind = type(root).__name__ if not isinstance(root, CommentedSeq) else "list"
        message = f"the spec must be a mapping with `failwell: 1`, `server` and `tools`; found a {kind}"
        raise spec_error([Diagnostic(file, 1, 1, "FW003", message)])
    doc = Document(file=file, data={}, text=text)
    doc.data = _plain(root, (), doc)
    return doc


def _plain(node: Any, path: Path_, doc: Document) -> Any:
    from ruamel.yaml.comments import CommentedMap, CommentedSeq, TaggedScalar
    from ruamel.yaml.scalarbool import ScalarBoolean

    if isinstance(node, CommentedMap):
        out: dict[str, Any] = {}
        for key in node:
            owner = _owner(node, key)  # a key a merge (`<<: *anchor`) brought in sits in the anchored mapping
            line, col = owner.lc.key(key)
            vline, vcol = owner.lc.value(key)
            child = (*path, str(key))
            doc._key_positions[child] = (line + 1, col + 1)
            doc._positions[child] = (vline + 1, vcol + 1)
            out[str(key)] = _plain(node[key], child, doc)
        return out
    if isinstance(node, CommentedSeq):
        items = []
        for index, item in enumerate(node):
            line, col = node.lc.item(index)
            doc._positions[(*path, index)] = (line + 1, col + 1)
            items.append(_plain(item, (*path, index), doc))
        return items
    if isinstance(node, str):
        return str(node)
    if isinstance(node, TaggedScalar):  # `!!str 5`: the only tagged scalar bounds.scan lets through
        return "" if node.value is None else str(node.value)
    if isinstance(node, bool | ScalarBoolean):  # ScalarBoolean, an anchored true or false, is an int
        return bool(node)
    if isinstance(node, int):
        return int(node)
    if isinstance(node, float):
        return float(node)
    return node


def _owner(node: Any, key: Any) -> Any:
    """The mapping of the text that holds `key` of `node`: itself, or the first merged mapping holding it."""
    if key in (node.lc.data or {}):  # None when every key is merged
        return node
    for merged in getattr(node, "merge", ()):
        if key in merged:
            return _owner(merged, key)
    return node


_CORE_SCALARS = {"int": "an integer", "float": "a number", "bool": "a boolean"}


@cache
def _strict_constructor() -> Any:
    """ruamel.yaml's round-trip constructor, refusing a value that does not read as the core tag it carries
    (`!!int abc`, `!!bool 1`, `!!float ''`) with a ConstructorError at the value, where its own raises a
    KeyError, ValueError or IndexError."""
    from ruamel.yaml.constructor import ConstructorError, RoundTripConstructor

    class StrictConstructor(RoundTripConstructor):
        pass

    def strict(name: str, construct: Any) -> Any:
        def checked(self: Any, node: Any) -> Any:
            try:
                return construct(self, node)
            except (KeyError, ValueError, IndexError):
                problem = f"a value tagged `!!{name}` that is not {_CORE_SCALARS[name]}"
                raise ConstructorError(problem=problem, problem_mark=node.start_mark) from None

        return checked

    for name in _CORE_SCALARS:
        tag = f"tag:yaml.org,2002:{name}"
        StrictConstructor.add_constructor(tag, strict(name, RoundTripConstructor.yaml_constructors[tag]))
    return StrictConstructor


def _unprintable(file: str, text: str, exc: Any) -> Diagnostic:
    at = min(max(int(exc.position), 0), len(text))
    line = text.count("\n", 0, at) + 1
    col = at - (text.rfind("\n", 0, at) + 1) + 1
    code = exc.character if isinstance(exc.character, int) else ord(str(exc.character)[:1] or "\0")
    message = (
        f"not valid YAML: the character U+{code:04X} cannot be written in YAML text; remove it, or write it "
        f"as `\\u{code:04X}` in a double-quoted string"
    )
    return Diagnostic(file, line, col, "FW001", message)


def _not_yaml(exc: MarkedYAMLError) -> str:
    problem = exc.problem or "the file is not valid YAML"
    context = ""
    if exc.context and exc.context_mark is not None:
        context = f" ({exc.context} that starts at line {exc.context_mark.line + 1})"
    return f"not valid YAML: {problem}{context}; fix the syntax here"


def _unclosed(file: str, exc: MarkedYAMLError) -> Diagnostic | None:
    """A `{` or `[` never closed: the parser notices only at a later line (the next key, the file's end), so the
    diagnostic points at the bracket that opened it, and says where the parser gave up."""
    opened, gave_up = exc.context_mark, exc.problem_mark
    flow = {"while parsing a flow mapping": ("{", "}"), "while parsing a flow sequence": ("[", "]")}
    brackets = flow.get(str(exc.context or ""))
    if brackets is None or opened is None or gave_up is None or gave_up.line <= opened.line:
        return None
    found = (exc.problem or "").partition(", but got ")[2] or "something else"
    found = "the end of the file" if found == "'<stream end>'" else found
    message = (
        f"not valid YAML: this {brackets[0]} is never closed (at line {gave_up.line + 1} the parser found {found}); "
        f"end it with {brackets[1]} on this line"
    )
    return Diagnostic(file, opened.line + 1, opened.column + 1, "FW001", message)


def _marked(file: str, exc: MarkedYAMLError, code: str, message: str) -> Diagnostic:
    mark = exc.problem_mark or exc.context_mark
    line, col = (mark.line + 1, mark.column + 1) if mark is not None else (1, 1)
    return Diagnostic(file, line, col, code, message)


def _duplicate_message(exc: DuplicateKeyError) -> str:
    found = re.search(r'duplicate key "([^"]*)"', exc.problem or "")
    name = f"`{found.group(1)}` " if found else ""
    return f"duplicate key {name}in the same mapping; each name may appear once, so rename or merge one of them"
