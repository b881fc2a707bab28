"""What an imported server sends to its API, and how its own retries wait (issue 41, points 2, 6, 7, 8, 9, 10):
tests/openapi/wire.yaml imported with the real CLI, generated, and run as a real stdio subprocess driven by the
real `mcp` client against a shop on 127.0.0.1 that records every request (its headers, its body, and when it
arrived, on the shop's own clock), judged from outside the server.

- 2: a body holds what the model sent, at every depth (no `null` for a field it left out, nor for the other
  variant of an `anyOf`); a required body is sent (`{}`) when the model sent none of its optional fields. A
  body the fields cannot say (an `anyOf` of closed variants, `minProperties`) is one `body` input holding its
  JSON Schema: sent as written, refused at its path when it does not fit.
- 6: a 429 without Retry-After is retried no sooner than the wait the model is told (10 s).
- 7: `Retry-After: 120` (or an HTTP-date two minutes ahead) is told as 120 s, and not waited for.
- 8: every request asks (Accept) for the media type the import chose for the success answer: JSON where the API
  offers XML first, CSV where CSV is all it offers.
- 9: readOnly properties (at two depths) are not inputs and are never sent; a writeOnly one is not an output.
- 10: each body goes with the Content-Type the import chose: a `+json` type, a form, multipart, octet-stream."""

from __future__ import annotations

import email.utils
import json
import os
import sys
import threading
import time
import urllib.parse
from collections.abc import Callable, Iterator
from dataclasses import dataclass
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

DOC = REPO / "tests" / "openapi" / "wire.yaml"
DEADLINE_S = 15
"""The quota read's deadline in these tests: room for one wait of 10 s, not two."""


@dataclass
class Arrived:
    """One request as the shop received it: `at` is the shop's own monotonic clock."""

    method: str
    path: str
    query: str
    headers: dict[str, str]
    body: bytes
    at: float

    def header(self, name: str) -> str | None:
        return next((value for key, value in self.headers.items() if key.lower() == name.lower()), None)


class Shop:
    """The shop's API on 127.0.0.1: replies scripted per `METHOD /path` (else 200 with `{}`), every request
    recorded."""

    def __init__(self) -> None:
        self.script: dict[str, list[tuple[int, bytes, dict[str, str | Callable[[], str]]]]] = {}
        self.arrived: list[Arrived] = []
        self.lock = threading.Lock()
        shop = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def answer(self) -> None:
                length = int(self.headers.get("content-length") or 0)
                body = self.rfile.read(length) if length else b""
                path, _, query = self.path.partition("?")
                with shop.lock:
                    shop.arrived.append(
                        Arrived(self.command, path, query, dict(self.headers.items()), body, time.monotonic())
                    )
                    queue = shop.script.get(f"{self.command} {path}") or []
                    status, data, headers = queue.pop(0) if queue else (200, b"{}", {})
                try:
                    self.send_response(status)
                    for name, value in {"content-type": "application/json", **headers}.items():
                        self.send_header(name, value() if callable(value) else value)
                    self.send_header("content-length", str(len(data)))
                    self.end_headers()
                    self.wfile.write(data)
                except (BrokenPipeError, ConnectionResetError):
                    pass

            do_GET = do_POST = do_PUT = do_PATCH = answer

            def log_message(self, format: str, *args: Any) -> None:
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.server.daemon_threads = True
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}/v2"
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)

    def reply(
        self, key: str, status: int, payload: Any = None, headers: dict[str, str | Callable[[], str]] | None = None
    ) -> None:
        """Answer the next request to `key` so; a header given as a function is written when the request comes."""
        data = b"" if payload is None else payload if isinstance(payload, bytes) else json.dumps(payload).encode()
        self.script.setdefault(key, []).append((status, data, headers or {}))

    def to(self, key: str) -> list[Arrived]:
        method, path = key.split(" ", 1)
        with self.lock:
            return [a for a in self.arrived if a.method == method and a.path == path]

    def __enter__(self) -> Shop:
        self.thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.server.shutdown()
        self.server.server_close()
        self.thread.join(timeout=5)


