"""A tool's `confirm:` attacked with real clients: the `mcp` Python client over a real stdio subprocess (its
`elicitation_callback`, in both eras: `mode="auto"`, which negotiates 2026-07-28, and `mode="legacy"`), raw
JSON-RPC over streamable HTTP on 127.0.0.1 (httpx, where the test must control every byte: tampered, replayed,
another caller's, expired and pre-restart state), and two replicas sharing one real redis-server and a key file
rotated without a restart.

Every run of a changing handler appends one line to a file (ASKING_EFFECTS), so what ran is counted outside the
server process; every refusal is checked to have run nothing."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from collections.abc import AsyncIterator, Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from contextlib import ExitStack, asynccontextmanager, contextmanager
from pathlib import Path
from typing import Any

import anyio
import httpx
import pytest
from asking_project import ADA, BOB, PACKAGE, Raw, effects, generate, server_env
from httpserver import Running, free_port, http_server
from ledger import running_redis
from mcp import Client, StdioServerParameters, types
from mcp.client.stdio import stdio_client
from mcp.server.request_state import AESGCMRequestStateCodec

from conftest import failwell

pytestmark = pytest.mark.slow

DELETE = {"note_id": "N-7", "folder": "inbox"}
MESSAGE = "Delete note N-7 from inbox? This cannot be undone."
ACCEPT = {"confirm": {"action": "accept", "content": {"confirm": True}}}
ENVELOPE = "dev.failwell/error"
KEY_A = "0" * 60 + "key-a"  # a key of 64 characters, well within its pattern


@pytest.fixture(scope="module")
def src(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The asking project with the SQLite store, generated once for the module."""
    return generate(tmp_path_factory.mktemp("confirm") / "asking")


def key(label: str) -> str:
    """An idempotency key the tool accepts (16 characters or more), unique to `label`."""
    return f"key-{label}-{time.monotonic_ns()}"


# --- stdio, the Python client's elicitation callback ---------------------------------------------------------------

Answer = Callable[[types.ElicitRequestParams], types.ElicitResult]


@asynccontextmanager
async def stdio(
    src: Path, folder: Path, mode: str, elicit: Answer | None, log: str = "stdio.log", **env: str
) -> AsyncIterator[Client]:
    """The real `mcp` client over a real stdio subprocess of the server, answering elicitations with `elicit` (no
    elicitation capability at all without it)."""

    async def callback(context: Any, params: types.ElicitRequestParams) -> types.ElicitResult:
        assert elicit is not None
        return elicit(params)

    environment = {**os.environ, **server_env(folder, folder / "effects.txt"), "PYTHONPATH": str(src), **env}
    server = StdioServerParameters(command=sys.executable, args=["-m", PACKAGE], env=environment)
    with (folder / log).open("a") as errlog:
        client = Client(stdio_client(server, errlog=errlog), mode=mode, elicitation_callback=elicit and callback)
        async with client:
            yield client


def text(result: types.CallToolResult) -> str:
    return "\n".join(block.text for block in result.content if isinstance(block, types.TextContent))


def envelope(result: types.CallToolResult) -> dict[str, Any]:
    return dict((result.meta or {})[ENVELOPE])


@pytest.mark.parametrize("mode", ["auto", "legacy"])
def test_stdio_accepted_runs_once_and_every_other_answer_runs_nothing(src: Path, tmp_path: Path, mode: str) -> None:
    """accept -> the handler runs once; decline, cancel, accept with the box unticked -> isError, "Nothing was
    changed", nothing runs; the person reads the spec's message filled with the call's arguments."""
    script = [
        types.ElicitResult(action="accept", content={"confirm": True}),
        types.ElicitResult(action="decline"),
        types.ElicitResult(action="cancel"),
        types.ElicitResult(action="accept", content={"confirm": False}),
    ]
    asked: list[types.ElicitRequestParams] = []

    def elicit(params: types.ElicitRequestParams) -> types.ElicitResult:
        asked.append(params)
        return script.pop(0)

    results: list[types.CallToolResult] = []

    async def calls() -> str:
        async with stdio(src, tmp_path, mode, elicit) as client:
            for number in range(4):
                results.append(await client.call_tool("notes_delete", {**DELETE, "idempotency_key": key(f"s{number}")}))
            return str(client.session.protocol_version)

    version = anyio.run(calls)
    assert version == ("2026-07-28" if mode == "auto" else "2025-11-25")
    accepted, declined, cancelled, unticked = results
    assert not accepted.is_error and accepted.structured_content == {"deleted": "N-7"}
    ran = effects(tmp_path / "effects.txt")
    assert len(ran) == 1 and ran[0].startswith("notes_delete N-7 inbox key-s0-"), ran
    for refused in (declined, cancelled, unticked):
        assert refused.is_error
        assert text(refused) == (
            "notes_delete did not run: its person chose not to delete note N-7. Nothing was changed. "
            "Do not call it again unless your person asks you to."
        )
        assert envelope(refused)["class"] == "permission_denied" and envelope(refused)["failure"] == "declined"
        assert envelope(refused)["changed"] == "none" and envelope(refused)["retryable"] is False
    assert [params.message for params in asked] == [MESSAGE] * 4
    schema = asked[0].requested_schema  # type: ignore[union-attr]
    assert schema["properties"]["confirm"]["type"] == "boolean" and schema["required"] == ["confirm"]


