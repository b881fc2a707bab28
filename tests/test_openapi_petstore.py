"""`failwell import openapi` end to end (issue 29): tests/openapi/petstore.yaml imported with no hand-written code,
generated, and run as a real stdio subprocess driven by the real `mcp` client against a fake Petstore on
127.0.0.1 that serves the document and misbehaves on purpose (404, 409, 422 with a field error, 429 with
Retry-After, 503 then 200, a hang). The model sees a success, and for each failure its class, the six parts
of its message and none of the upstream's words; a keyed POST whose first attempt hung runs once upstream."""

from __future__ import annotations

import base64
import json
import os
import re
import sys
import threading
import time
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest
from mcp import Client, StdioServerParameters
from mcp.client.stdio import stdio_client
from mcp.types import CallToolResult

from conftest import REPO, failwell
from failwell import generate

pytestmark = [pytest.mark.anyio, pytest.mark.slow]

DOC = REPO / "tests" / "openapi" / "petstore.yaml"
SECRET = "upstream-secret-words-9F3A"
TOKEN = "tok_live_abcdefghijklmnop"


class FakePetstore:
    """The Petstore on 127.0.0.1: replies scripted per `METHOD /path` (then a default), every request recorded
    with its query, headers and body."""

    def __init__(self) -> None:
        self.script: dict[str, list[tuple[int, Any, dict[str, str], float]]] = {}
        self.requests: list[dict[str, Any]] = []
        self.lock = threading.Lock()
        fake = self

        class Handler(BaseHTTPRequestHandler):
            def answer(self) -> None:
                length = int(self.headers.get("content-length") or 0)
                body = self.rfile.read(length).decode()
                path, _, query = self.path.partition("?")
                key = f"{self.command} {path}"
                with fake.lock:
                    fake.requests.append({"key": key, "query": query, "headers": dict(self.headers), "body": body})
                    queue = fake.script.get(key) or []
                    status, payload, headers, delay = queue.pop(0) if queue else (404, {"message": SECRET}, {}, 0.0)
                time.sleep(delay)
                data = b"" if payload is None else json.dumps(payload).encode()
                try:
                    self.send_response(status)
                    for name, value in {"content-type": "application/json", **headers}.items():
                        self.send_header(name, value)
                    self.send_header("content-length", str(len(data)))
                    self.end_headers()
                    self.wfile.write(data)
                except (BrokenPipeError, ConnectionResetError):
                    pass

            do_GET = do_POST = do_PUT = do_DELETE = answer

            def log_message(self, format: str, *args: Any) -> None:
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.server.daemon_threads = True
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}/v1"
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)

    def reply(
        self, key: str, status: int, payload: Any = None, headers: dict[str, str] | None = None, delay: float = 0.0
    ) -> None:
        self.script.setdefault(key, []).append((status, payload, headers or {}, delay))

    def sent(self, key: str) -> list[dict[str, Any]]:
        return [r for r in self.requests if r["key"] == key]

    def __enter__(self) -> FakePetstore:
        self.thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.server.shutdown()
        self.server.server_close()
        self.thread.join(timeout=5)


@pytest.fixture(scope="module")
def project(tmp_path_factory: pytest.TempPathFactory) -> Path:
    dest = tmp_path_factory.mktemp("openapi") / "pets"
    done = failwell("import", "openapi", DOC, dest)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "Traceback" not in done.stderr
    # a hang must be seen within the test: one attempt may take 1 s (the document's API gets 10 s)
    spec = dest / "failwell.yaml"
    spec.write_text(spec.read_text().replace("timeout_s: 10", "timeout_s: 1"))
    generate(dest)
    return dest


@pytest.fixture
def petstore() -> Iterator[FakePetstore]:
    with FakePetstore() as fake:
        yield fake


def server(project: Path, fake: FakePetstore) -> StdioServerParameters:
    env = {**os.environ, "PYTHONPATH": str(project / "src"), "PETS_API_URL": fake.url, "PETS_BEARER_TOKEN": TOKEN}
    env["FAILWELL_SQLITE_PATH"] = str(project / "records.sqlite3")
    return StdioServerParameters(command=sys.executable, args=["-m", "pets_mcp"], env=env)


def failure(result: CallToolResult, failure_class: str) -> str:
    """The text of an error result of `failure_class`, checked for the six parts and for no upstream words."""
    assert result.is_error, result
    envelope = (result.meta or {})["dev.failwell/error"]
    assert envelope["class"] == failure_class, envelope
    text = " ".join(block.text for block in result.content if hasattr(block, "text"))
    assert SECRET not in text and SECRET not in json.dumps(envelope), text
    assert "127.0.0.1" not in text and TOKEN not in text
    assert re.search(r"retry|again|wait", text, re.I), f"no word on retrying: {text}"
    assert re.search(r"changed|may have been applied|applied", text, re.I), f"no word on what changed: {text}"
    return text


