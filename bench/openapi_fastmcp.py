"""failwell's `import openapi` side by side with FastMCP's `FastMCP.from_openapi` on the same calls (issue 41's
closing note): for each document of tests/openapi_corpus/corpus.json, the cut-down selection of operations that
tests/test_openapi_corpus.py drives is

1. imported with failwell, generated, started over stdio and driven by the real `mcp` client against Stoplight's
   Prism behind the status-forcing proxy, each call judged by that test's CHECKS (its own `drive`, unchanged);
2. served by FastMCP (`from_openapi` with its defaults and an httpx2 client on the same proxy, carrying the same
   credentials failwell sends), started over stdio (bench/openapi_fastmcp_server.py, in bench/.venv-fastmcp with
   FastMCP pinned to FASTMCP_VERSION) and driven by the same client with the same calls: the same operation, the
   same forced status, in the same order, the same argument values (each of failwell's arguments mapped through
   its handler's WHERE to the place and wire name it is sent as, then to FastMCP's argument for that place and
   name; a required FastMCP argument left without a value is filled from FastMCP's own schema the way the
   corpus test fills failwell's, and counted);
3. judged by the checks that apply to a server with no failure envelope (FASTMCP_CHECKS; the others are listed in
   NOT_FOR_FASTMCP with the reason).

    python bench/openapi_fastmcp.py --json out.json                 # every document (about 30 minutes)
    python bench/openapi_fastmcp.py --json out.json --only galaxy   # one (repeatable, or comma-separated)

Run it with the Python of failwell's own environment (.venv/bin/python): it imports the corpus test's harness.
`python tests/openapi_corpus/fetch.py` must have filled the corpus cache first. The Markdown table goes to
stdout, the table and every call of both sides to the JSON path. Everything is sequential: one Prism, one
server at a time."""

from __future__ import annotations

import argparse
import base64
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
import traceback
import venv
from collections import Counter
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

BENCH = Path(__file__).resolve().parent
REPO = BENCH.parent
sys.path[:0] = [str(REPO / "tests"), str(REPO / "tests" / "openapi_corpus")]

import anyio  # noqa: E402
import fetch as corpus  # noqa: E402
import jsonschema  # noqa: E402
import test_openapi_corpus as harness  # noqa: E402
from prismproxy import forcing_proxy, prism  # noqa: E402

FASTMCP_VERSION = "4.2.3"
"""The FastMCP release compared (the newest on PyPI when this was written), installed into FASTMCP_VENV."""
FASTMCP_VENV = BENCH / ".venv-fastmcp"
SERVER = BENCH / "openapi_fastmcp_server.py"
STARTUP_TIMEOUT_S = 120.0


# --- which checks judge a server with no failure envelope ------------------------------------------------------------


def check_error_is_error(call: harness.Call) -> str | None:
    """An answer of 400 or more reaches the model as an error (isError true), never as a success: the part of
    the class checks a server without failwell's envelope can be held to."""
    if call.error or not call.answered or call.status < 400:
        return "n/a"
    return None if call.is_error else f"HTTP {call.status} became a success: {call.text[:120]!r}"


WAIT_WORDS = re.compile(r"(\d+(?:\.\d+)?)\s*(s|secs?|seconds?|minutes?|mins?)\b", re.I)


def check_wait_told(call: harness.Call) -> str | None:
    """When the API answered an error with `Retry-After: N` (seconds), the model is told to wait at least N s in
    words (retry_after_told reads the same from failwell's envelope)."""
    header = (call.retry_after_header or "").strip()
    if not (call.is_error and header.isdigit()):
        return "n/a"
    told = [float(n) * (60 if unit.lower().startswith("m") else 1) for n, unit in WAIT_WORDS.findall(call.text)]
    if not any(seconds >= int(header) for seconds in told):
        return f"Retry-After: {header} not told: {call.text[:120]!r}"
    return None


def check_tool_listed(call: harness.Call) -> str | None:
    """The operation became a tool the model can call (FastMCP accepted the document but made no tool of it)."""
    return call.error if call.error and call.error.startswith("no tool") else None


