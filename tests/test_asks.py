"""A handler's `asks:` with real clients: the `mcp` Python client over a real stdio subprocess (its elicitation,
sampling and roots callbacks; 2026-07-28 by MRTR with `mode="auto"`, the 2025-era back-channel with
`mode="legacy"`), and raw JSON-RPC over streamable HTTP on 127.0.0.1 where the test must control each round:
forms answered well (a typed answer), badly (asked again), not at all (asked again), declined; sampling and roots;
`together` in one round; several rounds; a question the client did not declare (-32021, HTTP 400); a keyed write
that asks (its key stays free until the answered run, which then replays); a prompt that asks.

Every run of a changing handler appends one line to a file (ASKING_EFFECTS), counted outside the server."""

from __future__ import annotations

import os
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import anyio
import httpx
import pytest
from asking_project import ADA, PACKAGE, Raw, body, effects, generate, server_env
from httpserver import Running, http_server
from mcp import Client, StdioServerParameters, types
from mcp.client.stdio import stdio_client
from mcp.shared.exceptions import MCPError

pytestmark = pytest.mark.slow

ENVELOPE = "dev.failwell/error"
LABEL = {"label": "urgent", "priority": 2, "pinned": True}
SAMPLED = {
    "role": "assistant",
    "content": {"type": "text", "text": "Three notes."},
    "model": "m",
    "stopReason": "endTurn",
}
ROOTS = {"roots": [{"uri": "file:///home/ada/notes", "name": "notes"}]}


