"""Read an OpenAPI document: a file or an http(s) URL (bounded in size and time), YAML or JSON, OpenAPI 3.0 or
3.1, with `$ref`s local and to relative files resolved lazily (never to a network URI).

What a document may make failwell read is bounded, since documents are third parties': a `$ref` reaches only
regular files inside the document's own folder (links resolved first), all the files together at most
`MAX_BYTES`; YAML aliases may add at most `bounds.MAX_NODES` values (the spec's own bound); a fetch by URL has
one deadline, `FETCH_TIMEOUT_S`, for the whole answer however slowly it comes."""

from __future__ import annotations

import http.client
import io
import json
import os
import re
import stat
import time
import urllib.error
import urllib.parse
import urllib.request
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

from ...errors import FailwellError
from ...spec import bounds

MAX_BYTES = 64_000_000
"""The most a document and the files its `$ref`s reach may hold together: GitHub's REST description is about
13 MB, DigitalOcean's 2,907 files about 3 MB."""
FETCH_TIMEOUT_S = 30.0
"""How long fetching a document by URL may take, from the first connection to the last byte."""
MAX_REF_HOPS = 32
"""The longest chain of `$ref`s to `$ref`s followed before it counts as a cycle."""
MAX_YAML_BYTES = 16_000_000
"""The most YAML text read, the document and its `$ref`s' files together: a YAML reader holds about 100 bytes of
memory for each byte it reads (a 13 MB file took 1.3 GB and 15 s), JSON's about a tenth of that. DigitalOcean's
2,907 YAML files hold about 3 MB."""
MAX_DEPTH = 1000
"""The deepest nesting a YAML document may have (libyaml's own bound)."""
SHOWN = 200
"""The most characters of a `$ref` quoted in a refusal."""

try:
    _LOADER: Any = yaml.CSafeLoader
except AttributeError:  # a PyYAML built without libyaml
    _LOADER = yaml.SafeLoader


@dataclass(frozen=True)
class Node:
    """A part of the document and the file it sits in (relative `$ref`s inside it start from there)."""

    value: Any
    base: str
    pointer: str = "#"

    @property
    def where(self) -> str:
        return f"{self.base}{self.pointer}"


@dataclass
class Document:
    """A loaded OpenAPI document and every file its `$ref`s reached."""

    source: str
    root: dict[str, Any]
    version: str
    files: dict[str, Any] = field(default_factory=dict)
    notes: list[str] = field(default_factory=list)
    texts: dict[str, str] = field(default_factory=dict)
    """Each file's text, to say at which line a `$ref` that cannot be followed is written."""
    folder: Path | None = None
    """The real path of the folder of a document read from a file: no `$ref` reads outside it."""
    budget: int = MAX_BYTES
    """What the files `$ref`s reach may still hold, in bytes."""
    yaml_budget: int = MAX_YAML_BYTES
    """What the files `$ref`s reach may still hold as YAML (not JSON), in bytes."""

    def resolve(self, node: Node) -> Node:
        """`node` with its `$ref` chain followed; a FailwellError for a ref that leads nowhere, a Node whose value
        is None for a network ref or a cycle of refs (and a note)."""
        hops = 0
        seen: set[str] = set()
        while isinstance(node.value, dict) and isinstance(node.value.get("$ref"), str):
            ref = node.value["$ref"]
            if hops >= MAX_REF_HOPS or node.where in seen:
                self.note(f"a cycle of $ref at {ref}: cut")
                return Node(None, node.base, node.pointer)
            seen.add(node.where)
            hops += 1
            target = self._target(ref, node.base)
            if target is None:
                return Node(None, node.base, node.pointer)
            node = target
        return node

    def note(self, text: str) -> None:
        if text not in self.notes:
            self.notes.append(text)

    def _target(self, ref: str, base: str) -> Node | None:
        address, _, fragment = ref.partition("#")
        origin = base
        if address:
            if urllib.parse.urlsplit(address).scheme or _is_url(base) or self.folder is None:
                self.note(f"$ref {ref}: a network reference, never fetched (mapped as a plain value)")
                return None
            path = self._file(ref, urllib.parse.unquote(address), base)
            if path not in self.files:
                text = _read_file(Path(path), f"{self._at(ref, base)}: $ref {_shown(ref)}: {path}", self.budget)
                self.budget -= len(text.encode())
                self.files[path], read_as_yaml = _parse(text, path, self.yaml_budget)
                self.texts[path] = text
                self.yaml_budget -= read_as_yaml
            data, base = self.files[path], path
        else:
            data = self.files[base]
        value = data
        for raw in [part for part in fragment.split("/") if part]:
            token = urllib.parse.unquote(raw).replace("~1", "/").replace("~0", "~")
            if isinstance(value, dict) and token in value:
                value = value[token]
            elif isinstance(value, list) and token.isdigit() and int(token) < len(value):
                value = value[int(token)]
            else:
                raise FailwellError(
                    f"$ref {_shown(ref)} (in {self._at(ref, origin)}) points at nothing: {token!r} is not there. "
                    "Fix the reference in the document, or import a version that has it."
                )
        return Node(value, base, f"#{fragment}")

    def _file(self, ref: str, address: str, base: str) -> str:
        """The real path of the file `address` names from `base`, when it is inside the document's folder."""
        assert self.folder is not None
        if Path(address).is_absolute() or address.startswith(("/", "\\")):
            raise FailwellError(
                f"{self._at(ref, base)}: $ref {_shown(ref)} is an absolute path; failwell follows a $ref only to a "
                f"file inside the document's folder ({self.folder}), by a relative path"
            )
        path = Path(os.path.realpath(Path(base).parent / address))
        if not path.is_relative_to(self.folder):
            raise FailwellError(
                f"{self._at(ref, base)}: $ref {_shown(ref)} leads outside the document's folder ({self.folder}); "
                "failwell follows a $ref only to a file inside it: copy the file beside the document"
            )
        return str(path)

    def _at(self, ref: str, base: str) -> str:
        """FILE:LINE of where `ref` is written in the file `base`, or FILE when it cannot be found."""
        text = self.texts.get(base, "")
        for written in dict.fromkeys((ref, json.dumps(ref)[1:-1], json.dumps(ref, ensure_ascii=False)[1:-1])):
            found = re.search(r"\$ref[\"']?\s*:\s*[\"']?" + re.escape(written), text)
            if found:
                return f"{base}:{text.count(chr(10), 0, found.start()) + 1}"
        return base