@pytest.mark.parametrize("mode", ["auto", "legacy"])
def test_stdio_an_accept_without_a_ticked_box_is_declined_in_one_round(src: Path, tmp_path: Path, mode: str) -> None:
    """accept with content `{}`, with no content, or with `confirm: "yes"` (a string): the box is not ticked, so
    each is a decline, answered at once: asked once per call, never asked again (the official client gives up
    with InputRequiredRoundsExceededError after 10 rounds of a re-ask). Never a run."""
    answers = [
        types.ElicitResult(action="accept", content={}),
        types.ElicitResult(action="accept"),
        types.ElicitResult(action="accept", content={"confirm": "yes"}),
    ]
    asked: list[list[str]] = []

    def elicit(params: types.ElicitRequestParams) -> types.ElicitResult:
        asked[-1].append(params.message)
        return answers[len(asked) - 1]

    async def calls() -> list[types.CallToolResult]:
        results = []
        async with stdio(src, tmp_path, mode, elicit) as client:
            for number in range(len(answers)):
                asked.append([])
                results.append(await client.call_tool("notes_delete", {**DELETE, "idempotency_key": key(f"b{number}")}))
        return results

    results = anyio.run(calls)
    assert asked == [[MESSAGE]] * len(answers), asked  # one round each
    for result in results:
        assert result.is_error and envelope(result)["failure"] == "declined", text(result)
        assert "Nothing was changed." in text(result)
    assert effects(tmp_path / "effects.txt") == []


@pytest.mark.parametrize("mode", ["auto", "legacy"])
def test_stdio_a_client_without_elicitation_is_refused_or_runs_as_the_spec_says(
    src: Path, tmp_path: Path, mode: str
) -> None:
    """No elicitation capability: `notes_delete` (refuse) answers isError naming why and runs nothing; `notes_purge`
    (`without_elicitation: run`) runs unconfirmed. Neither sends the client a question."""

    async def calls() -> tuple[types.CallToolResult, types.CallToolResult]:
        async with stdio(src, tmp_path, mode, None) as client:
            refused = await client.call_tool("notes_delete", {**DELETE, "idempotency_key": key("none")})
            ran = await client.call_tool("notes_purge", {"folder": "inbox"})
            return refused, ran

    refused, ran = anyio.run(calls)
    assert refused.is_error
    assert text(refused) == (
        "notes_delete did not run: deleting note N-7 needs its person's confirmation, which this client cannot ask "
        "for. Nothing was changed. Retrying from this client will not help: tell your person, who can use a client "
        "that can ask them."
    )
    assert envelope(refused)["failure"] == "confirmation_unavailable" and envelope(refused)["changed"] == "none"
    assert not ran.is_error and ran.structured_content == {"purged": "inbox"}
    assert effects(tmp_path / "effects.txt") == ["notes_purge inbox"]


def test_stdio_legacy_a_confirmation_unanswered_by_the_deadline_runs_nothing(src: Path, tmp_path: Path) -> None:
    """On a 2025-era session the question waits on the back-channel, but only within the tool's deadline
    (notes_purge: 3 s): a person who does not answer gets a timeout saying nothing ran, and an answer that comes
    after it runs nothing either. (It waited for the person as long as the client would, before the fix.)"""
    release = anyio.Event()
    elapsed: list[float] = []

    async def calls() -> types.CallToolResult:
        async def elicit(context: Any, params: types.ElicitRequestParams) -> types.ElicitResult:
            await release.wait()
            return types.ElicitResult(action="accept", content={"confirm": True})

        environment = {**os.environ, **server_env(tmp_path, tmp_path / "effects.txt"), "PYTHONPATH": str(src)}
        server = StdioServerParameters(command=sys.executable, args=["-m", PACKAGE], env=environment)
        with (tmp_path / "stdio.log").open("a") as errlog:
            async with Client(
                stdio_client(server, errlog=errlog), mode="legacy", elicitation_callback=elicit
            ) as client:
                started = time.monotonic()
                with anyio.fail_after(20):
                    result = await client.call_tool("notes_purge", {"folder": "late"})
                elapsed.append(time.monotonic() - started)
                release.set()
                await anyio.sleep(0.5)
                await client.list_tools()  # the session still serves after the late answer
                return result

    result = anyio.run(calls)
    assert 2.9 <= elapsed[0] < 6, elapsed
    assert result.is_error and envelope(result)["class"] == "timeout" and envelope(result)["changed"] == "none"
    assert envelope(result)["failure"] == "unanswered"
    assert text(result).startswith(
        "notes_purge did not run: its person did not answer the confirmation within 3 s. Nothing was changed."
    ), text(result)
    assert effects(tmp_path / "effects.txt") == []


def test_stdio_legacy_a_call_cancelled_while_its_person_decides_runs_nothing(src: Path, tmp_path: Path) -> None:
    """The client cancels the call (notifications/cancelled) while the confirmation waits on the back-channel; the
    person's accept that comes after it runs nothing, and the session still serves."""
    release = anyio.Event()

    async def calls() -> str:
        async def elicit(context: Any, params: types.ElicitRequestParams) -> types.ElicitResult:
            await release.wait()
            return types.ElicitResult(action="accept", content={"confirm": True})

        environment = {**os.environ, **server_env(tmp_path, tmp_path / "effects.txt"), "PYTHONPATH": str(src)}
        server = StdioServerParameters(command=sys.executable, args=["-m", PACKAGE], env=environment)
        with (tmp_path / "stdio.log").open("a") as errlog:
            async with Client(
                stdio_client(server, errlog=errlog), mode="legacy", elicitation_callback=elicit
            ) as client:
                with anyio.move_on_after(1.0) as waited:
                    await client.call_tool("notes_delete", {**DELETE, "idempotency_key": key("cancel")})
                assert waited.cancelled_caught, "the call was answered before the person was"
                release.set()
                await anyio.sleep(0.5)
                return (await client.list_tools()).tools[0].name

    assert anyio.run(calls) == "notes_delete"
    assert effects(tmp_path / "effects.txt") == []


