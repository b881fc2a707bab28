"""What a generated server declares, and how it answers a name it does not serve: the tasks example in a real
subprocess, over stdio and over streamable HTTP on 127.0.0.1, in both eras (a 2025-11-25 `initialize`, and
the 2026-07-28 per-request envelope with `server/discover`), on the raw wire and through the real MCP client.

Capabilities name exactly what is served: tools, prompts and resources, whose lists never change (so nothing
can be subscribed to), completion (the example's prompt and template have values to offer); logging only in
the handshake era, where `logging/setLevel` is answered. A prompt, a resource or a tool the server does not
have is -32602 with what was asked and what exists in `data`, a cursor the server did not give out is -32602,
a method of a capability not declared (subscriptions) is -32601, and so are prompts and resources on a server
whose spec declares none; never code 0, never -32603, and never an ERROR line or a traceback in the log for a
client's mistake.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from httpserver import client, http_server
from mcp.shared.exceptions import MCPError

from conftest import EXAMPLES

pytestmark = pytest.mark.slow

SRC = EXAMPLES / "tasks" / "src"
TOKEN = "edges-token-3c9e1a7f5b"
LEGACY, MODERN = "2025-11-25", "2026-07-28"
ERAS = [LEGACY, MODERN]
TOOLS = ["tasks_close", "tasks_create", "tasks_get", "tasks_search"]
ENVELOPE = {
    "io.modelcontextprotocol/protocolVersion": MODERN,
    "io.modelcontextprotocol/clientInfo": {"name": "edges", "version": "0"},
    "io.modelcontextprotocol/clientCapabilities": {},
}
PROMPT_REF = {"type": "ref/prompt", "name": "nope"}
CAPABILITIES = {
    "tools": {"listChanged": False},
    "prompts": {"listChanged": False},
    "resources": {"listChanged": False},
    "completions": {},
}
REQUESTS: dict[str, tuple[str, dict[str, Any]]] = {
    "tools_cursor": ("tools/list", {"cursor": "bogus"}),
    "tools_empty_cursor": ("tools/list", {"cursor": ""}),
    "tools": ("tools/list", {}),
    "prompts": ("prompts/list", {}),
    "prompts_cursor": ("prompts/list", {"cursor": "bogus"}),
    "prompt": ("prompts/get", {"name": "nope", "arguments": {"a": "b"}}),
    "resources": ("resources/list", {}),
    "resources_cursor": ("resources/list", {"cursor": "bogus"}),
    "templates": ("resources/templates/list", {}),
    "templates_cursor": ("resources/templates/list", {"cursor": "bogus"}),
    "resource": ("resources/read", {"uri": "file:///nope.txt"}),
    "subscribe": ("resources/subscribe", {"uri": "file:///nope.txt"}),
    "listen": ("subscriptions/listen", {"notifications": {"toolsListChanged": True}}),
    "complete": ("completion/complete", {"ref": PROMPT_REF, "argument": {"name": "a", "value": "b"}}),
    "set_level": ("logging/setLevel", {"level": "info"}),
    "tool": ("tools/call", {"name": "tasks_delete", "arguments": {"ref": "T-1"}}),
}
"""Each request by a name for the assertions: the method and its params (the era's `_meta` is added)."""


def rpc(number: int, method: str, params: dict[str, Any], era: str) -> dict[str, Any]:
    params = {**params, "_meta": ENVELOPE} if era == MODERN else params
    return {"jsonrpc": "2.0", "id": number, "method": method, "params": params}


def opening(era: str) -> list[dict[str, Any]]:
    """What a client sends first: `initialize` and `initialized`, or (2026-07-28) `server/discover`."""
    if era == MODERN:
        return [rpc(0, "server/discover", {}, era)]
    hello = {"protocolVersion": LEGACY, "capabilities": {}, "clientInfo": {"name": "edges", "version": "0"}}
    return [
        {"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": hello},
        {"jsonrpc": "2.0", "method": "notifications/initialized"},
    ]


def over_stdio(era: str, tmp_path: Path) -> tuple[dict[str, dict[str, Any]], str]:
    """Every request over one stdio session; the answers by request name (`opened` for the first), and stderr."""
    names = ["opened", *REQUESTS]
    messages = [*opening(era), *(rpc(i, *REQUESTS[name], era) for i, name in enumerate(names) if i)]
    ran = subprocess.run(
        [sys.executable, "-m", "tasks_mcp"],
        input="".join(json.dumps(message) + "\n" for message in messages).encode(),
        capture_output=True,
        timeout=60,
        env={**os.environ, "PYTHONPATH": str(SRC), "FAILWELL_SQLITE_PATH": str(tmp_path / "tasks.sqlite3")},
    )
    answers = [json.loads(line) for line in ran.stdout.decode().splitlines()]
    assert ran.returncode == 0 and len(answers) == len(names), ran.stderr.decode()[-2000:]
    return {names[answer["id"]]: answer for answer in answers}, ran.stderr.decode()


def posted(http: httpx.Client, url: str, message: dict[str, Any], era: str) -> dict[str, Any] | None:
    """One message POSTed with the headers its era requires; the JSON-RPC answer, from JSON or an event stream."""
    headers = {"accept": "application/json, text/event-stream", "mcp-protocol-version": era}
    headers["authorization"] = f"Bearer {TOKEN}"
    if era == MODERN:
        headers["mcp-method"] = message["method"]
        name = message["params"].get("name", message["params"].get("uri"))
        if message["method"] in ("tools/call", "prompts/get", "resources/read"):
            headers["mcp-name"] = name
    response = http.post(url, json=message, headers=headers)
    if "id" not in message:
        assert response.status_code == 202, response.text
        return None
    if response.headers.get("content-type", "").startswith("text/event-stream"):
        data = [line[5:] for line in response.text.splitlines() if line.startswith("data:")]
        answer: dict[str, Any] = json.loads(next(line for line in data if line.strip()))
    else:
        answer = response.json()
    answer["status"] = response.status_code
    return answer


@pytest.fixture(scope="module")
def http_answers(tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict[str, tuple[dict[str, Any], str]]]:
    """Every request over streamable HTTP in each era, against one server; the answers and its stderr."""
    root = tmp_path_factory.mktemp("protocol-edges-http")
    env = {"TASKS_TOKENS": TOKEN, "FAILWELL_SQLITE_PATH": str(root / "tasks.sqlite3")}
    found = {}
    with http_server("tasks_mcp", SRC, root / "stderr.log", env) as running, httpx.Client(timeout=30) as http:
        for era in ERAS:
            answers: dict[str, dict[str, Any]] = {}
            for message in opening(era):
                answer = posted(http, running.url, message, era)
                if answer is not None:
                    answers["opened"] = answer
            for number, name in enumerate(REQUESTS, start=1):
                answers[name] = posted(http, running.url, rpc(number, *REQUESTS[name], era), era) or {}
            found[era] = answers
        log = running.logged()
        yield {era: (answers, log) for era, answers in found.items()}


@pytest.fixture(params=[(transport, era) for transport in ("stdio", "http") for era in ERAS], ids=str)
def answered(
    request: pytest.FixtureRequest, tmp_path: Path, http_answers: dict[str, tuple[dict[str, Any], str]]
) -> tuple[str, dict[str, dict[str, Any]], str]:
    """(era, the answers by request name, the server's stderr) for one transport and era."""
    transport, era = request.param
    answers, log = over_stdio(era, tmp_path) if transport == "stdio" else http_answers[era]
    return era, answers, log


def error(answer: dict[str, Any]) -> dict[str, Any]:
    assert "error" in answer and "result" not in answer, answer
    found: dict[str, Any] = answer["error"]
    assert found["code"] not in (0, -32603), found
    return found


def one_sentence(message: str) -> None:
    assert message.endswith(".") and message.count(". ") == 0 and "\n" not in message, message


def test_the_capabilities_name_exactly_what_is_served(answered: tuple[str, dict[str, dict[str, Any]], str]) -> None:
    era, answers, _ = answered
    opened = answers["opened"]["result"]
    expected: dict[str, Any] = dict(CAPABILITIES)
    if era == LEGACY:
        expected["logging"] = {}  # logging/setLevel is answered in this era (2026-07-28 removed it)
    assert opened["capabilities"] == expected
    assert (opened["protocolVersion"] if era == LEGACY else opened["supportedVersions"]) == (
        LEGACY if era == LEGACY else [MODERN]
    )


def test_a_prompt_or_resource_the_server_lacks_is_32602_naming_it_and_what_exists(
    answered: tuple[str, dict[str, dict[str, Any]], str],
) -> None:
    _, answers, _ = answered
    prompt = error(answers["prompt"])
    assert prompt == {
        "code": -32602,
        "message": "Unknown prompt: nope; call prompts/list for the prompts this server has.",
        "data": {"prompt": "nope", "available": ["triage"]},
    }
    resource = error(answers["resource"])
    assert resource == {
        "code": -32602,
        "message": (
            "Unknown resource: file:///nope.txt; call resources/list and resources/templates/list for the "
            "resources this server has."
        ),
        "data": {"uri": "file:///nope.txt", "resources": [], "templates": ["tasks://{ref}"]},
    }
    completion = error(answers["complete"])
    assert completion["code"] == -32602 and completion["data"] == {"prompt": "nope", "available": ["triage"]}


def test_the_lists_say_what_is_served_and_a_cursor_the_server_did_not_give_is_32602(
    answered: tuple[str, dict[str, dict[str, Any]], str],
) -> None:
    _, answers, _ = answered
    assert [prompt["name"] for prompt in answers["prompts"]["result"]["prompts"]] == ["triage"]
    assert [resource["uri"] for resource in answers["resources"]["result"]["resources"]] == [
        "tasks://T-1",
        "tasks://T-3",
    ]
    assert [each["uriTemplate"] for each in answers["templates"]["result"]["resourceTemplates"]] == ["tasks://{ref}"]
    assert [tool["name"] for tool in answers["tools"]["result"]["tools"]] == TOOLS
    cursors = {
        "tools_cursor": ("tools/list", "bogus"),
        "tools_empty_cursor": ("tools/list", ""),
        "prompts_cursor": ("prompts/list", "bogus"),
        "templates_cursor": ("resources/templates/list", "bogus"),
    }
    for name, (method, cursor) in cursors.items():
        found = error(answers[name])
        assert found["code"] == -32602, (name, found)
        assert found["message"] == f"Invalid cursor: {method} answers with one page, so it takes no cursor."
        assert found["data"] == {"method": method, "cursor": cursor}
    paged = error(answers["resources_cursor"])
    assert paged == {
        "code": -32602,
        "message": (
            "Invalid cursor: resources/list takes only a nextCursor this server gave this caller (a restart or "
            "another replica does not take it); list again from the start, without a cursor."
        ),
        "data": {"method": "resources/list", "cursor": "bogus"},
    }


def test_a_method_of_a_capability_not_declared_is_32601_naming_it(
    answered: tuple[str, dict[str, dict[str, Any]], str],
) -> None:
    era, answers, _ = answered
    undeclared = ["subscribe", "listen"] + (["set_level"] if era == MODERN else [])
    for name in undeclared:
        found = error(answers[name])
        assert found["code"] == -32601, (name, found)
        assert found["data"] == REQUESTS[name][0]
    if era == LEGACY:
        assert answers["set_level"]["result"] == {}


def test_an_unknown_tool_is_one_sentence_with_the_tools_in_data(
    answered: tuple[str, dict[str, dict[str, Any]], str],
) -> None:
    _, answers, _ = answered
    found = error(answers["tool"])
    assert found["code"] == -32602
    assert found["message"] == "Unknown tool: tasks_delete; call tools/list for the tools this server has."
    one_sentence(found["message"])
    assert found["data"] == {"tool": "tasks_delete", "available": TOOLS}


def test_a_clients_mistake_leaves_no_error_or_traceback_in_the_log(
    answered: tuple[str, dict[str, dict[str, Any]], str],
) -> None:
    _, answers, log = answered
    assert len(answers) == len(REQUESTS) + 1, "every request was answered"
    assert "Traceback" not in log and "Internal server error" not in log
    lines = [json.loads(line) for line in log.splitlines() if line.strip()]
    assert lines, "the server logged (it logs that its store is ready)"
    assert not [line for line in lines if line.get("level") in ("error", "critical")], log


@pytest.mark.anyio
@pytest.mark.parametrize("mode", ["legacy", "auto"])
async def test_the_real_client_sees_the_same_in_the_era_it_negotiates(tmp_path: Path, mode: str) -> None:
    env = {"TASKS_TOKENS": TOKEN, "FAILWELL_SQLITE_PATH": str(tmp_path / "tasks.sqlite3")}
    with http_server("tasks_mcp", SRC, tmp_path / "stderr.log", env) as running:
        async with client(running.url, TOKEN, mode) as session:
            declared = session.server_capabilities.model_dump(by_alias=True, exclude_none=True)
            assert declared == (CAPABILITIES | ({"logging": {}} if mode == "legacy" else {}))
            with pytest.raises(MCPError) as prompt:
                await session.get_prompt("nope")
            wanted = (-32602, {"prompt": "nope", "available": ["triage"]})
            assert (prompt.value.error.code, prompt.value.error.data) == wanted
            with pytest.raises(MCPError) as tool:
                await session.call_tool("tasks_delete", {})
            assert (
                tool.value.error.message == "Unknown tool: tasks_delete; call tools/list for the tools this server has."
            )
            assert [each.name for each in (await session.list_prompts()).prompts] == ["triage"]
        assert "Traceback" not in running.logged()


def test_over_http_the_status_follows_the_code_in_the_2026_era(
    http_answers: dict[str, tuple[dict[str, Any], str]],
) -> None:
    """2026-07-28 maps -32602 to HTTP 400 and -32601 to 404; the handshake era answers every error with 200."""
    for era, (answers, _) in http_answers.items():
        for name, answer in answers.items():
            code = answer.get("error", {}).get("code")
            expected = {-32602: 400, -32601: 404}.get(code, 200) if era == MODERN else 200
            assert answer["status"] == expected, (era, name, answer)


def test_a_server_without_prompts_or_resources_does_not_serve_their_methods(tmp_path: Path) -> None:
    """The records example declares tools only: its capabilities say so, and prompts and resources are -32601."""
    methods = ["prompts/list", "prompts/get", "resources/list", "resources/templates/list", "resources/read"]
    params: dict[str, dict[str, Any]] = {"prompts/get": {"name": "x"}, "resources/read": {"uri": "a://b"}}
    messages = [*opening(LEGACY), *(rpc(i, m, params.get(m, {}), LEGACY) for i, m in enumerate(methods, start=1))]
    ran = subprocess.run(
        [sys.executable, "-m", "records_mcp"],
        input="".join(json.dumps(message) + "\n" for message in messages).encode(),
        capture_output=True,
        timeout=60,
        env={
            **os.environ,
            "PYTHONPATH": str(EXAMPLES / "records" / "src"),
            "FAILWELL_SQLITE_PATH": str(tmp_path / "records.sqlite3"),
        },
    )
    answers = {answer["id"]: answer for answer in map(json.loads, ran.stdout.decode().splitlines())}
    assert answers[0]["result"]["capabilities"] == {"tools": {"listChanged": False}, "logging": {}}
    for number, method in enumerate(methods, start=1):
        assert answers[number]["error"]["code"] == -32601, (method, answers[number])
        assert answers[number]["error"]["data"] == method
