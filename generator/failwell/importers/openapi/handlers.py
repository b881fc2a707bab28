"""The handler of each imported tool (written once, then the person's), and the helper they share."""

from __future__ import annotations

from ...pyliteral import docstring, literal, string
from ...spec.failures import with_idempotency_key
from ...spec.fields import example_arguments
from ...spec.naming import pascal
from .mapping import CLASS_BY_STATUS, Tool, permission_values

LINE_LENGTH = 120
"""The generated project's ruff line length."""
HELPER = "_openapi.py"
"""The helper module beside the handlers (a name starting with `_` is never taken for a tool's handler)."""


def _tuple(items: list[str]) -> str:
    """A tuple of Python expressions as ruff's formatter writes it."""
    return "(" + ", ".join(items) + ("," if len(items) == 1 else "") + ")"


def _doc(*lines: str) -> str:
    """Docstring lines, each made safe by `pyliteral.docstring` (the document's text is never code)."""
    return "\n".join(docstring(line) for line in lines)


def handler(tool: Tool) -> str:
    """The handler module of `tool`: it calls the operation and turns each documented status into its failure."""
    classes = {name: pascal(name) for _, name in tool.statuses}
    imports = sorted({"Context", "Input", *(["Output"] if tool.has_output else []), *classes.values()})
    where = "".join(
        f"\n    {string(name)}: {_tuple([string(loc), string(wire)])}," for name, (loc, wire) in tool.where.items()
    )
    where_text = f"{{{where}\n}}" if where else "{}"
    security_text = _tuple([_tuple([string(part) for part in entry]) for entry in tool.security])
    lines = []
    permission, role = permission_values(tool.op)
    ranges = {
        "5XX": "error.status is not None and error.status >= 500",
        "4XX": "error.status is not None and 400 <= error.status < 500 and error.status not in OWN_CLASS",
    }
    for code, name in sorted(tool.statuses, key=lambda status: status[0] in ranges):  # a range after its statuses
        test = ranges.get(code) or f"error.status == {int(code)}"
        failure_class = tool.spec["failures"][name]["class"]
        extra = {
            "rate_limited": "retry_after_s=error.retry_after_s or 10.0, ",
            "upstream_unavailable": "retry_after_s=error.retry_after_s, ",
            "permission_denied": f"permission={string(permission)}, role={string(role)}, ",
        }.get(failure_class, "")
        lines.append(
            f"        if {test}:\n            raise {classes[name]}({extra}changed=error.explicit_changed) from None"
        )
    own_class = ""
    if any(code == "4XX" for code, _ in tool.statuses):  # the range takes only the statuses with no class of their own
        own = sorted({*CLASS_BY_STATUS, 408})  # the upstream client's own table (408 is its timeout)
        own_class = (
            f"OWN_CLASS = {literal(own)}\n"
            '"""Statuses the upstream client classes by their number: the document\'s 4XX is the rest."""\n'
        )
    returns = "Output" if tool.has_output else "str"
    result = "Output.model_validate(fields_of(response, Output))" if tool.has_output else "text_of(response)"
    indent = "        " if lines else "    "
    args = [
        f"ctx.upstreams.{tool.upstream}",
        string(tool.op.method.upper()),
        "PATH",
        "WHERE",
        "sent(params)",
        f"body={string(tool.body)}",
        *([f"media={string(tool.media)}"] if tool.media else []),
        *(["required=True"] if tool.body_required else []),
        *([f"accept={string(tool.accept)}"] if tool.accept else []),
        "security=SECURITY",
        "settings=ctx.settings",
    ]
    call = f"{indent}response = await call(\n" + "".join(f"{indent}    {arg},\n" for arg in args) + f"{indent})\n"
    if lines:
        body = "    try:\n" + call + "    except UpstreamError as error:\n" + "\n".join(lines) + "\n        raise\n"
    else:
        body = call
    first = tool.spec["description"].split(". ")[0].rstrip(".")[:200]
    upstream_import = "from .._generated.runtime.upstreams.upstream import UpstreamError\n" if lines else ""
    origin = f" (operationId {tool.op.operation_id})" if tool.op.operation_id else ""
    helpers = "Where, call, fields_of, sent" if tool.has_output else "Where, call, sent, text_of"
    imported = f"from .._generated.tools.{tool.name} import {', '.join(imports)}"
    if len(imported) > LINE_LENGTH:
        names = "".join(f"    {name},\n" for name in imports)
        imported = f"from .._generated.tools.{tool.name} import (\n{names})"
    about = _doc(
        f"`{tool.name}`: {first}.",
        "",
        f"Written once by `failwell import openapi` from {tool.op.key}{origin}, and yours from now on:",
        "failwell never overwrites it. It sends each argument where the API takes it (WHERE), through the runtime's",
        "upstream client (deadline, retries, circuit breaker, Idempotency-Key), and turns each status the API",
        "documents into the failure the spec declares for it; any other failure keeps its class's words.",
    )
    return f'''"""{about}
"""

{upstream_import}{imported}
from ._openapi import {helpers}

PATH = {string(tool.op.path)}
WHERE: dict[str, Where] = {where_text}
SECURITY: tuple[tuple[str, str, str, str], ...] = {security_text}
{own_class}

async def handle(params: Input, ctx: Context) -> {returns}:
    """{docstring(first + ".")}"""
{body}    return {result}
'''


