"""Every file failwell writes goes through here: never through a link failwell did not create, atomically,
keeping the file's mode, and readable by its owner alone when it holds a secret (DESIGN rule 17).

- In a project (generated files, `failwell.manifest.json`, `.failwell/mcp.json`, a project-scope client file
  and its `.bak`), every folder and the file itself on the way from the project root must be a real folder or
  file: a symbolic link there (committed into a cloned repository, say) is refused with an error naming it and
  what to do, before anything is written.
- In the user's home (a user-scope client file), a link the user made themselves (a dotfiles repository
  links `~/.claude.json`) is kept: the file it points to is rewritten atomically in its own folder, when the
  link and that file belong to the user; any other link is refused.
- A write is a new file beside the old one (created with O_EXCL | O_NOFOLLOW), given the old file's mode,
  synced, then `os.replace`d over it, so a reader sees the old bytes or the new, never half.
- `private`: the file (and its backup) is left readable by its owner alone (0600), as a file holding a
  secret must be; `Written.tightened` says when that took permissions away.
"""

from __future__ import annotations

import contextlib
import os
import secrets
import stat
import sys
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path

from .errors import FailwellError

try:  # POSIX; Windows has no flock, and its files have no such modes
    import fcntl
except ImportError:  # pragma: no cover
    fcntl = None  # type: ignore[assignment]

_NOFOLLOW = getattr(os, "O_NOFOLLOW", 0)
_CLOEXEC = getattr(os, "O_CLOEXEC", 0)
PRIVATE = 0o600


@dataclass(frozen=True)
class Written:
    """What one write did."""

    path: Path
    """The file written: the one named, or the file a user's own link points to."""
    tightened: bool = False
    """Whether the file's mode was narrowed to 0600 because it holds a secret."""


def link_error(link: Path) -> FailwellError:
    """The error for a symbolic link where failwell would write."""
    try:
        target = os.readlink(link)
    except OSError:
        target = "?"
    return FailwellError(
        f"{link} is a symbolic link (to {target}); failwell never writes through a link it did not create. "
        f"Remove it (`rm {link}`) or put a real file there, then run it again; nothing was written"
    )


def refuse_links(root: Path, path: Path) -> None:
    """FailwellError naming the first symbolic link on the way from `root` (not itself checked: the project
    the user named) down to `path`, `path` included."""
    current = root
    for part in path.relative_to(root).parts:
        current = current / part
        if current.is_symlink():
            raise link_error(current)


def refuse_links_all(root: Path, paths: Iterable[Path]) -> None:
    """`refuse_links` for many paths under `root`, each folder on the way checked once."""
    folders: set[Path] = set()
    for path in paths:
        if path.parent not in folders:
            refuse_links(root, path.parent)
            folders.add(path.parent)
        if path.is_symlink():
            raise link_error(path)


def own_target(path: Path) -> Path:
    """Where a user-scope write goes: `path` itself, or the file a link the user made points to (kept as a
    link); FailwellError for a link that is not the user's own, or that points to nothing."""
    if not path.is_symlink():
        return path
    uid = os.getuid() if hasattr(os, "getuid") else None
    target = Path(os.path.realpath(path))
    if uid is not None and os.lstat(path).st_uid != uid:
        raise link_error(path)
    try:
        found = os.lstat(target)
    except FileNotFoundError:
        raise FailwellError(
            f"{path} is a link to {target}, which does not exist; create that file (or remove the link), "
            "then run it again; nothing was written"
        ) from None
    if not stat.S_ISREG(found.st_mode) or (uid is not None and found.st_uid != uid):
        raise link_error(path)
    return target


def make_folders(root: Path | None, folder: Path) -> None:
    """Create `folder` and its parents; under `root`, refusing a link on the way."""
    if root is not None:
        refuse_links(root, folder)
    try:
        folder.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise _os_error(folder, exc) from None
    if root is not None:
        refuse_links(root, folder)


