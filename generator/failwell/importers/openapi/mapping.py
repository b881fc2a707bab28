"""One operation as one tool: its name, inputs (where each goes on the wire), effect, output, the failures its
documented responses declare, and the handler that calls it through the runtime's upstream client."""

from __future__ import annotations

import hashlib
import json
import re
from dataclasses import dataclass, field
from typing import Any

from ...errors import printable
from ...spec.fields import make_example
from ...spec.naming import reserved_tool_name
from .document import Document, Node
from .operations import Operation
from .schemas import Mapper, field_name, fits, jsonable, snake, trim, within

MAX_NAME = 64
MAX_TOOL_DESCRIPTION = 600
"""A tool's description is cut to this many characters (FW313 says when one was)."""


def upstream_name(server: str) -> str:
    """The upstream's name, after the server's: `pets` calls `pets_api` (messages say "The pets_api service")."""
    return f"{snake(server)[:59].rstrip('_')}_api"


IDEMPOTENCY_HEADER = "idempotency-key"
JSON_TYPES = ("application/json",)
FORM_TYPE = "application/x-www-form-urlencoded"
MULTIPART_TYPE = "multipart/form-data"

CLASS_BY_STATUS = {
    400: ("invalid_input", "bad_request"),
    422: ("invalid_input", "unprocessable"),
    401: ("permission_denied", "unauthorized"),
    403: ("permission_denied", "forbidden"),
    404: ("not_found", "not_found"),
    410: ("not_found", "gone"),
    409: ("conflict", "conflict"),
    412: ("conflict", "precondition_failed"),
    429: ("rate_limited", "rate_limited"),
}
"""The failure class and failure name for each documented status whose class the runtime's upstream client gives
it too; any 5xx is upstream_unavailable."""

CLASS_BY_MEANING = {
    402: ("permission_denied", "payment_required"),
    406: ("invalid_input", "not_acceptable"),
    408: ("timeout", "request_timeout"),
    413: ("invalid_input", "content_too_large"),
    414: ("invalid_input", "uri_too_long"),
    415: ("invalid_input", "unsupported_media_type"),
    416: ("invalid_input", "range_not_satisfiable"),
    421: ("upstream_unavailable", "misdirected_request"),
    423: ("conflict", "locked"),
    424: ("conflict", "failed_dependency"),
    425: ("upstream_unavailable", "too_early"),
    428: ("conflict", "precondition_required"),
    431: ("invalid_input", "header_fields_too_large"),
    451: ("permission_denied", "unavailable_for_legal_reasons"),
}
"""Statuses whose number HTTP gives a meaning that decides the class (RFC 9110, 6585, 8470, 7725, 4918): Payment
Required and Unavailable For Legal Reasons are refusals of who calls; Locked, Failed Dependency and Precondition
Required are the record's state; Too Early and Misdirected Request pass with time or another connection; the
request's size, range or media type is the input."""

CLASS_BY_WORDS: tuple[tuple[re.Pattern[str], str], ...] = tuple(
    (re.compile(words, re.IGNORECASE), failure_class)
    for words, failure_class in (
        (
            r"\b(bann(ed)?|blocked|blacklist|forbidden|not (allowed|permitted)|unauthori[sz]ed|permission|denied"
            r"|payment|suspended|subscription)\b",
            "permission_denied",
        ),
        (r"\b(rate[ -]?limit\w*|too many|slow down|throttl\w*|quota)\b", "rate_limited"),
        (
            r"\b(resubmit later|(try|retry) (again )?later|temporar\w*|unavailable|overload\w*|(is )?full|busy"
            r"|maintenance)\b",
            "upstream_unavailable",
        ),
        (r"\b(not found|no such|does ?n[o']t exist|unknown)\b", "not_found"),
        (r"\b(conflict\w*|already|locked|in use|duplicate)\b", "conflict"),
        (
            r"\b(invalid|malformed|bad request|validation|not valid|missing|unsupported|too (large|long)|required"
            r"|incorrect)\b",
            "invalid_input",
        ),
    )
)
"""For any other 4xx (405, 418, 420, 449, ...), the class its description's words say, the first that matches:
Blockfrost's 418 "IP has been auto-banned" is a refusal, a 425 "mempool full, resubmit later" passes with time,
the Petstore's 405 "Invalid input" is the input."""
REFUSED = "conflict"
"""The class of a 4xx whose number and words say nothing: the API refused the call for a reason of its own. Not
invalid_input, which would tell the model its arguments are wrong: the record's state (conflict) is the guess, with a
note."""


