"""Settings as real command lines take them (issue 40.5): `type: array` (a repeated flag, a comma list in the
variable), `type: json` (one JSON value checked by its `schema:`), `positional: N | rest`, `flag_value: false` (an
inverted boolean's lone flag), `conflicts: [[a, b]]` beside the settings, and `server.transport_flags` (failwell's
own `--http/--host/--port/--path` spelled as the original server spells them). Lint refuses what cannot be built
(FW194), at FILE:LINE:COL; the runtime's side is `runtime/setting_kinds.py`."""

from __future__ import annotations

from typing import Any

from ..errors import Diagnostic
from ..pyliteral import LINE_LENGTH, inline, literal, string
from .load import Document

CODE = "FW194"
CONFLICTS = "conflicts"
"""The key beside the settings (never a setting's name) listing the groups of settings that exclude each other."""
TRANSPORT = ("http", "host", "port", "path")
OWN_FLAGS = frozenset(f"--{key}" for key in TRANSPORT)
"""failwell's own flags that `server.transport_flags` may spell otherwise, freeing them for a setting."""
OWN_KEYS = ("flag", "env", "secret", "required", "positional", "flag_value")
"""A setting's keys that say where it is read from, not what it accepts (left out of its field)."""


def declared(settings: Any) -> dict[str, Any]:
    """`server.settings` without its `conflicts` entry: each setting by name."""
    return {k: v for k, v in settings.items() if k != CONFLICTS} if isinstance(settings, dict) else {}


def conflicts(settings: Any) -> list[list[str]]:
    """The groups of settings that exclude each other (the well-formed ones)."""
    found = settings.get(CONFLICTS) if isinstance(settings, dict) else None
    groups = found if isinstance(found, list) else []
    return [[str(n) for n in group] for group in groups if isinstance(group, list)]


def field(spec: dict[str, Any]) -> dict[str, Any]:
    """What a setting accepts, as a field's spec: a JSON setting's `schema:`, an array's `items`, and the rest."""
    kept = {k: v for k, v in spec.items() if k not in OWN_KEYS}
    if kept.get("type") == "json":
        return {"schema": kept.get("schema", {}), **({"example": kept["example"]} if "example" in kept else {})}
    return kept


def accepts_note(spec: dict[str, Any]) -> str:
    """What an array setting's refusal and `--help` add to what it accepts: how it is given."""
    if spec.get("type") != "array":
        return ""
    return "; repeat the flag, or list them in the variable separated by commas (a comma inside one written \\,)"


def positional(spec: dict[str, Any]) -> int:
    """A setting's place among the arguments: N, -1 for `rest`, 0 for none."""
    place = spec.get("positional")
    return -1 if place == "rest" else place if isinstance(place, int) and not isinstance(place, bool) else 0


def runtime_arguments(spec: dict[str, Any]) -> list[str]:
    """The `Setting(...)` keyword arguments of the runtime's declaration that say its kind."""
    out = []
    place = positional(spec)
    out += ["positional=REST"] if place == -1 else [f"positional={place}"] if place else []
    out += ["many=True"] if spec.get("type") == "array" else []
    if spec.get("type") == "json":  # one line when it fits there, else exploded as `ruff format` keeps it
        flat = f"schema={inline(spec.get('schema', {}))}"
        out.append(flat if 12 + len(flat) + 1 <= LINE_LENGTH else f"schema={literal(spec.get('schema', {}), 12)}")
    out += ["inverted=True"] if spec.get("flag_value") is False else []
    return out


def conflicts_code(groups: list[list[str]]) -> str:
    """The `conflicts=` of the runtime's `Declared(...)`: a tuple of tuples of names (empty: none)."""
    if not groups:
        return ""
    inner = ", ".join("(" + ", ".join(string(name) for name in group) + ")" for group in groups)
    return f"({inner},)" if len(groups) == 1 else f"({inner})"


def given(flag: str, spec: dict[str, Any], name: str) -> str:
    """How the README's table names where a setting is given: its flag, its place, or both."""
    place = positional(spec)
    where = f"{name.upper()}..." if place == -1 else f"{name.upper()} (argument {place})" if place else ""
    return " or ".join(part for part in (where, flag) if part)