@pytest.fixture(scope="module")
def src(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return generate(tmp_path_factory.mktemp("asks") / "asking")


def text(result: types.CallToolResult) -> str:
    return "\n".join(block.text for block in result.content if isinstance(block, types.TextContent))


# --- stdio, the Python client's callbacks, both eras -----------------------------------------------------------------


class Person:
    """The client side: scripted answers per question (by the start of its message), and what was asked."""

    def __init__(self, script: dict[str, list[dict[str, Any]]]) -> None:
        self.script = script
        self.forms: list[str] = []
        self.samples: list[types.CreateMessageRequestParams] = []
        self.roots = 0

    async def elicit(self, context: Any, params: types.ElicitRequestParams) -> types.ElicitResult:
        self.forms.append(params.message)
        for start, answers in self.script.items():
            if params.message.startswith(start):
                return types.ElicitResult.model_validate(answers.pop(0))
        raise AssertionError(f"not scripted: {params.message}")

    async def sample(self, context: Any, params: types.CreateMessageRequestParams) -> types.CreateMessageResult:
        self.samples.append(params)
        return types.CreateMessageResult.model_validate(SAMPLED)

    async def list_roots(self, context: Any) -> types.ListRootsResult:
        self.roots += 1
        return types.ListRootsResult.model_validate(ROOTS)


def stdio_client_for(src: Path, folder: Path, mode: str, person: Person | None) -> Client:
    environment = {**os.environ, **server_env(folder, folder / "effects.txt"), "PYTHONPATH": str(src)}
    server = StdioServerParameters(command=sys.executable, args=["-m", PACKAGE], env=environment)
    errlog = (folder / f"stdio-{mode}.log").open("a")
    callbacks: dict[str, Any] = {}
    if person is not None:
        callbacks = {
            "elicitation_callback": person.elicit,
            "sampling_callback": person.sample,
            "list_roots_callback": person.list_roots,
        }
    return Client(stdio_client(server, errlog=errlog), mode=mode, **callbacks)


@pytest.fixture(scope="module", params=["auto", "legacy"])
def session(src: Path, tmp_path_factory: pytest.TempPathFactory, request: pytest.FixtureRequest) -> dict[str, Any]:
    """One stdio session per era, every scripted call in it; the tests below assert on what it saw."""
    mode = request.param
    folder = tmp_path_factory.mktemp(f"asks-stdio-{mode}")
    person = Person(
        {
            "Which label for note N-1?": [{"action": "accept", "content": LABEL}],
            # a wrong type (priority as text), then a fitting answer
            "Which label for note N-2?": [
                {"action": "accept", "content": {**LABEL, "priority": "2"}},
                {"action": "accept", "content": {**LABEL, "priority": 5}},
                {"action": "accept", "content": {**LABEL, "priority": 5}},
            ],
            "Which label for note N-3?": [{"action": "decline"}, {"action": "cancel"}],
            "What is the new title of N-4?": [{"action": "accept", "content": {"title": "Groceries"}}],
            "Rename N-4 to Groceries?": [{"action": "accept", "content": {"sure": True}}],
            "Which tag for N-5?": [{"action": "accept", "content": {"tag": "work"}}],
            "What should the review of N-6 focus on?": [{"action": "accept", "content": {"focus": "tone"}}],
            "Move note N-8 out of its folder?": [{"action": "accept", "content": {"confirm": True}}],
            "Move N-8 to which folder?": [{"action": "accept", "content": {"folder": "archive"}}],
        }
    )
    seen: dict[str, Any] = {"mode": mode, "person": person, "folder": folder}

    async def calls() -> None:
        async with stdio_client_for(src, folder, mode, person) as client:
            seen["version"] = client.session.protocol_version
            seen["well"] = await client.call_tool("notes_label", {"note_id": "N-1"})
            seen["badly"] = await client.call_tool("notes_label", {"note_id": "N-2"})
            seen["declined"] = await client.call_tool("notes_label", {"note_id": "N-3"})
            seen["caught"] = await client.call_tool("notes_label", {"note_id": "N-3", "catch": True})
            seen["together"] = await client.call_tool("notes_summarize", {"folder": "inbox"})
            seen["rounds"] = await client.call_tool("notes_rename", {"note_id": "N-4"})
            keyed = {"note_id": "N-5", "idempotency_key": f"key-stdio-{mode}-0001"}
            seen["keyed"] = [await client.call_tool("notes_tag", keyed) for _ in range(2)]
            seen["prompt"] = await client.get_prompt("note_review", {"note_id": "N-6"})
            seen["move"] = await client.call_tool(
                "notes_move", {"note_id": "N-8", "idempotency_key": f"key-move-{mode}-01"}
            )

    anyio.run(calls)
    seen["effects"] = effects(folder / "effects.txt")
    return seen


def test_stdio_a_form_answered_well_gives_the_handler_typed_values(session: dict[str, Any]) -> None:
    assert session["version"] == ("2026-07-28" if session["mode"] == "auto" else "2025-11-25")
    assert text(session["well"]) == "N-1 labelled 'urgent' priority=2 pinned=True"


def test_stdio_a_form_answered_badly_is_asked_again(session: dict[str, Any]) -> None:
    assert text(session["badly"]) == "N-2 labelled 'urgent' priority=5 pinned=True"
    forms = session["person"].forms
    assert forms.count("Which label for note N-2?") == 2, forms


def test_stdio_a_declined_form_is_an_error_unless_the_handler_catches_it(session: dict[str, Any]) -> None:
    declined = session["declined"]
    assert declined.is_error
    assert text(declined).startswith("notes_label stopped: its person declined to answer what it asked (label).")
    assert declined.meta[ENVELOPE]["failure"] == "declined" and declined.meta[ENVELOPE]["changed"] == "none"
    assert text(session["caught"]) == "N-3 keeps no label: its person chose cancel."


def test_stdio_sampling_and_roots(session: dict[str, Any]) -> None:
    assert text(session["together"]) == "inbox: Three notes. | roots: notes=file:///home/ada/notes"
    person = session["person"]
    assert person.roots == 1 and len(person.samples) == 1
    sample = person.samples[0]
    assert sample.max_tokens == 200 and sample.system_prompt == "Be brief."
    assert sample.messages[0].content.text == "Summarize the folder inbox in one line."


def test_stdio_several_rounds(session: dict[str, Any]) -> None:
    assert text(session["rounds"]) == "N-4 renamed to Groceries"
    forms = session["person"].forms
    assert forms.index("What is the new title of N-4?") < forms.index("Rename N-4 to Groceries?")


def test_stdio_a_keyed_write_that_asks_runs_once_then_replays(session: dict[str, Any]) -> None:
    first, second = session["keyed"]
    assert first.structured_content == second.structured_content == {"tagged": "N-5:work"}
    assert [line for line in session["effects"] if line.startswith("notes_tag")] == [
        f"notes_tag N-5 work key-stdio-{session['mode']}-0001"
    ]
    assert session["person"].forms.count("Which tag for N-5?") == 1, "the replay asked nothing"


def test_stdio_a_prompt_that_asks(session: dict[str, Any]) -> None:
    prompt = session["prompt"]
    assert [message.content.text for message in prompt.messages] == ["Review note N-6, focusing on tone."]


def test_stdio_a_confirmed_tool_that_then_asks(session: dict[str, Any]) -> None:
    assert session["move"].structured_content == {"moved": "N-8:archive"}, text(session["move"])
    forms = session["person"].forms
    assert forms.index("Move note N-8 out of its folder?") < forms.index("Move N-8 to which folder?")
    assert [line for line in session["effects"] if line.startswith("notes_move")] == [
        f"notes_move N-8 archive key-move-{session['mode']}-01"
    ]


@pytest.mark.parametrize("mode", ["auto", "legacy"])
def test_stdio_a_client_that_cannot_be_asked(src: Path, tmp_path: Path, mode: str) -> None:
    """No callbacks, so no capabilities: on 2026-07-28 a question is -32021 naming the capability; on a 2025-era
    session an isError result saying this client cannot be asked. A handler checking `available` does without."""

    async def calls() -> list[Any]:
        seen: list[Any] = []
        async with stdio_client_for(src, tmp_path, mode, None) as client:
            for name, arguments in (("notes_summarize", {"folder": "inbox"}), ("notes_label", {"note_id": "N-1"})):
                try:
                    seen.append(await client.call_tool(name, arguments))
                except MCPError as error:
                    seen.append(error)
        return seen

    summarize, label = anyio.run(calls)
    if mode == "auto":
        assert isinstance(summarize, MCPError) and summarize.error.code == -32021
        assert summarize.error.data == {"requiredCapabilities": {"sampling": {}}}
        assert isinstance(label, MCPError) and label.error.data == {"requiredCapabilities": {"elicitation": {}}}
    else:
        assert summarize.is_error and summarize.meta[ENVELOPE]["failure"] == "cannot_ask"
        assert text(summarize).startswith("notes_summarize did not run: it needs to ask its model")
        assert label.is_error and "needs to ask its person (a form)" in text(label)


def test_stdio_legacy_a_question_unanswered_or_refused_by_the_client_leaves_a_keyed_write_undone(
    src: Path, tmp_path: Path
) -> None:
    """On a 2025-era session a keyed write (notes_tag: 2 s deadline, 2 s grace) waits on the back-channel for its
    person. Nobody answers: the run ends having changed nothing, so its key stays free, and the retry with the
    same key asks again and runs once. (It was recorded as an unknown outcome: every retry told the model the tag
    "may have been applied" and never ran it.) A client that answers the question with a JSON-RPC error gets
    `cannot_ask`, not an `internal` fault kept for the key. Each run counted in ASKING_EFFECTS."""
    answers: list[Any] = []
    release = anyio.Event()

    async def elicit(context: Any, params: types.ElicitRequestParams) -> types.ElicitResult | types.ErrorData:
        answer = answers.pop(0)
        if answer == "never":
            await release.wait()
            return types.ElicitResult(action="accept", content={"tag": "later"})
        return answer  # type: ignore[no-any-return]

    person = Person({})
    person.elicit = elicit  # type: ignore[method-assign]
    seen: dict[str, Any] = {}
    keyed = {"note_id": "N-5", "idempotency_key": "key-unanswered-0001"}
    errored = {"note_id": "N-6", "idempotency_key": "key-errored-0001"}

    async def calls() -> None:
        async with stdio_client_for(src, tmp_path, "legacy", person) as client:
            answers.append("never")
            started = time.monotonic()
            seen["unanswered"] = await client.call_tool("notes_tag", keyed)
            seen["answered_after_s"] = time.monotonic() - started
            await anyio.sleep(4.5 - seen["answered_after_s"])  # past the deadline and the grace period
            release.set()
            answers.append(types.ElicitResult(action="accept", content={"tag": "home"}))
            seen["retried"] = await client.call_tool("notes_tag", keyed)
            answers.append(types.ErrorData(code=-32603, message="the client's form broke"))
            seen["errored"] = await client.call_tool("notes_tag", errored)
            answers.append(types.ElicitResult(action="accept", content={"tag": "work"}))
            seen["errored_retry"] = await client.call_tool("notes_tag", errored)

    anyio.run(calls)
    assert 1.9 <= seen["answered_after_s"] < 3.5, seen
    assert seen["unanswered"].is_error and seen["unanswered"].meta[ENVELOPE]["class"] == "timeout"
    assert seen["retried"].structured_content == {"tagged": "N-5:home"}, text(seen["retried"])
    errored_result = seen["errored"]
    assert errored_result.is_error and errored_result.meta[ENVELOPE]["failure"] == "cannot_ask", text(errored_result)
    assert errored_result.meta[ENVELOPE]["changed"] == "none"
    assert seen["errored_retry"].structured_content == {"tagged": "N-6:work"}, text(seen["errored_retry"])
    assert effects(tmp_path / "effects.txt") == [
        "notes_tag N-5 home key-unanswered-0001",
        "notes_tag N-6 work key-errored-0001",
    ]


# --- streamable HTTP on 127.0.0.1, raw JSON-RPC at 2026-07-28 -------------------------------------------------------


@pytest.fixture(scope="module")
def served(src: Path, tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Running, Path]]:
    folder = tmp_path_factory.mktemp("asks-http")
    with http_server(PACKAGE, src, folder / "server.log", server_env(folder, folder / "effects.txt")) as running:
        yield running, folder / "effects.txt"