def status_class(status: str, description: str) -> tuple[str, str, str]:
    """(class, failure name, how it was chosen: "table", "meaning", "words" or "guess") for a documented error
    status (`404`, `4XX`, `5XX`); ("", "", "") for one that is no error."""
    code = status.upper()
    if code == "5XX" or (code.isdigit() and 500 <= int(code) <= 599):
        return "upstream_unavailable", "server_error" if code == "5XX" else f"server_error_{code}", "table"
    if not (code == "4XX" or (code.isdigit() and 400 <= int(code) <= 499)):
        return "", "", ""
    number = int(code) if code.isdigit() else 0
    if number in CLASS_BY_STATUS:
        return (*CLASS_BY_STATUS[number], "table")
    if number in CLASS_BY_MEANING:
        return (*CLASS_BY_MEANING[number], "meaning")
    name = f"client_error_{number}" if number else "client_error"
    for words, failure_class in CLASS_BY_WORDS:
        if words.search(description):
            return failure_class, name, "words"
    if number == 405:
        return "permission_denied", "method_not_allowed", "meaning"  # not allowed on this record, whoever asks
    return REFUSED, name, "guess"


@dataclass
class Finding:
    """Something the person should know about the import: an FW3xx code, the operation, and what."""

    code: str
    where: str
    message: str

    def __str__(self) -> str:
        return printable(f"{self.where}: {self.code} {self.message}")  # the document's text, on one line


@dataclass
class Tool:
    name: str
    op: Operation
    spec: dict[str, Any]
    where: dict[str, tuple[str, str]]
    """Each input field: (location, wire name); location is path, query, header, body (a property of the body)
    or whole (the body itself)."""
    body: str
    """json, form, multipart, text, or '' (no body)."""
    statuses: list[tuple[str, str]]
    """(status test, failure name): `404` or `5XX`."""
    security: list[tuple[str, str, str, str]]
    has_output: bool
    upstream: str
    media: str = ""
    """The body's media type as the document writes it (its Content-Type), or '' (no body)."""
    body_required: bool = False
    """Whether the document says the body is required: then it is sent (`{}`) even when the model sent none of
    its fields."""
    accept: str = ""
    """The media type asked for (Accept): the success answer's that the import reads, or '' (none documented)."""
    answer: tuple[int, Any, str] = (200, None, "")
    """A success the API documents, as the written test serves it: (status, JSON body or None for none, where it
    comes from: the document's example, or made from the tool's output)."""


@dataclass
class Auth:
    """Settings for the document's security schemes, and how each is sent."""

    settings: dict[str, Any] = field(default_factory=dict)
    schemes: dict[str, tuple[str, str, str, str]] = field(default_factory=dict)
    """scheme name -> (kind, wire name, setting, second setting): bearer, header, query, basic."""


def tool_names(ops: list[Operation], findings: list[Finding], before: dict[str, str] | None = None) -> dict[str, str]:
    """op.key -> tool name: from operationId (else method and path), snake_case, <= 64 characters, unique;
    a name cut or taken ends in a hash of its operation. An operation keeps the name an earlier import gave it
    (`before`: op.key -> name) while that is still one of its two names, so a re-import never hands a tool, its
    words and its handler to another operation; among the rest, of operations whose names meet, the first by
    `METHOD /path` keeps the name, so no name depends on the order of the document."""
    candidates: dict[str, tuple[str, str]] = {}
    for op in ops:
        raw = op.operation_id or f"{op.method}_{op.path}"
        base = snake(raw.replace("/", "_")) or op.method
        if not base[0].isalpha():
            base = f"op_{base}"
        if reserved_tool_name(base) or base in ("generated", "runtime"):
            base = f"{base}_op"
        name = base
        digest = hashlib.sha1(op.key.encode()).hexdigest()[:6]
        if len(name) > MAX_NAME:
            name = f"{base[: MAX_NAME - 7].rstrip('_')}_{digest}"
            findings.append(
                Finding("FW315", op.key, f"the name {base} is over {MAX_NAME} characters: the tool is {name}")
            )
        candidates[op.key] = (name, f"{name[: MAX_NAME - 7].rstrip('_')}_{digest}")
    names: dict[str, str] = {}
    taken: set[str] = set()
    for key, pair in sorted(candidates.items()):
        kept = (before or {}).get(key)
        if kept in pair and kept not in taken:
            names[key] = kept
            taken.add(kept)
    kept_hashed = [key for key, name in names.items() if name == candidates[key][1] != candidates[key][0]]
    for key, (name, renamed) in sorted(candidates.items()):
        if key in names:
            continue
        if name in taken:
            findings.append(
                Finding("FW315", key, f"the name {name} is taken by another operation: the tool is {renamed}")
            )
            name = renamed
        taken.add(name)
        names[key] = name
    for key in kept_hashed:
        name, renamed = candidates[key]
        why = "is taken by another operation" if name in taken else "is free, but an earlier import hashed it"
        findings.append(Finding("FW315", key, f"the name {name} {why}: the tool stays {renamed}"))
    return names


