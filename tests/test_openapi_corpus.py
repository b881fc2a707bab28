"""`failwell import openapi` at corpus scale (issue 41): every real document of tests/openapi_corpus/corpus.json
(from npm and PyPI packages, and ../shared) is cut down to a deterministic selection of its operations (up to
OPS_PER_DOCUMENT, covering GET/POST/PUT/PATCH/DELETE and the most documented error statuses), imported with the
real CLI, generated, started over stdio and driven by the real `mcp` client against Stoplight's Prism serving the
same document, behind a loopback proxy that forces each documented status in turn (`Prefer: code=NNN`) and records
every request that reached it. The model's arguments are made from each tool's input schema: its required inputs
only (example, default or first enum value, else the smallest value that fits), so any other field in a body was
not sent by the model. A call Prism leaves unanswered (Figma's whole-file answer takes it longer than the server
waits) is left out of the counts and the server restarted (its breaker opened on the silence).

Each call is judged by CHECKS, one kind each, data-driven: the failure class in the result's envelope against the
status the API answered, the retries and the waits between them, the wait told to the model, the headers sent
(Accept, Content-Type), the body's shape against the operation's schema, the words. The kinds today's code gets
wrong are xfail(strict) with the issue's point, so CI stays green and the session that fixes a point flips its
mark; the table (calls right of calls driven, per document) counts every wrong call all the same: it is printed and
written to openapi_corpus_table.json under pytest's base temporary folder."""

from __future__ import annotations

import ast
import itertools
import json
import math
import os
import re
import shutil
import sys
import time
import traceback
import urllib.parse
from collections import Counter
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

import anyio
import jsonschema
import pytest
import yaml

from conftest import REPO, failwell

sys.path.insert(0, str(REPO / "tests" / "openapi_corpus"))
import fetch as corpus

OPS_PER_DOCUMENT = 6
"""Operations driven per document: each with every documented status, so about 25 calls a document."""
METHODS = ("get", "post", "put", "patch", "delete")
BREAKER_STATUSES = {408, 429} | set(range(500, 600))
"""Statuses whose failures count toward the circuit breaker (five in a row open it): each is followed by a success."""
SECRET_VALUE = "corpus-credential-4C1V"
CALL_TIMEOUT_S = 30.0
"""Longer than any tool's own deadline: a call still open then is recorded as wrong."""


# --- choosing and cutting down ---------------------------------------------------------------------------------------


def concrete_statuses(operation: dict[str, Any]) -> list[int]:
    return sorted(int(code) for code in (operation.get("responses") or {}) if str(code).isdigit())


def select(document: dict[str, Any], limit: int = OPS_PER_DOCUMENT) -> list[tuple[str, str]]:
    """Up to `limit` (path, method) pairs: one of each method first (the one documenting the most error statuses),
    then those adding statuses not covered yet; ties go to the first in the document."""
    operations = [
        (path, method, item[method])
        for path, item in (document.get("paths") or {}).items()
        if isinstance(item, dict)
        for method in METHODS
        if isinstance(item.get(method), dict)
    ]
    order = {(path, method): index for index, (path, method, _) in enumerate(operations)}

    def errors(op: dict[str, Any]) -> set[int]:
        return {status for status in concrete_statuses(op) if status >= 400}

    chosen: list[tuple[str, str, dict[str, Any]]] = []
    for method in METHODS:
        candidates = [o for o in operations if o[1] == method]
        if candidates and len(chosen) < limit:
            chosen.append(max(candidates, key=lambda o: (len(errors(o[2])), -order[(o[0], o[1])])))
    covered = set().union(*(errors(o[2]) for o in chosen)) if chosen else set()
    while len(chosen) < limit:
        rest = [o for o in operations if o not in chosen]
        if not rest:
            break
        best = max(rest, key=lambda o: (len(errors(o[2]) - covered), len(errors(o[2])), -order[(o[0], o[1])]))
        chosen.append(best)
        covered |= errors(best[2])
    return sorted(((path, method) for path, method, _ in chosen), key=lambda pm: order[pm])


def pointer(document: dict[str, Any], ref: str) -> Any:
    node: Any = document
    for part in ref.lstrip("#/").split("/"):
        part = urllib.parse.unquote(part).replace("~1", "/").replace("~0", "~")
        node = node[part] if isinstance(node, dict) else node[int(part)]
    return node


def local_refs(node: Any) -> Iterator[str]:
    if isinstance(node, dict):
        ref = node.get("$ref")
        if isinstance(ref, str) and ref.startswith("#/"):
            yield ref
        for value in node.values():
            yield from local_refs(value)
    elif isinstance(node, list):
        for value in node:
            yield from local_refs(value)


def cut_down(document: dict[str, Any], chosen: list[tuple[str, str]]) -> dict[str, Any]:
    """The document with only the chosen operations, and only the components they reach (so Prism and the import
    read a few hundred KB, not 13 MB)."""
    kept = {key: value for key, value in document.items() if key in ("openapi", "info", "servers", "security", "tags")}
    paths: dict[str, Any] = {}
    for path, method in chosen:
        item = document["paths"][path]
        entry = paths.setdefault(
            path, {k: v for k, v in item.items() if k not in (*METHODS, "head", "options", "trace")}
        )
        entry[method] = item[method]
    kept["paths"] = paths
    components = document.get("components") or {}
    reached: dict[str, set[str]] = {"securitySchemes": set(components.get("securitySchemes") or {})}
    todo = list(local_refs(paths))
    seen: set[str] = set()
    while todo:
        ref = todo.pop()
        if ref in seen:
            continue
        seen.add(ref)
        parts = ref.lstrip("#/").split("/")
        if parts[0] != "components" or len(parts) < 3:
            return document  # a reference elsewhere: keep the whole document rather than guess
        reached.setdefault(parts[1], set()).add(urllib.parse.unquote(parts[2]).replace("~1", "/").replace("~0", "~"))
        todo.extend(local_refs(pointer(document, "#/" + "/".join(parts[:3]))))
    kept["components"] = {
        kind: {name: value for name, value in (components.get(kind) or {}).items() if name in names}
        for kind, names in reached.items()
        if components.get(kind)
    }
    return kept