@pytest.fixture
def raw(served: tuple[Running, Path]) -> Iterator[Raw]:
    with httpx.Client(timeout=30) as http:
        yield Raw(http, served[0].url)


def incomplete(answer: dict[str, Any], *keys: str) -> dict[str, Any]:
    """The input_required result of `answer`, asking exactly `keys`."""
    result = answer.get("result", {})
    assert result.get("resultType") == "input_required", answer
    assert sorted(result["inputRequests"]) == sorted(keys), result["inputRequests"]
    assert isinstance(result["requestState"], str)
    return dict(result)


def complete(answer: dict[str, Any]) -> dict[str, Any]:
    result = answer.get("result", {})
    assert result.get("resultType") == "complete", answer
    return dict(result)


def test_http_together_asks_sampling_and_roots_in_one_round(raw: Raw) -> None:
    first = incomplete(raw.call("notes_summarize", {"folder": "inbox"}), "summary", "folders")
    requests = first["inputRequests"]
    assert requests["summary"] == {
        "method": "sampling/createMessage",
        "params": {
            "messages": [
                {"role": "user", "content": {"type": "text", "text": "Summarize the folder inbox in one line."}}
            ],
            "maxTokens": 200,
            "systemPrompt": "Be brief.",
        },
    }
    assert requests["folders"]["method"] == "roots/list"
    answers = {"summary": SAMPLED, "folders": ROOTS}
    done = complete(
        raw.call("notes_summarize", {"folder": "inbox"}, inputResponses=answers, requestState=first["requestState"])
    )
    assert done["content"][0]["text"] == "inbox: Three notes. | roots: notes=file:///home/ada/notes"


