"""Confirmation and questions answered by the real `mcp` Python client over streamable HTTP on 127.0.0.1 (its
elicitation, sampling and roots callbacks; tests/test_confirm.py and tests/test_asks.py drive it over stdio and
send raw JSON-RPC over HTTP): stateless HTTP at 2026-07-28 (the client's own input_required driver answers and
retries with the sealed requestState), stateful HTTP of the 2025 era (the server asks over its back-channel), and
two replicas sharing one real redis-server, where every question is asked by one replica and its answer lands on
the other (the client's HTTP transport routes a retry that carries requestState to the second replica).

Every run of a changing handler appends one line to a file (ASKING_EFFECTS), counted outside the servers."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from contextlib import ExitStack, asynccontextmanager
from pathlib import Path
from typing import Any

import anyio
import httpx2
import pytest
from asking_project import ADA, PACKAGE, effects, generate, server_env
from httpserver import http_server
from ledger import running_redis
from mcp import Client, types
from mcp.client.streamable_http import streamable_http_client
from mcp.shared.exceptions import MCPError

pytestmark = pytest.mark.slow

ENVELOPE = "dev.failwell/error"
LABEL = {"label": "urgent", "priority": 2, "pinned": True}
ROOTS = [("file:///home/ada/notes", "notes")]


class Person:
    """The client side: scripted form answers by the start of a question's message, a model and roots."""

    def __init__(self, script: dict[str, list[dict[str, Any]]]) -> None:
        self.script = script
        self.forms: list[str] = []
        self.samples = 0
        self.roots = 0

    async def elicit(self, context: Any, params: types.ElicitRequestParams) -> types.ElicitResult:
        self.forms.append(params.message)
        for start, answers in self.script.items():
            if params.message.startswith(start):
                return types.ElicitResult.model_validate(answers.pop(0))
        raise AssertionError(f"not scripted: {params.message}")

    async def sample(self, context: Any, params: types.CreateMessageRequestParams) -> types.CreateMessageResult:
        self.samples += 1
        text = types.TextContent(type="text", text="Three notes.")
        return types.CreateMessageResult(role="assistant", content=text, model="m", stop_reason="endTurn")

    async def list_roots(self, context: Any) -> types.ListRootsResult:
        self.roots += 1
        return types.ListRootsResult.model_validate({"roots": [{"uri": uri, "name": name} for uri, name in ROOTS]})


class Routed(httpx2.AsyncBaseTransport):
    """A client-side router over two replicas: a request whose params carry `requestState` (an answered retry) goes
    to `second`, every other request to `first`. Each routed tools/call or prompts/get is noted with its port."""

    def __init__(self, first: int, second: int) -> None:
        self.inner = httpx2.AsyncHTTPTransport()
        self.first, self.second = first, second
        self.sent: list[tuple[str, str, int]] = []

    async def handle_async_request(self, request: httpx2.Request) -> httpx2.Response:
        port = self.first
        if request.method == "POST":
            body = json.loads(await request.aread() or b"null")
            params = body.get("params") if isinstance(body, dict) else None
            if isinstance(params, dict) and "requestState" in params:
                port = self.second
            if isinstance(body, dict) and body.get("method") in ("tools/call", "prompts/get"):
                self.sent.append((body["method"], str(params.get("name") if params else ""), port))
        request.url = request.url.copy_with(port=port)
        return await self.inner.handle_async_request(request)

    async def aclose(self) -> None:
        await self.inner.aclose()


@asynccontextmanager
async def connected(
    url: str, person: Person, mode: str, transport: httpx2.AsyncBaseTransport | None = None
) -> AsyncIterator[Client]:
    headers = {"Authorization": f"Bearer {ADA}"}
    async with (
        httpx2.AsyncClient(headers=headers, timeout=30, transport=transport) as http,
        Client(
            streamable_http_client(url, http_client=http),
            mode=mode,  # type: ignore[arg-type]
            elicitation_callback=person.elicit,
            sampling_callback=person.sample,
            list_roots_callback=person.list_roots,
        ) as client,
    ):
        yield client