OUTPUT_REFUSED = re.compile(r"structured content")


def check_answer_fits_output(call: harness.Call) -> str | None:
    """A documented answer reaches the model: the `mcp` client raises instead of returning a result that does not
    fit the tool's own output schema (FastMCP's `validate_output` default), or that has none where the tool
    declares one (an XML answer). Counted here rather than under `reached`: the request did reach the API."""
    if call.error and OUTPUT_REFUSED.search(call.error):
        return f"the client refused the answer: {call.error[:200]}"
    return None


BODY_KINDS = {"body_schema", "request_valid", "no_unsent_nulls"}
"""The checks of what was sent, which FastMCP cannot be blamed for when failwell's arguments, replayed, do not fit
FastMCP's own input schema (failwell's schema lost a nested `required`, say): not judged on those calls."""


SHARED = {
    "reached",
    "success",
    "request_valid",
    "words_ungarbled",
    "method_tool_words",
    "write_5xx_not_retried",
    "write_5xx_words",
    "accept",
    "content_type",
    "no_unsent_nulls",
    "body_schema",
    "read_only_not_input",
    "write_only_not_output",
}
"""The corpus test's checks that read only what any server shows: the requests that reached the API (count,
headers, body), the result's isError and words, and the tool's listing."""
NOT_FOR_FASTMCP = {
    "class_by_table": "judges the failure class in failwell's envelope; error_is_error holds FastMCP to its part",
    "class_by_meaning": "judges the failure class in failwell's envelope; error_is_error holds FastMCP to its part",
    "not_found_next_step": "judges the list tool a not_found failure names as the next step; FastMCP names none",
    "rate_limit_wait": "judges the runtime's retry gaps against the wait its envelope tells; FastMCP tells none "
    "and retries nothing",
    "retry_after_told": "reads the wait from failwell's envelope; wait_told reads it from the words instead",
}
FASTMCP_CHECKS = [
    harness.Check("tool_listed", "bench", check_tool_listed),
    *(check for check in harness.CHECKS if check.kind in SHARED),
    harness.Check("answer_fits_output", "bench", check_answer_fits_output),
    harness.Check("error_is_error", "bench", check_error_is_error),
    harness.Check("wait_told", "bench", check_wait_told),
]
assert {check.kind for check in harness.CHECKS} == SHARED | set(NOT_FOR_FASTMCP), "a corpus check is unaccounted for"


# --- FastMCP's environment -------------------------------------------------------------------------------------------


def fastmcp_python() -> Path:
    """The Python of FASTMCP_VENV, made and FastMCP installed into it (from PyPI, pinned) on first use."""
    python = FASTMCP_VENV / "bin" / "python"
    if python.exists():
        found = subprocess.run(
            [str(python), "-c", "import fastmcp; print(fastmcp.__version__)"], capture_output=True, text=True
        )
        if found.stdout.strip() == FASTMCP_VERSION:
            return python
    print(f"installing fastmcp=={FASTMCP_VERSION} into {FASTMCP_VENV} ...", file=sys.stderr, flush=True)
    venv.EnvBuilder(with_pip=True, clear=True).create(FASTMCP_VENV)
    subprocess.run([str(python), "-m", "pip", "install", "-q", f"fastmcp=={FASTMCP_VERSION}"], check=True)
    return python


# --- the FastMCP side of one document --------------------------------------------------------------------------------


@dataclass
class FastSide:
    """What FastMCP made of one document and how its calls went."""

    accepted: bool | None = None
    refusal: str | None = None
    warnings: list[str] = field(default_factory=list)
    tools: int = 0
    operations_without_tool: list[str] = field(default_factory=list)
    bundled: bool = False
    """Whether FastMCP was given the document with its references to other files inlined (it reads a dict)."""
    refusal_as_given: str | None = None
    arguments_filled: int = 0
    arguments_unmapped: int = 0
    arguments_misfit: int = 0
    calls: list[harness.Call] = field(default_factory=list)
    replays: list[dict[str, Any]] = field(default_factory=list)
    """Per call: the arguments filled from FastMCP's schema, failwell's left unmapped, and whether they fit it."""
    failure: str | None = None