# --- streamable HTTP on 127.0.0.1, raw JSON-RPC ----------------------------------------------------------------------


@pytest.fixture(scope="module")
def served(src: Path, tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Running, Path]]:
    """One stateless HTTP server for the raw tests (its own key: MCP_STATE_KEYS unset), and its effects file."""
    folder = tmp_path_factory.mktemp("confirm-http")
    with http_server(PACKAGE, src, folder / "server.log", server_env(folder, folder / "effects.txt")) as running:
        yield running, folder / "effects.txt"
        assert ADA not in running.logged() and BOB not in running.logged(), "a token reached the log"


@pytest.fixture
def raw(served: tuple[Running, Path]) -> Iterator[Raw]:
    with httpx.Client(timeout=30) as http:
        yield Raw(http, served[0].url)


def ran(served: tuple[Running, Path], marker: str) -> list[str]:
    """The effects lines of runs whose arguments carried `marker` (the test's own key)."""
    return [line for line in effects(served[1]) if marker in line]


def asked(raw: Raw, name: str, arguments: dict[str, Any], **extra: Any) -> str:
    """Call, check the answer is the confirmation's question, and return its requestState."""
    answer = raw.call(name, arguments, **extra)
    result = answer["result"]
    assert result["resultType"] == "input_required", answer
    assert list(result["inputRequests"]) == ["confirm"]
    assert result["inputRequests"]["confirm"]["method"] == "elicitation/create"
    return str(result["requestState"])


def refused_state(answer: dict[str, Any]) -> str:
    """The message of a -32602 answer for a requestState that cannot be used (and nothing else)."""
    assert "result" not in answer, answer
    assert answer["error"]["code"] == -32602 and answer["error"]["data"]["reason"] == "invalid_request_state"
    return str(answer["error"]["message"])


def test_http_the_person_reads_each_argument_as_a_value_not_as_words_of_the_question(raw: Raw) -> None:
    """The model writes the arguments: one that reads like the question's own words ("Nothing will be deleted"),
    breaks the line or hides characters is quoted (and escaped) in the message the person confirms; a plain word
    reads as it is. (Before the fix each was pasted bare into the question.)"""

    def message(folder: str) -> str:
        arguments = {**DELETE, "folder": folder, "idempotency_key": key("shown")}
        result = raw.call("notes_delete", arguments)["result"]
        return str(result["inputRequests"]["confirm"]["params"]["message"])

    assert message("inbox") == MESSAGE
    assert message("inbox. Nothing is deleted: say yes.") == (
        'Delete note N-7 from "inbox. Nothing is deleted: say yes."? This cannot be undone.'
    )
    assert message("inbox\n\nSafe") == 'Delete note N-7 from "inbox\\n\\nSafe"? This cannot be undone.'
    assert message("x\u202eeteled ton") == 'Delete note N-7 from "x\\u202eeteled ton"? This cannot be undone.'
    assert message("\u00e9t\u00e9") == "Delete note N-7 from \u00e9t\u00e9? This cannot be undone."


def test_http_accepted_state_runs_once_and_its_replay_is_refused(raw: Raw, served: tuple[Running, Path]) -> None:
    """The same accepted retry sent twice: the first runs, the second is -32602 and runs nothing; so is a third
    sent with a decline instead, and one sent without answers."""
    arguments = {**DELETE, "idempotency_key": key("replay")}
    state = asked(raw, "notes_delete", arguments)
    assert ran(served, arguments["idempotency_key"]) == [], "asking ran nothing"
    first = raw.call("notes_delete", arguments, inputResponses=ACCEPT, requestState=state)
    assert first["result"]["structuredContent"] == {"deleted": "N-7"}, first
    assert "already used" in refused_state(
        raw.call("notes_delete", arguments, inputResponses=ACCEPT, requestState=state)
    )
    declined = {"confirm": {"action": "decline"}}
    assert "already used" in refused_state(
        raw.call("notes_delete", arguments, inputResponses=declined, requestState=state)
    )
    assert len(ran(served, arguments["idempotency_key"])) == 1


def test_http_concurrent_replays_of_one_accepted_state_run_once(raw: Raw, served: tuple[Running, Path]) -> None:
    """Eight posts of the same accepted retry at once: the store lets exactly one run; seven get -32602."""
    arguments = {"folder": f"trash-{time.monotonic_ns()}"}
    state = asked(raw, "notes_purge", arguments)
    with ThreadPoolExecutor(8) as pool, httpx.Client(timeout=30) as http:
        racing = Raw(http, raw.url)
        answers = list(
            pool.map(
                lambda _: racing.call("notes_purge", arguments, inputResponses=ACCEPT, requestState=state), range(8)
            )
        )
    done = [answer for answer in answers if "result" in answer]
    assert len(done) == 1 and done[0]["result"]["structuredContent"] == {"purged": arguments["folder"]}, answers
    assert all("already used" in refused_state(answer) for answer in answers if answer not in done)
    assert len(ran(served, arguments["folder"])) == 1


