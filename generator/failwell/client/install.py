"""Write a server's entry into a client's configuration file, and nothing else of it.

Every other key and entry of the file is kept as it was (in its order, numbers in the text they were
written as); an entry of the same name that differs is replaced only when forced (the refusal says what
differs: `differences`); the file is written atomically through `safewrite` (never through a link
failwell did not make, its mode kept) after the previous one is written to `<file>.bak`, with the file's
folder locked so concurrent installs take turns; a dry run writes nothing and returns the diff. A file
that is not a JSON object is refused, never overwritten.

Secrets (`Launch.secrets`) never go into a project-scope file, which is made to be committed: each is
written as the client's reference to an environment variable (`clients.reference`), and the user exports
it. A user-scope file holding a secret is left readable by its owner alone (0600).
"""

from __future__ import annotations

import difflib
import json
import os
import stat
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

from .. import safewrite
from ..errors import FailwellError
from .clients import client, entry
from .launch import Launch, is_secret

Status = Literal["created", "updated", "unchanged"]


@dataclass(frozen=True)
class Change:
    """What installing did (or, in a dry run, would do) to one configuration file."""

    path: Path
    status: Status
    diff: str
    backup: Path | None = None
    tightened: bool = False
    """Whether the file was narrowed to 0600 because it now holds a secret."""
    secrets: tuple[str, ...] = ()
    """The secret variables of the entry (in a project-scope file: references the user must export)."""


def document(client_name: str, server: Launch) -> str:
    """The configuration holding only this server's entry, as client `client_name` reads it."""
    return _dump({client(client_name).key: {server.name: entry(client_name, server)}})


def install(
    client_name: str,
    server: Launch,
    path: Path,
    *,
    force: bool = False,
    dry_run: bool = False,
    project: Path | None = None,
) -> Change:
    """Add or update `server`'s entry in the configuration file at `path`. `project`: the project root when
    `path` is a project-scope file (shared, committed: a secret is written as the client's reference to an
    environment variable, and no link under the project is followed); None for a user-scope file (a secret
    is written as it is, and the file is left readable by its owner alone)."""
    scope = "project" if project is not None else "user"
    wanted = entry(client_name, server, scope)
    if project is not None:
        safewrite.refuse_links(project, path.with_name(path.name + ".bak"))
        safewrite.refuse_links(project, path)
        target = path
    else:
        target = safewrite.own_target(path)
    if dry_run:
        return _change(client_name, server, target, wanted, force, project, dry_run=True)
    safewrite.make_folders(project, target.parent)
    with safewrite.locked(target.parent):
        return _change(client_name, server, target, wanted, force, project, dry_run=False)


def _change(
    client_name: str,
    server: Launch,
    path: Path,
    wanted: dict[str, Any],
    force: bool,
    project: Path | None,
    *,
    dry_run: bool,
) -> Change:
    """Read, change and (unless `dry_run`) write one file; the caller holds its folder's lock."""
    before = _read(path)
    data = _parse(before, path) if before else {}
    key = client(client_name).key
    servers = data.setdefault(key, {})
    if not isinstance(servers, dict):
        raise FailwellError(f"{path}: `{key}` is not an object; fix the file by hand; nothing was written")
    old = servers.get(server.name)
    held = secret_names(server)
    if old == wanted:
        return Change(path, "unchanged", "", secrets=held)
    if old is not None and not force:
        raise FailwellError(
            f"{path} already has a server called {server.name!r}, and it differs from this one: "
            f"{differences(old, wanted, server.secrets)}; pass --force to replace it (the file is kept as a "
            ".bak), or --name to add this one beside it; nothing was written"
        )
    servers[server.name] = wanted
    after = _dump(data)
    diff = "".join(
        difflib.unified_diff(
            before.splitlines(keepends=True), after.splitlines(keepends=True), f"a/{path.name}", f"b/{path.name}"
        )
    )
    status: Status = "updated" if before else "created"
    if dry_run:
        return Change(path, status, masked(diff, server), secrets=held)
    private = project is None and bool(server.secrets)
    backup = None
    if before or path.exists():
        backup = path.with_name(path.name + ".bak")
        old_mode = stat.S_IMODE(os.lstat(path).st_mode)
        safewrite.write(backup, before.encode("utf-8"), root=project, mode=old_mode, private=private)
    written = safewrite.write(path, after.encode("utf-8"), root=project, private=private)
    return Change(path, status, diff, backup, written.tightened, held)