async def test_the_imported_petstore_succeeds_and_fails_well(project: Path, petstore: FakePetstore) -> None:
    fake = petstore
    async with Client(server(project, fake)) as session:  # type: ignore[arg-type]
        tools = {tool.name: tool for tool in (await session.list_tools()).tools}
        assert set(tools) == {
            "list_pets",
            "create_pet",
            "get_pet",
            "replace_pet",
            "delete_pet",
            "add_note",
            "get_store_status",
        }
        assert tools["delete_pet"].annotations.destructive_hint is True  # type: ignore[union-attr]
        assert tools["replace_pet"].annotations.idempotent_hint is True  # type: ignore[union-attr]
        assert tools["list_pets"].annotations.read_only_hint is True  # type: ignore[union-attr]
        assert "idempotency_key" in tools["create_pet"].input_schema["properties"]
        assert {"pet_id", "pet_id_body", "name"} <= set(tools["replace_pet"].input_schema["properties"])

        # a success: query parameters (with the default), the bearer token from the secret setting
        fake.reply("GET /v1/pets", 200, {"pets": [{"id": 1, "name": "Rex"}], "next": None, "extra": SECRET})
        result = await session.call_tool("list_pets", {"tag": "dog"})
        assert not result.is_error, result
        assert result.structured_content == {"pets": [{"id": 1, "name": "Rex"}], "next": None}
        (sent,) = fake.sent("GET /v1/pets")
        assert sorted(sent["query"].split("&")) == ["limit=20", "tag=dog"]
        assert sent["headers"].get("Authorization") == f"Bearer {TOKEN}"

        # 404: not_found, naming the value and the tool to find one
        fake.reply("GET /v1/pets/404", 404, {"message": SECRET})
        text = failure(await session.call_tool("get_pet", {"pet_id": 404}), "not_found")
        assert text.startswith('The API has no record with pet_id 404 ("No pet has this id"). Each must name')
        assert "Call list_pets to find" in text and "Nothing was changed" in text and "will not help" in text

        # 409 and 422 (with a field error in the body): conflict and invalid_input, keyed writes
        key = "3f0c9b1e-7d2a-4c55-9e61-0a8f2b7c4d10"
        fake.reply("POST /v1/pets", 409, {"message": SECRET})
        text = failure(await session.call_tool("create_pet", {"name": "Rex", "idempotency_key": key}), "conflict")
        assert "Rex" in text and "list_pets" in text
        posted = fake.sent("POST /v1/pets")[-1]
        assert json.loads(posted["body"]) == {"name": "Rex"} and posted["headers"].get("Idempotency-Key")
        fake.reply("POST /v1/pets", 422, {"errors": [{"field": "name", "message": SECRET}]})
        text = failure(
            await session.call_tool("create_pet", {"name": "Rex", "idempotency_key": key[:-1] + "1"}), "invalid_input"
        )
        assert "name" in text

        # 429 with Retry-After (longer than the deadline leaves, so not waited for here): rate_limited, saying when
        fake.reply("GET /v1/pets", 429, {"message": SECRET}, {"retry-after": "60"})
        result = await session.call_tool("list_pets", {})
        assert "60 s" in failure(result, "rate_limited")
        assert (result.meta or {})["dev.failwell/error"]["retry_after_s"] == 60

        # 503 then 200: a read is retried, and succeeds
        before = len(fake.sent("GET /v1/pets/7"))
        fake.reply("GET /v1/pets/7", 503, {"message": SECRET})
        fake.reply("GET /v1/pets/7", 200, {"id": 7, "name": "Tom", "species": "cat"})
        result = await session.call_tool("get_pet", {"pet_id": 7})
        assert not result.is_error and result.structured_content == {
            "id": 7,
            "name": "Tom",
            "species": "cat",
            "born": None,
        }
        assert len(fake.sent("GET /v1/pets/7")) - before == 2

        # a form-encoded body, a path parameter and a body field of the same name, a 204 answered as text
        fake.reply("POST /v1/pets/7/notes", 201, None)
        result = await session.call_tool("add_note", {"pet_id": 7, "text": "Needs a bath"})
        assert not result.is_error, result
        note = fake.sent("POST /v1/pets/7/notes")[-1]
        assert note["body"] == "text=Needs+a+bath&urgent=false"
        assert note["headers"]["Content-Type"].startswith("application/x-www-form-urlencoded")
        fake.reply("PUT /v1/pets/7", 200, None)
        result = await session.call_tool("replace_pet", {"pet_id": 7, "pet_id_body": 8, "name": "Tom"})
        assert not result.is_error, result
        assert json.loads(fake.sent("PUT /v1/pets/7")[-1]["body"]) == {"name": "Tom", "petId": 8}

        # a keyed POST answered 503 then 201: retried once, both attempts carrying the same derived key (not the
        # model's own), and another key derives another
        fake.reply("POST /v1/pets", 503, {"message": SECRET})
        fake.reply("POST /v1/pets", 201, {"id": 8, "name": "Bo"})
        before = len(fake.sent("POST /v1/pets"))
        key = "5b2e8c1a-0d4f-4e7a-9c3b-6f1d2a8e7b90"
        result = await session.call_tool("create_pet", {"name": "Bo", "idempotency_key": key})
        assert not result.is_error and (result.structured_content or {}).get("id") == 8, result
        attempts = [r["headers"].get("Idempotency-Key") for r in fake.sent("POST /v1/pets")[before:]]
        assert len(attempts) == 2 and attempts[0] == attempts[1] and attempts[0] not in (None, key), attempts
        assert attempts[0] != posted["headers"]["Idempotency-Key"], "two keys derived one upstream key"

        # a hang on a keyed POST: timeout, honest about a change that may have happened; the same call again
        # (same key) is not run a second time upstream
        key = "hang-0000000000000001"
        fake.reply("POST /v1/pets", 201, {"id": 9, "name": "Slow"}, delay=3.0)
        fake.reply("POST /v1/pets", 201, {"id": 9, "name": "Slow"})
        before = len(fake.sent("POST /v1/pets"))
        text = failure(await session.call_tool("create_pet", {"name": "Slow", "idempotency_key": key}), "timeout")
        assert "The pets_api service did not answer in time" in text and "may have been applied" in text
        again = await session.call_tool("create_pet", {"name": "Slow", "idempotency_key": key})
        assert again.is_error and "list_pets" in " ".join(b.text for b in again.content if hasattr(b, "text"))
        assert len(fake.sent("POST /v1/pets")) - before == 1, "the keyed POST ran twice upstream"


