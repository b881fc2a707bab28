"""`failwell import openapi`: a spec and working handlers from an OpenAPI 3.0/3.1 document.

Each selected operation becomes a tool whose handler calls the API through the runtime's upstream client;
each status the operation documents becomes a declared failure of the right class with drafted words
(`reviewed: false` until a person has read them). A re-import merges into the existing spec and keeps the
person's wording, `reviewed` marks and their own tools. The CLI writes the result through the public API.
"""

from __future__ import annotations

import difflib
import io
import json
import re
import time
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath
from typing import Any

from ...errors import FailwellError, printable
from ...spec import bounds
from ...spec.lint import lint
from ...spec.load import Document as SpecDocument
from ...spec.validate import validate
from ...spec.wording import draft_digest
from .document import load, without_secret_query, without_userinfo
from .handlers import HELPER, HELPER_TEXT, answers_test, handler
from .mapping import Finding, Tool, auth, map_operation, tool_names, upstream_name
from .operations import Selection, operations, tag_table
from .schemas import Mapper, snake, trim

OWNED_KEYS = ("input", "output", "effect", "idempotency", "idempotency_reason", "idempotent", "upstreams")
"""What a re-import takes from the document; the rest of a tool (its description, failures' words, `reviewed`
marks, anything the person added) is kept."""
SPEC_FILE = "failwell.yaml"
SPEC_HEADER = "# yaml-language-server: $schema=./failwell.schema.json\n"


@dataclass
class Imported:
    """What an import produced: the spec's text, the handler files to create, and what to tell the person."""

    spec_text: str
    package: str
    handlers: dict[str, str]
    """Relative path -> text, for handlers (and the helper) to create where none exists."""
    findings: list[Finding]
    notes: list[str]
    operations: int
    tools: list[str]
    tokens: int
    seconds: float
    previous: str | None = None
    """The spec's text before (a re-import), else None."""
    removed: list[str] = field(default_factory=list)
    added: list[str] = field(default_factory=list)
    skipped: list[str] = field(default_factory=list)
    """Operations that could not be mapped, each with why."""
    moved: list[str] = field(default_factory=list)
    """`tool: ...` for each kept handler whose tool's inputs changed: its WHERE needs the person's hand."""
    warnings: list[str] = field(default_factory=list)
    """What the person must act on, always shown (credentials found in the document and left out)."""

    @property
    def changed(self) -> bool:
        return self.previous is None or self.previous != self.spec_text or bool(self.handlers)

    def diff(self) -> str:
        before = (self.previous or "").splitlines(keepends=True)
        after = self.spec_text.splitlines(keepends=True)
        return "".join(difflib.unified_diff(before, after, f"a/{SPEC_FILE}", f"b/{SPEC_FILE}"))