def test_http_without_together_each_question_is_a_round_of_its_own(raw: Raw) -> None:
    arguments = {"folder": "inbox", "together": False}
    first = incomplete(raw.call("notes_summarize", arguments), "summary")
    second = incomplete(
        raw.call("notes_summarize", arguments, inputResponses={"summary": SAMPLED}, requestState=first["requestState"]),
        "folders",
    )
    assert second["requestState"] != first["requestState"]
    done = raw.call(
        "notes_summarize", arguments, inputResponses={"folders": ROOTS}, requestState=second["requestState"]
    )
    assert complete(done)["content"][0]["text"].startswith("inbox: Three notes.")


def test_http_a_form_answered_well_badly_or_not_at_all(raw: Raw) -> None:
    """Not answered (state echoed, no answers): asked again. Answered with the wrong types, out of range, or
    missing a field: asked again, each time. Answered well: the handler's typed values."""
    arguments = {"note_id": "N-1"}
    state = incomplete(raw.call("notes_label", arguments), "label")["requestState"]
    state = incomplete(raw.call("notes_label", arguments, requestState=state), "label")["requestState"]
    for bad in (
        {**LABEL, "priority": "2"},
        {**LABEL, "priority": 9},
        {**LABEL, "pinned": "yes"},
        {"label": "urgent", "priority": 2},
        {**LABEL, "label": ""},
    ):
        again = raw.call(
            "notes_label", arguments, inputResponses={"label": {"action": "accept", "content": bad}}, requestState=state
        )
        state = incomplete(again, "label")["requestState"]
    extra = {"label": {"action": "accept", "content": {**LABEL, "colour": "red"}}, "unasked": {"action": "accept"}}
    done = complete(raw.call("notes_label", arguments, inputResponses=extra, requestState=state))
    assert done["content"][0]["text"] == "N-1 labelled 'urgent' priority=2 pinned=True"