@pytest.fixture(scope="module")
def project(tmp_path_factory: pytest.TempPathFactory) -> Path:
    dest = tmp_path_factory.mktemp("wire") / "shop"
    done = failwell("import", "openapi", DOC, dest)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "Traceback" not in done.stderr
    spec = dest / "failwell.yaml"
    text = spec.read_text()
    quota = "  get_quota:\n"
    assert quota in text
    spec.write_text(text.replace(quota, f"{quota}    deadline_s: {DEADLINE_S}\n"))
    generate(dest)
    return dest


@pytest.fixture
def shop() -> Iterator[Shop]:
    with Shop() as running:
        yield running


def server(project: Path, shop: Shop) -> StdioServerParameters:
    env = {**os.environ, "PYTHONPATH": str(project / "src"), "SHOP_API_URL": shop.url}
    env["FAILWELL_SQLITE_PATH"] = str(project / "records.sqlite3")
    return StdioServerParameters(command=sys.executable, args=["-m", "shop_mcp"], env=env)


def succeeded(result: CallToolResult) -> CallToolResult:
    assert not result.is_error, result.content
    return result


def envelope(result: CallToolResult) -> dict[str, Any]:
    assert result.is_error, result
    found: dict[str, Any] = (result.meta or {})["dev.failwell/error"]
    return found


def text(result: CallToolResult) -> str:
    return " ".join(getattr(block, "text", "") for block in result.content)


ORDER = {"item": "tea", "shipping": {"street": "1 Main St"}, "payment": {"iban": "DE89370400440532013000"}}
"""An order as a model sends it: one of the shipping address's fields, one of the payment's two variants."""


async def test_read_only_is_no_input_and_write_only_no_output(project: Path, shop: Shop) -> None:
    """Point 9: readOnly properties are not inputs, at the top of a body and inside one of its objects, and are
    never sent; a writeOnly one is not an output, even when the API sends it back."""
    shop.reply("POST /v2/orders", 201, {"id": "o-1", "item": "tea", "password": "hunter2"})
    async with Client(stdio_client(server(project, shop))) as session:  # type: ignore[arg-type]
        tools = {tool.name: tool for tool in (await session.list_tools()).tools}
        order = tools["create_order"].input_schema["properties"]
        assert "id" not in order and {"item", "shipping", "payment"} <= set(order)
        shipping = order["shipping"]
        shipping = next((o for o in shipping.get("anyOf", []) if "properties" in o), shipping)
        assert set(shipping["properties"]) == {"street", "city"}
        assert "server_path" not in tools["attach"].input_schema["properties"]
        outputs = (tools["create_order"].output_schema or {}).get("properties", {})
        assert "id" in outputs and "password" not in outputs
        result = succeeded(await session.call_tool("create_order", ORDER))
    answer = result.structured_content or {}
    assert answer["id"] == "o-1" and "password" not in answer
    assert "hunter2" not in text(result)
    (posted,) = shop.to("POST /v2/orders")
    assert "id" not in json.loads(posted.body) and "checked_at" not in json.loads(posted.body)["shipping"]


async def test_a_body_is_what_the_model_sent(project: Path, shop: Shop) -> None:
    """Point 2: no field the model left out is sent, at any depth (no null for the address's other field, nor for
    the other variant of the payment's anyOf), and a required body of optional fields is sent as {} when the
    model sent none of them; a form sends no "None"."""
    shop.reply("POST /v2/orders", 201, {"id": "o-1", "item": "tea"})
    shop.reply("POST /v2/carts", 201, {"cart_id": "c-1"})
    shop.reply("POST /v2/notes", 204)
    async with Client(stdio_client(server(project, shop))) as session:  # type: ignore[arg-type]
        succeeded(await session.call_tool("create_order", ORDER))
        succeeded(await session.call_tool("create_cart", {}))
        succeeded(await session.call_tool("add_note", {"text": "ring twice"}))
    (order,) = shop.to("POST /v2/orders")
    assert json.loads(order.body) == ORDER
    (cart,) = shop.to("POST /v2/carts")
    assert cart.body == b"{}"
    (note,) = shop.to("POST /v2/notes")
    assert urllib.parse.parse_qs(note.body.decode(), keep_blank_values=True) == {"text": ["ring twice"]}