def import_openapi(
    source: str, dest: Path, selection: Selection, *, name: str | None = None, existing: str | None = None
) -> Imported:
    """Import `source` into the project at `dest` (whose spec text is `existing`, or None for a new project).
    An empty `selection` takes the one the existing spec's `imported.select` recorded."""
    started = time.perf_counter()
    old = _load_existing(existing)
    if selection.empty and old is not None:
        selection = Selection.from_spec((old.get("imported") or {}).get("select"))
    doc = load(source)
    _refuse_lone_surrogates(doc.root, source)
    every = operations(doc)
    if not every:
        raise FailwellError(f"{source} has no operations under `paths`; there is nothing to import")
    chosen = selection.choose(every, source)
    findings: list[Finding] = []
    server = _server_name(name, dest, old, doc.root)
    before = ((old or {}).get("imported") or {}).get("tools") or {}
    names = tool_names(chosen, findings, {str(key): str(name) for name, key in before.items()})
    credentials = auth(doc, server, findings)
    mapper = Mapper(doc)
    tools: dict[str, Tool] = {}
    skipped: list[str] = []
    for op in chosen:
        try:
            tools[names[op.key]] = map_operation(
                doc, mapper, op, names[op.key], names, chosen, credentials, findings, upstream_name(server)
            )
        except FailwellError:
            raise
        except (KeyError, TypeError, ValueError, AttributeError, IndexError) as exc:
            skipped.append(
                printable(f"{op.key}: its description has a shape failwell does not read ({exc.__class__.__name__})")
            )
    for path, loaded in doc.files.items():  # the files `$ref`s reached
        _refuse_lone_surrogates(loaded, path)
    warnings: list[str] = []
    spec = _spec(server, doc.root, source, selection, tools, credentials, dest, warnings)
    for _ in range(3):  # a tool the spec language refuses is left out, with why, and the rest is kept
        refused = _refused(spec)
        if not refused:
            break
        for tool_name, why in refused.items():
            if tool_name not in tools and why.startswith("FW027"):
                raise FailwellError(printable(f"{source} holds text a spec cannot: {why}"))
            if tool_name not in tools:
                raise FailwellError(f"the imported spec is refused ({why}); this is a bug in failwell's importer")
            skipped.append(printable(f"{tools[tool_name].op.key} ({tool_name}): {why}"))
            del tools[tool_name], spec["tools"][tool_name], spec["imported"]["tools"][tool_name]
        if not tools:
            raise FailwellError(f"no selected operation of {source} could be mapped: {'; '.join(skipped[:5])}")
    removed: list[str] = []
    previous_tools = set((old or {}).get("tools") or {})
    moved = _moved_inputs(old, spec) if old is not None else []
    if old is not None:
        spec, removed = _merge(old, spec)
    package = str(spec["server"].get("package") or f"{spec['server']['name'].replace('-', '_')}_mcp")
    text = _dump(spec)
    text = text if text.startswith("# yaml-language-server") else SPEC_HEADER + text
    files = {f"src/{package}/handlers/{HELPER}": HELPER_TEXT}
    files.update({f"src/{package}/handlers/{n}.py": handler(t) for n, t in tools.items()})
    base_url_env = str(next(iter(spec["upstreams"].values()))["base_url_env"])
    settings = bool(spec["server"].get("settings"))
    files.update({f"tests/test_{n}.py": answers_test(t, package, base_url_env, settings) for n, t in tools.items()})
    files = {path: content for path, content in files.items() if not (dest / path).exists()}
    helper = dest / f"src/{package}/handlers/{HELPER}"
    if len(files) > 0 and helper.is_file() and "def sent(" not in helper.read_text(errors="replace"):
        warnings.append(
            f"src/{package}/handlers/{HELPER} is yours, written by an earlier failwell: the new handlers call its "
            "`sent` and pass `call` media=, required= and accept= (what the model sent, with the body's "
            "Content-Type and the answer's Accept). Move your changes aside, delete it and import again to get "
            "the current one"
        )
    return Imported(
        spec_text=text,
        package=package,
        handlers=files,
        findings=findings,
        notes=[printable(note) for note in [*doc.notes, *mapper.notes]],
        operations=len(every),
        tools=sorted(tools),
        tokens=_tokens(spec),
        seconds=time.perf_counter() - started,
        previous=existing,
        removed=removed,
        added=sorted(set(tools) - previous_tools) if old is not None else [],
        skipped=skipped,
        warnings=warnings,
        moved=[line for line in moved if (dest / f"src/{package}/handlers/{line.split(':')[0]}.py").exists()],
    )


def _refuse_lone_surrogates(value: Any, source: str, pointer: str = "#") -> None:
    """A FailwellError naming where `value` holds a lone surrogate: JSON's `\\ud800` escapes can say one, but it
    is no character, and no file failwell writes can hold it."""
    stack = [(value, pointer)]
    while stack:
        item, where = stack.pop()
        if isinstance(item, dict):
            stack += [(key, where) for key in item if isinstance(key, str)]
            stack += [(child, f"{where}/{key}") for key, child in item.items()]
        elif isinstance(item, list):
            stack += [(child, f"{where}/{index}") for index, child in enumerate(item)]
        elif isinstance(item, str) and _SURROGATE.search(item):
            found = _SURROGATE.search(item)
            assert found is not None
            shown = where.encode("ascii", "backslashreplace").decode("ascii")
            raise FailwellError(
                f"{source}: {shown} holds a lone surrogate (U+{ord(found.group()):04X}), which is not text; "
                "fix the document"
            )


_SURROGATE = re.compile("[\ud800-\udfff]")


def _server_name(name: str | None, dest: Path, old: dict[str, Any] | None, root: dict[str, Any]) -> str:
    if old is not None:
        return str(old["server"]["name"])
    raw = name or dest.resolve().name or str((root.get("info") or {}).get("title") or "api")
    server = snake(raw).replace("_", "-")[:64].strip("-")
    if not server or not server[0].isalpha():
        server = f"api-{server}".strip("-")
    return server