def auth(doc: Document, server: str, findings: list[Finding]) -> Auth:
    """A secret setting for each security scheme the document declares (bearer, API key, basic)."""
    found = Auth()
    schemes = ((doc.root.get("components") or {}).get("securitySchemes")) or {}
    for name, raw in schemes.items():
        scheme = doc.resolve(Node(raw, next(iter(doc.files)))).value
        if not isinstance(scheme, dict):
            continue
        base = field_name(str(name))
        kind, where = scheme.get("type"), scheme.get("in")
        described = trim(scheme.get("description"), 200)
        what = f"the credential of the API's `{name}` security scheme" + (f" ({described})" if described else "")
        if kind == "http" and str(scheme.get("scheme", "")).lower() == "basic":
            user, password = f"{base}_username", f"{base}_password"
            found.settings[user] = {"type": "string", "secret": True, "description": f"The user name of {what}."}
            found.settings[password] = {"type": "string", "secret": True, "description": f"The password of {what}."}
            found.schemes[name] = ("basic", "Authorization", user, password)
        elif kind == "http" or kind in ("oauth2", "openIdConnect"):
            setting = f"{base}_token"
            found.settings[setting] = {"type": "string", "secret": True, "description": f"The bearer token: {what}."}
            found.schemes[name] = ("bearer", "Authorization", setting, "")
            if kind != "http":
                findings.append(
                    Finding(
                        "FW316",
                        f"security scheme {name}",
                        f"{kind}: the server sends a token you get yourself (setting {setting}); "
                        f"it does not run the {kind} flow",
                    )
                )
        elif kind == "apiKey" and where in ("header", "query") and isinstance(scheme.get("name"), str):
            setting = f"{base}_key" if not base.endswith("key") else base
            found.settings[setting] = {"type": "string", "secret": True, "description": f"The API key: {what}."}
            found.schemes[name] = (str(where), scheme["name"], setting, "")
        else:
            findings.append(
                Finding(
                    "FW316",
                    f"security scheme {name}",
                    f"a {kind} scheme{' in ' + str(where) if where else ''} is not mapped: "
                    "add it to handlers/_openapi.py",
                )
            )
    return found