async def test_each_request_asks_for_the_chosen_answer(project: Path, shop: Shop) -> None:
    """Point 8: Accept is the success answer's media type the import chose: JSON where the API lists XML first,
    CSV where CSV is all it offers."""
    shop.reply("POST /v2/orders", 201, {"id": "o-1", "item": "tea"})
    shop.reply("GET /v2/report", 200, b"day,sales\nmon,3\n", {"content-type": "text/csv"})
    async with Client(stdio_client(server(project, shop))) as session:  # type: ignore[arg-type]
        succeeded(await session.call_tool("create_order", ORDER))
        assert "mon,3" in text(succeeded(await session.call_tool("get_report", {})))
        succeeded(await session.call_tool("create_cart", {}))
    assert [a.header("accept") for a in shop.arrived] == ["application/json", "text/csv", "application/json"]


async def test_each_body_goes_with_its_content_type(project: Path, shop: Shop) -> None:
    """Point 10: the document's own `+json` type, a form, multipart (each field a part, with its boundary) and
    octet-stream, each as the import chose it."""
    shop.reply("POST /v2/orders", 201, {"id": "o-1", "item": "tea"})
    shop.reply("POST /v2/notes", 204)
    shop.reply("POST /v2/attachments", 201, {"attachment_id": "a-1"})
    shop.reply("PUT /v2/blobs/notes.txt", 204)
    async with Client(stdio_client(server(project, shop))) as session:  # type: ignore[arg-type]
        succeeded(await session.call_tool("create_order", ORDER))
        (order,) = shop.to("POST /v2/orders")
        assert order.header("content-type") == "application/vnd.shop+json"
        succeeded(await session.call_tool("put_blob", {"name": "notes.txt", "body": "abc"}))
        (blob,) = shop.to("PUT /v2/blobs/notes.txt")
        assert (blob.body, blob.header("content-type")) == (b"abc", "application/octet-stream")
        succeeded(await session.call_tool("add_note", {"text": "ring twice"}))
        (note,) = shop.to("POST /v2/notes")
        assert note.header("content-type") == "application/x-www-form-urlencoded"
        succeeded(await session.call_tool("attach", {"order_id": "o-1", "content": "hello"}))
    (attached,) = shop.to("POST /v2/attachments")
    content_type = attached.header("content-type") or ""
    assert content_type.startswith("multipart/form-data; boundary=")
    assert multipart(attached.body, content_type.split("boundary=", 1)[1]) == {"order_id": "o-1", "content": "hello"}


def multipart(body: bytes, boundary: str) -> dict[str, str]:
    """The fields of a multipart/form-data body, by name (RFC 7578), read with the standard library's parser."""
    from email.parser import BytesParser
    from email.policy import HTTP

    message = BytesParser(policy=HTTP).parsebytes(
        b"Content-Type: multipart/form-data; boundary=" + boundary.encode() + b"\r\n\r\n" + body
    )
    fields = {}
    for part in message.iter_parts():
        name = part.get_param("name", header="content-disposition")
        fields[str(name)] = part.get_payload(decode=True).decode()
    return fields


