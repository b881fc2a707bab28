"""`failwell generate --rename old=new`: a tool (resource, prompt) renamed in the spec keeps its code.

The handler module moves to the new name, and so does the tool's own test (`tests/test_<old>.py`), with
the imports of the old `_generated` module, the quoted name and `test_<old>` names in both rewritten; any
other module of the person's that imports the old `_generated` module is rewritten too. All or nothing:
every new file is written beside its target first, then each is moved into place and the old files are
removed. The move is refused, with nothing changed, when the new name is not in the spec, the old one
still is, there is no old handler, a target exists and is not failwell's untouched stub (or, for the test,
the test failwell writes), or a file on the way is a symbolic link.
"""

from __future__ import annotations

import os
import re
import tempfile
from pathlib import Path

from ..errors import FailwellError
from ..safewrite import refuse_links
from . import handlers
from .model import Project

_FOLDER = {"tool": "tools", "resource": "resources", "prompt": "prompts"}


def parse(pair: str) -> tuple[str, str]:
    """`old=new` as (old, new); FailwellError when it is not written so."""
    old, sep, new = pair.partition("=")
    if not sep or not old.strip() or not new.strip() or old.strip() == new.strip():
        raise FailwellError(f"--rename {pair!r}: write it as OLD=NEW, such as --rename issues_delete=issues_remove")
    return old.strip(), new.strip()


def plan(
    project_dir: Path, model: Project, old: str, new: str, seeds: dict[str, bytes]
) -> tuple[dict[Path, bytes | None], dict[Path, Path]]:
    """Every file the move writes (content) or removes (None), and each moved file's origin; `seeds` holds
    the files failwell would create now (project-relative path -> content), so a target that is still one of
    them may be replaced."""
    entries = handlers.entries(model)
    kinds = [kind for kind, name in entries if name == new]
    if not kinds:
        raise FailwellError(
            f"--rename {old}={new}: `{new}` is not a tool, resource or prompt of failwell.yaml; rename it there "
            "first, then run this again; nothing was changed"
        )
    kind = kinds[0]
    if (kind, old) in entries:
        raise FailwellError(
            f"--rename {old}={new}: `{old}` is still a {kind} of failwell.yaml, so its handler stays; "
            "nothing was changed"
        )
    package = model.package
    source = project_dir / handlers.handler_path(package, kind, old)
    target = project_dir / handlers.handler_path(package, kind, new)
    if not source.is_file() or source.is_symlink():
        raise FailwellError(
            f"--rename {old}={new}: there is no handler {handlers.handler_path(package, kind, old)} to move; "
            "nothing was changed"
        )
    moves = [(source, target, "handler")]
    if kind == "tool":
        test_source, test_target = project_dir / "tests" / f"test_{old}.py", project_dir / "tests" / f"test_{new}.py"
        if test_source.is_file() or test_source.is_symlink():
            moves.append((test_source, test_target, "test"))
    changes: dict[Path, bytes | None] = {}
    origins: dict[Path, Path] = {}
    for moved_from, moved_to, what in moves:
        _refuse_link(moved_from, project_dir, old, new)
        _refuse_link(moved_to, project_dir, old, new)
        if moved_to.exists():
            relative = moved_to.relative_to(project_dir).as_posix()
            current = moved_to.read_bytes()
            fresh = handlers.is_stub(current.decode("utf-8", "replace")) if what == "handler" else False
            if not fresh and seeds.get(relative) != current:
                raise FailwellError(
                    f"--rename {old}={new}: {relative} exists and has code of its own; merge "
                    f"{moved_from.relative_to(project_dir).as_posix()} into it by hand, or move it away; "
                    "nothing was changed"
                )
        text = moved_from.read_text(encoding="utf-8")
        changes[moved_to] = _rewrite(text, package, kind, old, new, whole=True).encode()
        changes[moved_from] = None
        origins[moved_to] = moved_from
    for path in _importers(project_dir, package):
        if path in changes:
            continue
        text = path.read_text(encoding="utf-8")
        rewritten = _rewrite(text, package, kind, old, new, whole=False)
        if rewritten != text:
            _refuse_link(path, project_dir, old, new)
            changes[path] = rewritten.encode()
    return changes, origins


def _refuse_link(path: Path, project_dir: Path, old: str, new: str) -> None:
    """Refuse, before anything is written, a symbolic link on the way to `path` (safewrite's rule)."""
    try:
        refuse_links(project_dir, path)
    except FailwellError as exc:
        raise FailwellError(f"--rename {old}={new}: {exc.message}") from None


def _importers(project_dir: Path, package: str) -> list[Path]:
    """The person's Python files: under src/<package>/ and tests/, leaving out what failwell owns."""
    owned = (project_dir / "src" / package / "_generated", project_dir / "tests" / "generated")
    found = [*(project_dir / "src" / package).rglob("*.py"), *(project_dir / "tests").rglob("*.py")]
    return sorted(p for p in found if p.is_file() and not any(p.is_relative_to(o) for o in owned))


def _rewrite(text: str, package: str, kind: str, old: str, new: str, *, whole: bool) -> str:
    """The imports of the old `_generated` module rewritten to the new one; with `whole` (the moved files
    themselves) also the quoted name, the name in backticks and `test_<old>` function names."""
    folder = _FOLDER[kind]
    text = re.sub(rf"(_generated\.{folder}\.){re.escape(old)}\b", rf"\g<1>{new}", text)
    text = re.sub(rf"(from \.+_generated\.{folder} import ){re.escape(old)}\b", rf"\g<1>{new}", text)
    if whole:
        text = re.sub(rf"([\"'`]){re.escape(old)}\1", rf"\g<1>{new}\g<1>", text)
        text = re.sub(rf"\btest_{re.escape(old)}(?![a-z0-9])", f"test_{new}", text)
    return text


def apply(changes: dict[Path, bytes | None], origins: dict[Path, Path]) -> None:
    """Write every new file beside its target (with the mode of the file it replaces, or of `origins`' file it
    moves from), then move each into place, then remove the old files."""
    staged: list[tuple[Path, Path]] = []
    try:
        for path, content in changes.items():
            if content is None:
                continue
            path.parent.mkdir(parents=True, exist_ok=True)
            handle, name = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
            with os.fdopen(handle, "wb") as stream:
                stream.write(content)
            staged.append((Path(name), path))
            mode_from = path if path.exists() else origins.get(path)
            if mode_from is not None and mode_from.exists():
                os.chmod(name, mode_from.stat().st_mode & 0o7777)
    except BaseException:
        for temporary, _ in staged:
            temporary.unlink(missing_ok=True)
        raise
    for temporary, path in staged:
        os.replace(temporary, path)
    for path, content in changes.items():
        if content is None:
            path.unlink(missing_ok=True)
