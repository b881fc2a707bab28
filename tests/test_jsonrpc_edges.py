"""Messages that are not one well-formed JSON-RPC request get a JSON-RPC error, on stdio and HTTP, in both eras.

A real generated server (the records example) over a real stdio pipe and over `serve --http` on
127.0.0.1, sent raw bytes: a request whose id is not a string or an integer gets -32600 with id null
(the SDK took it for a notification and never answered); a batch or a JSON object that is not JSON-RPC
gets -32600 in one sentence with nothing from pydantic; and over HTTP a request carrying the 2026-07-28
`_meta` envelope with a missing or other MCP-Protocol-Version header gets 400 with -32020 and its id
(the SDK served it on the handshake era with 200). After each, the server still serves.
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
from httpserver import ACCEPT, Running, http_server

from conftest import EXAMPLES

pytestmark = pytest.mark.slow

SRC = EXAMPLES / "records" / "src"
MODERN = "2026-07-28"
LEGACY = "2025-11-25"
ENVELOPE = {
    "io.modelcontextprotocol/protocolVersion": MODERN,
    "io.modelcontextprotocol/clientCapabilities": {},
    "io.modelcontextprotocol/clientInfo": {"name": "edges", "version": "0"},
}
INVALID_IDS = [None, 1.5, True, [1], {}]
IDS = ["null", "fraction", "true", "array", "object"]
BATCH = [{"jsonrpc": "2.0", "id": 1, "method": "tools/list"}, {"jsonrpc": "2.0", "id": 2, "method": "tools/list"}]
NOT_JSON_RPC = [
    pytest.param(BATCH, "batches are not supported", id="batch"),
    pytest.param({"hello": "world"}, "not a JSON-RPC 2.0 request", id="plain-object"),
    pytest.param({"jsonrpc": "1.0", "id": 7, "method": "tools/list"}, "not a JSON-RPC 2.0 request", id="jsonrpc-1.0"),
    pytest.param({"jsonrpc": "2.0", "id": 7, "method": "tools/list", "params": [1]}, "not a JSON-RPC", id="params"),
]


def listing(request_id: Any, era: str) -> dict[str, Any]:
    """tools/list with `request_id`, carrying the 2026-07-28 envelope when `era` is that one."""
    params = {"_meta": ENVELOPE} if era == MODERN else {}
    return {"jsonrpc": "2.0", "id": request_id, "method": "tools/list", "params": params}


def assert_one_sentence_invalid_request(answer: dict[str, Any], request_id: Any = None) -> None:
    assert answer["jsonrpc"] == "2.0" and "id" in answer and answer["id"] == request_id, answer
    assert answer["error"]["code"] == -32600, answer
    message = answer["error"]["message"]
    assert message.startswith("Invalid Request: ") and "\n" not in message, message
    assert message.count(". ") == 0 and len(message) < 120, message
    assert "pydantic" not in json.dumps(answer).lower() and "data" not in answer["error"], answer


# stdio


def stdio_session(era: str, lines: list[str]) -> list[dict[str, Any]]:
    """Send `lines` (after the handshake on the 2025-11-25 era), close stdin; every stdout line, parsed."""
    hello = {"protocolVersion": LEGACY, "capabilities": {}, "clientInfo": {"name": "edges", "version": "0"}}
    opening = [
        json.dumps({"jsonrpc": "2.0", "id": "hello", "method": "initialize", "params": hello}),
        json.dumps({"jsonrpc": "2.0", "method": "notifications/initialized"}),
    ]
    ran = subprocess.run(
        [sys.executable, "-m", "records_mcp"],
        input=("\n".join([*(opening if era == LEGACY else []), *lines]) + "\n").encode(),
        capture_output=True,
        timeout=60,
        env={**os.environ, "PYTHONPATH": str(SRC)},
    )
    assert ran.returncode == 0, ran.stderr.decode()[-2000:]
    answers = [json.loads(line) for line in ran.stdout.decode().splitlines()]
    return [answer for answer in answers if answer.get("id") != "hello"]


@pytest.fixture(autouse=True)
def sqlite_path(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("FAILWELL_SQLITE_PATH", str(tmp_path / "records.sqlite3"))


@pytest.mark.parametrize("era", [LEGACY, MODERN])
def test_stdio_answers_each_invalid_id_with_32600_and_id_null_and_goes_on(era: str) -> None:
    lines = [json.dumps(listing(bad, era)) for bad in INVALID_IDS]
    answers = stdio_session(era, [*lines, json.dumps(listing(9, era))])
    errors, served = answers[:-1], answers[-1]
    assert len(errors) == len(INVALID_IDS), answers
    for error in errors:
        assert_one_sentence_invalid_request(error)
        assert error["error"]["message"] == "Invalid Request: a request's id must be a string or an integer"
    assert served["id"] == 9 and [tool["name"] for tool in served["result"]["tools"]], served


def test_stdio_still_serves_notifications_without_an_id() -> None:
    cancel = {"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"requestId": 99}}
    answers = stdio_session(LEGACY, [json.dumps(cancel), json.dumps(listing(9, LEGACY))])
    assert [answer["id"] for answer in answers] == [9], answers


@pytest.mark.parametrize("era", [LEGACY, MODERN])
@pytest.mark.parametrize(("body", "words"), NOT_JSON_RPC)
def test_stdio_answers_a_batch_or_non_json_rpc_with_one_sentence(era: str, body: Any, words: str) -> None:
    answers = stdio_session(era, [json.dumps(body), json.dumps(listing(9, era))])
    assert len(answers) == 2, answers
    assert_one_sentence_invalid_request(answers[0], body.get("id") if isinstance(body, dict) else None)
    assert words in answers[0]["error"]["message"]
    assert answers[1]["id"] == 9 and "result" in answers[1], answers


# HTTP


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Running]:
    folder = tmp_path_factory.mktemp("edges-http")
    env = {"FAILWELL_SQLITE_PATH": str(folder / "records.sqlite3")}
    with http_server("records_mcp", SRC, folder / "stderr.log", env) as running:
        yield running


def post(server: Running, body: Any, version: str | None, **headers: str) -> httpx.Response:
    sent = {**ACCEPT, **({"mcp-protocol-version": version} if version else {}), **headers}
    method = body.get("method") if isinstance(body, dict) else None
    if version == MODERN and isinstance(method, str):
        sent.setdefault("mcp-method", method)
    return httpx.post(server.url, content=json.dumps(body).encode(), headers=sent, timeout=30)


def payload(response: httpx.Response) -> Any:
    """The JSON-RPC message of a response: its JSON body, or the data of its one SSE event (2025-11-25)."""
    if response.headers["content-type"].startswith("text/event-stream"):
        data = [line[5:] for line in response.text.splitlines() if line.startswith("data:")]
        assert len(data) == 1, response.text
        return json.loads(data[0])
    return response.json()


def assert_still_serving(server: Running, era: str) -> None:
    answered = post(server, listing(9, era), era)
    assert answered.status_code == 200, answered.text
    assert [tool["name"] for tool in payload(answered)["result"]["tools"]], answered.text


@pytest.mark.parametrize("era", [LEGACY, MODERN])
@pytest.mark.parametrize("bad", INVALID_IDS, ids=IDS)
def test_http_answers_an_invalid_id_with_400_32600_and_id_null(server: Running, era: str, bad: Any) -> None:
    answered = post(server, listing(bad, era), era)
    assert answered.status_code == 400, (answered.status_code, answered.text)
    assert answered.headers["content-type"].startswith("application/json")
    assert_one_sentence_invalid_request(answered.json())
    assert answered.json()["error"]["message"] == "Invalid Request: a request's id must be a string or an integer"
    assert_still_serving(server, era)


@pytest.mark.parametrize("era", [LEGACY, MODERN])
@pytest.mark.parametrize(("body", "words"), NOT_JSON_RPC)
def test_http_answers_a_batch_or_non_json_rpc_with_one_sentence(
    server: Running, era: str, body: Any, words: str
) -> None:
    answered = post(server, body, era)
    assert answered.status_code == 400, (answered.status_code, answered.text)
    assert "pydantic" not in answered.text.lower() and len(answered.content) < 300, answered.text
    assert_one_sentence_invalid_request(answered.json(), body.get("id") if isinstance(body, dict) else None)
    assert words in answered.json()["error"]["message"]
    if isinstance(body, list):
        assert "per request" in answered.json()["error"]["message"]
    assert_still_serving(server, era)


def test_http_answers_a_body_that_is_not_json_with_32700(server: Running) -> None:
    answered = httpx.post(server.url, content=b'{"jsonrpc": "2.0", "id": 2', headers=ACCEPT, timeout=30)
    assert answered.status_code == 400
    assert answered.json() == {
        "jsonrpc": "2.0",
        "id": None,
        "error": {"code": -32700, "message": "Parse error: the body is not JSON"},
    }


@pytest.mark.parametrize("header", [LEGACY, "2025-06-18", None], ids=["2025-11-25", "2025-06-18", "no-header"])
@pytest.mark.parametrize("request_id", [41, "call-41"])
def test_http_refuses_a_2026_envelope_with_another_era_header(
    server: Running, header: str | None, request_id: Any
) -> None:
    answered = post(server, listing(request_id, MODERN), header)
    assert answered.status_code == 400, (answered.status_code, answered.text)
    answer = answered.json()
    assert answer["id"] == request_id and answer["error"]["code"] == -32020, answer
    assert "MCP-Protocol-Version" in answer["error"]["message"] and "\n" not in answer["error"]["message"]
    assert_still_serving(server, MODERN)


def test_http_the_sdk_still_refuses_a_modern_header_with_a_2025_envelope(server: Running) -> None:
    body = listing(42, MODERN)
    body["params"]["_meta"] = {**ENVELOPE, "io.modelcontextprotocol/protocolVersion": LEGACY}
    answered = post(server, body, MODERN)
    assert answered.status_code == 400 and answered.json()["error"]["code"] == -32020, answered.text
    assert answered.json()["id"] == 42


@pytest.mark.parametrize("era", [LEGACY, MODERN])
def test_http_a_well_formed_request_with_its_eras_header_is_served(server: Running, era: str) -> None:
    answered = post(server, listing(43, era), era)
    assert answered.status_code == 200, answered.text
    assert payload(answered)["id"] == 43
    assert ("resultType" in payload(answered)["result"]) is (era == MODERN)


def test_http_initialize_with_the_envelope_and_no_header_is_the_handshake(server: Running) -> None:
    hello = {"protocolVersion": LEGACY, "capabilities": {}, "clientInfo": {"name": "edges", "version": "0"}}
    body = {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {**hello, "_meta": ENVELOPE}}
    answered = post(server, body, None)
    assert answered.status_code == 200, answered.text
    assert payload(answered)["result"]["protocolVersion"] == LEGACY


def test_http_a_notification_is_still_accepted(server: Running) -> None:
    notification = {"jsonrpc": "2.0", "method": "notifications/initialized"}
    assert post(server, notification, LEGACY).status_code == 202