def test_http_two_confirmations_of_one_keyed_change_run_it_once(raw: Raw, served: tuple[Running, Path]) -> None:
    """The same change asked twice (same arguments and key) and both questions accepted at once: two states, two
    nonces, but one key, so the handler runs once and both callers get its result (or are told it is running)."""
    arguments = {**DELETE, "idempotency_key": key("twice")}
    states = [asked(raw, "notes_delete", arguments) for _ in range(2)]
    with ThreadPoolExecutor(2) as pool, httpx.Client(timeout=30) as http:
        racing = Raw(http, raw.url)
        answers = list(
            pool.map(
                lambda state: racing.call("notes_delete", arguments, inputResponses=ACCEPT, requestState=state),
                states,
            )
        )
    results = [answer["result"] for answer in answers]
    assert any(result.get("structuredContent") == {"deleted": "N-7"} for result in results), results
    for result in results:
        if result["isError"]:
            assert result["_meta"][ENVELOPE]["failure"] == "idempotency_key_in_progress", result
    assert len(ran(served, arguments["idempotency_key"])) == 1


def test_http_malformed_state_or_answers_are_refused_and_run_nothing(raw: Raw, served: tuple[Running, Path]) -> None:
    """requestState that is not a string, inputResponses that are not an object: -32602, nothing runs. An empty
    elicitation capability means form mode: the question is asked."""
    arguments = {**DELETE, "idempotency_key": key("malformed")}
    state = asked(raw, "notes_delete", arguments, capabilities={"elicitation": {}})
    for extra in (
        {"requestState": 123},
        {"requestState": [state]},
        {"inputResponses": [ACCEPT], "requestState": state},
    ):
        answer = raw.call("notes_delete", arguments, **extra)
        assert answer.get("error", {}).get("code") == -32602, (extra, answer)
    assert ran(served, arguments["idempotency_key"]) == []


def test_http_tampered_state_is_refused_and_runs_nothing(raw: Raw, served: tuple[Running, Path]) -> None:
    arguments = {**DELETE, "idempotency_key": key("tamper")}
    state = asked(raw, "notes_delete", arguments)
    flipped = state[:-6] + ("A" if state[-6] != "A" else "B") + state[-5:]
    for bad in (state + "-TAMPERED", flipped, state[:-4], "v1.AAAA", "", "not-a-state", state.replace("v1.", "v2.")):
        answer = raw.call("notes_delete", arguments, inputResponses=ACCEPT, requestState=bad)
        assert refused_state(answer) == "Invalid or expired requestState", (bad[-12:], answer)
    assert ran(served, arguments["idempotency_key"]) == []
    # The genuine state still works afterwards: a refusal consumed nothing.
    done = raw.call("notes_delete", arguments, inputResponses=ACCEPT, requestState=state)
    assert done["result"]["isError"] is False and len(ran(served, arguments["idempotency_key"])) == 1


def test_http_state_is_bound_to_its_caller_key_arguments_and_tool(raw: Raw, served: tuple[Running, Path]) -> None:
    """Ada's accepted state sent by Bob (another token), with another idempotency_key, other arguments, or to
    another tool: each -32602, and nothing runs; then Ada's own retry runs once."""
    arguments = {**DELETE, "idempotency_key": key("bound")}
    state = asked(raw, "notes_delete", arguments)
    other_key = {**arguments, "idempotency_key": key("bound-other")}
    other_note = {**arguments, "note_id": "N-8"}
    attempts = [
        raw.call("notes_delete", arguments, inputResponses=ACCEPT, requestState=state, token=BOB),
        raw.call("notes_delete", other_key, inputResponses=ACCEPT, requestState=state),
        raw.call("notes_delete", other_note, inputResponses=ACCEPT, requestState=state),
        raw.call("notes_purge", {"folder": "inbox"}, inputResponses=ACCEPT, requestState=state),
    ]
    for answer in attempts:
        refused_state(answer)
    assert ran(served, arguments["idempotency_key"]) == [] and ran(served, other_key["idempotency_key"]) == []
    assert not any(line.startswith("notes_purge inbox") for line in effects(served[1]))
    done = raw.call("notes_delete", arguments, inputResponses=ACCEPT, requestState=state)
    assert done["result"]["isError"] is False and len(ran(served, arguments["idempotency_key"])) == 1


def test_http_a_confirmation_cannot_be_answered_before_it_is_asked(raw: Raw, served: tuple[Running, Path]) -> None:
    """An `accept` sent with the first call (no requestState), or with a state minted for a question of another
    tool's handler: the question is asked, nothing runs."""
    arguments = {**DELETE, "idempotency_key": key("early")}
    asked(raw, "notes_delete", arguments, inputResponses=ACCEPT)
    label = raw.call("notes_label", {"note_id": "N-7"})["result"]
    refused_state(raw.call("notes_delete", arguments, inputResponses=ACCEPT, requestState=label["requestState"]))
    assert ran(served, arguments["idempotency_key"]) == []