def credentials(document: dict[str, Any]) -> dict[str, dict[str, str]]:
    """The headers, query parameters and cookies a FastMCP user passes to their client for the schemes the
    document's operations require (the first requirement of each): the same secret failwell's settings hold."""
    schemes = (document.get("components") or {}).get("securitySchemes") or {}
    requirements = [document.get("security") or []]
    for item in (document.get("paths") or {}).values():
        for method in harness.METHODS:
            operation = item.get(method) if isinstance(item, dict) else None
            if isinstance(operation, dict) and "security" in operation:
                requirements.append(operation["security"] or [])
    used: list[str] = []
    for options in requirements:
        if options and isinstance(options[0], dict):
            used += [name for name in options[0] if name not in used]
    out: dict[str, dict[str, str]] = {"headers": {}, "params": {}, "cookies": {}}
    secret = harness.SECRET_VALUE
    for name in used:
        scheme = schemes.get(name)
        if not isinstance(scheme, dict):
            continue
        kind = scheme.get("type")
        if kind == "http" and str(scheme.get("scheme", "")).lower() == "basic":
            token = base64.b64encode(f"{secret}:{secret}".encode()).decode()
            out["headers"].setdefault("Authorization", f"Basic {token}")
        elif kind in ("http", "oauth2", "openIdConnect"):
            out["headers"].setdefault("Authorization", f"Bearer {secret}")
        elif kind == "apiKey" and scheme.get("name"):
            place = {"header": "headers", "query": "params", "cookie": "cookies"}.get(str(scheme.get("in")))
            if place:
                out[place].setdefault(str(scheme["name"]), secret)
    return out


def server_command(python: Path, document: Path, base_url: str, facts: Path, client: Path) -> list[str]:
    return [str(python), str(SERVER), str(document), base_url, str(facts), str(client)]


def accepts(python: Path, document: Path, base_url: str, work: Path, side: FastSide) -> dict[str, Any]:
    """Whether FastMCP builds a server from the document (its server script, stdin closed at once: it writes
    its facts, then stops); the facts."""
    facts, client = work / "fastmcp-facts.json", work / "fastmcp-client.json"
    client.write_text(json.dumps(credentials(json.loads(document.read_text()))))
    facts.unlink(missing_ok=True)
    done = subprocess.run(
        server_command(python, document, base_url, facts, client),
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        timeout=STARTUP_TIMEOUT_S,
        cwd=work,
    )
    if not facts.exists():
        side.accepted, side.refusal = False, f"the server exited with {done.returncode}: {done.stderr[-600:]}"
        return {}
    found: dict[str, Any] = json.loads(facts.read_text())
    side.accepted, side.refusal, side.warnings = found["accepted"], found.get("refusal"), found.get("warnings", [])
    side.tools = len(found.get("tools") or [])
    return found


def map_arguments(
    arguments: dict[str, Any],
    where: dict[str, tuple[str, str]],
    parameter_map: dict[str, dict[str, str]],
    body_props: set[str],
) -> tuple[dict[str, Any], list[str]]:
    """failwell's arguments as FastMCP's: each through failwell's WHERE to (place, wire name), then to FastMCP's
    argument for that place and name; the names that have none."""
    by_place = {(m["location"], m["openapi_name"].lower()): arg for arg, m in parameter_map.items()}
    whole = [arg for arg, m in parameter_map.items() if m["location"] == "body" and m["openapi_name"] not in body_props]
    out: dict[str, Any] = {}
    unmapped: list[str] = []
    for name, value in arguments.items():
        place, key = where.get(name, ("", ""))
        target = by_place.get((place, key.lower()))
        if place in ("path", "query", "header", "cookie", "body") and target:
            out[target] = value
        elif place == "body" and whole:
            out.setdefault(whole[0], {})[key] = value
        elif place == "whole" and whole:
            out[whole[0]] = value
        elif place == "whole" and isinstance(value, dict) and all(("body", k.lower()) in by_place for k in value):
            out.update({by_place[("body", k.lower())]: v for k, v in value.items()})
        else:
            unmapped.append(name)
    return out, unmapped