def map_operation(
    doc: Document,
    mapper: Mapper,
    op: Operation,
    name: str,
    names: dict[str, str],
    ops: list[Operation],
    credentials: Auth,
    findings: list[Finding],
    upstream: str,
) -> Tool:
    """The tool for `op`."""
    spec: dict[str, Any] = {}
    summary = trim(op.spec.get("summary"), 300)
    long = trim(op.spec.get("description"), 10_000)
    text = summary if not long or long.startswith(summary) else f"{summary.rstrip('.')}. {long}" if summary else long
    text = text or long or f"{op.method.upper()} {op.path}"
    if len(text) > MAX_TOOL_DESCRIPTION:
        findings.append(
            Finding(
                "FW313",
                op.key,
                f"the description is {len(text)} characters; cut to {MAX_TOOL_DESCRIPTION} "
                "(write a shorter one in the spec)",
            )
        )
        text = trim(text, MAX_TOOL_DESCRIPTION)
    spec["description"] = text
    method = op.method.upper()
    inputs: dict[str, Any] = {}
    where: dict[str, tuple[str, str]] = {}
    keyed = False

    def add(wire: str, location: str, field_spec: dict[str, Any]) -> None:
        fname = field_name(wire)
        if fname in inputs or fname == "idempotency_key":
            renamed = _unique_input(wire, location, inputs)
            findings.append(
                Finding(
                    "FW314",
                    op.key,
                    f"{location} parameter {wire!r} has the name of another input ({fname}): it is the input {renamed}",
                )
            )
            fname = renamed
        inputs[fname] = field_spec
        where[fname] = (location, wire)

    for param_node in sorted(
        op.parameters,
        key=lambda n: (
            ("path", "query", "header", "cookie").index(n.value.get("in"))
            if n.value.get("in") in ("path", "query", "header", "cookie")
            else 9
        ),
    ):
        param = param_node.value
        location, wire = param.get("in"), param["name"]
        if location == "header" and wire.lower() == IDEMPOTENCY_HEADER:
            keyed = True
            continue
        if location == "header" and wire.lower() in ("authorization", "content-type", "accept"):
            continue
        if location == "cookie":
            findings.append(Finding("FW316", op.key, f"cookie parameter {wire!r} is not mapped (cookies are not sent)"))
            continue
        schema = param.get("schema")
        if schema is None and isinstance(param.get("content"), dict):
            media: Any = next(iter(param["content"].values()), {})
            schema = media.get("schema") if isinstance(media, dict) else None
        field_spec = mapper.field(
            Node(schema or {"type": "string"}, param_node.base, f"{param_node.pointer}/schema"), f"{op.key} {wire}"
        )
        description = trim(param.get("description"), 500)
        if description:
            field_spec["description"] = description
        else:
            findings.append(
                Finding(
                    "FW312", op.key, f"{location} parameter {wire!r} has no description: the model guesses what to send"
                )
            )
        if "example" in param and "example" not in field_spec:
            example = jsonable(param["example"])
            plain = not (field_spec.get("enum") or field_spec.get("pattern") or field_spec.get("format"))
            if plain and fits(example, str(field_spec.get("type"))) and within(example, field_spec):
                field_spec["example"] = example
        if location != "path" and not param.get("required") and "default" not in field_spec:
            field_spec["required"] = False
        field_spec.pop("nullable", None) if location == "path" else None
        add(wire, str(location), field_spec)

    body, body_media, body_required = "", "", False
    request = doc.resolve(Node(op.spec.get("requestBody"), op.node.base, f"{op.node.pointer}/requestBody"))
    if isinstance(request.value, dict) and isinstance(request.value.get("content"), dict):
        content = request.value["content"]
        kinds = [str(k) for k in content]
        chosen = next((k for k in kinds if _is_json(k)), None)
        body = "json"
        for kind, prefix in (("form", FORM_TYPE), ("multipart", MULTIPART_TYPE)):
            if chosen is None and any(_media(k) == prefix for k in kinds):
                chosen, body = next(k for k in kinds if _media(k) == prefix), kind
        if chosen is None and kinds:
            chosen, body = kinds[0], "text"
            if not kinds[0].startswith("text/"):
                findings.append(
                    Finding(
                        "FW316",
                        op.key,
                        f"a {kinds[0]} body is sent as text; a binary upload needs a handler of your own",
                    )
                )
        if chosen is not None:
            body_media = _sendable(chosen)
            media = content[chosen] if isinstance(content[chosen], dict) else {}
            schema_node = Node(media.get("schema") or {}, request.base, f"{request.pointer}/content/{chosen}/schema")
            body_required = request.value.get("required") is True
            where_body = f"{op.key} body"
            properties, required = (
                mapper.flatten(schema_node, where_body, side="request") if body != "text" else ({}, set())
            )
            an_object = bool(properties) or (body != "text" and bool(mapper.flatten(schema_node, where_body)[0]))
            whole = (  # a JSON body the fields cannot say (`anyOf` of variants, `minProperties`): one `schema:` input
                mapper.schema_field(
                    schema_node,
                    where_body,
                    required=body_required,
                    description=trim(request.value.get("description"), 500) or "The request's body.",
                )
                if body == "json" and mapper.lossy(schema_node, top=True)
                else None
            )
            if whole is not None:
                add("body", "whole", whole)
            elif an_object:  # its fields are inputs (none when every one is readOnly: the body is then `{}`)
                for prop, sub in properties.items():
                    kept = (
                        mapper.schema_field(sub, f"{op.key} body.{prop}", required=prop in required)
                        if body == "json" and mapper.lossy(sub)
                        else None
                    )
                    field_spec = kept or mapper.field(sub, f"{op.key} body.{prop}", depth=1)
                    if kept is None and prop not in required and "default" not in field_spec:
                        field_spec["required"] = False
                    if not (field_spec.get("description") or (kept or {}).get("schema", {}).get("description")):
                        findings.append(
                            Finding(
                                "FW312",
                                op.key,
                                f"body field {prop!r} has no description: the model guesses what to send",
                            )
                        )
                    add(prop, "body", field_spec)
            else:
                field_spec = mapper.field(schema_node, where_body) if body != "text" else {"type": "string"}
                field_spec.setdefault(
                    "description", trim(request.value.get("description"), 500) or "The request's body."
                )
                if not body_required:
                    field_spec["required"] = False
                add("body", "whole", field_spec)
    if inputs:
        spec["input"] = inputs

    if method in ("GET", "HEAD", "OPTIONS"):
        spec["effect"] = "read"
    elif method == "DELETE":
        spec["effect"] = "destructive"
    else:
        spec["effect"] = "write"
    if spec["effect"] != "read":
        if keyed:
            spec["idempotency"] = "required"
            finder = _reader(op, names, ops, name)
            if finder:
                spec["check_with"] = finder  # named to the model when a run's outcome is unknown
        elif method == "PUT":
            spec["idempotent"] = True
        else:
            spec["idempotency"] = "none"
            spec["idempotency_reason"] = (
                f"The API documents no Idempotency-Key for {method} {op.path}: a call whose outcome is unknown is "
                "never repeated by this server, and the model is told to check before trying again."
            )
            if method == "POST":
                findings.append(
                    Finding(
                        "FW311",
                        op.key,
                        "a POST with no Idempotency-Key header: a retry after a timeout cannot be made safe",
                    )
                )
    spec["upstreams"] = [upstream]

    output = _output(doc, mapper, op)
    if output:
        spec["output"] = output

    failures: dict[str, Any] = {}
    statuses: list[tuple[str, str]] = []
    raw_responses = op.spec.get("responses")
    responses: dict[Any, Any] = raw_responses if isinstance(raw_responses, dict) else {}
    errors_documented = False
    lister, reader = _lister(doc, op, names, ops, name), _reader(op, names, ops, name)
    for status, raw in responses.items():
        code = str(status).upper()
        described = doc.resolve(Node(raw, op.node.base)).value
        description = trim((described or {}).get("description") if isinstance(described, dict) else "", 200)
        failure_class, failure_name, how = status_class(code, description)
        if not failure_class:
            continue
        errors_documented = True
        if failure_name in failures:
            continue
        if how in ("words", "guess"):
            said = f" ({printable(description)!r})" if description else ""
            findings.append(
                Finding(
                    "FW317",
                    op.key,
                    f"HTTP {code}{said} has no class of its own: mapped to {failure_class} by "
                    + ("its description's words" if how == "words" else "guess, as the API refusing the call")
                    + "; review the class and the words",
                )
            )
        failures[failure_name] = {
            "class": failure_class,
            "message": draft(failure_class, op, name, description, inputs, lister, reader, code),
            "reviewed": False,
        }
        if failure_class == "permission_denied":  # the operation, shown as it is (a path is no internal here)
            failures[failure_name]["fields"] = {field: {"type": "string", "verbatim": True} for field in PERMISSION}
        statuses.append((code, failure_name))
    if not errors_documented:
        findings.append(
            Finding(
                "FW310", op.key, "no error response is documented: every failure gets its class's server-wide words"
            )
        )
    if failures:
        spec["failures"] = failures

    requirement = op.spec.get("security", doc.root.get("security")) or []
    security: list[tuple[str, str, str, str]] = []
    for alternative in requirement if isinstance(requirement, list) else []:
        if isinstance(alternative, dict) and alternative and all(s in credentials.schemes for s in alternative):
            security = [credentials.schemes[s] for s in alternative]
            break
    answer = _recorded_answer(doc, op, output)
    return Tool(
        name,
        op,
        spec,
        where,
        body,
        statuses,
        security,
        bool(output),
        upstream,
        media=body_media,
        body_required=body_required,
        accept=_accept(doc, op),
        answer=answer,
    )