def test_http_declined_runs_nothing_and_the_key_stays_free(raw: Raw, served: tuple[Running, Path]) -> None:
    """A decline over raw MRTR answers isError (nothing changed); the same key confirmed later runs once, and a
    later call with that key, confirmed again, replays the record instead of running twice."""
    arguments = {**DELETE, "idempotency_key": key("free")}
    state = asked(raw, "notes_delete", arguments)
    declined = raw.call("notes_delete", arguments, inputResponses={"confirm": {"action": "cancel"}}, requestState=state)
    assert declined["result"]["isError"] is True
    assert "Nothing was changed." in declined["result"]["content"][0]["text"]
    assert declined["result"]["_meta"][ENVELOPE]["failure"] == "declined"
    for _ in range(2):
        state = asked(raw, "notes_delete", arguments)
        done = raw.call("notes_delete", arguments, inputResponses=ACCEPT, requestState=state)
        assert done["result"]["structuredContent"] == {"deleted": "N-7"}, done
    assert len(ran(served, arguments["idempotency_key"])) == 1, "the second confirmed call replayed the first"


def test_http_expired_confirmation_is_refused_and_asked_again(raw: Raw, served: tuple[Running, Path]) -> None:
    """notes_purge's confirmation expires after 2 s (`expires_s: 2`): an accept after it is -32602 and runs
    nothing; asked again, it runs."""
    arguments = {"folder": f"expired-{time.monotonic_ns()}"}
    state = asked(raw, "notes_purge", arguments)
    time.sleep(2.2)
    assert "expired" in refused_state(raw.call("notes_purge", arguments, inputResponses=ACCEPT, requestState=state))
    assert ran(served, arguments["folder"]) == []
    state = asked(raw, "notes_purge", arguments)
    assert raw.call("notes_purge", arguments, inputResponses=ACCEPT, requestState=state)["result"]["isError"] is False
    assert len(ran(served, arguments["folder"])) == 1


def test_http_a_client_that_cannot_ask_is_refused_or_runs(raw: Raw, served: tuple[Running, Path]) -> None:
    """2026-07-28 without the elicitation capability (only sampling declared), and a 2025-era stateless request
    (no back-channel): notes_delete is refused, notes_purge runs; never an `input_required`."""
    arguments = {**DELETE, "idempotency_key": key("nocap")}
    folder = f"nocap-{time.monotonic_ns()}"
    refused = raw.call("notes_delete", arguments, capabilities={"sampling": {}})["result"]
    assert refused["isError"] is True and refused["_meta"][ENVELOPE]["failure"] == "confirmation_unavailable"
    ran_ = raw.call("notes_purge", {"folder": folder}, capabilities={})["result"]
    assert ran_["isError"] is False and "inputRequests" not in ran_
    legacy = {
        "accept": "application/json, text/event-stream",
        "content-type": "application/json",
        "mcp-protocol-version": "2025-11-25",
        "authorization": f"Bearer {ADA}",
    }
    message = {
        "jsonrpc": "2.0",
        "id": 1,
        "method": "tools/call",
        "params": {"name": "notes_delete", "arguments": arguments},
    }
    old = raw.http.post(raw.url, json=message, headers=legacy)
    from asking_project import body

    result = body(old)["result"]
    assert result["isError"] is True and result["_meta"][ENVELOPE]["failure"] == "confirmation_unavailable", result
    assert ran(served, arguments["idempotency_key"]) == [] and len(ran(served, folder)) == 1


def test_http_state_from_before_a_restart_is_refused(src: Path, tmp_path: Path) -> None:
    """Without MCP_STATE_KEYS the key is the process's own: an accepted state minted before a restart is refused
    after it (and nothing runs), even with the same SQLite store; asked again, the call runs once."""
    env = server_env(tmp_path, tmp_path / "effects.txt")
    arguments = {**DELETE, "idempotency_key": key("restart")}
    port = free_port()
    with httpx.Client(timeout=30) as http:
        with http_server(PACKAGE, src, tmp_path / "first.log", env, port=port) as first:
            state = asked(Raw(http, first.url), "notes_delete", arguments)
        with http_server(PACKAGE, src, tmp_path / "second.log", env, port=port) as second:
            again = Raw(http, second.url)
            answer = again.call("notes_delete", arguments, inputResponses=ACCEPT, requestState=state)
            assert refused_state(answer) == "Invalid or expired requestState"
            assert effects(tmp_path / "effects.txt") == []
            state = asked(again, "notes_delete", arguments)
            assert (
                again.call("notes_delete", arguments, inputResponses=ACCEPT, requestState=state)["result"]["isError"]
                is False
            )
    assert len(effects(tmp_path / "effects.txt")) == 1


def test_http_with_lasting_keys_a_confirmation_survives_a_restart_and_is_used_once(src: Path, tmp_path: Path) -> None:
    """With MCP_STATE_KEYS and the SQLite store, state minted before a restart is accepted after it (runs once),
    and the same accepted retry after a second restart is refused: the used nonce is in the store, not in the
    process."""
    env = server_env(tmp_path, tmp_path / "effects.txt", MCP_STATE_KEYS="lasting-state-key-" + "l" * 40)
    arguments = {**DELETE, "idempotency_key": key("lasting")}
    port = free_port()
    with httpx.Client(timeout=30) as http:
        with http_server(PACKAGE, src, tmp_path / "first.log", env, port=port) as first:
            state = asked(Raw(http, first.url), "notes_delete", arguments)
        with http_server(PACKAGE, src, tmp_path / "second.log", env, port=port) as second:
            done = Raw(http, second.url).call("notes_delete", arguments, inputResponses=ACCEPT, requestState=state)
            assert done["result"]["isError"] is False, done
        with http_server(PACKAGE, src, tmp_path / "third.log", env, port=port) as third:
            again = Raw(http, third.url).call("notes_delete", arguments, inputResponses=ACCEPT, requestState=state)
            assert "already used" in refused_state(again)
    assert len(effects(tmp_path / "effects.txt")) == 1