def differences(old: Any, wanted: dict[str, Any], secrets: frozenset[str] = frozenset()) -> str:
    """What differs between the entry a file has (`old`) and the one installing would write (`wanted`): the
    command, the args, each env key added, removed or changed (a secret's value never shown), other keys."""
    if not isinstance(old, dict):
        return f"the entry there is {_brief(old)}, not an object"
    said = []
    for key in ("type", "command", "args"):
        if old.get(key) != wanted.get(key):
            said.append(f"{key} {_brief(old.get(key))} there, {_brief(wanted.get(key))} here")
    before: dict[str, Any] = old["env"] if isinstance(old.get("env"), dict) else {}
    after: dict[str, Any] = wanted.get("env", {})

    def value(key: str, given: Any) -> str:
        secret = key in secrets or is_secret(key, given if isinstance(given, str) else "")
        return "(a secret, not shown)" if secret else _brief(given)

    added = [f"{key}={value(key, after[key])}" for key in after if key not in before]
    removed = [key for key in before if key not in after]
    changed = [
        f"{key} {value(key, before[key])} there, {value(key, after[key])} here"
        for key in after
        if key in before and before[key] != after[key]
    ]
    if added:
        said.append("env adds " + ", ".join(added))
    if removed:
        said.append("env drops " + ", ".join(removed))
    if changed:
        said.append("env changes " + ", ".join(changed))
    others = sorted(set(old) - {"type", "command", "args", "env"})
    if others:
        said.append("the entry there also has " + ", ".join(others))
    return "; ".join(said) or "its keys are written differently"


def masked(text: str, server: Launch) -> str:
    """`text` (a dry run's diff) with the value of each of the server's secrets replaced by a mark."""
    for key in sorted(server.secrets):
        value = server.env.get(key, "")
        if value:
            text = text.replace(_string(value)[1:-1], "<secret, not shown>")
    return text


def _brief(value: Any) -> str:
    shown = json.dumps(value, ensure_ascii=False)
    return shown if len(shown) <= 120 else shown[:117] + "..."


def secret_names(server: Launch) -> tuple[str, ...]:
    """The secret variables of `server`'s entry: written as references in a project-scope file (the user
    exports them), as values in a user-scope one."""
    return tuple(sorted(name for name in server.env if name in server.secrets))


def _read(path: Path) -> str:
    try:
        if path.exists() and not path.is_file():  # a folder, or a pipe that would block the read forever
            raise FailwellError(f"{path} is not a regular file; move it away; nothing was written")
        return path.read_bytes().decode("utf-8")
    except FileNotFoundError:
        return ""
    except IsADirectoryError:
        raise FailwellError(f"{path} is a folder, not a file; move it away; nothing was written") from None
    except PermissionError:
        raise FailwellError(
            f"{path}: permission denied reading it; make it readable by you (`chmod u+rw {path}`) or run as "
            "its owner; nothing was written"
        ) from None
    except UnicodeDecodeError as exc:
        raise FailwellError(
            f"{path}: byte {exc.start} is not UTF-8 (the encoding clients read); save it as UTF-8 or move it "
            "away; nothing was written"
        ) from None
    except OSError as exc:
        reason = exc.strerror or exc.__class__.__name__
        raise FailwellError(f"{path}: cannot read it ({reason}); nothing was written") from None


class Number(float):
    """A number from the user's file, kept as the text it was written as (`1e400`, `1.50`), so a file is
    written back with every untouched value exactly as it was (json would write `Infinity`, `1.5`)."""

    text: str

    def __new__(cls, text: str) -> Number:
        made = super().__new__(cls, text)
        made.text = text
        return made


def _parse(text: str, path: Path) -> dict[str, Any]:
    try:
        data = json.loads(text, parse_float=Number, parse_constant=Number)
    except ValueError as exc:
        raise FailwellError(
            f"{path}:{getattr(exc, 'lineno', 1)}: not valid JSON (comments and trailing commas are not read); "
            "fix it or move it away; nothing was written"
        ) from None
    except RecursionError:
        raise FailwellError(f"{path}: nested too deeply to read; fix it or move it away; nothing was written") from None
    if not isinstance(data, dict):
        raise FailwellError(f"{path}: not a JSON object; fix it or move it away; nothing was written")
    return data


def _dump(data: dict[str, Any]) -> str:
    """`json.dumps(data, indent=2, ensure_ascii=False)`, but numbers read from the file keep their text and
    a string a file held as an escaped lone surrogate (which UTF-8 cannot hold) stays escaped."""
    return _value(data, "") + "\n"


def _value(value: Any, indent: str) -> str:
    if isinstance(value, Number):
        return value.text
    if isinstance(value, str):
        return _string(value)
    if isinstance(value, dict) and value:
        inner = indent + "  "
        items = (f"{inner}{_string(str(key))}: {_value(item, inner)}" for key, item in value.items())
        return "{\n" + ",\n".join(items) + f"\n{indent}}}"
    if isinstance(value, list) and value:
        inner = indent + "  "
        return "[\n" + ",\n".join(f"{inner}{_value(item, inner)}" for item in value) + f"\n{indent}]"
    return json.dumps(value)


def _string(text: str) -> str:
    dumped = json.dumps(text, ensure_ascii=False)
    try:
        dumped.encode("utf-8")
    except UnicodeEncodeError:
        return json.dumps(text)
    return dumped