def drive_fastmcp(
    entry: dict[str, Any], driven: harness.Driven, work: Path, python: Path, side: FastSide, document_path: Path
) -> None:
    """Replay each call failwell's side made (left out: those Prism left unanswered) on FastMCP's server."""
    harness.RESOLVED.clear()  # keyed by id(document): the failwell side's documents are gone
    harness.FILES.clear()
    small = json.loads(document_path.read_text())
    version = str(small.get("openapi"))
    name = re.sub(r"[^a-z0-9]+", "_", entry["name"].lower()).strip("_")
    project, package = work / name, f"{name}_mcp"
    nowhere = "http://127.0.0.1:9" + harness.base_path(small)
    given = document_path
    if any(not ref.startswith("#") for ref in harness.all_refs(small)):
        # references to other files (DigitalOcean's): from_openapi takes a dict and cannot follow them, so a
        # FastMCP user bundles the document first; it is tried as it is too, and its refusal recorded
        as_given = FastSide()
        accepts(python, document_path, nowhere, work, as_given)
        side.refusal_as_given = as_given.refusal
        given = work / "fastmcp-bundled.json"
        given.write_text(json.dumps(harness.deref(small, small, document_path.parent)))
        side.bundled = True
    facts = accepts(python, given, nowhere, work, side)
    if not side.accepted:
        return
    tools_by_operation = {(tool["method"], tool["path"]): tool for tool in facts["tools"]}
    calls = [call for call in driven.calls if not call.prism_silent]
    for call in calls:
        if (call.method, call.path) not in tools_by_operation:
            operation = f"{call.method} {call.path}"
            if operation not in side.operations_without_tool:
                side.operations_without_tool.append(operation)
    with prism(document_path, work / "prism-fastmcp.log") as port, forcing_proxy(port) as proxy:
        proxy.strip = harness.base_path(small)
        base_url = proxy.url + harness.base_path(small)
        command = server_command(python, given, base_url, work / "fastmcp-facts.json", work / "fastmcp-client.json")
        context = Replay(small, version, project, package, document_path.parent, proxy, tools_by_operation)
        anyio.run(replay, context, command, calls, side, work)


@dataclass
class Replay:
    document: dict[str, Any]
    version: str
    project: Path
    package: str
    base: Path
    proxy: Any
    tools_by_operation: dict[tuple[str, str], dict[str, Any]]


async def replay(context: Replay, command: list[str], calls: list[harness.Call], side: FastSide, work: Path) -> None:
    from mcp import Client, StdioServerParameters
    from mcp.client.stdio import stdio_client

    parameters = StdioServerParameters(command=command[0], args=command[1:], env=dict(os.environ), cwd=str(work))
    with (work / "fastmcp-server.log").open("w") as errlog:
        async with Client(stdio_client(parameters, errlog=errlog)) as session:  # type: ignore[arg-type]
            listed = {tool.name: tool for tool in (await session.list_tools()).tools}
            for failwell_call in calls:
                call, replayed = await one_call(context, session, listed, failwell_call, side)
                side.calls.append(call)
                side.replays.append(replayed)


def operation_facts(context: Replay, method: str, path: str) -> tuple[dict[str, Any], set[str], set[str]]:
    """The dereferenced operation, its request body's top-level properties (of its JSON schema, else its first),
    and the readOnly ones among them."""
    operation = ((context.document.get("paths") or {}).get(path) or {}).get(method.lower()) or {}
    operation = harness.deref(operation, context.document, context.base)
    content = ((operation.get("requestBody") or {}).get("content")) or {}
    json_body = next((c.get("schema") for m, c in content.items() if "json" in harness.media(m)), None)
    any_body = next((c.get("schema") for c in content.values() if isinstance(c, dict)), None)
    props = harness.body_properties(json_body if json_body is not None else any_body)
    read_only = {k for k, v in props.items() if isinstance(v, dict) and v.get("readOnly")}
    return operation, set(props), read_only


