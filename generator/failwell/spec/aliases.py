"""`aliases:` on a tool's input fields: other names a client may send an argument by (a port keeping the names an
older version of the original took). Each is renamed to the field's name before the arguments are checked, and is
never published in `inputSchema`. Lint refuses an alias two fields claim, one that is another argument's name, and
`aliases` anywhere but a tool's top-level `input` (FW188)."""

from __future__ import annotations

from typing import Any

from ..errors import Diagnostic
from .load import Document

CODE = "FW188"


def is_input_field(path: tuple[str | int, ...]) -> bool:
    """Whether `path` is a tool's top-level input field (`tools.<name>.input.<field>`), the one place aliases go."""
    return len(path) == 4 and path[0] == "tools" and path[2] == "input"


def misplaced(doc: Document, path: tuple[str | int, ...], spec: dict[str, Any]) -> list[Diagnostic]:
    """`aliases` on a field that is not a tool's top-level input field."""
    if "aliases" not in spec or is_input_field(path):
        return []
    message = "`aliases` applies to a tool's top-level `input` fields only (a client renames nothing else); remove it"
    return [doc.diagnostic((*path, "aliases"), CODE, message, key=True)]


def claims(doc: Document, path: tuple[str | int, ...], inputs: dict[str, Any], keyed: bool) -> list[Diagnostic]:
    """Each alias names one argument: not another argument's name (nor `idempotency_key` on a keyed write), and not
    an alias another field claimed first."""
    out: list[Diagnostic] = []
    names = {*inputs, *(["idempotency_key"] if keyed else [])}
    claimed: dict[str, str] = {}
    for name, spec in inputs.items():
        found = spec.get("aliases") if isinstance(spec, dict) else None
        for index, alias in enumerate(found if isinstance(found, list) else ()):
            if not isinstance(alias, str):
                continue
            where = (*path, name, "aliases", index)
            if alias in names:
                whose = "its own name" if alias == name else f"the name of the argument `{alias}`"
                message = f"alias `{alias}` of `{name}` is {whose}, so a call could not tell them apart; remove it"
                out.append(doc.diagnostic(where, CODE, message))
            elif alias in claimed:
                message = (
                    f"alias `{alias}` of `{name}` is claimed by `{claimed[alias]}` too, so a call could not tell which "
                    "argument it means; keep it on one field"
                )
                out.append(doc.diagnostic(where, CODE, message))
            else:
                claimed[alias] = name
    return out


def renames(inputs: dict[str, Any]) -> dict[str, str]:
    """Each alias of a tool's input fields and the published name it is renamed to, in the spec's order."""
    return {
        alias: name for name, spec in inputs.items() if isinstance(spec, dict) for alias in spec.get("aliases") or ()
    }
