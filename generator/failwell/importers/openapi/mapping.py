"""One operation as one tool: its name, inputs (where each goes on the wire), effect, output, the failures its
documented responses declare, and the handler that calls it through the runtime's upstream client."""

from __future__ import annotations

import hashlib
import re
from dataclasses import dataclass, field
from typing import Any

from ...errors import printable
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
"""The failure class and failure name for each documented status; any 5xx is upstream_unavailable."""


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
            if an_object:  # its fields are inputs (none when every one is readOnly: the body is then `{}`)
                for prop, sub in properties.items():
                    field_spec = mapper.field(sub, f"{op.key} body.{prop}", depth=1)
                    if prop not in required and "default" not in field_spec:
                        field_spec["required"] = False
                    if not field_spec.get("description"):
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
            finder = _finder(op, names, ops, name)
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
    for status, raw in responses.items():
        code = str(status).upper()
        described = doc.resolve(Node(raw, op.node.base)).value
        description = trim((described or {}).get("description") if isinstance(described, dict) else "", 200)
        if code.isdigit() and int(code) in CLASS_BY_STATUS:
            errors_documented = True
            failure_class, failure_name = CLASS_BY_STATUS[int(code)]
        elif code == "5XX" or (code.isdigit() and 500 <= int(code) <= 599):
            errors_documented = True
            failure_class, failure_name = (
                "upstream_unavailable",
                "server_error" if code == "5XX" else f"server_error_{code}",
            )
        elif (code.isdigit() and 400 <= int(code) < 500) or code == "4XX":
            errors_documented = True
            continue  # no class fits it better than the runtime's own for its status
        else:
            continue
        if failure_name in failures:
            continue
        failures[failure_name] = {
            "class": failure_class,
            "message": draft(failure_class, op, name, description, inputs, names, ops),
            "reviewed": False,
        }
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
    )


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
    names: dict[str, str],
    ops: list[Operation],
) -> str:
    """A draft of the words the model reads, from the response's description and the operation's inputs."""
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
    finder = _finder(op, names, ops, tool)
    if failure_class == "not_found":
        where = f"with {values}" if values else "for these arguments"
        step = f"Call {finder} to find the right value" if finder else "Ask the user for the right value"
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
            f"The API refused this call {subject}{quote}: the credentials this server uses may not do it. "
            "Ask the user to check the server's API credentials and their access."
        )
        return text.replace("  ", " ").replace(" :", ":")
    if failure_class == "conflict":
        step = f"Call {finder} to read the current state" if finder else "Read the current state"
        text = (
            f"The API refused this change {subject}{quote} because of the record's current state. "
            f"{step}, then decide with the user."
        )
        return text.replace("  ", " ")
    if failure_class == "rate_limited":
        return f"The API is limiting how often it may be called{quote}. Wait before calling {tool} again."
    return f"The API failed to answer {op.method.upper()} {tool}{quote}. Tell the user the service is having trouble."


def _finder(op: Operation, names: dict[str, str], ops: list[Operation], tool: str) -> str:
    """A read tool of the selection that lists or reads what `op` names: the GET of its collection path."""
    parent = op.path.rstrip("/")
    while "/" in parent:
        parent = parent.rsplit("/", 1)[0]
        for other in ops:
            if other.method == "get" and other.path.rstrip("/") == parent and names[other.key] != tool:
                return names[other.key]
    for other in ops:
        if other.method == "get" and other.path == op.path and names[other.key] != tool:
            return names[other.key]
    return ""