async def one_call(
    context: Replay, session: Any, listed: dict[str, Any], model: harness.Call, side: FastSide
) -> tuple[harness.Call, dict[str, Any]]:
    """The same operation, forced status and argument values as failwell's call `model`, on FastMCP's tool; how
    its arguments were had (filled, unmapped, whether they fit FastMCP's input schema)."""
    call = harness.Call(
        model.document,
        model.version,
        "",
        model.method,
        model.path,
        model.forced,
        model.forced_description,
        {},
        False,
        model.idempotent,
        model.effect,
        success_media=model.success_media,
        request_media=model.request_media,
        body_schema=model.body_schema,
    )
    tool_facts = context.tools_by_operation.get((model.method, model.path))
    tool = listed.get(tool_facts["name"]) if tool_facts else None
    if tool_facts is None or tool is None:
        call.error = f"no tool for {model.method} {model.path}"
        judge(call, None)
        return call, {"failwell_tool": model.tool}
    call.tool = tool.name
    where = harness.handler_facts(context.project, context.package, model.tool)[2]
    operation, body_props, read_only = operation_facts(context, model.method, model.path)
    parameter_map = tool_facts["parameter_map"]
    arguments, unmapped = map_arguments(model.arguments, where, parameter_map, body_props)
    unmapped = [name for name in unmapped if name in where]  # not failwell's own idempotency_key
    input_schema = tool.input_schema or {}
    defs = input_schema.get("$defs") or {}
    filled = [key for key in input_schema.get("required") or [] if key not in arguments]
    for key in filled:
        arguments[key] = harness.sample((input_schema.get("properties") or {}).get(key, {}), defs, key)
    misfit = next(iter(jsonschema.Draft202012Validator(input_schema).iter_errors(arguments)), None)
    replayed = {
        "failwell_tool": model.tool,
        "filled": filled,
        "unmapped": unmapped,
        "misfit": f"{list(misfit.absolute_path)}: {misfit.message[:160]}" if misfit else None,
    }
    side.arguments_unmapped += len(unmapped)
    side.arguments_filled += len(filled)
    side.arguments_misfit += misfit is not None
    call.arguments = arguments
    call.keyed = any(
        m["location"] == "header" and m["openapi_name"].lower() == "idempotency-key" and arg in arguments
        for arg, m in parameter_map.items()
    )
    call.read_only_inputs = sorted(
        arg for arg, m in parameter_map.items() if m["location"] == "body" and m["openapi_name"] in read_only
    )
    responses = operation.get("responses") or {}
    success_schema = next(
        (
            c.get("schema")
            for s in harness.concrete_statuses(operation)
            if 200 <= s < 300
            for m, c in ((responses.get(str(s)) or {}).get("content") or {}).items()
            if "json" in harness.media(m)
        ),
        None,
    )
    write_only = {
        k for k, v in harness.body_properties(success_schema).items() if isinstance(v, dict) and v.get("writeOnly")
    }
    output = tool.output_schema or {}
    if output.get("x-fastmcp-wrap-result"):
        output = (output.get("properties") or {}).get("result") or {}
    call.write_only_declared = bool(write_only)
    call.write_only_outputs = sorted(write_only & set(output.get("properties") or {}))
    proxy = context.proxy
    mark = proxy.mark()
    began = time.perf_counter()
    proxy.force = model.forced
    result = None
    try:
        with anyio.fail_after(harness.CALL_TIMEOUT_S):
            result = await session.call_tool(tool.name, arguments)
    except Exception as error:  # a call that raised is a wrong call, recorded
        call.error = f"{type(error).__name__}: {str(error)[:300]}"
    finally:
        proxy.force = None
        call.seconds = time.perf_counter() - began
    harness.record(call, result, proxy.since(mark), {})
    judge(call, replayed["misfit"])
    return call, replayed