def text(result: types.CallToolResult) -> str:
    return "\n".join(block.text for block in result.content if isinstance(block, types.TextContent))


def script() -> dict[str, list[dict[str, Any]]]:
    return {
        "Delete note N-3 from work?": [{"action": "accept", "content": {"confirm": True}}],
        "Delete note N-4 from work?": [{"action": "decline"}],
        # a wrong type first (priority as text): asked again, and the fitting answer reaches the handler
        "Which label for note N-1?": [
            {"action": "accept", "content": {**LABEL, "priority": "2"}},
            {"action": "accept", "content": LABEL},
        ],
        "What is the new title of N-4?": [{"action": "accept", "content": {"title": "Groceries"}}],
        "Rename N-4 to Groceries?": [{"action": "accept", "content": {"sure": True}}],
        "What should the review of N-6 focus on?": [{"action": "accept", "content": {"focus": "tone"}}],
    }


async def every_question(client: Client, label: str) -> dict[str, Any]:
    """The calls both eras and both layouts make; what each answered."""
    seen: dict[str, Any] = {"version": client.session.protocol_version}
    delete = {"note_id": "N-3", "folder": "work", "idempotency_key": f"key-http-{label}-0001"}
    seen["accepted"] = await client.call_tool("notes_delete", delete)
    declined = {"note_id": "N-4", "folder": "work", "idempotency_key": f"key-http-{label}-0002"}
    seen["declined"] = await client.call_tool("notes_delete", declined)
    seen["label"] = await client.call_tool("notes_label", {"note_id": "N-1"})
    seen["summary"] = await client.call_tool("notes_summarize", {"folder": "inbox"})
    seen["rename"] = await client.call_tool("notes_rename", {"note_id": "N-4"})
    seen["prompt"] = await client.get_prompt("note_review", {"note_id": "N-6"})
    return seen


def check(seen: dict[str, Any], person: Person, effects_file: Path, label: str) -> None:
    assert not seen["accepted"].is_error, text(seen["accepted"])
    assert seen["accepted"].structured_content == {"deleted": "N-3"}
    declined = seen["declined"]
    assert declined.is_error and (declined.meta or {})[ENVELOPE]["failure"] == "declined", text(declined)
    assert "Nothing was changed." in text(declined)
    deletes = [line for line in effects(effects_file) if line.startswith(("notes_delete N-3 ", "notes_delete N-4 "))]
    assert deletes == [f"notes_delete N-3 work key-http-{label}-0001"], "accepted ran once, declined never"
    assert text(seen["label"]) == "N-1 labelled 'urgent' priority=2 pinned=True"
    assert person.forms.count("Which label for note N-1?") == 2, person.forms
    assert text(seen["summary"]) == "inbox: Three notes. | roots: notes=file:///home/ada/notes"
    assert (person.samples, person.roots) == (1, 1)
    assert text(seen["rename"]) == "N-4 renamed to Groceries"
    assert [message.content.text for message in seen["prompt"].messages] == ["Review note N-6, focusing on tone."]
    assert all(not answers for answers in person.script.values()), person.script


