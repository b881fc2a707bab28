"""Resources and prompts of a generated server, as clients meet them: the tasks example in a real subprocess
over stdio and over streamable HTTP on 127.0.0.1, driven by the real `mcp` client and by raw JSON-RPC.

A read answers its contents; every failure is a JSON-RPC error whose message is the spec's composed words and
whose `data` is the envelope tools put in `_meta`: an expired handle (an archived task's reference) is -32602
naming the tool that makes a new one, a parameter the schema refuses is -32602 naming it, an unknown URI or
prompt is -32602 naming what exists, a crash is -32603 with a reference and nothing else. `resources/list`
pages a template's listing 100 at a time with a cursor the server checks."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from httpserver import client, http_server
from mcp import Client, StdioServerParameters
from mcp.shared.exceptions import MCPError
from mcp.types import PromptReference, ResourceTemplateReference, TextResourceContents

from conftest import EXAMPLES
from failwell import new

pytestmark = pytest.mark.slow

SRC = EXAMPLES / "tasks" / "src"
TOKEN = "readers-token-5e2b8c1d7a"
ARCHIVED = (
    'Task T-0 was closed and archived, so its reference has expired. Call tasks_search with status "any" to find '
    "it by its title, or tasks_create to open a new task. Nothing was changed. Retrying the same call will not help."
)
LEAKS = ("hunter2", "10.20.30.40", "postgres://", "sk_live_", "Traceback", "RuntimeError")


def env(tmp_path: Path) -> dict[str, str]:
    return {"TASKS_TOKENS": TOKEN, "FAILWELL_SQLITE_PATH": str(tmp_path / "tasks.sqlite3"), "PYTHONPATH": str(SRC)}


async def raised(call: Any) -> MCPError:
    with pytest.raises(MCPError) as error:
        await call
    return error.value


async def exercise(session: Client) -> None:
    """Every channel of the tasks example's resource and prompt, through one client session."""
    read = await session.read_resource("tasks://T-1")
    (contents,) = read.contents
    assert isinstance(contents, TextResourceContents) and contents.mime_type == "application/json"
    assert json.loads(contents.text) == {
        "ref": "T-1",
        "title": "Draft the release notes",
        "status": "open",
        "assignee": "@ada",
    }

    archived = await raised(session.read_resource("tasks://T-0"))
    assert (archived.error.code, archived.error.message) == (-32602, ARCHIVED)
    envelope = {
        key: value for key, value in archived.error.data.items() if key != "io.modelcontextprotocol/toolFailure"
    }
    assert envelope.pop("reference").startswith("ERR-")
    assert envelope == {
        "class": "not_found",
        "failure": "task_archived",
        "retryable": False,
        "retry_after_s": None,
        "changed": "none",
    }

    refused = await raised(session.read_resource("tasks://X-9"))
    assert refused.error.code == -32602
    assert refused.error.message.startswith("The task resource was not served: its arguments were not accepted:\n")
    assert (
        '`ref` received "X-9" (a string), but it accepts a string matching ^T-[0-9]+$, such as "T-1".'
        in refused.error.message
    )
    assert refused.error.data["class"] == "invalid_input"

    unknown = await raised(session.read_resource("board://everything"))
    assert unknown.error.code == -32602
    assert unknown.error.data == {"uri": "board://everything", "resources": [], "templates": ["tasks://{ref}"]}

    listed = await session.list_resources()
    assert [(each.uri, each.name) for each in listed.resources] == [("tasks://T-1", "task"), ("tasks://T-3", "task")]
    assert listed.next_cursor is None
    templates = await session.list_resource_templates()
    assert [each.uri_template for each in templates.resource_templates] == ["tasks://{ref}"]

    prompts = await session.list_prompts()
    (triage,) = prompts.prompts
    assert [(a.name, a.required) for a in triage.arguments or []] == [("ref", True), ("depth", False)]
    got = await session.get_prompt("triage", {"ref": "T-3", "depth": "thorough"})
    (message,) = got.messages
    assert message.role == "user" and "Review the onboarding checklist" in message.content.text  # type: ignore[union-attr]
    missing = await raised(session.get_prompt("triage", {}))
    assert missing.error.code == -32602 and "`ref` is required but was not given" in missing.error.message
    gone = await raised(session.get_prompt("triage", {"ref": "T-0"}))
    assert (gone.error.code, gone.error.message) == (-32602, ARCHIVED)
    nope = await raised(session.get_prompt("summary", {}))
    assert (nope.error.code, nope.error.data) == (-32602, {"prompt": "summary", "available": ["triage"]})

    depth = await session.complete(PromptReference(name="triage"), {"name": "depth", "value": "th"})
    assert depth.completion.values == ["thorough"]
    refs = await session.complete(ResourceTemplateReference(uri="tasks://{ref}"), {"name": "ref", "value": "T-"})
    assert refs.completion.values == ["T-1", "T-2", "T-3"]


