"""Read an OpenAPI document: a file or an http(s) URL (bounded in size and time), YAML or JSON, OpenAPI 3.0 or
3.1, with `$ref`s local and to relative files resolved lazily (never to a network URI)."""

from __future__ import annotations

import json
import urllib.error
import urllib.parse
import urllib.request
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

from ...errors import FailwellError

MAX_BYTES = 64_000_000
"""The largest document (or referenced file) read: GitHub's REST description is about 13 MB."""
FETCH_TIMEOUT_S = 30.0
"""How long fetching a document by URL may take."""
MAX_REF_HOPS = 32
"""The longest chain of `$ref`s to `$ref`s followed before it counts as a cycle."""

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
        if address:
            if urllib.parse.urlsplit(address).scheme or _is_url(base):
                self.note(f"$ref {ref}: a network reference, never fetched (mapped as a plain value)")
                return None
            path = str((Path(base).parent / urllib.parse.unquote(address)).resolve())
            if path not in self.files:
                self.files[path] = _parse(_read_file(Path(path), f"$ref {ref} (from {base})"), path)
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
                    f"$ref {ref} (in {base}) points at nothing: {token!r} is not there. "
                    "Fix the reference in the document, or import a version that has it."
                )
        return Node(value, base, f"#{fragment}")


def load(source: str) -> Document:
    """The document at `source` (a path or an http(s) URL), checked to be OpenAPI 3.0 or 3.1."""
    if _is_url(source):
        text, base = _fetch(source), source
    else:
        path = Path(source).expanduser()
        text, base = _read_file(path, "the OpenAPI document"), str(path.resolve())
    root = _parse(text, source)
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
    return Document(source, root, version, files={base: root})


def _is_url(source: str) -> bool:
    return urllib.parse.urlsplit(source).scheme in ("http", "https")


def _read_file(path: Path, what: str) -> str:
    try:
        size = path.stat().st_size
        if size > MAX_BYTES:
            raise FailwellError(f"{path} ({what}) is {size:,} bytes; failwell reads at most {MAX_BYTES:,}")
        return path.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise FailwellError(f"{path} ({what}) does not exist; give the path of an OpenAPI document") from None
    except IsADirectoryError:
        raise FailwellError(f"{path} ({what}) is a folder; give the document's file") from None
    except UnicodeDecodeError:
        raise FailwellError(f"{path} ({what}) is not UTF-8 text") from None
    except OSError as exc:
        raise FailwellError(f"{path} ({what}) cannot be read: {exc.strerror}") from None


def _fetch(url: str) -> str:
    request = urllib.request.Request(url, headers={"Accept": "application/json, application/yaml, */*"})
    try:
        with urllib.request.urlopen(request, timeout=FETCH_TIMEOUT_S) as response:
            body = response.read(MAX_BYTES + 1)
    except urllib.error.HTTPError as exc:
        raise FailwellError(f"{url} answered HTTP {exc.code}; check the address") from None
    except (urllib.error.URLError, TimeoutError, OSError) as exc:
        reason = getattr(exc, "reason", exc)
        raise FailwellError(
            f"{url} could not be fetched ({reason}); check the address, or download it and give the file"
        ) from None
    if len(body) > MAX_BYTES:
        raise FailwellError(f"{url} is over {MAX_BYTES:,} bytes; failwell reads at most that")
    try:
        return str(body.decode("utf-8"))
    except UnicodeDecodeError:
        raise FailwellError(f"{url} is not UTF-8 text") from None


def _parse(text: str, where: str) -> Any:
    stripped = text.lstrip()
    if stripped.startswith(("{", "[")):
        try:
            return json.loads(text)
        except ValueError:
            pass  # YAML is a superset of JSON's usual forms: let it say where the problem is
    try:
        return yaml.load(text, Loader=_LOADER)
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        at = f" at line {mark.line + 1}, column {mark.column + 1}" if mark is not None else ""
        problem = getattr(exc, "problem", None) or "not YAML"
        raise FailwellError(f"{where} is neither JSON nor YAML{at}: {problem}") from None