KEYS = {
    "basic_username": "ada-user-7Q2",
    "basic_password": "pw-basic-4XZ9",
    "header_key": "hk-8C1V",
    "query_key": "qk-5M3T",
}
"""The secret settings of the credentials document below, each a value that must reach the API and no log."""


def credentials_document() -> dict[str, Any]:
    """Three reads, each secured by another kind of scheme (HTTP basic, API key in a header, API key in the query),
    and a write that documents only its success (so every failure keeps its class's server-wide words)."""

    def read(operation_id: str, scheme: str) -> dict[str, Any]:
        return {
            "operationId": operation_id,
            "summary": f"Read with {scheme}.",
            "security": [{scheme: []}],
            "responses": {
                "200": {"description": "ok", "content": {"application/json": {"schema": {"type": "object"}}}}
            },
        }

    return {
        "openapi": "3.1.0",
        "info": {"title": "Keys", "version": "1"},
        "servers": [{"url": "https://keys.example.com/v1"}],
        "paths": {
            "/basic": {"get": read("readBasic", "basic")},
            "/header": {"get": read("readHeader", "header")},
            "/query": {"get": read("readQuery", "query")},
            "/jobs": {
                "post": {
                    "operationId": "startJob",
                    "summary": "Start a job.",
                    "security": [{"header": []}],
                    "responses": {"202": {"description": "Started."}},
                }
            },
        },
        "components": {
            "securitySchemes": {
                "basic": {"type": "http", "scheme": "basic"},
                "header": {"type": "apiKey", "in": "header", "name": "X-Api-Key"},
                "query": {"type": "apiKey", "in": "query", "name": "api_key"},
            }
        },
    }