MAX_RECORDED = 20_000
"""The longest example (as JSON) a written test serves; a longer one is made from the output fields instead."""


def _recorded_answer(doc: Document, op: Operation, output: dict[str, Any]) -> tuple[int, Any, str]:
    """The success the test of `op`'s handler serves: its first 2xx status, with the document's JSON example of it
    (`example`, the first of `examples`, or its schema's `example`); else a body made from the output fields'
    examples (a text answer: `{}`); None when the answer has no content (204)."""
    raw_responses = op.spec.get("responses")
    responses: dict[Any, Any] = raw_responses if isinstance(raw_responses, dict) else {}
    statuses = sorted(str(s) for s in responses if str(s).startswith("2") and str(s)[1:].isdigit())
    if not statuses:
        return 200, _made_answer(output), "made from the output fields: the document gives no example"
    status = statuses[0]
    response = doc.resolve(Node(responses[status] if status in responses else responses[int(status)], op.node.base))
    content = response.value.get("content") if isinstance(response.value, dict) else None
    if not isinstance(content, dict) or not content:
        return int(status), None, "no content"
    media = next((m for k, m in content.items() if k.split(";")[0].strip() in JSON_TYPES or k.endswith("+json")), None)
    if not isinstance(media, dict):
        return int(status), _made_answer(output), "made from the output fields: the document gives no example"
    candidates: list[Any] = []
    if "example" in media:
        candidates.append(media["example"])
    examples = media.get("examples")
    if isinstance(examples, dict):
        for example in examples.values():
            resolved = doc.resolve(Node(example, response.base)).value
            if isinstance(resolved, dict) and "value" in resolved:
                candidates.append(resolved["value"])
                break
    schema = doc.resolve(Node(media.get("schema") or {}, response.base)).value
    if isinstance(schema, dict) and "example" in schema:
        candidates.append(schema["example"])
    for candidate in candidates:
        value = jsonable(candidate)
        try:
            text = json.dumps(value, allow_nan=False)
        except (TypeError, ValueError):
            continue
        if len(text) <= MAX_RECORDED and (not output or isinstance(value, dict)):
            return int(status), value, "the document's example"
    return int(status), _made_answer(output), "made from the output fields: the document gives no example"