def load(source: str) -> Document:
    """The document at `source` (a path or an http(s) URL), checked to be OpenAPI 3.0 or 3.1."""
    folder = None
    if _is_url(source):
        if urllib.parse.urlsplit(source).username is not None:
            raise FailwellError(
                f"{without_userinfo(source)}: give the document's address without a user name and password "
                "(failwell sends no credentials to fetch a document): download it and give the file"
            )
        text, base = _fetch(source), source
    else:
        path = Path(os.path.realpath(Path(source).expanduser()))
        text, base, folder = _read_file(path, str(path), MAX_BYTES), str(path), path.parent
    root, read_as_yaml = _parse(text, source, MAX_YAML_BYTES)
    if not isinstance(root, dict) or not isinstance(root.get("openapi"), str):
        hint = (
            " (a Swagger 2.0 document: convert it to OpenAPI 3 first)"
            if isinstance(root, dict) and "swagger" in root
            else ""
        )
        raise FailwellError(f"{source} is not an OpenAPI document: it has no `openapi:` version{hint}")
    version = root["openapi"]
    if not (version.startswith("3.0") or version.startswith("3.1")):
        raise FailwellError(f"{source} is OpenAPI {version}; failwell imports OpenAPI 3.0 and 3.1")
    if not isinstance(root.get("paths") or {}, dict):
        raise FailwellError(f"{source}: `paths` is not a mapping of paths to operations")
    budget = MAX_BYTES - len(text.encode())
    return Document(
        source,
        root,
        version,
        files={base: root},
        texts={base: text},
        folder=folder,
        budget=budget,
        yaml_budget=MAX_YAML_BYTES - read_as_yaml,
    )


def _is_url(source: str) -> bool:
    return urllib.parse.urlsplit(source).scheme in ("http", "https")


def without_userinfo(url: str) -> str:
    """`url` without a `user:password@` before its host (a ValueError when it is not a URL)."""
    parts = urllib.parse.urlsplit(url)
    if "@" not in parts.netloc:
        return url
    return urllib.parse.urlunsplit(parts._replace(netloc=parts.netloc.rpartition("@")[2]))


def without_secret_query(url: str) -> tuple[str, list[str]]:
    """`url` without its query parameters whose names say they hold a secret (`api_key`, `token`, `key`,
    `signature`, as the runtime's scrubber names them), and those names, in order."""
    from ...spec import messages

    parts = urllib.parse.urlsplit(url)
    if not parts.query:
        return url, []
    kept, dropped = [], []
    for pair in parts.query.split("&"):
        name = urllib.parse.unquote_plus(pair.partition("=")[0])
        if messages.secret_named(name) or name.lower() == "key":
            dropped.append(name)
        else:
            kept.append(pair)
    if not dropped:
        return url, []
    return urllib.parse.urlunsplit(parts._replace(query="&".join(kept))), dropped