async def test_every_kind_of_credential_is_sent_and_never_logged_and_undocumented_failures_keep_their_class(
    tmp_path: Path, petstore: FakePetstore
) -> None:
    """HTTP basic, a header key and a query key are each sent as their scheme says and appear in no log line (at
    DEBUG) and no message; a status the operation does not document gets its class's server-wide words; the
    upstream client's circuit breaker stops calling an upstream that keeps failing."""
    import yaml

    source = tmp_path / "keys.yaml"
    source.write_text(yaml.safe_dump(credentials_document()))
    dest = tmp_path / "keys"
    done = failwell("import", "openapi", source, dest)
    assert done.returncode == 0, done.stdout + done.stderr
    spec = dest / "failwell.yaml"
    assert sorted(yaml.safe_load(spec.read_text())["server"]["settings"]) == sorted(KEYS)
    spec.write_text(spec.read_text().replace("timeout_s: 10", "timeout_s: 1").replace("retries: 2", "retries: 0"))
    generate(dest)
    fake = petstore
    env = {**os.environ, "PYTHONPATH": str(dest / "src"), "KEYS_API_URL": fake.url, "LOG_LEVEL": "DEBUG"}
    env.update({f"KEYS_{name.upper()}": value for name, value in KEYS.items()})
    env["FAILWELL_SQLITE_PATH"] = str(dest / "records.sqlite3")
    parameters = StdioServerParameters(command=sys.executable, args=["-m", "keys_mcp"], env=env)
    log = tmp_path / "server.log"
    with log.open("w") as errlog:
        async with Client(stdio_client(parameters, errlog=errlog)) as session:  # type: ignore[arg-type]
            for tool in ("read_basic", "read_header", "read_query"):
                fake.reply(f"GET /v1/{tool.split('_')[1]}", 200, {"ok": True})
                result = await session.call_tool(tool, {})
                assert not result.is_error, result
            basic = base64.b64encode(f"{KEYS['basic_username']}:{KEYS['basic_password']}".encode()).decode()
            (sent,) = fake.sent("GET /v1/basic")
            assert sent["headers"].get("Authorization") == f"Basic {basic}" and "X-Api-Key" not in sent["headers"]
            (sent,) = fake.sent("GET /v1/header")
            assert sent["headers"].get("X-Api-Key") == KEYS["header_key"] and "Authorization" not in sent["headers"]
            (sent,) = fake.sent("GET /v1/query")
            assert sent["query"] == f"api_key={KEYS['query_key']}" and "Authorization" not in sent["headers"]

            # undocumented statuses: the class of the status, in the runtime's own words, none of the API's
            fake.reply("POST /v1/jobs", 403, {"message": SECRET})
            text = failure(await session.call_tool("start_job", {}), "permission_denied")
            assert text.startswith("The keys_api service refused"), text
            fake.reply("POST /v1/jobs", 409, {"message": SECRET})
            failure(await session.call_tool("start_job", {}), "conflict")

            # five failed attempts in a row open the breaker: the sixth call is refused without calling the API
            for _ in range(5):
                fake.reply("GET /v1/query", 503, {"message": SECRET})
                failure(await session.call_tool("read_query", {}), "upstream_unavailable")
            before = len(fake.requests)
            result = await session.call_tool("read_query", {})
            assert "paused" in failure(result, "upstream_unavailable")
            assert len(fake.requests) == before, "the open breaker still called the API"
    logged = log.read_text()
    assert '"level": "debug"' in logged and "circuit opened" in logged, logged[-2000:]
    for name, value in KEYS.items():
        assert value not in logged, f"{name} was logged"
    assert basic not in logged and SECRET not in logged


def trains_document() -> dict[str, Any]:
    """Issue 41's words, in one small API: the root as an operation, a list and an item of bookings, an item with
    no list, statuses outside the built-in table, and a POST without an Idempotency-Key that fails with a 5xx."""

    def answered(operation_id: str, *statuses: tuple[str, str], parameter: str = "") -> dict[str, Any]:
        operation: dict[str, Any] = {
            "operationId": operation_id,
            "summary": f"Call {operation_id}.",
            "responses": {
                "200": {"description": "ok", "content": {"application/json": {"schema": {"type": "object"}}}},
                **{status: {"description": words} for status, words in statuses},
            },
        }
        if parameter:
            operation["parameters"] = [
                {
                    "name": parameter,
                    "in": "path",
                    "required": True,
                    "description": "Its id.",
                    "schema": {"type": "string"},
                }
            ]
        return operation

    booking = answered(
        "getBooking",
        ("401", "Unauthorized"),
        ("404", "Not Found"),
        ("418", "IP has been auto-banned for extensive sending of requests"),
        ("500", "Internal Server Error"),
        parameter="bookingId",
    )
    create = answered("createBooking", ("500", "Internal Server Error"))
    create["requestBody"] = {
        "required": True,
        "content": {
            "application/json": {
                "schema": {"type": "object", "required": ["trip"], "properties": {"trip": {"type": "string"}}}
            }
        },
    }
    return {
        "openapi": "3.1.0",
        "info": {"title": "Trains", "version": "1"},
        "servers": [{"url": "https://trains.example.com/v1"}],
        "security": [{"bearer": []}],
        "paths": {
            "/": {"get": {"summary": "The API's root.", "responses": {"200": {"description": "Links."}}}},
            "/bookings": {"get": answered("listBookings"), "post": create},
            "/bookings/{bookingId}": {"get": booking},
            "/stations/{stationId}": {"get": answered("getStation", ("404", "Not Found"), parameter="stationId")},
        },
        "components": {"securitySchemes": {"bearer": {"type": "http", "scheme": "bearer"}}},
    }