def judge(call: harness.Call, misfit: str | None) -> None:
    """FASTMCP_CHECKS only (record() judged by every corpus check; those needing the envelope do not apply)."""
    call.wrong = {}
    if call.prism_silent:
        return
    if call.error and call.error.startswith("no tool"):
        call.wrong["tool_listed"] = call.error  # no call was made: nothing else to judge
        return
    for check in FASTMCP_CHECKS:
        if misfit and check.kind in BODY_KINDS:
            continue
        if check.kind == "reached" and call.error and OUTPUT_REFUSED.search(call.error):
            continue  # answer_fits_output counts it
        verdict = check.judge(call)
        if verdict is not None and verdict != "n/a":
            call.wrong[check.kind] = verdict


# --- one document, both sides ----------------------------------------------------------------------------------------


def counts(calls: list[harness.Call]) -> dict[str, Any]:
    judged = [call for call in calls if not call.prism_silent]
    return {
        "calls_driven": len(judged),
        "calls_right": sum(1 for call in judged if not call.wrong),
        "calls_right_but_accept": sum(1 for call in judged if set(call.wrong) <= {"accept"}),
        "prism_silent": len(calls) - len(judged),
        "wrong_by_kind": dict(Counter(kind for call in judged for kind in call.wrong).most_common()),
    }


def selection_path(work: Path) -> Path:
    """The cut-down document harness.drive wrote (beside a copy of its folder when it has relative refs)."""
    nested = work / "source" / "corpus-selection.json"
    return nested if nested.exists() else work / "corpus-selection.json"


def both_sides(entry: dict[str, Any], work: Path, python: Path) -> dict[str, Any]:
    started = time.perf_counter()
    row: dict[str, Any] = {"document": entry["name"], "openapi": entry["openapi"], "operations": entry["operations"]}
    side = FastSide()
    if entry.get("not_driven"):
        row["not_driven"] = entry["not_driven"]
        row["failwell"] = {"failure": entry["not_driven"], "calls_driven": 0, "calls_right": 0, "wrong_by_kind": {}}
        try:
            document = corpus.load(corpus.ensure(entry))
            small = harness.cut_down(document, harness.select(document))
            path = work / "corpus-selection.json"
            path.write_text(json.dumps(small))
            accepts(python, path, "http://127.0.0.1:9" + harness.base_path(small), work, side)
        except Exception as error:  # recorded in the row
            side.failure = f"{type(error).__name__}: {error}"
        row["fastmcp"] = fast_row(side)
        return row
    try:
        driven = harness.drive(entry, work)
    except Exception as error:  # a document that could not be had or cut down
        driven = harness.Driven(entry["name"], entry["operations"], 0, failure=f"{type(error).__name__}: {error}")
    row["selected"] = driven.selected
    row["failwell"] = {"tools": driven.tools, **counts(driven.calls), "failure": driven.failure}
    row["failwell_seconds"] = round(time.perf_counter() - started, 1)
    document_path = selection_path(work)
    if document_path.exists():
        try:
            drive_fastmcp(entry, driven, work, python, side, document_path)
        except Exception as error:  # recorded in the row
            side.failure = "".join(traceback.format_exception(error))[-2000:]
    else:
        side.failure = "the cut-down document was not written (see failwell's failure)"
    row["fastmcp"] = fast_row(side)
    row["seconds"] = round(time.perf_counter() - started, 1)
    row["calls"] = {
        "failwell": [asdict(call) | {"body_schema": None} for call in driven.calls],
        "fastmcp": [
            asdict(call) | {"body_schema": None} | replayed
            for call, replayed in zip(side.calls, side.replays, strict=True)
        ],
    }
    return row