def _spec(
    server: str,
    root: dict[str, Any],
    source: str,
    selection: Selection,
    tools: dict[str, Tool],
    credentials: Any,
    dest: Path,
    warnings: list[str],
) -> dict[str, Any]:
    raw_info = root.get("info")
    info: dict[str, Any] = raw_info if isinstance(raw_info, dict) else {}
    title = trim(info.get("title"), 200) or server
    about = trim(info.get("description"), 400)
    description = f"{title}: {about}" if about and not about.startswith(title) else about or title
    version = trim(str(info.get("version") or ""), 100)
    spec: dict[str, Any] = {"failwell": 1, "server": {"name": server, "version": "0.1.0", "description": description}}
    if credentials.settings:
        spec["server"]["settings"] = dict(sorted(credentials.settings.items()))
    upstream: dict[str, Any] = {"base_url_env": f"{snake(server).upper()}_API_URL", "timeout_s": 10, "retries": 2}
    base = _base_url(root, warnings)
    if base:
        upstream["base_url"] = base
    spec["upstreams"] = {upstream_name(server): upstream}
    spec["tools"] = {name: tool.spec for name, tool in tools.items()}
    where = source if re.match(r"^https?://", source) else _relative(Path(source), dest)
    drafts = {
        f"{name}.{failure}": draft_digest(spec["message"])
        for name, tool in tools.items()
        for failure, spec in (tool.spec.get("failures") or {}).items()
        if spec.get("reviewed") is False
    }
    spec["imported"] = {
        "openapi": where,
        **({"version": version} if version else {}),
        "select": selection.as_spec(),
        "tools": {name: tool.op.key for name, tool in tools.items()},
        **({"drafts": drafts} if drafts else {}),
    }
    return spec


def _relative(path: Path, dest: Path) -> str:
    try:
        import os

        return PurePosixPath(Path(os.path.relpath(path.resolve(), dest.resolve()))).as_posix()
    except ValueError:  # another drive
        return path.resolve().as_posix()


def _base_url(root: dict[str, Any], warnings: list[str]) -> str:
    """The first absolute `servers` URL, its variables at their defaults, without a `user:password@` (which would
    be written into the spec, the server and its README): that is left out, with a warning in `warnings`."""
    for server in root.get("servers") or []:
        if not isinstance(server, dict) or not isinstance(server.get("url"), str):
            continue
        url = str(server["url"])
        for variable, spec in (server.get("variables") or {}).items():
            if isinstance(spec, dict) and "default" in spec:
                url = url.replace(f"{{{variable}}}", str(spec["default"]))
        if re.match(r"^https?://[^\s/?#{}]+", url) and "{" not in url and len(url) <= 2000:
            if any(char.isspace() or not char.isprintable() for char in url):
                warnings.append(
                    "a server URL of the document holds a blank or a character that does not print, so it was "
                    "not used as the base URL; set the upstream's variable to the API's address instead"
                )
                continue
            try:
                bare = without_userinfo(url)
            except ValueError:  # not a URL after all (`http://[x`)
                continue
            if bare != url:
                url = bare
                warnings.append(
                    "the document's server URL held a user name and password (user:password@), left out "
                    f"of everything written (base_url: {url.rstrip('/')}). Put them in secret settings instead "
                    f"{_SECRET_SETTINGS}"
                )
            bare, secrets = without_secret_query(url)
            if secrets:
                url = bare
                warnings.append(
                    f"the document's server URL held secret-named query parameters ({', '.join(secrets)}), left out "
                    f"of everything written (base_url: {url.rstrip('/')}). Put their values in secret settings "
                    f"instead {_SECRET_SETTINGS}"
                )
            return url.rstrip("/")
    return ""


_SECRET_SETTINGS = (
    "(under server.settings in failwell.yaml, each with `secret: true`; docs/how-to/settings.md) "
    "and add them to the handlers' SECURITY (docs/how-to/openapi.md)"
)


def _refused(spec: dict[str, Any]) -> dict[str, str]:
    """tool name -> why, for each tool the spec's own checks refuse (a bug to report, or a corner of a real
    document the spec language cannot say)."""
    doc = SpecDocument(SPEC_FILE, spec, "")
    problems = bounds.check_values(doc) + validate(doc)
    problems += lint(doc, frozenset(d.path for d in problems))
    out: dict[str, str] = {}
    for problem in problems:
        if problem.severity != "error":
            continue
        path = problem.path
        owner = str(path[1]) if len(path) > 1 and path[0] == "tools" else "(spec)"
        if len(path) > 2 and path[:2] == ("imported", "tools"):
            owner = str(path[2])  # the operation's method and path, which the spec records
        out.setdefault(owner, f"{problem.code} {problem.message}")
    return out