def _made_answer(output: dict[str, Any]) -> Any:
    """An answer made from the output fields' examples (every field, each a value its type takes)."""
    return {name: make_example({k: v for k, v in spec.items() if k != "nullable"}) for name, spec in output.items()}


def _unique_input(wire: str, location: str, inputs: dict[str, Any]) -> str:
    """A name for the input `wire` (at `location`) that no other input of the tool has: `<name>_<location>`, else
    (that is taken too, or two long names were cut to one) the name cut to fit a hash of where it comes from."""
    taken = {*inputs, "idempotency_key"}
    renamed = field_name(f"{wire}_{location}")
    if renamed not in taken:
        return renamed
    digest = hashlib.sha1(f"{location} {wire}".encode()).hexdigest()
    for start in range(0, len(digest) - 6, 6):
        renamed = f"{field_name(wire)[: MAX_NAME - 7].rstrip('_')}_{digest[start : start + 6]}"
        if renamed not in taken:
            return renamed
    raise ValueError(f"no free input name for {location} parameter {wire!r}")


def _output(doc: Document, mapper: Mapper, op: Operation) -> dict[str, Any]:
    """The output fields from the first 2xx JSON response whose schema is an object of plain field names; {}
    (the answer is text) otherwise."""
    raw_responses = op.spec.get("responses")
    responses: dict[Any, Any] = raw_responses if isinstance(raw_responses, dict) else {}
    for status in sorted(str(s) for s in responses):
        if not (status.startswith("2") and status[1:].isdigit()):
            continue
        response = doc.resolve(Node(responses[status] if status in responses else responses[int(status)], op.node.base))
        content = response.value.get("content") if isinstance(response.value, dict) else None
        if not isinstance(content, dict):
            return {}
        kind = next((k for k in content if _is_json(k)), None)
        if kind is None or not isinstance(content[kind], dict):
            return {}
        schema = Node(content[kind].get("schema") or {}, response.base)
        properties, _ = mapper.flatten(schema, f"{op.key} output", side="response")
        if not properties or any(field_name(p) != p for p in properties):
            return {}
        out = {}
        for prop, sub in properties.items():
            mapped = mapper.field(sub, f"{op.key} output.{prop}", depth=1, output=True)
            mapped.pop("description", None)
            mapped.pop("properties", None) if mapped.get("type") == "object" else None
            if mapped.get("type") == "array":
                mapped.pop("items", None)
            out[prop] = {**mapped, "required": False, "nullable": True}
        return out
    return {}


def _media(key: str) -> str:
    """A media type without its parameters, in lower case: `application/json; charset=utf-8` is application/json."""
    return key.split(";")[0].strip().lower()