def _shown(text: str) -> str:
    """`text` quoted with its control characters escaped, cut to `SHOWN` characters."""
    return repr(text[:SHOWN]) + ("..." if len(text) > SHOWN else "")


_KINDS = {stat.S_IFDIR: "a folder", stat.S_IFIFO: "a pipe", stat.S_IFCHR: "a device", stat.S_IFBLK: "a device"}


def _read_file(path: Path, label: str, limit: int) -> str:
    """The text of the regular file `path`, at most `limit` bytes; a refusal is one line starting with `label`. A
    pipe, a device or a folder is refused before it is opened (and again once open, without waiting on it), so
    nothing is read forever."""
    flags = os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_NOCTTY", 0)
    try:
        info = os.stat(path)
        if stat.S_ISREG(info.st_mode):
            if info.st_size > limit:
                raise FailwellError(_too_large(label, info.st_size, limit))
            with os.fdopen(os.open(path, flags | getattr(os, "O_BINARY", 0)), "rb") as handle:
                info = os.fstat(handle.fileno())
                raw = handle.read(limit + 1) if stat.S_ISREG(info.st_mode) else b""
        if not stat.S_ISREG(info.st_mode):
            kind = _KINDS.get(stat.S_IFMT(info.st_mode), "not a regular file")
            hint = "give the document's file" if stat.S_ISDIR(info.st_mode) else "give a YAML or JSON file"
            raise FailwellError(f"{label} is {kind}; {hint}")
        if len(raw) > limit:
            raise FailwellError(_too_large(label, len(raw), limit))
        return raw.decode("utf-8")
    except FileNotFoundError:
        raise FailwellError(f"{label} does not exist; give the path of an OpenAPI document") from None
    except UnicodeDecodeError:
        raise FailwellError(f"{label} is not UTF-8 text") from None
    except OSError as exc:
        raise FailwellError(f"{label} cannot be read: {exc.strerror}") from None


def _too_large(label: str, size: int, limit: int) -> str:
    return (
        f"{label} is {size:,} bytes, more than the {limit:,} left: failwell reads at most {MAX_BYTES:,} "
        "of a document and the files its $refs reach, together"
    )


def _fetch(url: str) -> str:
    deadline = time.monotonic() + FETCH_TIMEOUT_S
    late = f"{url} was not fetched within {FETCH_TIMEOUT_S:g} s; check the address, or download it and give the file"
    request = urllib.request.Request(url, headers={"Accept": "application/json, application/yaml, */*"})
    opener = _opener(deadline)
    try:
        with opener.open(request, timeout=max(deadline - time.monotonic(), 0.001)) as response:
            body = response.read(MAX_BYTES + 1)
    except urllib.error.HTTPError as exc:
        raise FailwellError(f"{url} answered HTTP {exc.code}; check the address") from None
    except (urllib.error.URLError, http.client.HTTPException, OSError) as exc:
        reason = getattr(exc, "reason", exc)
        if isinstance(reason, TimeoutError) or time.monotonic() >= deadline:
            raise FailwellError(late) from None
        raise FailwellError(
            f"{url} could not be fetched ({reason}); check the address, or download it and give the file"
        ) from None
    if len(body) > MAX_BYTES:
        raise FailwellError(f"{url} is over {MAX_BYTES:,} bytes; failwell reads at most that")
    try:
        return str(body.decode("utf-8"))
    except UnicodeDecodeError:
        raise FailwellError(f"{url} is not UTF-8 text") from None


class _Deadline(io.RawIOBase):
    """A socket's reading side where every read waits at most until `deadline`: a server that sends a byte now
    and then cannot stretch a fetch past it (a socket's own timeout is per read)."""

    def __init__(self, sock: Any, deadline: float) -> None:
        super().__init__()
        self.sock, self.deadline = sock, deadline
        self.raw = sock.makefile("rb", buffering=0)  # holds the socket open, as http.client's own file does

    def readable(self) -> bool:
        return True

    def readinto(self, buffer: Any) -> int:
        left = self.deadline - time.monotonic()
        if left <= 0:
            raise TimeoutError("the fetch's deadline passed")
        self.sock.settimeout(left)
        return int(self.raw.readinto(buffer) or 0)

    def close(self) -> None:
        self.raw.close()
        super().close()


class _DeadlineSocket:
    """What http.client's response reads a socket through (`makefile`), bound to a deadline."""

    def __init__(self, sock: Any, deadline: float) -> None:
        self.sock, self.deadline = sock, deadline

    def makefile(self, mode: str) -> io.BufferedReader:
        return io.BufferedReader(_Deadline(self.sock, self.deadline))