def test_http_a_bad_sampling_or_roots_answer_is_asked_again(raw: Raw) -> None:
    """The model answers with an image where the handler reads text: that question alone is asked again (the roots
    answer beside it is kept), then a text answer completes the call. A root that is not a file:// URI fails the
    SDK's own check of the request's params: -32602, and nothing is answered."""
    first = incomplete(raw.call("notes_summarize", {"folder": "inbox"}), "summary", "folders")
    image = {**SAMPLED, "content": {"type": "image", "data": "iVBORw0KGgo=", "mimeType": "image/png"}}
    again = raw.call(
        "notes_summarize",
        {"folder": "inbox"},
        inputResponses={"summary": image, "folders": ROOTS},
        requestState=first["requestState"],
    )
    state = incomplete(again, "summary")["requestState"]
    done = raw.call("notes_summarize", {"folder": "inbox"}, inputResponses={"summary": SAMPLED}, requestState=state)
    assert complete(done)["content"][0]["text"] == "inbox: Three notes. | roots: notes=file:///home/ada/notes"
    first = incomplete(raw.call("notes_summarize", {"folder": "inbox"}), "summary", "folders")
    not_file = {"roots": [{"uri": "https://example.com/notes"}]}
    refused = raw.call(
        "notes_summarize",
        {"folder": "inbox"},
        inputResponses={"summary": SAMPLED, "folders": not_file},
        requestState=first["requestState"],
    )
    assert refused["error"]["code"] == -32602 and "result" not in refused, refused
    assert "inputResponses.folders.roots.0.uri" in refused["error"]["data"]["fields"], refused


def test_http_a_declined_form_is_an_error_that_changed_nothing(raw: Raw) -> None:
    state = incomplete(raw.call("notes_label", {"note_id": "N-3"}), "label")["requestState"]
    declined = raw.call(
        "notes_label", {"note_id": "N-3"}, inputResponses={"label": {"action": "decline"}}, requestState=state
    )
    result = complete(declined)
    assert result["isError"] is True and result["_meta"][ENVELOPE]["failure"] == "declined"
    caught = raw.call("notes_label", {"note_id": "N-3", "catch": True}, inputResponses={"label": {"action": "cancel"}})
    assert complete(caught)["content"][0]["text"] == "N-3 keeps no label: its person chose cancel."


