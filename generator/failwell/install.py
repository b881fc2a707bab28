"""Write a server's entry into a client's configuration file, and nothing else of it.

Every other key and entry of the file is kept as it was (in its order); an entry of the same name that
starts something else is replaced only when forced; the file is written atomically (a temporary file in
the same folder, then `os.replace`) after the previous one is copied to `<file>.bak`; a dry run writes
nothing and returns the diff. A file that is not a JSON object is refused, never overwritten.
"""

from __future__ import annotations

import difflib
import json
import os
import shutil
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

from .clients import client, entry
from .errors import FailwellError
from .launch import Launch

Status = Literal["created", "updated", "unchanged"]


@dataclass(frozen=True)
class Change:
    """What installing did (or, in a dry run, would do) to one configuration file."""

    path: Path
    status: Status
    diff: str
    backup: Path | None = None


def document(client_name: str, server: Launch) -> str:
    """The configuration holding only this server's entry, as client `client_name` reads it."""
    return _dump({client(client_name).key: {server.name: entry(client_name, server)}})


def install(client_name: str, server: Launch, path: Path, *, force: bool = False, dry_run: bool = False) -> Change:
    """Add or update `server`'s entry in the configuration file at `path`."""
    before = _read(path)
    data = _parse(before, path) if before else {}
    key = client(client_name).key
    servers = data.setdefault(key, {})
    if not isinstance(servers, dict):
        raise FailwellError(f"{path}: `{key}` is not an object; fix the file by hand; nothing was written")
    wanted = entry(client_name, server)
    old = servers.get(server.name)
    if old == wanted:
        return Change(path, "unchanged", "")
    if old is not None and not force:
        command = old.get("command") if isinstance(old, dict) else old
        raise FailwellError(
            f"{path} already has a server called {server.name!r} that starts something else ({command!r}); "
            "pass --force to replace it (the file is kept as a .bak), or --name to add this one beside it; "
            "nothing was written"
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
        return Change(path, status, diff)
    backup = _write(path, after, had_file=bool(before) or path.exists())
    return Change(path, status, diff, backup)


def _read(path: Path) -> str:
    try:
        return path.read_text(encoding="utf-8")
    except FileNotFoundError:
        return ""
    except (OSError, UnicodeDecodeError) as exc:
        raise FailwellError(f"{path}: cannot read it ({exc.__class__.__name__}); nothing was written") from None


def _parse(text: str, path: Path) -> dict[str, Any]:
    try:
        data = json.loads(text)
    except ValueError as exc:
        raise FailwellError(
            f"{path}:{getattr(exc, 'lineno', 1)}: not valid JSON (comments and trailing commas are not read); "
            "fix it or move it away; nothing was written"
        ) from None
    if not isinstance(data, dict):
        raise FailwellError(f"{path}: not a JSON object; fix it or move it away; nothing was written")
    return data


def _dump(data: dict[str, Any]) -> str:
    return json.dumps(data, indent=2, ensure_ascii=False) + "\n"


def _write(path: Path, text: str, *, had_file: bool) -> Path | None:
    """Replace `path` with `text` atomically, keeping its mode; the previous file goes to `<path>.bak`."""
    path.parent.mkdir(parents=True, exist_ok=True)
    backup = None
    mode = None
    if had_file:
        backup = path.with_name(path.name + ".bak")
        shutil.copy2(path, backup)
        mode = path.stat().st_mode & 0o7777
    handle, temporary = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(handle, "w", encoding="utf-8", newline="\n") as stream:
            stream.write(text)
            stream.flush()
            os.fsync(stream.fileno())
        if mode is not None:
            os.chmod(temporary, mode)
        os.replace(temporary, path)
    except BaseException:
        Path(temporary).unlink(missing_ok=True)
        raise
    return backup