# --- arguments a model would send ------------------------------------------------------------------------------------


def sample(schema: Any, defs: dict[str, Any], name: str = "", depth: int = 0) -> Any:
    """A value the schema accepts, deterministic: the example, default or first enum value when there is one,
    else the smallest that fits; objects get their required properties only (never a null the schema allows
    but does not need)."""
    if not isinstance(schema, dict) or depth > 8:
        return "x"
    if "$ref" in schema:
        return sample(defs.get(schema["$ref"].rsplit("/", 1)[-1], {}), defs, name, depth + 1)
    if "const" in schema:
        return schema["const"]
    if schema.get("enum"):
        return next((value for value in schema["enum"] if value is not None), schema["enum"][0])
    for key in ("anyOf", "oneOf"):
        if schema.get(key):
            options = [o for o in schema[key] if not (isinstance(o, dict) and o.get("type") == "null")]
            return sample(options[0] if options else schema[key][0], defs, name, depth + 1)
    if schema.get("allOf"):
        merged: dict[str, Any] = {}
        for part in schema["allOf"]:
            part = defs.get(part["$ref"].rsplit("/", 1)[-1], {}) if isinstance(part, dict) and "$ref" in part else part
            for key, value in (part or {}).items():
                if key == "properties":
                    merged.setdefault("properties", {}).update(value)
                elif key == "required":
                    merged.setdefault("required", []).extend(value)
                else:
                    merged.setdefault(key, value)
        return sample(merged, defs, name, depth + 1)
    for key in ("example", "default"):
        if key in schema and schema[key] is not None:
            return schema[key]
    if schema.get("examples"):
        return schema["examples"][0]
    kind = schema.get("type")
    if isinstance(kind, list):
        kind = next((k for k in kind if k != "null"), "string")
    if kind == "object" or "properties" in schema:
        properties = schema.get("properties") or {}
        names = list(schema.get("required") or [])
        names += [n for n in properties if n not in names][: max(int(schema.get("minProperties") or 0) - len(names), 0)]
        return {key: sample(properties.get(key, {}), defs, key, depth + 1) for key in names}
    if kind == "array":
        count = max(1, int(schema.get("minItems") or 0))
        return [sample(schema.get("items") or {}, defs, name, depth + 1) for _ in range(count)]
    if kind == "boolean":
        return True
    if kind in ("integer", "number"):
        low = schema.get("minimum", schema.get("exclusiveMinimum", 0))
        low = 0 if isinstance(low, bool) else low
        value = max(1, math.ceil(low) + (1 if "exclusiveMinimum" in schema else 0))
        if "maximum" in schema and not isinstance(schema["maximum"], bool):
            value = min(value, math.floor(schema["maximum"]))
        return value if kind == "integer" else float(value)
    return sample_string(schema, name)


FORMATS = {
    "date-time": "2024-02-01T09:00:00Z",
    "date": "2024-02-01",
    "time": "09:00:00",
    "email": "ada@example.com",
    "uri": "https://example.com/a",
    "url": "https://example.com/a",
    "uuid": "3f0c9b1e-7d2a-4c55-9e61-0a8f2b7c4d10",
    "ipv4": "192.0.2.1",
    "ipv6": "2001:db8::1",
    "hostname": "example.com",
    "byte": "aGVsbG8=",
}