MEDIA_TYPE = re.compile(r"^[A-Za-z0-9!#$&^_.+*-]+/[A-Za-z0-9!#$&^_.+*-]+(?:\s*;[ -~]*)?$")
"""A media type fit for a header (`type/subtype`, parameters of printable ASCII); the import sends no other."""


def _sendable(key: str) -> str:
    """`key` when it is a media type a header can carry, else ''."""
    return key if len(key) <= 200 and MEDIA_TYPE.match(key) else ""


def _is_json(key: str) -> bool:
    media = _media(key)
    return media in JSON_TYPES or media.endswith("+json")


def _accept(doc: Document, op: Operation) -> str:
    """The media type of the success answer the tool reads, as the document writes it: of the first 2xx answer
    that documents any, its JSON one (the one the output is read from), else its first; '' when no 2xx answer
    documents one (a 204)."""
    raw_responses = op.spec.get("responses")
    responses: dict[str, Any] = (
        {str(status): value for status, value in raw_responses.items()} if isinstance(raw_responses, dict) else {}
    )
    for status in sorted(responses):
        if not (status.startswith("2") and status[1:].isdigit()):
            continue
        response = doc.resolve(Node(responses[status], op.node.base)).value
        content = response.get("content") if isinstance(response, dict) else None
        if isinstance(content, dict) and content:
            kinds = [str(k) for k in content]
            return _sendable(next((k for k in kinds if _is_json(k)), kinds[0]))
    return ""


def draft(
    failure_class: str,
    op: Operation,
    tool: str,
    description: str,
    inputs: dict[str, Any],
    lister: str,
    reader: str,
    status: str = "",
) -> str:
    """A draft of the words the model reads, from the response's description and the operation's inputs: the
    tool to call next only where one shows the same kind of record (`lister` lists them, `reader` reads this one),
    and the operation as the API names it (`GET /bookings/{bookingId}`), never a method glued to a tool's name."""
    said = re.sub(r"[{}\"`]", "", description).strip().rstrip(".")
    quote = f' ("{said}")' if said else ""
    required = [
        n
        for n, f in inputs.items()
        if f.get("required", True) and "default" not in f and f.get("type") in ("string", "integer", "number")
    ]
    shown = required[:2]
    values = " and ".join(f"{n} {{{n}}}" for n in shown)
    subject = f"for {values}" if values else ""
    operation = operation_words(op)
    if failure_class == "not_found":
        where = f"with {values}" if values else "for these arguments"
        step = f"Call {lister} to find the right value" if lister else "Ask the user for the right value"
        return f"The API has no record {where}{quote}. Each must name an existing record. {step}."
    if failure_class == "invalid_input":
        fields = ", ".join(list(inputs)[:4]) or "the arguments"
        value = f" (sent {values})" if values else ""
        return (
            f"The API rejected the arguments{value}{quote}. "
            f"Check {fields} against the tool's input schema and send corrected values."
        )
    if failure_class == "permission_denied":
        text = (
            f"The API refused {{permission}} {subject}{quote}: {{role}} may not do it. "
            "Ask the user to check the server's API credentials and their access."
        )
        return text.replace("  ", " ").replace(" :", ":")
    if failure_class == "conflict":
        step = f"Call {reader} to read the current state" if reader else "Read the current state"
        what = "change" if op.method != "get" else "call"
        text = (
            f"The API refused this {what} {subject}{quote} because of the record's current state. "
            f"{step}, then decide with the user."
        )
        return text.replace("  ", " ")
    if failure_class == "rate_limited":
        return f"The API is limiting how often it may be called{quote}. Wait before calling {tool} again."
    if failure_class == "timeout":
        return f"The API did not answer {operation} in time{quote}."
    if status.isdigit() and int(status) < 500:
        return f"The API cannot take {operation} now{quote}. Tell the user the service is having trouble."
    return f"The API failed to answer {operation}{quote}. Tell the user the service is having trouble."


def operation_words(op: Operation) -> str:
    """The operation as a message names it, `GET /bookings/{bookingId}`, its braces doubled (a message's literal
    braces): what the API's own documents call it."""
    path = re.sub(r"\s+", "", op.path).replace("{", "{{").replace("}", "}}")
    return f"{op.method.upper()} {path}"


PERMISSION = ("permission", "role")
"""The fields a permission_denied failure names in its words and its envelope."""


def permission_values(op: Operation) -> tuple[str, str]:
    """The `permission` and `role` a permission_denied failure of `op` passes: the operation (`GET /bookings/{id}`),
    and whose credentials the API judged."""
    return f"{op.method.upper()} {op.path}", "the credentials this server uses"