def fast_row(side: FastSide) -> dict[str, Any]:
    return {
        "accepted": side.accepted,
        "refusal": side.refusal,
        "warnings": side.warnings[:20],
        "tools": side.tools,
        "operations_without_tool": side.operations_without_tool,
        "bundled": side.bundled,
        "refusal_as_given": side.refusal_as_given,
        "arguments_filled": side.arguments_filled,
        "arguments_unmapped": side.arguments_unmapped,
        "arguments_misfit": side.arguments_misfit,
        **counts(side.calls),
        "failure": side.failure,
    }


# --- the table -------------------------------------------------------------------------------------------------------


def most(wrong: dict[str, int], top: int = 3) -> str:
    return ", ".join(f"{kind} {n}" for kind, n in sorted(wrong.items(), key=lambda kv: (-kv[1], kv[0]))[:top]) or "-"


def ratio(side: dict[str, Any]) -> str:
    return f"{side.get('calls_right', 0)}/{side.get('calls_driven', 0)}"


def accepted_cell(row: dict[str, Any]) -> str:
    fm = row["fastmcp"]
    if fm["accepted"] is None:
        return f"not run: {one_line(fm['failure'] or '')}"
    if not fm["accepted"]:
        return f"no: {one_line(fm['refusal'] or '', 260)}"
    cell = "yes"
    if fm["bundled"]:
        cell += f", its file references inlined (as given: {one_line(fm['refusal_as_given'] or 'accepted', 200)})"
    if fm["operations_without_tool"]:
        cell += f"; {len(fm['operations_without_tool'])} operations made no tool"
    return cell + (" (not driven)" if row.get("not_driven") else "")


def markdown(rows: list[dict[str, Any]], version: str) -> str:
    lines = [
        f"| document | OpenAPI | operations (driven) | failwell right/driven | failwell fails most "
        f"| FastMCP {version} accepted? | FastMCP right/driven | FastMCP fails most |",
        "|---|---|---|---|---|---|---|---|",
    ]
    for row in rows:
        fw, fm = row["failwell"], row["fastmcp"]
        if row.get("not_driven"):
            fw_cell = "not driven: " + one_line(re.sub(r"^not driven:\s*", "", row["not_driven"]))
        elif fw.get("failure") and not fw.get("calls_driven"):
            fw_cell = f"failed: {one_line(fw['failure'])}"
        else:
            fw_cell = ratio(fw)
        if fm["failure"]:
            fm_cell = f"failed: {one_line(fm['failure'])}"
        else:
            fm_cell = ratio(fm) if fm["accepted"] and not row.get("not_driven") else "-"
        lines.append(
            f"| {row['document']} | {row['openapi']} | {row['operations']} ({row.get('selected', '-')}) "
            f"| {fw_cell} | {most(fw.get('wrong_by_kind') or {})} | {accepted_cell(row)} | {fm_cell} "
            f"| {most(fm.get('wrong_by_kind') or {}) if fm['accepted'] else '-'} |"
        )
    both = [r for r in rows if r["fastmcp"]["accepted"] and r["failwell"].get("calls_driven")]
    fw_all = [sum(r["failwell"].get(k, 0) for r in rows) for k in ("calls_right", "calls_driven")]
    fw_both = [sum(r["failwell"][k] for r in both) for k in ("calls_right", "calls_driven")]
    fm_both = [sum(r["fastmcp"][k] for r in both) for k in ("calls_right", "calls_driven")]
    accepted = sum(1 for r in rows if r["fastmcp"]["accepted"])
    lines.append(
        f"| **all** | | | {fw_all[0]}/{fw_all[1]} (on the {len(both)} documents both drove: {fw_both[0]}/{fw_both[1]}) "
        f"| {most(sum_kinds(rows, 'failwell'), 5)} | {accepted} of {len(rows)} | {fm_both[0]}/{fm_both[1]} "
        f"| {most(sum_kinds(both, 'fastmcp'), 5)} |"
    )
    filled, unmapped, misfit = (sum(r["fastmcp"].get(k, 0) for r in rows) for k in ARGUMENT_FIGURES)
    but = [sum(r[side].get("calls_right_but_accept", 0) for r in both) for side in ("failwell", "fastmcp")]
    lines += [
        "",
        f"Both send `Accept: */*` on every call (issue 41 point 8); without the accept check, on the same "
        f"{len(both)} documents: failwell {but[0]}/{fw_both[1]}, FastMCP {but[1]}/{fm_both[1]}.",
        "",
        f"FastMCP's calls replay failwell's: same operation, forced status and argument values. {filled} required "
        f"FastMCP arguments failwell had no value for were filled from FastMCP's schema; {unmapped} of failwell's "
        f"arguments had no FastMCP argument; {misfit} calls' arguments did not fit FastMCP's input schema (their "
        f"{', '.join(sorted(BODY_KINDS))} not judged). FastMCP is judged by "
        f"{', '.join(check.kind for check in FASTMCP_CHECKS)}; not by {', '.join(NOT_FOR_FASTMCP)} (they read "
        "failwell's failure envelope).",
    ]
    return "\n".join(lines)