@pytest.mark.anyio
@pytest.mark.parametrize("mode", ["auto", "legacy"])
async def test_the_real_client_over_stdio(tmp_path: Path, mode: str) -> None:
    variables = {**os.environ, **env(tmp_path)}
    params = StdioServerParameters(command=sys.executable, args=["-m", "tasks_mcp"], env=variables)
    async with Client(params, mode=mode) as session:  # type: ignore[arg-type]
        await exercise(session)


@pytest.mark.anyio
@pytest.mark.parametrize("mode", ["auto", "legacy"])
async def test_the_real_client_over_streamable_http(tmp_path: Path, mode: str) -> None:
    with http_server("tasks_mcp", SRC, tmp_path / "stderr.log", env(tmp_path)) as running:
        async with client(running.url, TOKEN, mode) as session:
            await exercise(session)
        assert "Traceback" not in running.logged()


def raw(
    messages: list[dict[str, Any]], module: str, src: Path, tmp_path: Path, *args: str
) -> tuple[dict[Any, Any], str]:
    """Raw JSON-RPC lines to `python -m module` over stdio after the handshake: the answers by id, and stderr."""
    hello = {"protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "raw", "version": "0"}}
    opening = [
        {"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": hello},
        {"jsonrpc": "2.0", "method": "notifications/initialized"},
    ]
    ran = subprocess.run(
        [sys.executable, "-m", module, *args],
        input="".join(json.dumps(message) + "\n" for message in [*opening, *messages]).encode(),
        capture_output=True,
        timeout=60,
        env={**os.environ, **env(tmp_path), "PYTHONPATH": str(src)},
    )
    assert ran.returncode == 0, ran.stderr.decode()[-2000:]
    return {answer["id"]: answer for answer in map(json.loads, ran.stdout.decode().splitlines())}, ran.stderr.decode()


def test_raw_json_rpc_sees_the_same_codes_and_envelopes(tmp_path: Path) -> None:
    requests = [
        {"jsonrpc": "2.0", "id": 1, "method": "resources/read", "params": {"uri": "tasks://T-0"}},
        {"jsonrpc": "2.0", "id": 2, "method": "resources/read", "params": {"uri": "tasks://T-2"}},
        {"jsonrpc": "2.0", "id": 3, "method": "prompts/get", "params": {"name": "triage", "arguments": {"ref": "t-1"}}},
        {"jsonrpc": "2.0", "id": 4, "method": "resources/list", "params": {"cursor": "eyJvZmZzZXQiOiA5OTl9"}},
    ]
    answers, log = raw(requests, "tasks_mcp", SRC, tmp_path)
    assert answers[1]["error"]["code"] == -32602 and answers[1]["error"]["message"] == ARCHIVED
    assert answers[1]["error"]["data"]["io.modelcontextprotocol/toolFailure"]["code"] == "task_archived"
    assert json.loads(answers[2]["result"]["contents"][0]["text"])["status"] == "closed"
    assert answers[3]["error"]["code"] == -32602 and '`ref` received "t-1"' in answers[3]["error"]["message"]
    assert answers[4]["error"] == {
        "code": -32602,
        "message": (
            "Invalid cursor: resources/list takes only a nextCursor this server gave this caller (a restart or "
            "another replica does not take it); list again from the start, without a cursor."
        ),
        "data": {"method": "resources/list", "cursor": "eyJvZmZzZXQiOiA5OTl9"},
    }
    assert "Traceback" not in log


def test_a_crashing_resource_or_prompt_is_32603_with_a_reference_and_nothing_else(tmp_path: Path) -> None:
    requests = [
        {"jsonrpc": "2.0", "id": 1, "method": "resources/read", "params": {"uri": "tasks://T-1"}},
        {"jsonrpc": "2.0", "id": 2, "method": "prompts/get", "params": {"name": "triage", "arguments": {"ref": "T-1"}}},
    ]
    answers, log = raw(requests, "tasks_mcp._generated.testing", SRC, tmp_path, "crash")
    for number in (1, 2):
        error = answers[number]["error"]
        assert error["code"] == -32603
        reference = error["data"]["reference"]
        assert reference in error["message"] and error["data"]["class"] == "internal"
        assert [marker for marker in LEAKS if marker in json.dumps(error)] == []
        logged = [json.loads(line) for line in log.splitlines() if reference in line]
        assert len(logged) == 1 and "Traceback" in logged[0]["traceback"]
    # each log line says what it is about by kind and name, not by a label such as "The task resource"
    about = [
        (line["kind"], line.get(line["kind"]), line["event"])
        for line in map(json.loads, filter(lambda raw_line: raw_line.startswith("{"), log.splitlines()))
        if line.get("class") == "internal"
    ]
    assert about == [("resource", "task", "resource read failed"), ("prompt", "triage", "prompt get failed")]
    assert not [line for line in log.splitlines() if '"tool": "The ' in line]


PAGES = """\
failwell: 1
server: {name: pages}
resources:
  row:
    uri: "rows://{number}"
    description: One row by its number.
    params:
      number: {type: integer, minimum: 1, example: 1}
"""
ROW = """\
from ..._generated.resources.row import Context, Output, Params


async def handle(params: Params, ctx: Context) -> Output:
    return f"row {params.number}"


async def listing(ctx: Context) -> list[Params]:
    return [Params(number=number) for number in range(1, 251)]
"""


@pytest.mark.anyio
async def test_resources_list_pages_a_long_listing_with_cursors_it_checks(tmp_path: Path) -> None:
    spec = tmp_path / "pages.yaml"
    spec.write_text(PAGES)
    new(tmp_path / "pages", spec)
    (tmp_path / "pages" / "src" / "pages_mcp" / "handlers" / "resources" / "row.py").write_text(ROW)
    src = tmp_path / "pages" / "src"
    seen: list[str] = []
    cursors: list[str] = []
    variables = {**os.environ, **env(tmp_path), "PYTHONPATH": str(src)}
    params = StdioServerParameters(command=sys.executable, args=["-m", "pages_mcp"], env=variables)
    async with Client(params) as session:  # type: ignore[arg-type]
        for _ in range(10):
            result = await session.list_resources(cursor=cursors[-1] if cursors else None)
            seen += [str(each.uri) for each in result.resources]
            if result.next_cursor is None:
                break
            cursors.append(result.next_cursor)
    assert len(cursors) == 2 and seen == [f"rows://{n}" for n in range(1, 251)], "pages of 100, 100 and 50"
    # Cursors are signed by the process that gave them out: another process (here, each `raw`) refuses them too.
    for bogus in ("bm90IGEgY3Vyc29y", "", cursors[0] + "x", cursors[0], cursors[1]):
        answers, _ = raw(
            [{"jsonrpc": "2.0", "id": 1, "method": "resources/list", "params": {"cursor": bogus}}],
            "pages_mcp",
            src,
            tmp_path,
        )
        assert answers[1]["error"]["code"] == -32602, bogus


@pytest.mark.parametrize(
    "mime_type",
    [
        "application/json",
        "application/vnd.x+json",
        "text/plain; charset=utf-8",
        "text/markdown",
        "application/xml",
        "image/svg+xml",
        "application/yaml",
        "image/png",
        "application/octet-stream",
        "APPLICATION/JSON",
    ],
)
def test_the_generator_types_a_handler_as_the_runtime_sends_its_contents(mime_type: str) -> None:
    """model.py types a resource handler's output by MIME type; runtime/resources.py sends it by the same rule."""
    from ledger import importable

    from failwell.render.model import _text_kind

    with importable(SRC, "tasks_mcp"):
        from tasks_mcp._generated.runtime.resources import content_kind

        sent = content_kind(mime_type)
    assert _text_kind(mime_type) == {"json": "dict[str, Any] | list[Any]", "text": "str", "binary": "bytes"}[sent]