@pytest.fixture(scope="module")
def src(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return generate(tmp_path_factory.mktemp("asking-http-client") / "asking")


@pytest.mark.parametrize(
    ("mode", "stateful", "version"),
    [("auto", "0", "2026-07-28"), ("legacy", "1", "2025-11-25")],
    ids=["stateless-2026-07-28", "stateful-2025-11-25"],
)
def test_the_python_client_confirms_and_answers_over_streamable_http(
    src: Path, tmp_path: Path, mode: str, stateful: str, version: str
) -> None:
    env = {**server_env(tmp_path, tmp_path / "effects.txt"), "MCP_STATEFUL": stateful}
    person = Person(script())

    async def calls() -> dict[str, Any]:
        async with connected(running.url, person, mode) as client:
            return await every_question(client, mode)

    with http_server(PACKAGE, src, tmp_path / "server.log", env) as running:
        seen = anyio.run(calls)
    assert seen["version"] == version
    check(seen, person, tmp_path / "effects.txt", mode)
    assert person.forms.index("What is the new title of N-4?") < person.forms.index("Rename N-4 to Groceries?")


def test_the_python_client_on_two_replicas_asked_by_one_answered_on_the_other(tmp_path: Path) -> None:
    """Stateless 2026-07-28 on two replicas sharing one redis-server and a key file: each question is asked by
    replica A and its answer lands on replica B. The confirmation runs its handler once; a replay of the accepted
    retry, sent to either replica, is refused (the nonce consumed in Redis) and runs nothing."""
    redis_src = generate(tmp_path / "asking", store="redis")
    keys = tmp_path / "state-keys"
    keys.write_text("shared-state-key-" + "s" * 40 + "\n")
    person = Person(script())
    with ExitStack() as stack:
        redis = stack.enter_context(running_redis())
        env = server_env(tmp_path, tmp_path / "effects.txt", REDIS_URL=redis.url, MCP_STATE_KEYS_FILE=str(keys))
        a, b = (stack.enter_context(http_server(PACKAGE, redis_src, tmp_path / f"r{n}.log", env)) for n in (0, 1))
        routed = Routed(a.port, b.port)

        async def calls() -> dict[str, Any]:
            async with connected(a.url, person, "auto", routed) as client:
                seen = await every_question(client, "replicas")
                # The confirmation's accepted retry, replayed by hand on each replica: refused, nothing runs.
                arguments = {"note_id": "N-5", "folder": "work", "idempotency_key": "key-http-replicas-0003"}
                first = await client.session.call_tool("notes_delete", arguments, allow_input_required=True)
                assert isinstance(first, types.InputRequiredResult) and first.request_state
                accept = {"confirm": types.ElicitResult(action="accept", content={"confirm": True})}
                done = await client.session.call_tool(
                    "notes_delete", arguments, input_responses=accept, request_state=first.request_state
                )
                seen["replayed"] = [done]
                for replica in (a.port, b.port):  # the replay sent to each replica in turn
                    routed.second = replica
                    try:
                        await client.session.call_tool(
                            "notes_delete", arguments, input_responses=accept, request_state=first.request_state
                        )
                    except MCPError as error:
                        seen["replayed"].append(error)
                routed.second = b.port
                return seen

        seen = anyio.run(calls)
        logged_a, logged_b = a.logged(), b.logged()
    assert seen["version"] == "2026-07-28"
    done, *refused = seen["replayed"]
    assert not done.is_error and done.structured_content == {"deleted": "N-5"}
    assert len(refused) == 2 and all(isinstance(error, MCPError) for error in refused), refused
    assert all(error.error.code == -32602 and "already used" in error.error.message for error in refused), refused
    check(seen, person, tmp_path / "effects.txt", "replicas")
    assert effects(tmp_path / "effects.txt") == [
        "notes_delete N-3 work key-http-replicas-0001",
        "notes_delete N-5 work key-http-replicas-0003",
    ]
    # Every question was asked on A and answered on B: each asking call has a retry routed to the other replica.
    asked_on_a = {(method, name) for method, name, port in routed.sent if port == a.port}
    answered_on_b = {(method, name) for method, name, port in routed.sent if port == b.port}
    for call in (
        ("tools/call", "notes_delete"),
        ("tools/call", "notes_label"),
        ("tools/call", "notes_summarize"),
        ("tools/call", "notes_rename"),
        ("prompts/get", "note_review"),
    ):
        assert call in asked_on_a and call in answered_on_b, (call, routed.sent)
    # The servers' own logs agree: the declined answer was read by B, never by A.
    assert '"failure": "declined"' in logged_b and '"failure": "declined"' not in logged_a
    assert "shared-state-key" not in logged_a + logged_b, "a key reached the log"