def sample_string(schema: dict[str, Any], name: str) -> str:
    value = FORMATS.get(str(schema.get("format")), "abc123")
    if "idempotency_key" in name:
        value = "3f0c9b1e-7d2a-4c55-9e61-0a8f2b7c4d10"
    pattern = schema.get("pattern")
    if pattern:
        for candidate in (value, "abc", "ABC", "123", "a", "1", "abc-123", "v1", "en", "US", "a1b2c3d4e5f6a7b8"):
            try:
                if re.search(pattern, candidate):
                    value = candidate
                    break
            except re.error:
                break
        else:
            value = regex_sample(pattern) or value
    low, high = int(schema.get("minLength") or 0), schema.get("maxLength")
    if len(value) < low:
        value = (value * (low // max(len(value), 1) + 1))[: max(low, len(value))]
    if high is not None and len(value) > int(high):
        value = value[: int(high)]
    return value


def regex_sample(pattern: str) -> str | None:
    """The smallest plain string matching `pattern`, built from Python's parse of it (each repeat at its
    minimum, the first branch, the first character of each class), checked with re.search; None if not."""
    import re._parser as parser  # the parse tree re itself compiles from (sre_parse before 3.11)

    def build(items: Any) -> str:
        out = []
        for op, value in items:
            name = str(op)
            if name == "LITERAL":
                out.append(chr(value))
            elif name == "ANY":
                out.append("a")
            elif name == "IN":
                out.append(first_of(value))
            elif name in ("MAX_REPEAT", "MIN_REPEAT", "POSSESSIVE_REPEAT"):
                low, _, sub = value
                out.append(build(sub) * max(low, 0))
            elif name == "SUBPATTERN":
                out.append(build(value[-1]))
            elif name == "BRANCH":
                out.append(build(value[1][0]))
            elif name == "CATEGORY":
                out.append(first_of([(op, value)]))
        return "".join(out)

    def first_of(members: Any) -> str:
        for op, value in members:
            name = str(op)
            if name == "LITERAL":
                return chr(value)
            if name == "RANGE":
                return chr(value[0])
            if name == "CATEGORY":
                return {"CATEGORY_DIGIT": "0", "CATEGORY_SPACE": " "}.get(str(value), "a")
        return "a"

    try:
        candidate = build(parser.parse(pattern))
        return candidate if re.search(pattern, candidate) else None
    except (re.error, TypeError, ValueError, IndexError, RecursionError):
        return None


# --- the operation's own schemas -------------------------------------------------------------------------------------


def deref(node: Any, document: Any, base: Path | None, stack: tuple[tuple[int, str], ...] = ()) -> Any:
    """`node` with its $refs inlined, local ones and those to other files beside `base` (DigitalOcean's), each
    target once (memoized in RESOLVED); a reference back into one being inlined (a cycle) becomes {}, which the
    check that reads it then takes as "anything"."""
    if isinstance(node, dict):
        ref = node.get("$ref")
        if isinstance(ref, str):
            file, _, fragment = ref.partition("#")
            try:
                if file:
                    if base is None:
                        return {}
                    target_path = (base / file).resolve()
                    document, base = other_file(target_path), target_path.parent
                key = (id(document), fragment)
                if key in stack:
                    return {}
                if key not in RESOLVED:
                    target = pointer(document, "#" + fragment) if fragment.strip("/") else document
                    RESOLVED[key] = deref(target, document, base, (*stack, key))
                return RESOLVED[key]
            except (KeyError, IndexError, ValueError, OSError):
                return {}
        return {key: deref(value, document, base, stack) for key, value in node.items()}
    if isinstance(node, list):
        return [deref(value, document, base, stack) for value in node]
    return node


RESOLVED: dict[tuple[int, str], Any] = {}
"""Each reference's target, inlined, per document (cleared for each document driven)."""
FILES: dict[Path, Any] = {}


def other_file(path: Path) -> Any:
    if path not in FILES:
        FILES[path] = corpus.load(path)
    return FILES[path]


def for_request(schema: Any, version: str) -> Any:
    """An OpenAPI schema as JSON Schema for a request body: 3.0's `nullable` as a null type, readOnly properties
    not required (3.0 and 3.1 both say they are not sent), examples and formats left to the reader."""
    if isinstance(schema, list):
        return [for_request(value, version) for value in schema]
    if not isinstance(schema, dict):
        return schema
    out = {
        key: for_request(value, version)
        for key, value in schema.items()
        if key not in ("example", "xml", "discriminator")
    }
    required = out.get("required")
    if (
        isinstance(out.get("properties"), dict)
        and isinstance(required, list)
        and all(isinstance(r, str) for r in required)
    ):
        read_only = {k for k, v in out["properties"].items() if isinstance(v, dict) and v.get("readOnly")}
        out["required"] = [name for name in out["required"] if name not in read_only]
    if version.startswith("3.0") and out.pop("nullable", False):
        return {"anyOf": [out, {"type": "null"}]}
    return out


def media(value: str | None) -> str:
    return (value or "").split(";")[0].strip().lower()


# --- one call and its judgement --------------------------------------------------------------------------------------


@dataclass
class Call:
    """One tool call made with a status forced, and everything seen of it from outside the server."""

    document: str
    version: str
    tool: str
    method: str
    path: str
    forced: int
    forced_description: str
    arguments: dict[str, Any]
    keyed: bool
    idempotent: bool
    effect: str
    is_error: bool = False
    failure_class: str | None = None
    retry_after_s: float | None = None
    text: str = ""
    answered: list[int] = field(default_factory=list)
    retry_after_header: str | None = None
    gaps_s: list[float] = field(default_factory=list)
    accept: str | None = None
    content_type: str | None = None
    body: str = ""
    violations: str | None = None
    success_media: list[str] = field(default_factory=list)
    request_media: list[str] = field(default_factory=list)
    body_schema: Any = None
    read_only_inputs: list[str] = field(default_factory=list)
    write_only_outputs: list[str] = field(default_factory=list)
    write_only_declared: bool = False
    seconds: float = 0.0
    list_tool_named: str | None = None
    list_tool_path: str | None = None
    error: str | None = None
    wrong: dict[str, str] = field(default_factory=dict)

    @property
    def prism_silent(self) -> bool:
        """Prism gave no answer in time (status 0): not a call failwell got right or wrong, left out."""
        return 0 in self.answered

    @property
    def status(self) -> int:
        """The status the API answered last (what the server saw), else the forced one."""
        return self.answered[-1] if self.answered else self.forced


TABLE_CLASSES = {
    400: "invalid_input",
    422: "invalid_input",
    401: "permission_denied",
    403: "permission_denied",
    404: "not_found",
    410: "not_found",
    409: "conflict",
    412: "conflict",
    429: "rate_limited",
    408: "timeout",
}
"""The classes the importer's built-in table (and the runtime) give; any 5xx is upstream_unavailable."""
MEANING_CLASSES = {
    402: "permission_denied",
    406: "invalid_input",
    413: "invalid_input",
    414: "invalid_input",
    415: "invalid_input",
    416: "invalid_input",
    423: "conflict",
    424: "conflict",
    425: "upstream_unavailable",
    428: "conflict",
    431: "invalid_input",
    451: "permission_denied",
}
"""What HTTP's own meaning of a status says its class is (issue 41 point 3: map it by its number's meaning)."""
WORDS_CLASSES = [
    (r"\b(bann|blocked|forbidden|not allowed|unauthori[sz]ed|permission|payment)", "permission_denied"),
    (r"\b(rate|too many|slow down|throttl|quota)", "rate_limited"),
    (r"\b(resubmit later|try again later|unavailable|overload|full|busy)", "upstream_unavailable"),
    (r"\b(not found|no such|does not exist|unknown)", "not_found"),
    (r"\b(conflict|already|locked|in use|state)", "conflict"),
    (r"\b(invalid|malformed|bad request|validation|not valid|missing|unsupported|too large)", "invalid_input"),
]
"""For a status HTTP gives no class for (418, 449, ...), its description's words (point 3: by its words)."""


def expected_classes(call: Call) -> tuple[set[str | None], str]:
    """The classes the status the API answered may rightly get, and whether they come from the built-in table
    ('table') or from the status's meaning and description ('meaning', point 3: a 424 that Asana documents as
    "You have exceeded one of the enforced rate limits" may be a conflict by its number or rate_limited by its
    words; either is right, invalid_input is not)."""
    status = call.status
    if 200 <= status < 400:
        return {None}, "success"
    if status in TABLE_CLASSES:
        return {TABLE_CLASSES[status]}, "table"
    if status >= 500:
        return {"upstream_unavailable"}, "table"
    expected: set[str | None] = {MEANING_CLASSES[status]} if status in MEANING_CLASSES else set()
    if status == call.forced:
        expected |= {cls for words, cls in WORDS_CLASSES if re.search(words, call.forced_description, re.I)}
    return expected, "meaning"


def nulls(value: Any) -> list[str]:
    if isinstance(value, dict):
        return [f"{k}{'.' + p if p else ''}" for k, v in value.items() for p in ([""] if v is None else nulls(v))]
    if isinstance(value, list):
        return [p for v in value for p in nulls(v)]
    return []


def check_success(call: Call) -> str | None:
    if expected_classes(call)[1] != "success":
        return "n/a"
    return f"HTTP {call.status} became {call.failure_class}: {call.text[:120]!r}" if call.is_error else None


def check_class_table(call: Call) -> str | None:
    expected, source = expected_classes(call)
    if source != "table":
        return "n/a"
    got = call.failure_class if call.is_error else None
    return None if got in expected else f"HTTP {call.status} became {got or 'a success'}, not {sorted(expected)}"


def check_class_meaning(call: Call) -> str | None:
    expected, source = expected_classes(call)
    if source != "meaning" or not expected:
        return "n/a"
    if call.failure_class not in expected:
        words = call.forced_description[:60]
        return f"HTTP {call.status} ({words!r}) became {call.failure_class}, not one of {sorted(map(str, expected))}"
    return None


def check_words_ungarbled(call: Call) -> str | None:
    if not call.is_error:
        return "n/a"
    if "[redacted]" in call.text:
        return f"the words hold [redacted]: {call.text[:160]!r}"
    return None


def check_method_tool_words(call: Call) -> str | None:
    if not call.is_error:
        return "n/a"
    found = re.search(rf"\b(GET|POST|PUT|PATCH|DELETE) {re.escape(call.tool)}\b", call.text)
    return f"the words mix a method and the tool's name: {found.group(0)!r}" if found else None


def unkeyed_write(call: Call) -> bool:
    return call.effect != "read" and not call.idempotent and not call.keyed


def check_write_5xx_not_retried(call: Call) -> str | None:
    if not (unkeyed_write(call) and call.forced >= 500):
        return "n/a"
    return None if len(call.answered) <= 1 else f"sent {len(call.answered)} times after HTTP {call.forced}"


def check_write_5xx_words(call: Call) -> str | None:
    if not (unkeyed_write(call) and call.is_error and call.status >= 500):
        return "n/a"
    invitation = re.search(r"retry(ing)?[^.]{0,40}(may|might|will|should) (succeed|work)", call.text, re.I)
    return f"invites a retry after a change that may have been applied: {invitation.group(0)!r}" if invitation else None


def check_rate_limit_wait(call: Call) -> str | None:
    if call.forced != 429 or call.retry_after_s is None:
        return "n/a"
    short = [gap for gap in call.gaps_s if gap + 0.05 < call.retry_after_s]
    if short:
        return (
            f"retried after {', '.join(f'{g:.2f}' for g in short)} s while telling the model {call.retry_after_s:g} s"
        )
    return None


def check_retry_after_told(call: Call) -> str | None:
    header = call.retry_after_header
    if not (call.is_error and header and header.strip().isdigit() and call.failure_class == "rate_limited"):
        return "n/a"
    if call.retry_after_s is None or call.retry_after_s < int(header):
        return f"Retry-After: {header} told as {call.retry_after_s} s"
    return None


def check_accept(call: Call) -> str | None:
    if not call.answered or not call.success_media:
        return "n/a"
    offered = {media(part) for part in (call.accept or "").split(",")}
    if not offered & set(call.success_media):
        return f"Accept: {call.accept!r}, not one of {call.success_media}"
    return None


def check_content_type(call: Call) -> str | None:
    if not call.answered or not call.body or not call.request_media:
        return "n/a"
    if media(call.content_type) not in call.request_media:
        return f"Content-Type: {call.content_type!r} for a body the API takes as {call.request_media}"
    return None


def check_no_unsent_nulls(call: Call) -> str | None:
    if not call.answered or not call.body:
        return "n/a"
    if media(call.content_type) == "application/json" or call.body.lstrip().startswith(("{", "[")):
        try:
            sent = json.loads(call.body)
        except ValueError:
            return "n/a"
        unsent = [path for path in nulls(sent) if path not in nulls(call.arguments)]
        return f"null sent for {unsent[:5]}, which the model did not send" if unsent else None
    if media(call.content_type) == "application/x-www-form-urlencoded":
        fields = urllib.parse.parse_qsl(call.body, keep_blank_values=True)
        unsent = [key for key, value in fields if value in ("None", "null")]
        return f"'None'/'null' sent for {unsent[:5]}" if unsent else None
    return "n/a"


def check_body_schema(call: Call) -> str | None:
    if not call.answered or not call.body or call.body_schema is None:
        return "n/a"
    if media(call.content_type) != "application/json" and not call.body.lstrip().startswith(("{", "[")):
        return "n/a"
    try:
        sent = json.loads(call.body)
    except ValueError as error:
        return f"the body is not JSON: {error}"
    validator_class = jsonschema.Draft4Validator if call.version.startswith("3.0") else jsonschema.Draft202012Validator
    errors = sorted(validator_class(call.body_schema).iter_errors(sent), key=lambda e: list(e.absolute_path))
    if errors:
        return f"the body fails the operation's schema at {list(errors[0].absolute_path)}: {errors[0].message[:120]}"
    return None


def check_read_only(call: Call) -> str | None:
    if not call.request_media:
        return "n/a"
    return f"readOnly properties are inputs: {call.read_only_inputs}" if call.read_only_inputs else None


def check_write_only(call: Call) -> str | None:
    if not call.write_only_declared:
        return "n/a"
    return f"writeOnly properties are outputs: {call.write_only_outputs}" if call.write_only_outputs else None


def check_not_found_next_step(call: Call) -> str | None:
    if call.failure_class != "not_found" or not call.list_tool_named:
        return "n/a"
    named_path = call.list_tool_path or ""
    if named_path.rstrip("/") == "" or not call.path.startswith(named_path.rstrip("/")):
        return f"names {call.list_tool_named} ({named_path or '?'}) to list records of {call.path}"
    return None


def check_request_valid(call: Call) -> str | None:
    """Prism's own judgement of the request against the document (its `sl-violations` answer header): errors
    in the request only (Prism also checks its own answer, and rclone documents a `Prefer` header, which is the
    proxy's)."""
    if not call.answered:
        return "n/a"
    try:
        violations = [
            v
            for v in json.loads(call.violations or "[]")
            if v.get("severity") == "Error"
            and (v.get("location") or [""])[0] == "request"
            and "prefer" not in [str(part).lower() for part in v.get("location") or []]
        ]
    except ValueError:
        return "n/a"
    if violations:
        first = violations[0]
        return f"Prism: {'.'.join(map(str, first.get('location') or []))}: {str(first.get('message'))[:140]}"
    return None


def check_reached(call: Call) -> str | None:
    if call.error:
        return call.error
    return None if call.answered else "no request reached the API"


@dataclass(frozen=True)
class Check:
    kind: str
    point: str
    judge: Callable[[Call], str | None]
    failing_today: bool = False
    optional: bool = False
    """Whether the corpus may hold no call this kind judges (then its test is skipped, saying so)."""
    strict: bool = True
    """Whether a kind failing today must fail on every run (else the only calls it fails on may go unanswered)."""


CHECKS = [
    Check("reached", "harness", check_reached),
    Check(
        "success",
        "not in issue 41: a documented 2xx answer the generated Output model refuses",
        check_success,
        failing_today=True,
    ),
    Check("class_by_table", "mapped statuses", check_class_table),
    Check("request_valid", "2, 9, 10 (Figma's minProperties body kept as its `schema:`)", check_request_valid),
    Check("class_by_meaning", "3", check_class_meaning),
    Check("words_ungarbled", "1", check_words_ungarbled),
    Check("not_found_next_step", "4", check_not_found_next_step),
    Check("write_5xx_words", "5", check_write_5xx_words),
    Check("write_5xx_not_retried", "5", check_write_5xx_not_retried),
    Check("rate_limit_wait", "6", check_rate_limit_wait),
    Check("retry_after_told", "7", check_retry_after_told),
    Check("accept", "8", check_accept),
    Check("read_only_not_input", "9", check_read_only),
    Check("write_only_not_output", "9", check_write_only, optional=True),
    Check("content_type", "10", check_content_type),
    Check("no_unsent_nulls", "2", check_no_unsent_nulls),
    Check("body_schema", "2 (bodies the fields cannot say kept as their `schema:`)", check_body_schema),
    Check("method_tool_words", "11", check_method_tool_words),
]
"""Each kind of check, the issue 41 point it holds, and whether today's code fails it on the corpus (xfail
strict: the test fails the day it passes, so the fixing session flips it)."""


# --- driving one document --------------------------------------------------------------------------------------------


@dataclass
class Driven:
    name: str
    operations: int
    selected: int
    tools: int = 0
    calls: list[Call] = field(default_factory=list)
    failure: str | None = None
    seconds: float = 0.0
    phases: dict[str, float] = field(default_factory=dict)


def handler_facts(project: Path, package: str, tool: str) -> tuple[str, str, dict[str, tuple[str, str]]]:
    """The method, path and WHERE of the handler the import wrote for `tool`."""
    source = (project / "src" / package / "handlers" / f"{tool}.py").read_text()
    found = re.search(r"from (GET|POST|PUT|PATCH|DELETE|HEAD|OPTIONS) /", source)
    constant = re.search(r'^PATH = "(.*)"$', source, re.M)
    method, path = (found.group(1) if found else "?"), (constant.group(1) if constant else "?")
    where: dict[str, tuple[str, str]] = {}
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.AnnAssign) and getattr(node.target, "id", "") == "WHERE" and node.value is not None:
            where = ast.literal_eval(node.value)
    return method, path, where


def body_properties(schema: Any) -> dict[str, Any]:
    """The top-level properties of a (dereferenced) body schema, through allOf."""
    if not isinstance(schema, dict):
        return {}
    properties = dict(schema.get("properties") or {})
    for part in schema.get("allOf") or []:
        properties.update(body_properties(part))
    return properties


def base_path(document: dict[str, Any]) -> str:
    servers = document.get("servers") or [{}]
    url = str(servers[0].get("url") or "")
    for name, variable in (servers[0].get("variables") or {}).items():
        url = url.replace("{" + name + "}", str(variable.get("default", "")))
    return urllib.parse.urlsplit(url).path.rstrip("/") if "://" in url else url.rstrip("/")


def drive(entry: dict[str, Any], work: Path) -> Driven:
    from prismproxy import prism

    started = time.perf_counter()
    RESOLVED.clear()
    FILES.clear()
    source = corpus.ensure(entry)
    document = corpus.load(source)
    version = str(document.get("openapi"))
    chosen = select(document)
    driven = Driven(entry["name"], entry["operations"], len(chosen))
    small = cut_down(document, chosen)
    if any(not ref.startswith("#") for ref in all_refs(small)):
        # relative references to other files: the cut-down document lives beside a copy of its folder
        folder = work / "source"
        shutil.copytree(source.parent, folder)
        doc_path = folder / "corpus-selection.json"
    else:
        doc_path = work / "corpus-selection.json"
    doc_path.write_text(json.dumps(small))
    name = re.sub(r"[^a-z0-9]+", "_", entry["name"].lower()).strip("_")
    project = work / name
    with ThreadPoolExecutor(1) as pool:
        # the import (a subprocess) runs while Prism starts: each takes a few seconds
        importing = pool.submit(failwell, "import", "openapi", doc_path, project, "--all", "--name", name)
        with prism(doc_path, work / "prism.log") as port:
            driven.phases["prism_started"] = time.perf_counter() - started
            done = importing.result()
            driven.phases["imported"] = time.perf_counter() - started
            if done.returncode != 0 or "Traceback" in done.stderr:
                driven.failure = f"import: {done.stdout[-800:]}{done.stderr[-1500:]}"
                return driven
            drive_project(driven, small, version, project, name, doc_path, port, work, started)
            driven.phases["driven"] = time.perf_counter() - started
    driven.seconds = time.perf_counter() - started
    return driven


def drive_project(
    driven: Driven,
    small: dict[str, Any],
    version: str,
    project: Path,
    name: str,
    doc_path: Path,
    port: int,
    work: Path,
    started: float,
) -> None:
    from prismproxy import forcing_proxy

    spec = yaml.safe_load((project / "failwell.yaml").read_text())
    env_prefix = name.upper()
    with forcing_proxy(port) as proxy:
        env = {**os.environ, "PYTHONPATH": str(project / "src"), "FAILWELL_SQLITE_PATH": str(work / "records.sqlite3")}
        for setting in spec["server"].get("settings") or {}:
            env[f"{env_prefix}_{setting.upper()}"] = SECRET_VALUE
        for upstream in (spec.get("upstreams") or {}).values():
            env[upstream["base_url_env"]] = proxy.url + base_path(small)
        proxy.strip = base_path(small)
        try:
            run = Run(driven, small, version, spec, project, f"{name}_mcp", doc_path.parent, proxy, started)
            anyio.run(session_calls, run, env, work)
        except Exception as error:  # recorded in the table and failed by test_each_document_is_driven
            driven.failure = "".join(traceback.format_exception(error))[-3000:]


def all_refs(node: Any) -> list[str]:
    if isinstance(node, dict):
        own = [node["$ref"]] if isinstance(node.get("$ref"), str) else []
        return own + [ref for value in node.values() for ref in all_refs(value)]
    if isinstance(node, list):
        return [ref for value in node for ref in all_refs(value)]
    return []


@dataclass
class Run:
    """One document being driven: its cut-down document, the imported spec and project, the proxy."""

    driven: Driven
    document: dict[str, Any]
    version: str
    spec: dict[str, Any]
    project: Path
    package: str
    base: Path
    proxy: Any
    started: float = 0.0
    paths_by_tool: dict[str, tuple[str, str]] = field(default_factory=dict)


async def session_calls(run: Run, env: dict[str, str], work: Path) -> None:
    from mcp import Client, StdioServerParameters
    from mcp.client.stdio import stdio_client

    parameters = StdioServerParameters(command=sys.executable, args=["-m", run.package], env=env)
    for tool_name in run.spec["tools"]:
        method, path, _ = handler_facts(run.project, run.package, tool_name)
        run.paths_by_tool[tool_name] = (method, path)
    pending = list(run.spec["tools"])
    with (work / "server.log").open("w") as errlog:
        while pending:
            # a fresh server after a call Prism left unanswered: that call's timeouts opened its circuit breaker
            async with Client(stdio_client(parameters, errlog=errlog)) as session:  # type: ignore[arg-type]
                tools = {tool.name: tool for tool in (await session.list_tools()).tools}
                run.driven.tools = len(tools)
                run.driven.phases.setdefault("listed", time.perf_counter() - run.started)
                while pending:
                    tool_name = pending.pop(0)
                    if tool_name in tools and await drive_tool(run, tools[tool_name], session):
                        break
                run.driven.phases["called"] = time.perf_counter() - run.started
            run.driven.phases["closed"] = time.perf_counter() - run.started


async def drive_tool(run: Run, tool: Any, session: Any) -> bool:
    """Every documented status of the tool's operation forced in turn (its success first, and again before a
    status that counts toward the circuit breaker when two attempts in a row already did); whether Prism left a
    call unanswered."""
    driven, document, version, spec, proxy = run.driven, run.document, run.version, run.spec, run.proxy
    project, package, base, paths_by_tool = run.project, run.package, run.base, run.paths_by_tool
    tool_spec = spec["tools"][tool.name]
    method, path, where = handler_facts(project, package, tool.name)
    operation = ((document.get("paths") or {}).get(path) or {}).get(method.lower())
    if not isinstance(operation, dict):
        return False
    operation = deref(operation, document, base)
    input_schema = tool.input_schema or {}
    defs = input_schema.get("$defs") or {}
    arguments = {
        key: sample((input_schema.get("properties") or {}).get(key, {}), defs, key)
        for key in input_schema.get("required") or []
    }
    keyed = "idempotency_key" in arguments
    responses = operation.get("responses") or {}
    statuses = concrete_statuses(operation)
    success = next((s for s in statuses if 200 <= s < 300), None)
    success_media = sorted(
        {media(m) for s in statuses if 200 <= s < 300 for m in ((responses.get(str(s)) or {}).get("content") or {})}
    )
    request_content = ((operation.get("requestBody") or {}).get("content")) or {}
    request_media = sorted(media(m) for m in request_content)
    json_body = next((c.get("schema") for m, c in request_content.items() if "json" in media(m)), None)
    body_schema = for_request(json_body, version) if isinstance(json_body, dict) else None
    read_only = {k for k, v in body_properties(json_body).items() if isinstance(v, dict) and v.get("readOnly")}
    read_only_inputs = sorted(name for name, (place, key) in where.items() if place == "body" and key in read_only)
    success_schema = next(
        (
            c.get("schema")
            for s in statuses
            if 200 <= s < 300
            for m, c in ((responses.get(str(s)) or {}).get("content") or {}).items()
            if "json" in media(m)
        ),
        None,
    )
    write_only = {k for k, v in body_properties(success_schema).items() if isinstance(v, dict) and v.get("writeOnly")}
    outputs = set((tool.output_schema or {}).get("properties") or {})
    write_only_outputs = sorted(write_only & outputs)
    first = len(driven.calls)
    plan = [s for s in statuses if s >= 400]
    if success is not None:
        plan.insert(0, success)
    streak = 0
    """Attempts in a row that counted toward the circuit breaker (five open it): a success comes first at two."""

    async def one(forced: int) -> None:
        nonlocal streak
        description = str((responses.get(str(forced)) or {}).get("description") or "")
        call = Call(
            driven.name,
            version,
            tool.name,
            method,
            path,
            forced,
            description,
            arguments,
            keyed,
            bool(tool_spec.get("idempotent")),
            str(tool_spec.get("effect")),
            success_media=success_media,
            request_media=request_media,
            body_schema=body_schema,
            read_only_inputs=read_only_inputs,
            write_only_outputs=write_only_outputs,
            write_only_declared=bool(write_only),
        )
        mark = proxy.mark()
        began = time.perf_counter()
        proxy.force = forced
        try:
            with anyio.fail_after(CALL_TIMEOUT_S):
                result = await session.call_tool(tool.name, arguments)
        except Exception as error:  # a call that raised is a wrong call, recorded
            call.error = f"{type(error).__name__}: {str(error)[:300]}"
            result = None
        finally:
            proxy.force = None
            call.seconds = time.perf_counter() - began
        forwarded = proxy.since(mark)
        record(call, result, forwarded, paths_by_tool)
        driven.calls.append(call)
        if call.prism_silent:
            return
        if call.answered and 200 <= call.answered[-1] < 300:
            streak = 0
        else:
            streak += sum(1 for status in call.answered if status in BREAKER_STATUSES)

    for forced in plan:
        if forced in BREAKER_STATUSES and streak >= 2 and success is not None:
            await one(success)
        await one(forced)
        if driven.calls[-1].prism_silent and forced == success:
            return True  # Prism cannot build this operation's answer in time: its other statuses are not driven either
    return any(call.prism_silent for call in driven.calls[first:])


def record(call: Call, result: Any, forwarded: list[Any], paths_by_tool: dict[str, tuple[str, str]]) -> None:
    call.answered = [request.status for request in forwarded]
    call.gaps_s = [later.at - earlier.at for earlier, later in itertools.pairwise(forwarded)]
    if forwarded:
        first = forwarded[0]
        call.accept = first.header("accept")
        call.content_type = first.header("content-type")
        call.body = first.body.decode("utf-8", "replace")
        call.violations = first.answered("sl-violations")
        call.retry_after_header = forwarded[-1].answered("retry-after")
    if result is not None:
        call.is_error = bool(result.is_error)
        call.text = " ".join(getattr(block, "text", "") for block in result.content)
        envelope = (result.meta or {}).get("dev.failwell/error") or {}
        call.failure_class = envelope.get("class")
        call.retry_after_s = envelope.get("retry_after_s")
        named = re.search(r"Call (\w+) to (find|list|see)", call.text)
        if named:
            call.list_tool_named = named.group(1)
            call.list_tool_path = paths_by_tool.get(named.group(1), ("", ""))[1]
    if call.prism_silent:
        return
    for check in CHECKS:
        verdict = check.judge(call)
        if verdict is not None and verdict != "n/a":
            call.wrong[check.kind] = verdict


# --- the tests -------------------------------------------------------------------------------------------------------

DOCUMENTS = [entry["name"] for entry in corpus.entries()]


COMMITTED = [entry for entry in corpus.entries() if entry.get("committed")]


@pytest.mark.parametrize("entry", COMMITTED, ids=[entry["name"] for entry in COMMITTED])
def test_the_manifest_is_true_of_each_committed_document(entry: dict[str, Any]) -> None:
    """Each committed document is the recorded bytes, version and operation count, and small (the fetched ones
    are checked by fetch.py as they are fetched)."""
    path = corpus.ensure(entry)
    assert corpus.describe(corpus.load(path)) == {"openapi": entry["openapi"], "operations": entry["operations"]}
    assert path.stat().st_size == entry["bytes"] < 300_000


def test_the_corpus_is_as_varied_as_issue_41_asks() -> None:
    entries = corpus.entries()
    assert len(entries) >= 15
    versions = {entry["openapi"][:3] for entry in entries}
    assert {"3.0", "3.1"} <= versions
    counts = [entry["operations"] for entry in entries]
    assert min(counts) <= 10 and max(counts) >= 1000
    assert {entry["registry"] for entry in entries} >= {"npm", "pypi"}


@pytest.fixture(scope="module")
def driven(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Driven]:
    """Every document of the corpus driven (one Prism each, one after another), and the table written."""
    results: dict[str, Driven] = {}
    only = set(filter(None, os.environ.get("FAILWELL_CORPUS_ONLY", "").split(",")))
    for entry in corpus.entries():
        if only and entry["name"] not in only:
            continue
        if entry.get("not_driven"):
            continue
        work = tmp_path_factory.mktemp(f"corpus-{entry['name']}")
        try:
            results[entry["name"]] = drive(entry, work)
        except Exception as error:  # a document that could not be had or cut down: in the table
            results[entry["name"]] = Driven(
                entry["name"], entry["operations"], 0, failure=f"{type(error).__name__}: {error}"
            )
    table = [
        {
            "document": d.name,
            "operations": d.operations,
            "selected": d.selected,
            "tools": d.tools,
            "calls_driven": sum(1 for call in d.calls if not call.prism_silent),
            "calls_right": sum(1 for call in d.calls if not call.wrong and not call.prism_silent),
            "prism_silent": sum(1 for call in d.calls if call.prism_silent),
            "wrong_by_kind": dict(Counter(kind for call in d.calls for kind in call.wrong)),
            "seconds": round(d.seconds, 1),
            "phases": {phase: round(at, 1) for phase, at in d.phases.items()},
            "failure": d.failure,
        }
        for d in results.values()
    ]
    out = tmp_path_factory.getbasetemp() / "openapi_corpus_table.json"
    calls = [asdict(call) | {"body_schema": None} for d in results.values() for call in d.calls]
    out.write_text(json.dumps({"table": table, "calls": calls}, indent=1, default=str))
    print(f"\n{'document':24} {'ops':>5} {'sel':>4} {'tools':>5} {'right/driven':>13} {'s':>6}  wrong by kind")
    for row in table:
        ratio = f"{row['calls_right']}/{row['calls_driven']}"
        kinds = ", ".join(f"{k} {n}" for k, n in sorted(row["wrong_by_kind"].items(), key=lambda kv: -kv[1]))
        print(
            f"{row['document']:24} {row['operations']:>5} {row['selected']:>4} {row['tools']:>5} {ratio:>13} "
            f"{row['seconds']:>6}  {kinds}{'  FAILED: ' + str(row['failure'])[:200] if row['failure'] else ''}"
        )
    total = sum(r["calls_driven"] for r in table)
    right = sum(r["calls_right"] for r in table)
    print(f"all: {right}/{total} calls right; the table and every call: {out}")
    return results


@pytest.mark.slow
@pytest.mark.parametrize("name", DOCUMENTS)
def test_each_document_is_imported_generated_and_driven(driven: dict[str, Driven], name: str) -> None:
    if name not in driven:
        entry = next(entry for entry in corpus.entries() if entry["name"] == name)
        pytest.skip(entry.get("not_driven") or "not in FAILWELL_CORPUS_ONLY")
    result = driven[name]
    assert result.failure is None, result.failure
    assert result.tools >= 1 and len(result.calls) >= result.tools, (result.tools, len(result.calls))
    assert all(call.answered for call in result.calls), [c.error for c in result.calls if not c.answered][:3]


def check_marks(check: Check) -> Any:
    marks = [pytest.mark.slow]
    if check.failing_today:
        reason = f"issue 41 point {check.point}" if check.point[0].isdigit() else check.point
        marks.append(pytest.mark.xfail(strict=check.strict, reason=reason))
    return pytest.param(check, marks=marks, id=check.kind)


@pytest.mark.parametrize("check", [check_marks(check) for check in CHECKS])
def test_every_driven_call_holds(driven: dict[str, Driven], check: Check) -> None:
    """No call of any document is wrong in this check's way (the table counts them all)."""
    wrong = [
        f"{call.document} {call.tool} HTTP {call.forced}: {call.wrong[check.kind]}"
        for result in driven.values()
        for call in result.calls
        if check.kind in call.wrong
    ]
    judged = sum(
        1 for result in driven.values() for call in result.calls if not call.prism_silent and check.judge(call) != "n/a"
    )
    if not judged and check.optional:
        pytest.skip(f"no operation driven declares what {check.kind} judges (a writeOnly property in an answer)")
    assert judged, f"no call was judged by {check.kind}: the corpus no longer exercises it"
    assert not wrong, f"{len(wrong)} of {judged} calls: " + "; ".join(wrong[:12])