def _merge(old: dict[str, Any], new: dict[str, Any]) -> tuple[dict[str, Any], list[str]]:
    """`new` merged into `old`: the document decides each imported tool's inputs, output, effect and upstream;
    the person's descriptions, failure words, `reviewed` marks, own tools and settings are kept."""
    merged = old
    server = merged.setdefault("server", {})
    settings = server.get("settings") or {}
    for key, value in (new["server"].get("settings") or {}).items():
        settings.setdefault(key, value)
    if settings:
        server["settings"] = settings
    upstreams = merged.get("upstreams") or {}
    for name, upstream in new["upstreams"].items():
        upstreams.setdefault(name, upstream)
    merged["upstreams"] = upstreams
    tools = merged.get("tools") or {}
    before = dict((merged.get("imported") or {}).get("tools") or {})
    removed = [name for name in before if name not in new["tools"] and name in tools]
    for name in removed:
        del tools[name]
    for name, tool in new["tools"].items():
        if name not in tools:
            tools[name] = tool
            continue
        mine = tools[name]
        for key in OWNED_KEYS:
            if key in tool:
                mine[key] = tool[key]
            elif key in mine:
                del mine[key]
        failures = mine.get("failures") or {}
        for fname, failure in (tool.get("failures") or {}).items():
            if fname not in failures:
                failures[fname] = failure
            else:
                failures[fname]["class"] = failure["class"]
        for fname in [
            f for f, v in failures.items() if v.get("reviewed") is False and f not in (tool.get("failures") or {})
        ]:
            del failures[fname]  # a draft for a status the document no longer declares
        if failures:
            mine["failures"] = failures
        else:
            mine.pop("failures", None)
    merged["tools"] = tools
    drafted_before = (merged.get("imported") or {}).get("drafts") or {}
    drafts = dict(new["imported"].get("drafts") or {})
    for key in list(drafts):
        tool_name, _, failure_name = key.partition(".")
        kept = (tools.get(tool_name) or {}).get("failures", {}).get(failure_name)
        if kept is not None and key in drafted_before:
            drafts[key] = drafted_before[key]  # the person's words are kept: measured against the first draft
        elif kept is None or kept.get("reviewed") is not False:
            del drafts[key]
    merged["imported"] = {key: value for key, value in new["imported"].items() if key != "drafts"}
    if drafts:
        merged["imported"]["drafts"] = drafts
    return merged, removed


def _moved_inputs(old: dict[str, Any], new: dict[str, Any]) -> list[str]:
    """For each imported tool already in `old` whose inputs the document changed, what changed: its handler is
    the person's and is not rewritten, so its WHERE must follow by hand."""
    out = []
    for name, tool in new["tools"].items():
        before = ((old.get("tools") or {}).get(name) or {}).get("input") or {}
        after = tool.get("input") or {}
        if name in (old.get("tools") or {}) and set(before) != set(after):
            added = ", ".join(sorted(set(after) - set(before))) or "none"
            gone = ", ".join(sorted(set(before) - set(after))) or "none"
            out.append(f"{name}: inputs added: {added}; removed: {gone}")
    return out


def _load_existing(text: str | None) -> Any:
    if text is None:
        return None
    from ruamel.yaml import YAML

    yaml = YAML()
    data = yaml.load(text)
    if not isinstance(data, dict) or not isinstance(data.get("server"), dict):
        raise FailwellError(f"the existing {SPEC_FILE} is not a failwell spec; import into a new folder")
    return data


def _dump(spec: Any) -> str:
    from ruamel.yaml import YAML

    yaml = YAML()
    yaml.width = 120
    yaml.indent(mapping=2, sequence=4, offset=2)
    out = io.StringIO()
    yaml.dump(spec, out)
    return str(out.getvalue())


def _tokens(spec: dict[str, Any]) -> int:
    """About how many tokens the tool list costs a model: characters / 4 of each tool's name, description and
    input fields as JSON (a rough rule for English and JSON; the real count depends on the model)."""
    size = sum(
        len(json.dumps({"name": name, "description": tool.get("description"), "input": tool.get("input") or {}}))
        for name, tool in (spec.get("tools") or {}).items()
    )
    return size // 4


__all__ = ["Imported", "Selection", "import_openapi", "tag_table"]