def test_http_a_confirmation_state_lives_as_long_as_its_expiry(src: Path, tmp_path: Path) -> None:
    """notes_delete gives its person 600 s (`expires_s: 600`, the most the spec allows); the sealed state must not
    expire before the confirmation does. Opened with the server's own key (MCP_STATE_KEYS), its claims say how
    long the SDK will accept it. (Before `expires_s` was capped at 600, a spec's 1800 s was cut to the SDK's 600.)"""
    secret = "state-key-for-the-ttl-test-" + "t" * 32
    env = server_env(tmp_path, tmp_path / "effects.txt", MCP_STATE_KEYS=secret)
    with http_server(PACKAGE, src, tmp_path / "server.log", env) as running, httpx.Client(timeout=30) as http:
        raw = Raw(http, running.url)
        sealed = asked(raw, "notes_delete", {**DELETE, "idempotency_key": key("ttl")})
        label = raw.call("notes_label", {"note_id": "N-1"})["result"]["requestState"]
    codec = AESGCMRequestStateCodec([secret])
    claims = json.loads(codec.unseal(sealed))
    plaintext = json.loads(claims["s"])
    assert plaintext["name"] == "notes_delete" and plaintext["confirm"]["until"] - time.time() > 590
    assert claims["exp"] >= plaintext["confirm"]["until"], "the seal outlives the confirmation's own expiry"
    assert json.loads(json.loads(codec.unseal(label))["s"])["name"] == "notes_label"


# --- two replicas on one redis-server ---------------------------------------------------------------------------------

OLD_KEY = "old-state-key-" + "o" * 40
NEW_KEY = "new-state-key-" + "n" * 40