def lint(doc: Document, server: dict[str, Any], taken_flags: dict[str, str]) -> list[Diagnostic]:
    """FW194: each kind's keys where they make sense, positions without gaps or doubles (`rest` last and an
    array), conflicts naming declared settings, and transport spellings that are flags no setting takes."""
    settings = server.get("settings") if isinstance(server.get("settings"), dict) else {}
    assert isinstance(settings, dict)
    specs = declared(settings)
    out: list[Diagnostic] = []
    places: dict[int, str] = {}
    rest = ""
    for name, spec in specs.items():
        if not isinstance(spec, dict):
            continue
        path = ("server", "settings", name)
        kind = spec.get("type")
        if kind == "json" and not isinstance(spec.get("schema"), dict):
            message = f"setting `{name}` is JSON and needs a `schema:` (a JSON Schema 2020-12 its value is checked by)"
            out.append(doc.diagnostic(path, CODE, message, key=True))
        if "schema" in spec and kind != "json":
            message = f"setting `{name}`: `schema` goes with `type: json`; give it that type or remove `schema`"
            out.append(doc.diagnostic((*path, "schema"), CODE, message, key=True))
        if kind == "array" and not isinstance(spec.get("items"), dict):
            message = f"setting `{name}` is an array and needs `items: {{type: string}}` (or integer, number)"
            out.append(doc.diagnostic(path, CODE, message, key=True))
        if "items" in spec and kind != "array":
            message = f"setting `{name}`: `items` goes with `type: array`; give it that type or remove `items`"
            out.append(doc.diagnostic((*path, "items"), CODE, message, key=True))
        if "flag_value" in spec and (kind != "boolean" or "enum" in spec):
            message = f"setting `{name}`: `flag_value` goes with `type: boolean` (its flag alone sets that value)"
            out.append(doc.diagnostic((*path, "flag_value"), CODE, message, key=True))
        if spec.get("flag_value") is False and "positional" in spec:
            message = f"setting `{name}`: an inverted boolean's flag stands alone; it cannot be `positional`"
            out.append(doc.diagnostic((*path, "positional"), CODE, message, key=True))
        place = positional(spec)
        if place == -1:
            if kind != "array":
                message = f"setting `{name}` takes the remaining arguments, so it is a list: give it `type: array`"
                out.append(doc.diagnostic((*path, "positional"), CODE, message))
            if rest:
                message = f"settings `{rest}` and `{name}` both take the remaining arguments; keep one"
                out.append(doc.diagnostic((*path, "positional"), CODE, message))
            rest = rest or name
        elif place:
            if place in places:
                message = f"settings `{places[place]}` and `{name}` both take argument {place}; give each its own"
                out.append(doc.diagnostic((*path, "positional"), CODE, message))
            elif kind == "array":
                message = f"setting `{name}` is an array: only `positional: rest` takes several arguments"
                out.append(doc.diagnostic((*path, "positional"), CODE, message))
            places.setdefault(place, name)
    numbered = sorted(places)
    for expected, place in enumerate(numbered, start=1):
        if place != expected:
            name = places[place]
            message = (
                f"setting `{name}` takes argument {place}, but no setting takes argument {expected}; "
                "number them 1, 2, ..."
            )
            out.append(doc.diagnostic(("server", "settings", name, "positional"), CODE, message))
            break
    out += _conflicts(doc, settings, specs)
    out += _transport(doc, server, specs, taken_flags)
    return out


def _conflicts(doc: Document, settings: dict[str, Any], specs: dict[str, Any]) -> list[Diagnostic]:
    out: list[Diagnostic] = []
    groups = settings.get(CONFLICTS)
    if CONFLICTS not in settings:
        return out
    where = ("server", "settings", CONFLICTS)
    if not isinstance(groups, list) or not all(isinstance(g, list) and len(g) >= 2 for g in groups):
        message = "`conflicts` lists groups of settings that exclude each other, such as [[read_only, allow_writes]]"
        return [doc.diagnostic(where, CODE, message, key=True)]
    for number, group in enumerate(groups):
        for index, name in enumerate(group):
            if name not in specs:
                listed = ", ".join(specs) or "none"
                message = f"`conflicts` names `{name}`, which is not a setting (the settings are {listed})"
                out.append(doc.diagnostic((*where, number, index), CODE, message))
            elif isinstance(specs[name], dict) and specs[name].get("required"):
                message = (
                    f"setting `{name}` is required, so it is always given and excludes the others always; drop one"
                )
                out.append(doc.diagnostic((*where, number, index), CODE, message))
    return out


def spellings(server: dict[str, Any]) -> dict[str, list[str]]:
    """`server.transport_flags`, each key's spellings as a list (`http` may list several: `--transport sse`,
    `--transport streamable-http`)."""
    found = server.get("transport_flags") if isinstance(server.get("transport_flags"), dict) else {}
    assert isinstance(found, dict)
    return {k: [v] if isinstance(v, str) else [str(s) for s in v] for k, v in found.items() if k in TRANSPORT}


def _transport(
    doc: Document, server: dict[str, Any], specs: dict[str, Any], taken_flags: dict[str, str]
) -> list[Diagnostic]:
    """Each spelling is a flag (with one value, `stdio` aside, for `http` only) that no setting takes."""
    out: list[Diagnostic] = []
    from .naming import setting_flag

    flags = {setting_flag(n, s): n for n, s in specs.items() if isinstance(s, dict)}
    for key, spelled in spellings(server).items():
        for spelling in spelled:
            words = spelling.split()
            where = ("server", "transport_flags", key)
            if (len(words) == 2 and key == "http" and words[1] != "stdio") or len(words) == 1:
                flag = words[0]
            else:
                message = (
                    f"transport_flags.{key}: `{spelling}` is not a flag the server can take: write a flag "
                    "(`--sse-port`), or for `http` a flag and the value that means HTTP (`--transport sse`)"
                )
                out.append(doc.diagnostic(where, CODE, message))
                continue
            if flag in flags:
                message = f"transport_flags.{key}: {flag} is setting `{flags[flag]}`'s flag; spell it otherwise"
                out.append(doc.diagnostic(where, "FW190", message))
            elif flag in taken_flags and flag not in {f"--{k}" for k in TRANSPORT}:
                message = f"transport_flags.{key}: {flag} is a flag {taken_flags[flag]} already takes"
                out.append(doc.diagnostic(where, "FW190", message))
    return out