@contextlib.contextmanager
def locked(folder: Path) -> Iterator[None]:
    """Hold an exclusive lock on `folder` (flock on the folder itself: no lock file is left behind), so
    failwell processes changing one file in it take turns."""
    if fcntl is None:  # pragma: no cover
        yield
        return
    try:
        handle = os.open(folder, os.O_RDONLY | getattr(os, "O_DIRECTORY", 0) | _CLOEXEC)
    except OSError as exc:
        raise _os_error(folder, exc) from None
    try:
        fcntl.flock(handle, fcntl.LOCK_EX)
        yield
    finally:
        os.close(handle)


def write(
    path: Path,
    data: bytes,
    *,
    root: Path | None = None,
    mode: int | None = None,
    private: bool = False,
    follow_own_link: bool = False,
) -> Written:
    """Write `data` to `path` atomically. `root`: the project it lies in (a link on the way is refused);
    `mode`: the mode to give (default: the existing file's, or the umask's for a new one); `private`: at
    most 0600; `follow_own_link`: a user-scope file whose link the user made is written through (see above)."""
    if root is not None:
        refuse_links(root, path)
    elif path.is_symlink():
        if not follow_own_link:
            raise link_error(path)
        path = own_target(path)
    try:
        existing = os.lstat(path)
    except FileNotFoundError:
        existing = None
    except OSError as exc:
        raise _os_error(path, exc) from None
    if existing is not None and not stat.S_ISREG(existing.st_mode):
        raise FailwellError(f"{path} is not a regular file; move it away, then run it again; nothing was written")
    old_mode = stat.S_IMODE(existing.st_mode) if existing is not None else None
    wanted = mode if mode is not None else old_mode
    tightened = False
    if private:
        narrowed = (wanted if wanted is not None else PRIVATE) & PRIVATE
        tightened = old_mode is not None and old_mode & 0o077 != 0
        wanted = narrowed
    temporary = path.with_name(f".{path.name}.{secrets.token_hex(6)}.tmp")
    try:
        handle = os.open(
            temporary,
            os.O_WRONLY | os.O_CREAT | os.O_EXCL | _NOFOLLOW | _CLOEXEC,
            PRIVATE if private else 0o666,
        )
    except OSError as exc:
        raise _os_error(path, exc) from None
    try:
        with os.fdopen(handle, "wb") as stream:
            stream.write(data)
            stream.flush()
            if wanted is not None and hasattr(os, "fchmod"):
                os.fchmod(stream.fileno(), wanted)
            os.fsync(stream.fileno())
        os.replace(temporary, path)
    except OSError as exc:
        temporary.unlink(missing_ok=True)
        raise _os_error(path, exc) from None
    except BaseException:
        temporary.unlink(missing_ok=True)
        raise
    return Written(path, tightened)


def write_all(files: Sequence[tuple[Path, bytes]], *, root: Path) -> None:
    """Write many files of one project (`root`), each atomically as `write` does, with one flush to disk for them
    all instead of one per file (a journal commit per file made generating 2,000 tools quadratic): each file is
    written to its temporary file beside it, the file system is synced once (`syncfs`; where there is none, each
    file is fsynced), then each is renamed over its target, so a reader, or the disk after a crash, holds the old
    bytes or the new, never half. When none of the files existed (`failwell new`) there are no old bytes to keep
    and nothing is synced: a crash can cost only the new project itself, which `new` writes again into an empty
    folder. A link on the way is refused before anything is written."""
    groups: dict[Path, list[tuple[Path, bytes]]] = {}
    for path, data in files:
        groups.setdefault(path.parent, []).append((path, data))
    for folder in groups:  # each folder once, before anything is written; each file is checked by `_temporary`
        refuse_links(root, folder)
    staged: list[tuple[Path, Path]] = []
    try:
        if len(groups) > 1 and len(files) > _PARALLEL_FROM:
            # Creating a file is most of what writing a large project costs (0.3 to 0.5 ms each on a VM's ext4,
            # in the kernel), and files in different folders can be created at once: one folder to a thread.
            from concurrent.futures import ThreadPoolExecutor

            with ThreadPoolExecutor(max_workers=min(len(groups), os.cpu_count() or 1)) as pool:
                done = [pool.submit(_stage, group, staged) for group in groups.values()]
            replacing = any([future.result() for future in done])  # every folder finished; the first error raised
        else:
            replacing = any([_stage(group, staged) for group in groups.values()])
        order = {path: number for number, (path, _) in enumerate(files)}
        staged.sort(key=lambda pair: order[pair[1]], reverse=True)  # renamed in the files' order, from the end
        if replacing:
            _sync_all(root, [temporary for temporary, _ in staged])
        while staged:
            temporary, path = staged[-1]
            try:
                os.replace(temporary, path)
            except OSError as exc:
                raise _os_error(path, exc) from None
            staged.pop()
    finally:
        for temporary, _ in staged:
            with contextlib.suppress(OSError):
                os.unlink(temporary)