def _collection(path: str) -> str:
    """The path of the collection the last path parameter of `path` names a member of: `/bookings` for
    `/bookings/{bookingId}` and `/bookings/{bookingId}/payment`; "" when the path has no parameter, or the
    collection would be the API's root."""
    segments = path.rstrip("/").split("/")
    for index in range(len(segments) - 1, 0, -1):
        if segments[index].startswith("{") and segments[index].endswith("}"):
            collection = "/".join(segments[:index])
            return collection if collection.strip("/") else ""
    return ""


def _lister(doc: Document, op: Operation, names: dict[str, str], ops: list[Operation], tool: str) -> str:
    """The read tool of the selection that lists the kind of record `op` names, or "": the GET of the collection
    its item path belongs to (`GET /bookings` for `/bookings/{bookingId}`), else a GET whose answer is a list of
    the same schema `op` answers with (the same `$ref`). Never the API's root (`GET /`), which lists nothing."""
    collection = _collection(op.path)
    if collection:
        for other in ops:
            if other.method == "get" and other.path.rstrip("/") == collection and names[other.key] != tool:
                return names[other.key]
    record = _answer_schema(doc, op, listed=False)
    if not record:
        return ""
    for other in ops:
        if other.method != "get" or names[other.key] == tool or not other.path.strip("/"):
            continue
        if _answer_schema(doc, other, listed=True) == record:
            return names[other.key]
    return ""


def _reader(op: Operation, names: dict[str, str], ops: list[Operation], tool: str) -> str:
    """The read tool of the selection that shows the record `op` changes, or "": the GET of the same path (a PUT
    or DELETE of `/bookings/{bookingId}` is checked with GET `/bookings/{bookingId}`), else the GET of its
    collection (a POST to `/bookings`, or a change under `/bookings/{bookingId}/...`)."""
    for other in ops:
        if other.method == "get" and other.path == op.path and names[other.key] != tool and op.path.strip("/"):
            return names[other.key]
    collection = _collection(op.path) if "{" in op.path else op.path.rstrip("/")
    for other in ops:
        if other.method == "get" and other.path.rstrip("/") == collection and collection and names[other.key] != tool:
            return names[other.key]
    return ""


def _answer_schema(doc: Document, op: Operation, *, listed: bool) -> str:
    """Where the schema of `op`'s first 2xx JSON answer is defined (`file#/components/schemas/Pet`): of the answer
    itself, or (`listed`) of the items of an answer that is a list, or of a list property of an object answer
    (`{"data": [Pet]}`); "" when it has none (an inline schema is no kind of record to compare)."""
    raw_responses = op.spec.get("responses")
    responses: dict[Any, Any] = raw_responses if isinstance(raw_responses, dict) else {}
    for status in sorted(responses, key=str):
        if not (str(status).startswith("2") and str(status)[1:].isdigit()):
            continue
        response = doc.resolve(Node(responses[status], op.node.base))
        content = response.value.get("content") if isinstance(response.value, dict) else None
        if not isinstance(content, dict):
            return ""
        media = next(
            (m for k, m in content.items() if k.split(";")[0].strip() in JSON_TYPES or k.endswith("+json")), None
        )
        if not isinstance(media, dict) or not isinstance(media.get("schema"), dict):
            return ""
        schema = Node(media["schema"], response.base)
        if not listed:
            return _defined_at(doc, schema)
        resolved = doc.resolve(schema)
        value = resolved.value if isinstance(resolved.value, dict) else {}
        if value.get("type") == "array" and isinstance(value.get("items"), dict):
            return _defined_at(doc, Node(value["items"], resolved.base))
        for prop in (value.get("properties") or {}).values():
            sub = doc.resolve(Node(prop, resolved.base))
            if (
                isinstance(sub.value, dict)
                and sub.value.get("type") == "array"
                and isinstance(sub.value.get("items"), dict)
            ):
                return _defined_at(doc, Node(sub.value["items"], sub.base))
        return ""
    return ""


def _defined_at(doc: Document, schema: Node) -> str:
    """Where a schema given by `$ref` is defined, its refs followed; "" for an inline one."""
    if not (isinstance(schema.value, dict) and isinstance(schema.value.get("$ref"), str)):
        return ""
    target = doc.resolve(schema)
    return target.where if target.value is not None else ""