class _HttpOnlyRedirects(urllib.request.HTTPRedirectHandler):
    """Redirects followed to http(s) only: urllib's own also follows `ftp://`, whose fetch no deadline bounds."""

    def http_error_302(self, req: Any, fp: Any, code: int, msg: str, headers: Any) -> Any:
        where = headers.get("location") or headers.get("uri") or ""
        scheme = urllib.parse.urlsplit(urllib.parse.urljoin(req.full_url, where)).scheme.lower()
        if scheme not in ("http", "https"):
            raise urllib.error.URLError(f"it redirects to a {scheme or 'relative'} address; failwell follows http(s)")
        return super().http_error_302(req, fp, code, msg, headers)

    http_error_301 = http_error_303 = http_error_307 = http_error_308 = http_error_302


def _opener(deadline: float) -> urllib.request.OpenerDirector:
    """An opener for http(s) alone (no ftp, file or data handler, which `build_opener` adds), each connection,
    read and redirect within `deadline`."""
    opener = urllib.request.OpenerDirector()
    for handler in (
        _handler(urllib.request.HTTPHandler, deadline),
        _handler(urllib.request.HTTPSHandler, deadline),
        _HttpOnlyRedirects(),
        urllib.request.HTTPDefaultErrorHandler(),
        urllib.request.HTTPErrorProcessor(),
        urllib.request.UnknownHandler(),
    ):
        opener.add_handler(handler)
    return opener


def _handler(base: type[urllib.request.AbstractHTTPHandler], deadline: float) -> urllib.request.BaseHandler:
    """An urllib handler like `base` whose connections (redirects' too) connect and read within `deadline`."""

    def response(sock: Any, *args: Any, **kwargs: Any) -> http.client.HTTPResponse:
        return http.client.HTTPResponse(_DeadlineSocket(sock, deadline), *args, **kwargs)  # type: ignore[arg-type]

    def do_open(self: Any, http_class: type[http.client.HTTPConnection], req: Any, **kwargs: Any) -> Any:
        def connect(conn: http.client.HTTPConnection) -> None:
            left = deadline - time.monotonic()
            if left <= 0:
                raise TimeoutError("the fetch's deadline passed")
            conn.timeout = left
            http_class.connect(conn)

        bounded: Any = type("Bounded", (http_class,), {"response_class": staticmethod(response), "connect": connect})
        return base.do_open(self, bounded, req, **kwargs)

    handler: urllib.request.BaseHandler = type("Bounded", (base,), {"do_open": do_open})()
    return handler


_TOO_DEEP = "{where} is nested too deeply to read (past about 1,000 levels; a real document nests far less)"


def _parse(text: str, where: str, yaml_left: int) -> tuple[Any, int]:
    """The data of `text` and how many bytes of it were read as YAML (0 for JSON): YAML only while `yaml_left`
    bytes of YAML may still be read."""
    stripped = text.lstrip()
    if stripped.startswith(("{", "[")):
        try:
            return json.loads(text), 0
        except RecursionError:
            raise FailwellError(_TOO_DEEP.format(where=where)) from None
        except ValueError:
            pass  # YAML is a superset of JSON's usual forms: let it say where the problem is
    if "&" in text and "*" in text:  # an alias needs both: a billion laughs never reaches the reader
        for refused in bounds.scan(text, where, max_depth=MAX_DEPTH):
            if refused.code == "FW021":
                raise FailwellError(
                    f"{where}:{refused.line}:{refused.col}: YAML aliases here add more than {bounds.MAX_NODES:,} "
                    "values to the document, or expand into themselves; failwell reads no such document "
                    "(write the repeated parts out)"
                )
    size = len(text.encode())
    if size > yaml_left:
        raise FailwellError(
            f"{where} is {size:,} bytes of YAML, more than the {yaml_left:,} left: failwell reads at most "
            f"{MAX_YAML_BYTES:,} bytes of YAML for a document and the files its $refs reach, together (a YAML "
            "reader needs about a hundred times that in memory); convert the large files to JSON"
        )
    try:
        return yaml.load(text, Loader=_LOADER), size
    except RecursionError:
        raise FailwellError(_TOO_DEEP.format(where=where)) from None
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        at = f" at line {mark.line + 1}, column {mark.column + 1}" if mark is not None else ""
        problem = getattr(exc, "problem", None) or "not YAML"
        raise FailwellError(f"{where} is neither JSON nor YAML{at}: {problem}") from None