@pytest.fixture(scope="module")
def redis_src(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return generate(tmp_path_factory.mktemp("confirm-redis") / "asking", store="redis")


@contextmanager
def replicas(redis_src: Path, folder: Path, keys_file: Path) -> Iterator[tuple[list[Running], Path]]:
    """A redis-server and two replicas of the server sharing it and the key file."""
    with ExitStack() as stack:
        redis = stack.enter_context(running_redis())
        env = server_env(folder, folder / "effects.txt", REDIS_URL=redis.url, MCP_STATE_KEYS_FILE=str(keys_file))
        running = [stack.enter_context(http_server(PACKAGE, redis_src, folder / f"r{n}.log", env)) for n in (0, 1)]
        yield running, folder / "effects.txt"


def rewrite(path: Path, *keys: str) -> None:
    """The key file with `keys`, in order, seen by the servers (which look at it at most once a second)."""
    path.write_text("# state keys, the first seals\n" + "\n".join(keys) + "\n")
    time.sleep(1.3)


def test_two_replicas_on_redis_answer_each_others_questions_once_and_rotate_keys(
    redis_src: Path, tmp_path: Path
) -> None:
    keys_file = tmp_path / "state-keys"
    keys_file.write_text(OLD_KEY + "\n")
    with replicas(redis_src, tmp_path, keys_file) as (running, effects_file), httpx.Client(timeout=30) as http:
        a, b = Raw(http, running[0].url), Raw(http, running[1].url)

        def runs(arguments: dict[str, Any]) -> int:
            return sum(arguments["idempotency_key"] in line for line in effects(effects_file))

        # Asked on A, answered on B: runs once. The same answer replayed on A, or on B: refused, nothing runs.
        arguments = {**DELETE, "idempotency_key": key("replicas")}
        state = asked(a, "notes_delete", arguments)
        assert (
            b.call("notes_delete", arguments, inputResponses=ACCEPT, requestState=state)["result"]["isError"] is False
        )
        assert "already used" in refused_state(
            a.call("notes_delete", arguments, inputResponses=ACCEPT, requestState=state)
        )
        assert "already used" in refused_state(
            b.call("notes_delete", arguments, inputResponses=ACCEPT, requestState=state)
        )
        assert runs(arguments) == 1

        # A handler's question asked on B, answered on A.
        label = b.call("notes_label", {"note_id": "N-1"})["result"]
        answer = {"label": {"action": "accept", "content": {"label": "x", "priority": 1, "pinned": False}}}
        labelled = a.call("notes_label", {"note_id": "N-1"}, inputResponses=answer, requestState=label["requestState"])
        assert labelled["result"]["content"][0]["text"] == "N-1 labelled 'x' priority=1 pinned=False", labelled

        # Rotation without a restart: three states sealed under the old key.
        sealed_old = {}
        for phase in (1, 2, 3):
            args = {**DELETE, "idempotency_key": key(f"rotate-{phase}")}
            sealed_old[phase] = (args, asked(a, "notes_delete", args))
        rewrite(keys_file, OLD_KEY, NEW_KEY)  # phase 1: the new key added second; the old one still seals
        args, state = sealed_old[1]
        assert b.call("notes_delete", args, inputResponses=ACCEPT, requestState=state)["result"]["isError"] is False
        rewrite(keys_file, NEW_KEY, OLD_KEY)  # phase 2: the new key seals, the old one still opens
        args, state = sealed_old[2]
        assert a.call("notes_delete", args, inputResponses=ACCEPT, requestState=state)["result"]["isError"] is False
        sealed_new_args = {**DELETE, "idempotency_key": key("rotate-new")}
        sealed_new = asked(b, "notes_delete", sealed_new_args)
        rewrite(keys_file, NEW_KEY)  # phase 3: the old key dropped
        args, state = sealed_old[3]
        assert refused_state(b.call("notes_delete", args, inputResponses=ACCEPT, requestState=state)) == (
            "Invalid or expired requestState"
        )
        assert runs(args) == 0, "state under the dropped key ran nothing"
        done = a.call("notes_delete", sealed_new_args, inputResponses=ACCEPT, requestState=sealed_new)
        assert done["result"]["isError"] is False, "state sealed under the new key in phase 2 opens after it"
        assert [runs(sealed_old[phase][0]) for phase in (1, 2, 3)] == [1, 1, 0] and runs(sealed_new_args) == 1

        # A rewrite that cannot be used (a short key) is logged, and the keys before it stay.
        rewrite(keys_file, "too-short")
        args = {**DELETE, "idempotency_key": key("kept")}
        state = asked(a, "notes_delete", args)
        assert b.call("notes_delete", args, inputResponses=ACCEPT, requestState=state)["result"]["isError"] is False
        assert "state keys not reloaded" in running[0].logged()
        for replica in running:
            assert OLD_KEY not in replica.logged() and NEW_KEY not in replica.logged(), "a key reached the log"


@pytest.mark.parametrize(
    "keys",
    [{}, {"MCP_STATE_KEYS": "tiny-secret-value"}, {"MCP_STATE_KEYS_FILE": "/nonexistent/state-keys"}],
    ids=["no-keys", "short-key", "missing-file"],
)
def test_a_redis_server_without_usable_state_keys_exits_2_with_one_line(
    redis_src: Path, tmp_path: Path, keys: dict[str, str]
) -> None:
    with running_redis() as redis:
        env = {
            **os.environ,
            **server_env(tmp_path, tmp_path / "effects.txt", REDIS_URL=redis.url, **keys),
            "PYTHONPATH": str(redis_src),
        }
        env.pop("MCP_STATE_KEYS", None) if "MCP_STATE_KEYS" not in keys else None
        env.pop("MCP_STATE_KEYS_FILE", None) if "MCP_STATE_KEYS_FILE" not in keys else None
        started = subprocess.run(
            [sys.executable, "-m", PACKAGE, "--http", "--port", str(free_port())],
            env=env,
            capture_output=True,
            text=True,
            timeout=60,
        )
    assert started.returncode == 2, started
    lines = started.stderr.strip().splitlines()
    assert len(lines) == 1, started.stderr
    assert "MCP_STATE_KEYS" in lines[0] and "Traceback" not in started.stderr
    assert "tiny-secret-value" not in started.stderr, "the key's value is never printed"
    assert effects(tmp_path / "effects.txt") == []


# --- a confirmation shows every argument the handler receives (issue 39, point 5) ------------------------------------

THINGS_SPEC = """\
failwell: 1
server:
  name: things
  store: sqlite
tools:
  thing_delete:
    description: Delete one thing, once its person confirms it.
    effect: destructive
    idempotency: required
    deadline_s: 10
    input:
      thing_id: {type: string, pattern: "^T-[0-9]+$", description: The thing to delete., example: T-1}
      force: {type: boolean, required: false, description: Delete it even when other things use it.}
      reason: {type: string, required: false, maxLength: 200, description: Why it is deleted.}
    output:
      deleted: {type: string, description: The thing deleted.}
    confirm:
      message: "Delete thing {thing_id}?"
"""

THINGS_HANDLER = '''"""thing_delete: each run appends the arguments it received to the file THINGS_EFFECTS names."""

import os

from .._generated.tools.thing_delete import Context, Input, Output


async def handle(params: Input, ctx: Context) -> Output:
    with open(os.environ["THINGS_EFFECTS"], "a", encoding="utf-8") as effects:
        effects.write(f"{params.thing_id} force={params.force}\\n")
    return Output(deleted=params.thing_id)
'''


@pytest.mark.parametrize("mode", ["auto", "legacy"])
def test_stdio_the_question_names_every_argument_the_handler_receives(tmp_path: Path, mode: str) -> None:
    """`confirm.message: "Delete thing {thing_id}?"` leaves `force` out: the person reads `force=true` after the
    spec's words (and a string argument quoted, as the message's own values are), never the idempotency key; the
    handler then runs with what the person saw. `failwell messages` shows the same question. (Before the fix the
    person read "Delete thing T-1?" and the handler ran with force=True.)"""
    spec = tmp_path / "things.yaml"
    spec.write_text(THINGS_SPEC)
    created = failwell("new", tmp_path / "things", "--spec", spec)
    assert created.returncode == 0, created.stdout + created.stderr
    (tmp_path / "things" / "src" / "things_mcp" / "handlers" / "thing_delete.py").write_text(THINGS_HANDLER)
    asked: list[str] = []

    def elicit(params: types.ElicitRequestParams) -> types.ElicitResult:
        asked.append(params.message)
        return types.ElicitResult(action="accept", content={"confirm": True})

    async def callback(context: Any, params: types.ElicitRequestParams) -> types.ElicitResult:
        return elicit(params)

    env = {
        **os.environ,
        "PYTHONPATH": str(tmp_path / "things" / "src"),
        "FAILWELL_SQLITE_PATH": str(tmp_path / "things.sqlite3"),
        "THINGS_EFFECTS": str(tmp_path / "effects.txt"),
    }
    server = StdioServerParameters(command=sys.executable, args=["-m", "things_mcp"], env=env)

    async def calls() -> list[types.CallToolResult]:
        with (tmp_path / "stderr.log").open("a") as errlog:
            async with Client(stdio_client(server, errlog=errlog), mode=mode, elicitation_callback=callback) as client:
                return [
                    await client.call_tool(
                        "thing_delete", {"thing_id": "T-1", "force": True, "idempotency_key": key("a")}
                    ),
                    await client.call_tool(
                        "thing_delete", {"thing_id": "T-2", "reason": "it is old", "idempotency_key": key("b")}
                    ),
                    await client.call_tool("thing_delete", {"thing_id": "T-3", "idempotency_key": key("c")}),
                ]

    results = anyio.run(calls)
    assert [result.is_error for result in results] == [False, False, False], [text(result) for result in results]
    assert asked == [
        "Delete thing T-1? Other arguments: force=true.",
        'Delete thing T-2? Other arguments: reason="it is old".',
        "Delete thing T-3?",
    ]
    assert effects(tmp_path / "effects.txt") == ["T-1 force=True", "T-2 force=None", "T-3 force=None"]
    shown = failwell("messages", spec, "--format", "json")
    assert shown.returncode == 0, shown.stderr
    rows = {(row["tool"], row["failure"]): row for row in json.loads(shown.stdout)}
    assert rows[("thing_delete", "confirm")]["text"] == (
        "Delete thing T-1? Other arguments: force=true, reason=example."
    ), "every argument a call may carry, with example values"


DEFAULTS_SPEC = THINGS_SPEC.replace(
    "force: {type: boolean, required: false,", "force: {type: boolean, default: true,"
).replace(
    "reason: {type: string, required: false, maxLength: 200,",
    "reason: {type: string, required: false, maxLength: 5000,",
)


@pytest.mark.parametrize("mode", ["auto", "legacy"])
def test_stdio_the_question_shows_defaults_and_caps_each_value(tmp_path: Path, mode: str) -> None:
    """`force: {default: true}` is what the handler receives when the model leaves it out: the person reads
    `force=true` though the call never sent it; a reason of 4,000 characters (with a line break and a bidi
    control) is shown as at most 200 characters ending in `…`, escaped, so the question's end stays in view.
    `failwell messages` shows the default too. (Before the fix the person read "Delete thing T-1?" and the handler
    ran with force=True; the reason was pasted whole.)"""
    spec = tmp_path / "things.yaml"
    spec.write_text(DEFAULTS_SPEC)
    created = failwell("new", tmp_path / "things", "--spec", spec)
    assert created.returncode == 0, created.stdout + created.stderr
    (tmp_path / "things" / "src" / "things_mcp" / "handlers" / "thing_delete.py").write_text(THINGS_HANDLER)
    asked: list[str] = []

    async def callback(context: Any, params: types.ElicitRequestParams) -> types.ElicitResult:
        asked.append(params.message)
        return types.ElicitResult(action="accept", content={"confirm": True})

    env = {
        **os.environ,
        "PYTHONPATH": str(tmp_path / "things" / "src"),
        "FAILWELL_SQLITE_PATH": str(tmp_path / "things.sqlite3"),
        "THINGS_EFFECTS": str(tmp_path / "effects.txt"),
    }
    server = StdioServerParameters(command=sys.executable, args=["-m", "things_mcp"], env=env)
    reason = "old\n\u202e" + "r" * 4000 + " (say yes)"

    async def calls() -> list[types.CallToolResult]:
        with (tmp_path / "stderr.log").open("a") as errlog:
            async with Client(stdio_client(server, errlog=errlog), mode=mode, elicitation_callback=callback) as client:
                return [
                    await client.call_tool("thing_delete", {"thing_id": "T-1", "idempotency_key": key("d1")}),
                    await client.call_tool(
                        "thing_delete", {"thing_id": "T-2", "force": False, "idempotency_key": key("d2")}
                    ),
                    await client.call_tool(
                        "thing_delete", {"thing_id": "T-3", "reason": reason, "idempotency_key": key("d3")}
                    ),
                ]

    results = anyio.run(calls)
    assert [result.is_error for result in results] == [False, False, False], [text(result) for result in results]
    shown_reason = '"old\\n\\u202e' + "r" * (200 - len('"old\\n\\u202e') - 1) + "\u2026"
    assert len(shown_reason) == 200
    assert asked == [
        "Delete thing T-1? Other arguments: force=true.",
        "Delete thing T-2? Other arguments: force=false.",
        f"Delete thing T-3? Other arguments: force=true, reason={shown_reason}.",
    ]
    assert effects(tmp_path / "effects.txt") == ["T-1 force=True", "T-2 force=False", "T-3 force=True"]
    shown = failwell("messages", spec, "--format", "json")
    assert shown.returncode == 0, shown.stderr
    rows = {(row["tool"], row["failure"]): row for row in json.loads(shown.stdout)}
    assert rows[("thing_delete", "confirm")]["text"] == "Delete thing T-1? Other arguments: force=true, reason=example."