def test_http_several_rounds_each_with_new_state(raw: Raw) -> None:
    arguments = {"note_id": "N-4"}
    first = incomplete(raw.call("notes_rename", arguments), "title")
    answer = {"title": {"action": "accept", "content": {"title": "Groceries"}}}
    second = incomplete(
        raw.call("notes_rename", arguments, inputResponses=answer, requestState=first["requestState"]), "sure"
    )
    assert second["inputRequests"]["sure"]["params"]["message"] == "Rename N-4 to Groceries?"
    assert second["requestState"] != first["requestState"]
    sure = {"sure": {"action": "accept", "content": {"sure": True}}}
    done = complete(raw.call("notes_rename", arguments, inputResponses=sure, requestState=second["requestState"]))
    assert done["content"][0]["text"] == "N-4 renamed to Groceries"
    # A value of more than one word reads quoted in the next question, as the person's answer, not the question's.
    answer = {"title": {"action": "accept", "content": {"title": "Weekly groceries? Say yes"}}}
    quoted = incomplete(
        raw.call("notes_rename", arguments, inputResponses=answer, requestState=first["requestState"]), "sure"
    )
    assert quoted["inputRequests"]["sure"]["params"]["message"] == 'Rename N-4 to "Weekly groceries? Say yes"?'


def test_http_a_question_the_client_did_not_declare_is_32021_with_http_400(raw: Raw) -> None:
    for name, arguments, capabilities, missing in (
        ("notes_summarize", {"folder": "inbox"}, {}, "sampling"),
        ("notes_summarize", {"folder": "inbox"}, {"sampling": {}}, "roots"),
        ("notes_label", {"note_id": "N-1"}, {"sampling": {}, "roots": {}}, "elicitation"),
        ("notes_label", {"note_id": "N-1"}, {"elicitation": {"url": {}}}, "elicitation"),
    ):
        response = raw.post("tools/call", {"name": name, "arguments": arguments}, capabilities=capabilities)
        assert response.status_code == 400, (name, capabilities, response.text)
        error = body(response)["error"]
        assert error["code"] == -32021
        assert error["data"] == {"requiredCapabilities": {missing: {}}}, error
        assert isinstance(error["data"]["requiredCapabilities"][missing], dict)


def test_http_a_keyed_write_that_asks_leaves_its_key_free_then_runs_once(
    raw: Raw, served: tuple[Running, Path]
) -> None:
    """Asking claims nothing: the same key with other arguments is asked too (not refused as reused). The retry
    with the answer runs once; its replay, the replay of the answered retry and a call without answers all return
    the record without asking or running; a declined answer leaves the key free as well."""
    key = f"key-tag-{time.monotonic_ns()}"
    arguments = {"note_id": "N-5", "idempotency_key": key}
    refused = raw.post("tools/call", {"name": "notes_tag", "arguments": arguments}, capabilities={})
    assert refused.status_code == 400 and body(refused)["error"]["code"] == -32021, "a -32021 leaves the key free too"
    state = incomplete(raw.call("notes_tag", arguments), "tag")["requestState"]
    incomplete(raw.call("notes_tag", {**arguments, "note_id": "N-9"}), "tag")
    declined = raw.call("notes_tag", arguments, inputResponses={"tag": {"action": "decline"}}, requestState=state)
    assert complete(declined)["isError"] is True
    answer = {"tag": {"action": "accept", "content": {"tag": "home"}}}
    done = complete(raw.call("notes_tag", arguments, inputResponses=answer, requestState=state))
    assert done["structuredContent"] == {"tagged": "N-5:home"}
    again = [
        raw.call("notes_tag", arguments, inputResponses=answer, requestState=state),
        raw.call("notes_tag", arguments),
        raw.call("notes_tag", arguments, inputResponses={"tag": {"action": "accept", "content": {"tag": "work"}}}),
    ]
    assert [complete(answer_)["structuredContent"] for answer_ in again] == [{"tagged": "N-5:home"}] * 3
    assert [line for line in effects(served[1]) if key in line] == [f"notes_tag N-5 home {key}"]
    reused = complete(raw.call("notes_tag", {**arguments, "note_id": "N-9"}, inputResponses=answer))
    assert reused["_meta"][ENVELOPE]["failure"] == "idempotency_key_reused"