ARGUMENT_FIGURES = ("arguments_filled", "arguments_unmapped", "arguments_misfit")


def sum_kinds(rows: list[dict[str, Any]], key: str) -> dict[str, int]:
    total = Counter[str]()
    for row in rows:
        total.update(row[key].get("wrong_by_kind") or {})
    return dict(total)


def one_line(text: str, limit: int = 90) -> str:
    line = " ".join(str(text).split()).replace("|", "\\|")
    return line if len(line) <= limit else line[: limit - 1] + "…"


def write_json(path: Path, rows: list[dict[str, Any]]) -> None:
    out = {
        "fastmcp_version": FASTMCP_VERSION,
        "checks": {
            "fastmcp": {check.kind: check.point for check in FASTMCP_CHECKS},
            "not_for_fastmcp": NOT_FOR_FASTMCP,
            "failwell": {check.kind: check.point for check in harness.CHECKS},
        },
        "table": [{key: value for key, value in row.items() if key != "calls"} for row in rows],
        "calls": {row["document"]: row.get("calls") for row in rows},
    }
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(out, indent=1, default=str))


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--json", type=Path, help="where to write the table and every call (required to run)")
    parser.add_argument("--only", action="append", default=[], help="a document's name (repeatable, or a,b)")
    parser.add_argument("--keep", type=Path, help="keep each document's work folder under this folder")
    parser.add_argument("--markdown-from", type=Path, help="print the Markdown table of a JSON written before")
    args = parser.parse_args(argv)
    if args.markdown_from:
        written = json.loads(args.markdown_from.read_text())
        print(markdown(written["table"], written["fastmcp_version"]))
        return 0
    only = {name for value in args.only for name in value.split(",") if name}
    if args.json is None:
        parser.error("--json is required (where to write the table and every call)")
    entries = [entry for entry in corpus.entries() if not only or entry["name"] in only]
    if only - {entry["name"] for entry in entries}:
        parser.error(f"no such document: {sorted(only - {e['name'] for e in entries})}")
    python = fastmcp_python()
    rows: list[dict[str, Any]] = []
    root = Path(tempfile.mkdtemp(prefix="failwell-fastmcp-")) if args.keep is None else args.keep
    try:
        for entry in entries:
            work = root / entry["name"]
            if work.exists():
                shutil.rmtree(work)
            work.mkdir(parents=True)
            print(f"{entry['name']} ...", file=sys.stderr, flush=True)
            row = both_sides(entry, work, python)
            rows.append(row)
            write_json(args.json, rows)  # after each document: a run stopped half-way keeps what it measured
            fw, fm = row["failwell"], row["fastmcp"]
            print(
                f"{entry['name']}: failwell {ratio(fw)}, FastMCP "
                f"{ratio(fm) if fm['accepted'] else 'refused: ' + one_line(fm['refusal'] or fm['failure'] or '')}"
                f" ({row.get('seconds', 0)} s)",
                file=sys.stderr,
                flush=True,
            )
    finally:
        if args.keep is None:
            shutil.rmtree(root, ignore_errors=True)
    print(markdown(rows, FASTMCP_VERSION))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