async def test_a_429_without_retry_after_is_retried_no_sooner_than_the_wait_told(project: Path, shop: Shop) -> None:
    """Point 6: the read is retried, but only after the 10 s the model would be told; a second wait of 10 s does
    not fit its 15 s deadline, so it answers rate_limited with that wait, two requests in all."""
    for _ in range(3):
        shop.reply("GET /v2/quota", 429, {"message": "slow down"})
    async with Client(stdio_client(server(project, shop))) as session:  # type: ignore[arg-type]
        result = await session.call_tool("get_quota", {})
    found = envelope(result)
    assert (found["class"], found["retry_after_s"]) == ("rate_limited", 10)
    assert "Retry after 10 s" in text(result)
    arrived = shop.to("GET /v2/quota")
    assert len(arrived) == 2, [a.at for a in arrived]
    assert arrived[1].at - arrived[0].at >= found["retry_after_s"]


@pytest.mark.parametrize("form", ["seconds", "http-date"])
async def test_retry_after_is_told_as_the_api_said_and_not_waited_past_the_cap(
    project: Path, shop: Shop, form: str
) -> None:
    """Point 7: Retry-After: 120 (or a date two minutes ahead) is told as 120 s, not capped to the runtime's own
    longest wait; the runtime does not sit it out (past its cap and its deadline), so the API is asked once."""

    def two_minutes_ahead() -> str:
        return email.utils.formatdate(time.time() + 120, usegmt=True)

    value = "120" if form == "seconds" else two_minutes_ahead
    shop.reply("GET /v2/quota", 429, {"message": "slow down"}, {"retry-after": value})
    async with Client(stdio_client(server(project, shop))) as session:  # type: ignore[arg-type]
        result = await session.call_tool("get_quota", {})
    found = envelope(result)
    assert found["class"] == "rate_limited"
    told = found["retry_after_s"]
    assert told == 120 if form == "seconds" else 119 <= told <= 120, told  # a date is whole seconds
    assert f"Retry after {told:g} s" in text(result)
    assert len(shop.to("GET /v2/quota")) == 1


async def test_a_body_the_fields_cannot_say_is_kept_as_its_schema(project: Path, shop: Shop) -> None:
    """Point 2, `anyOf`/`oneOf` kept: a body that is an `anyOf` of two closed variants, and one with
    `minProperties`, are each one `body` input holding the document's JSON Schema; a call that fits reaches the API
    exactly as the model sent it, and one that does not is refused at its path before any request is sent."""
    shop.reply("POST /v2/transfers", 201)
    shop.reply("PATCH /v2/profiles/p-1", 204)
    card = {"card_number": "4111111111111111"}
    bank = {"iban": "DE89370400440532013000", "reference": "rent"}
    async with Client(stdio_client(server(project, shop))) as session:  # type: ignore[arg-type]
        tools = {tool.name: tool for tool in (await session.list_tools()).tools}
        transfer = tools["send_transfer"].input_schema
        variants = transfer["properties"]["body"]["anyOf"]
        assert [v["required"] for v in variants] == [["card_number"], ["iban"]]
        assert all(v["additionalProperties"] is False for v in variants)
        profile = tools["update_profile"].input_schema["properties"]["body"]
        assert profile["minProperties"] == 1 and set(profile["properties"]) == {"name", "email"}
        succeeded(await session.call_tool("send_transfer", {"body": card}))
        succeeded(await session.call_tool("send_transfer", {"body": bank}))
        succeeded(await session.call_tool("update_profile", {"id": "p-1", "body": {"name": "Ada"}}))
        mixed = await session.call_tool("send_transfer", {"body": {**card, "iban": "DE89370400440532013000"}})
        empty = await session.call_tool("update_profile", {"id": "p-1", "body": {}})
    assert [json.loads(sent.body) for sent in shop.to("POST /v2/transfers")] == [card, bank]
    assert [json.loads(sent.body) for sent in shop.to("PATCH /v2/profiles/p-1")] == [{"name": "Ada"}]
    assert envelope(mixed)["class"] == "invalid_input" and "`body`" in text(mixed), text(mixed)
    assert envelope(empty)["class"] == "invalid_input" and "`body`" in text(empty), text(empty)