async def test_an_imported_apis_words_are_whole_mapped_by_meaning_and_never_invite_a_blind_retry(
    tmp_path: Path, petstore: FakePetstore
) -> None:
    """Issue 41 points 1, 3, 4, 5 and 11 over a real stdio subprocess against an API on 127.0.0.1: a 401 reads
    whole (nothing masked in "the credentials this server uses"); a 418 the document calls a ban is a refusal, not
    invalid_input; a 404 names the list of the same records, or asks the user, and never the root's tool `get`; a
    5xx names `GET /bookings/{bookingId}`, not a method glued to a tool; a POST without a key that got a 500 is
    sent once and told to check whether the change took effect, never invited to retry."""
    import yaml

    source = tmp_path / "trains.yaml"
    source.write_text(yaml.safe_dump(trains_document()))
    dest = tmp_path / "trains"
    done = failwell("import", "openapi", source, dest)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "GET /bookings/{bookingId}: FW317 HTTP 418" in done.stdout + done.stderr
    spec = dest / "failwell.yaml"
    spec.write_text(spec.read_text().replace("retries: 2", "retries: 0"))
    generate(dest)
    fake = petstore
    env = {**os.environ, "PYTHONPATH": str(dest / "src"), "TRAINS_API_URL": fake.url, "TRAINS_BEARER_TOKEN": TOKEN}
    env["FAILWELL_SQLITE_PATH"] = str(dest / "records.sqlite3")
    parameters = StdioServerParameters(command=sys.executable, args=["-m", "trains_mcp"], env=env)
    async with Client(stdio_client(parameters)) as session:  # type: ignore[arg-type]
        assert "get" in {tool.name for tool in (await session.list_tools()).tools}

        fake.reply("GET /v1/bookings/B-1", 401, {"message": SECRET})
        text = failure(await session.call_tool("get_booking", {"booking_id": "B-1"}), "permission_denied")
        assert "[redacted" not in text, text
        assert text.startswith(
            'The API refused GET /bookings/{bookingId} for booking_id B-1 ("Unauthorized"): the credentials this '
            "server uses may not do it."
        ), text

        fake.reply("GET /v1/bookings/B-2", 418, {"message": SECRET})
        failure(await session.call_tool("get_booking", {"booking_id": "B-2"}), "permission_denied")

        fake.reply("GET /v1/bookings/B-3", 404, {"message": SECRET})
        text = failure(await session.call_tool("get_booking", {"booking_id": "B-3"}), "not_found")
        assert "Call list_bookings to find the right value" in text, text
        fake.reply("GET /v1/stations/S-1", 404, {"message": SECRET})
        text = failure(await session.call_tool("get_station", {"station_id": "S-1"}), "not_found")
        assert "Ask the user for the right value" in text and "Call get " not in text, text

        fake.reply("GET /v1/bookings/B-4", 500, {"message": SECRET})
        text = failure(await session.call_tool("get_booking", {"booking_id": "B-4"}), "upstream_unavailable")
        assert text.startswith('The API failed to answer GET /bookings/{bookingId} ("Internal Server Error").'), text
        assert "GET get_booking" not in text

        fake.reply("POST /v1/bookings", 500, {"message": SECRET})
        before = len(fake.sent("POST /v1/bookings"))
        result = await session.call_tool("create_booking", {"trip": "T-1"})
        text = failure(result, "upstream_unavailable")
        assert "POST create_booking" not in text and "The API failed to answer POST /bookings" in text, text
        assert text.endswith(
            "The change may have been applied. Do not call it again blindly: first check whether the change took "
            "effect."
        ), text
        assert not re.search(r"retry(ing)?[^.]{0,40}(may|might|will|should) (succeed|work)", text, re.I), text
        assert (result.meta or {})["dev.failwell/error"]["retryable"] is False
        assert len(fake.sent("POST /v1/bookings")) - before == 1