HELPER_TEXT = '''"""Calls an OpenAPI operation through the runtime's upstream client: written once by
`failwell import openapi`, and yours from now on (failwell never overwrites it; a module whose name starts
with `_` is never a tool's).

The credentials come from the server's secret settings (never logged, never in a message); the upstream
client sends the call's derived Idempotency-Key itself, retries only what is safe, and raises an
UpstreamError of the right class for any status of 400 or more.
"""

from __future__ import annotations

import base64
import json
import re
from typing import Any
from urllib.parse import quote

import httpx
from pydantic import BaseModel

from .._generated.runtime.upstreams.upstream import Upstream

Where = tuple[str, str]
"""(location, wire name): path, query, header, body (one property of the body) or whole (the body itself)."""

MAX_TEXT = 100_000
"""The most characters of an answer returned as text."""


def credentials(
    settings: Any, security: tuple[tuple[str, str, str, str], ...]
) -> tuple[dict[str, str], dict[str, str]]:
    """The (headers, query) that carry the credentials `security` names, from the settings that are set."""
    headers: dict[str, str] = {}
    query: dict[str, str] = {}
    for kind, wire, setting, second in security:
        value = getattr(settings, setting, None) if settings is not None else None
        if not value:
            continue
        if kind == "bearer":
            headers["Authorization"] = f"Bearer {value}"
        elif kind == "basic":
            password = getattr(settings, second, None) or ""
            token = base64.b64encode(f"{value}:{password}".encode()).decode()
            headers["Authorization"] = f"Basic {token}"
        elif kind == "header":
            headers[wire] = str(value)
        elif kind == "query":
            query[wire] = str(value)
    return headers, query


async def call(
    upstream: Upstream,
    method: str,
    path: str,
    where: dict[str, Where],
    values: dict[str, Any],
    *,
    body: str,
    security: tuple[tuple[str, str, str, str], ...],
    settings: Any,
    media: str = "",
    required: bool = False,
    accept: str = "",
) -> httpx.Response:
    """Send one call: each of `values` (what the model sent: `sent(params)`) where `where` says, the credentials,
    and the body as `body` says (json, form, multipart, text, or none) with `media` as its Content-Type, asking
    for an answer in `accept`. A path, query or header value of None is not sent; the body is sent when the model
    sent any of it, or when the API requires one (`required`: an empty object then)."""
    headers, query = credentials(settings, security)
    if accept:
        headers["Accept"] = accept
    segments: dict[str, str] = {}
    fields: dict[str, Any] = {}
    whole: Any = None
    for name, (location, wire) in where.items():
        if name not in values or (values[name] is None and location != "body"):
            continue
        value = values[name]
        if location == "path":
            segments[wire] = quote(str(value).lower() if isinstance(value, bool) else str(value), safe="")
        elif location == "query":
            query[wire] = _plain(value)
        elif location == "header":
            headers[wire] = str(_plain(value))
        elif location == "body":
            fields[wire] = value
        else:
            whole = value
    url = re.sub(r"\\{([^{}]+)\\}", lambda m: segments.get(m.group(1), m.group(0)), path)
    kwargs: dict[str, Any] = {}
    if query:
        kwargs["params"] = query
    payload: Any = whole if whole is not None else fields
    if body and (whole is not None or fields or required):
        if body == "json":
            kwargs["json"] = payload
        elif body in ("form", "multipart"):
            data = payload if isinstance(payload, dict) else {"body": payload}
            parts = {key: _form(value) for key, value in data.items() if value is not None}
            if parts and body == "multipart":  # httpx writes the Content-Type, with the parts' boundary
                kwargs["files"] = {key: (None, str(value)) for key, value in parts.items()}
                media = ""
            elif parts:
                kwargs["data"] = parts
            else:
                kwargs["content"] = b""
        elif whole is not None:
            kwargs["content"] = str(whole).encode()
        else:
            kwargs["content"] = b""
        if media:
            headers["Content-Type"] = media
    if headers:
        kwargs["headers"] = headers
    return await upstream.request(method, url, **kwargs)


def sent(params: BaseModel) -> dict[str, Any]:
    """The arguments as the model sent them, at every depth, each under its name as written: a field it left out
    whose value is None is not there (a default its input schema promises is), so no null the model never wrote
    reaches the API."""
    values: dict[str, Any] = _sent(params, params.model_dump(by_alias=True))
    return values


def _sent(model: Any, dumped: Any) -> Any:
    if isinstance(model, BaseModel) and isinstance(dumped, dict):
        out = {}
        for name, info in type(model).model_fields.items():
            key = info.serialization_alias or info.alias or name
            if key in dumped and (dumped[key] is not None or name in model.model_fields_set):
                out[key] = _sent(getattr(model, name, None), dumped[key])
        return out
    if isinstance(model, list | tuple) and isinstance(dumped, list) and len(model) == len(dumped):
        return [_sent(item, value) for item, value in zip(model, dumped, strict=True)]
    return dumped


def fields_of(response: httpx.Response, model: Any) -> dict[str, Any]:
    """The fields of a JSON answer that `model` declares (an answer's other fields are left out)."""
    data = response.json() if response.content else {}
    if not isinstance(data, dict):
        return {}
    return {name: data[name] for name in model.model_fields if name in data}


def text_of(response: httpx.Response) -> str:
    """A text answer: the body as it came (JSON re-indented), at most MAX_TEXT characters."""
    if not response.content:
        return f"Done (HTTP {response.status_code})."
    try:
        text = json.dumps(response.json(), indent=1, ensure_ascii=False)
    except ValueError:
        text = response.text
    return text if len(text) <= MAX_TEXT else text[:MAX_TEXT] + "\\n(cut)"


def _plain(value: Any) -> Any:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, dict):
        return json.dumps(value)
    if isinstance(value, list):
        return [_plain(item) for item in value]
    return value


def _form(value: Any) -> Any:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, dict | list):
        return json.dumps(value)
    return value
'''