def test_http_a_prompt_that_asks(raw: Raw) -> None:
    params = {"name": "note_review", "arguments": {"note_id": "N-6"}}
    first = body(raw.post("prompts/get", params))
    state = incomplete(first, "focus")["requestState"]
    assert first["result"]["inputRequests"]["focus"]["params"]["message"] == "What should the review of N-6 focus on?"
    answer = {"focus": {"action": "accept", "content": {"focus": "tone"}}}
    done = body(raw.post("prompts/get", {**params, "inputResponses": answer, "requestState": state}))
    assert done["result"]["messages"] == [
        {"role": "user", "content": {"type": "text", "text": "Review note N-6, focusing on tone."}}
    ]
    tampered = body(raw.post("prompts/get", {**params, "inputResponses": answer, "requestState": state + "x"}))
    assert tampered["error"]["code"] == -32602
    declined = body(
        raw.post("prompts/get", {**params, "inputResponses": {"focus": {"action": "decline"}}, "requestState": state})
    )
    assert declined["error"]["code"] != -32603 and "declined" in declined["error"]["message"], declined


def test_http_a_confirmed_tool_that_then_asks_uses_each_state_once(raw: Raw, served: tuple[Running, Path]) -> None:
    """notes_move confirms, then its handler asks the folder: round 1 asks only the confirmation; the accepted round
    2 asks the folder with a new state; each state is used once (its replay is -32602, nothing runs); round 3 runs
    the handler once."""
    key = f"key-move-{time.monotonic_ns()}"
    arguments = {"note_id": "N-8", "idempotency_key": key}
    accept = {"confirm": {"action": "accept", "content": {"confirm": True}}}
    first = incomplete(raw.call("notes_move", arguments), "confirm")
    second = incomplete(
        raw.call("notes_move", arguments, inputResponses=accept, requestState=first["requestState"]), "to"
    )
    assert (
        raw.call("notes_move", arguments, inputResponses=accept, requestState=first["requestState"])["error"]["code"]
        == -32602
    )
    to = {"to": {"action": "accept", "content": {"folder": "archive"}}}
    done = complete(raw.call("notes_move", arguments, inputResponses=to, requestState=second["requestState"]))
    assert done["structuredContent"] == {"moved": "N-8:archive"}
    replayed = raw.call("notes_move", arguments, inputResponses=to, requestState=second["requestState"])
    assert replayed["error"]["code"] == -32602, replayed
    # The first state cannot skip the confirmation into the folder question's answer either.
    skipped = raw.call("notes_move", arguments, inputResponses={**accept, **to}, requestState=first["requestState"])
    assert skipped["error"]["code"] == -32602
    assert [line for line in effects(served[1]) if key in line] == [f"notes_move N-8 archive {key}"]


def test_http_a_prompt_that_asks_what_the_client_did_not_declare(raw: Raw) -> None:
    response = raw.post("prompts/get", {"name": "note_review", "arguments": {"note_id": "N-6"}}, capabilities={})
    assert response.status_code == 400, response.text
    assert body(response)["error"]["code"] == -32021
    assert body(response)["error"]["data"] == {"requiredCapabilities": {"elicitation": {}}}


def test_http_a_question_state_is_bound_to_its_caller_and_tool(raw: Raw) -> None:
    from asking_project import BOB

    state = incomplete(raw.call("notes_label", {"note_id": "N-1"}), "label")["requestState"]
    answer = {"label": {"action": "accept", "content": LABEL}}
    for attempt in (
        raw.call("notes_label", {"note_id": "N-1"}, inputResponses=answer, requestState=state, token=BOB),
        raw.call("notes_label", {"note_id": "N-2"}, inputResponses=answer, requestState=state),
        raw.call("notes_rename", {"note_id": "N-1"}, inputResponses=answer, requestState=state),
        body(raw.post("prompts/get", {"name": "note_review", "arguments": {"note_id": "N-1"}, "requestState": state})),
    ):
        assert attempt["error"]["code"] == -32602, attempt
    assert ADA != BOB