_PARALLEL_FROM = 64
"""Files in a batch above which folders are written in parallel (below, starting threads costs more than it saves)."""


def _stage(group: list[tuple[Path, bytes]], staged: list[tuple[Path, Path]]) -> bool:
    """Write each of one folder's files to a temporary file beside it, recorded in `staged` as soon as it exists
    (so that a failure anywhere removes it); whether any of them replaces an existing file."""
    replacing = False
    for path, data in group:
        temporary, handle, existed = _temporary(path, private=False, mode=None)
        replacing = replacing or existed
        staged.append((temporary, path))
        try:
            view = memoryview(data)
            while view:
                view = view[os.write(handle, view) :]
        except OSError as exc:
            raise _os_error(path, exc) from None
        finally:
            os.close(handle)
    return replacing


def _temporary(path: Path, *, private: bool, mode: int | None) -> tuple[Path, int, bool]:
    """A new temporary file beside `path` (O_EXCL, O_NOFOLLOW), open for writing, given `path`'s mode (or `mode`),
    and whether `path` exists (the file it will replace)."""
    try:
        existing = os.lstat(path)
    except FileNotFoundError:
        existing = None
    except OSError as exc:
        raise _os_error(path, exc) from None
    if existing is not None and stat.S_ISLNK(existing.st_mode):
        raise link_error(path)
    if existing is not None and not stat.S_ISREG(existing.st_mode):
        raise FailwellError(f"{path} is not a regular file; move it away, then run it again; nothing was written")
    wanted = mode if mode is not None else (stat.S_IMODE(existing.st_mode) if existing is not None else None)
    temporary = path.with_name(f".{path.name}.{secrets.token_hex(6)}.tmp")
    try:
        handle = os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_EXCL | _NOFOLLOW | _CLOEXEC, 0o666)
    except OSError as exc:
        raise _os_error(path, exc) from None
    if wanted is not None and hasattr(os, "fchmod"):
        os.fchmod(handle, wanted)
    return temporary, handle, existing is not None


def _sync_all(root: Path, paths: Sequence[Path]) -> None:
    """Flush `paths` to disk: one syncfs of `root`'s file system on Linux, else an fsync of each."""
    syncfs = _syncfs()
    if syncfs is not None:
        handle = os.open(root, os.O_RDONLY | _CLOEXEC)
        try:
            if syncfs(handle) == 0:
                return
        finally:
            os.close(handle)
    for path in paths:
        handle = os.open(path, os.O_RDONLY | _CLOEXEC)
        try:
            os.fsync(handle)
        finally:
            os.close(handle)


def _syncfs() -> Callable[[int], int] | None:
    """libc's syncfs (Linux), or None."""
    if not sys.platform.startswith("linux"):
        return None
    import ctypes  # only here: a write of one file does not pay for it

    try:
        function: Callable[[int], int] = ctypes.CDLL(None, use_errno=True).syncfs
    except (OSError, AttributeError):
        return None
    return function


def _os_error(path: Path, exc: OSError) -> FailwellError:
    """A clear error for a file failwell cannot write: which file, why, and what to do."""
    reason = exc.strerror or exc.__class__.__name__
    return FailwellError(
        f"{path}: cannot write it ({reason}); check that you own it and its folder and may write there, "
        "then run it again"
    )