def answers_test(tool: Tool, package: str, base_url_env: str, settings: bool) -> str:
    """`tests/test_<tool>.py` for an imported tool (written once, then the person's): the written handler called
    in-process against a real HTTP server on 127.0.0.1 (`FakeUpstream`) that answers with the document's example of
    its success, checking the request it sent (method and path) and what the model receives."""
    status, answer, source = tool.answer
    arguments = example_arguments(with_idempotency_key(tool.spec))
    values = {name: field.get("default") for name, field in (tool.spec.get("input") or {}).items()}
    values.update(arguments)
    path = tool.op.path  # as the handler fills it (a value it has not is left as written), before quoting
    for name, (location, wire) in tool.where.items():
        value = values.get(name)
        if location == "path" and value is not None:
            path = path.replace(f"{{{wire}}}", str(value).lower() if isinstance(value, bool) else str(value))
    method = tool.op.method.upper()
    body = 'b""' if answer is None else "json.dumps(ANSWER).encode()"
    if answer is None:
        expected = (
            f"    assert outcome.text == {string(f'Done (HTTP {status}).')}, outcome.text\n"
            if not tool.has_output
            else ""
        )
    elif tool.has_output:
        expected = (
            "    sent = {name: ANSWER[name] for name in OUTPUT if ANSWER[name] is not None}\n"
            "    received = {name: value for name, value in (outcome.structured or {}).items() if value is not None}\n"
            "    assert received == sent, outcome.text\n"
        )
    else:
        expected = "    assert json.loads(outcome.text) == ANSWER, outcome.text\n"
    output = ""
    if answer is not None and tool.has_output:
        fields = [name for name in (tool.spec.get("output") or {}) if isinstance(answer, dict) and name in answer]
        output = f'OUTPUT = {literal(fields)}\n"""The answer\'s fields the tool\'s output declares."""\n'
    where = f'    assert (method, unquote(path.split("?")[0])) == ({string(method)}, {string(path)})\n'
    imports = ["FakeUpstream", "Reply", "call_tool", *(["settings_in"] if settings else [])]
    call = (
        f"call_tool({string(tool.name)}, arguments, settings=settings_in(tmp_path))"
        if settings
        else f"call_tool({string(tool.name)}, arguments)"
    )
    about = _doc(
        f"Your tests for `{tool.name}`: written once by `failwell import openapi`, and yours from now on (failwell",
        f"never overwrites it). The handler, as written, called against a recorded answer of {tool.op.key}:",
        f"a real HTTP server on 127.0.0.1 stands in for the API and sends its {status} answer",
        f"({source}).",
    )
    signature = "tmp_path: Path, monkeypatch: pytest.MonkeyPatch" if settings else "monkeypatch: pytest.MonkeyPatch"
    modules = [*(["import json"] if answer is not None else []), *(["from pathlib import Path"] if settings else [])]
    header = "".join(f"{line}\n" for line in [*modules, "from typing import Any", "from urllib.parse import unquote"])
    return f'''"""{about}
"""

{header}
import pytest

from {package}._generated.testing import {", ".join(imports)}

pytestmark = pytest.mark.anyio

ANSWER: Any = {literal(answer)}
"""{docstring(f"The {status} answer the stand-in API sends ({source}).")}"""
{output}

async def test_{tool.name}_answers({signature}) -> None:
    arguments: dict[str, Any] = {literal(arguments, 4)}
    with FakeUpstream(Reply({status}, {body})) as api:
        monkeypatch.setenv({string(base_url_env)}, api.url)
        outcome = await {call}
    assert not outcome.is_error, outcome.text
    [(_, method, path, _)] = api.requests
{where}{expected}'''
