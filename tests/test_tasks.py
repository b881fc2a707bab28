"""Tools that run as tasks (`task:`, SEP-2663) with real parts: tests/tasking/failwell.yaml generated with the CLI,
its handlers copied in, served over streamable HTTP on 127.0.0.1 and spoken to in raw JSON-RPC at 2026-07-28 (the
`mcp` client has no tasks support: it cannot declare the extension per request nor read a `CreateTaskResult`), and
over stdio with the `mcp` client for the inline path. Every run of export_run appends one line to a file, counted
outside the server process."""

from __future__ import annotations

import importlib
import json
import os
import shutil
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import anyio
import httpx
import pytest
from httpserver import Running, http_server
from mcp import Client, StdioServerParameters
from mcp.client.stdio import stdio_client

from conftest import REPO, failwell

pytestmark = pytest.mark.slow

TASKING = REPO / "tests" / "tasking"
PACKAGE = "tasking_mcp"
TASKS = "io.modelcontextprotocol/tasks"
MODERN = "2026-07-28"
TOKENS = {
    "tasking-token-ada-3c9e1f0a55": {"subject": "ada", "scopes": []},
    "tasking-token-bob-7b2d4e8c19": {"subject": "bob", "scopes": []},
    "tasking-token-carol-5e1a9d3f70": {"subject": "carol", "scopes": []},
}
ADA, BOB, CAROL = list(TOKENS)
WITH_TASKS: dict[str, Any] = {"extensions": {TASKS: {}}}
SECRETS = ("hunter2", "10.0.0.7", "postgres://", "RuntimeError", "Traceback")


@pytest.fixture(scope="module")
def src(tmp_path_factory: pytest.TempPathFactory) -> Path:
    dest = tmp_path_factory.mktemp("tasks") / "tasking"
    created = failwell("new", dest, "--spec", TASKING / "failwell.yaml")
    assert created.returncode == 0, created.stdout + created.stderr
    for handler in sorted((TASKING / "handlers").glob("*.py")):
        shutil.copy(handler, dest / "src" / PACKAGE / "handlers" / handler.name)
    return dest / "src"


def server_env(folder: Path) -> dict[str, str]:
    return {
        "FAILWELL_SQLITE_PATH": str(folder / "tasking.sqlite3"),
        "TASKING_EFFECTS": str(folder / "effects.txt"),
        "TASKING_TOKENS": json.dumps(TOKENS),
    }


def effects(folder: Path) -> list[str]:
    path = folder / "effects.txt"
    return path.read_text().splitlines() if path.exists() else []


@pytest.fixture(scope="module")
def served(src: Path, tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Running, Path]]:
    folder = tmp_path_factory.mktemp("tasks-http")
    with http_server(PACKAGE, src, folder / "server.log", server_env(folder)) as running:
        yield running, folder


class Raw:
    """Raw stateless JSON-RPC at 2026-07-28 over streamable HTTP: the test decides every byte."""

    def __init__(self, http: httpx.Client, url: str) -> None:
        self.http, self.url, self.sent = http, url, 0

    def post(
        self,
        method: str,
        params: dict[str, Any],
        *,
        token: str = ADA,
        capabilities: dict[str, Any] | None = None,
        name: str | None = None,
        progress: str | None = None,
    ) -> httpx.Response:
        self.sent += 1
        meta: dict[str, Any] = {
            "io.modelcontextprotocol/protocolVersion": MODERN,
            "io.modelcontextprotocol/clientInfo": {"name": "tasks-test", "version": "0"},
            "io.modelcontextprotocol/clientCapabilities": WITH_TASKS if capabilities is None else capabilities,
        }
        if progress is not None:
            meta["progressToken"] = progress
        named = params.get("name", params.get("taskId", "")) if name is None else name
        headers = {
            "accept": "application/json, text/event-stream",
            "content-type": "application/json",
            "mcp-protocol-version": MODERN,
            "mcp-method": method,
            "mcp-name": str(named),
            "authorization": f"Bearer {token}",
        }
        message = {"jsonrpc": "2.0", "id": self.sent, "method": method, "params": {**params, "_meta": meta}}
        return self.http.post(self.url, json=message, headers=headers)

    def rpc(self, method: str, params: dict[str, Any], **options: Any) -> dict[str, Any]:
        response = self.post(method, params, **options)
        answer = body(response)
        answer["status_code"] = response.status_code
        return answer

    def call(self, tool: str, arguments: dict[str, Any], **options: Any) -> dict[str, Any]:
        return self.rpc("tools/call", {"name": tool, "arguments": arguments}, **options)

    def get(self, task_id: str, **options: Any) -> dict[str, Any]:
        return self.rpc("tasks/get", {"taskId": task_id}, **options)

    def settled(self, task_id: str, within_s: float = 30) -> dict[str, Any]:
        """The task once it is no longer working (polled, within a bound)."""
        end = time.monotonic() + within_s
        while time.monotonic() < end:
            result = self.get(task_id)["result"]
            if result["status"] not in ("working", "input_required"):
                return dict(result)
            time.sleep(0.1)
        raise AssertionError(f"task {task_id} still working after {within_s} s")


def body(response: httpx.Response) -> dict[str, Any]:
    if response.headers.get("content-type", "").startswith("application/json"):
        return dict(response.json())
    data = [line[len("data: ") :] for line in response.text.splitlines() if line.startswith("data: ")]
    assert data, (response.status_code, response.text)
    return dict(json.loads(data[-1]))


@pytest.fixture
def raw(served: tuple[Running, Path]) -> Iterator[Raw]:
    with httpx.Client(timeout=30) as http:
        yield Raw(http, served[0].url)


def _unreferenced(meta: dict[str, Any]) -> str:
    """`meta` as JSON with each call's own reference id blanked."""
    import re

    return re.sub(r"ERR-[0-9A-F]+", "ERR-*", json.dumps(meta, sort_keys=True))


def created(answer: dict[str, Any]) -> dict[str, Any]:
    """The flat CreateTaskResult of `answer`."""
    result = answer.get("result", {})
    assert result.get("resultType") == "task", answer
    assert "task" not in result and "requestState" not in result
    assert result["status"] == "working"
    assert isinstance(result["ttlMs"], int) and isinstance(result["pollIntervalMs"], int)
    assert len(result["taskId"]) >= 40  # 256 bits, URL-safe: not guessable
    return dict(result)


def test_http_declared_client_gets_a_task_and_its_result(raw: Raw) -> None:
    task = created(raw.call("report_build", {"seconds": 1, "title": "Sales"}))
    working = raw.get(task["taskId"])["result"]
    assert working["resultType"] == "complete" and working["status"] == "working"
    assert "result" not in working and "error" not in working
    done = raw.settled(task["taskId"])
    assert done["status"] == "completed"
    assert done["result"]["structuredContent"] == {"report": "report Sales"}
    assert done["result"]["resultType"] == "complete", "every 2026-07-28 result says its type, inlined too"
    assert done["result"]["content"][0]["text"]
    assert "_meta" not in done["result"] or "io.modelcontextprotocol/related-task" not in done["result"]["_meta"]


def test_http_a_task_whose_handler_reports_progress_to_a_gone_request_still_completes(raw: Raw) -> None:
    """The call that made the task was answered at once; its progress token's stream is gone when the handler
    reports, and the task must not break for it."""
    task = created(raw.call("report_build", {"seconds": 0.5, "title": "Progress"}, progress="progress-token-1"))
    done = raw.settled(task["taskId"])
    assert done["status"] == "completed" and done["result"]["structuredContent"] == {"report": "report Progress"}


def test_http_a_working_task_tells_its_progress_in_its_status_message(raw: Raw) -> None:
    task = created(raw.call("report_build", {"seconds": 3, "title": "Quarterly"}))
    end = time.monotonic() + 10
    while (status := raw.get(task["taskId"])["result"])["statusMessage"] != "Working: 0 of 1 (building Quarterly).":
        assert status["status"] == "working" and time.monotonic() < end, status
        time.sleep(0.1)
    assert raw.settled(task["taskId"])["statusMessage"] == "The task completed."


def test_http_capabilities_declare_the_extension(raw: Raw) -> None:
    discovered = raw.rpc("server/discover", {})
    capabilities = discovered["result"]["capabilities"]
    assert capabilities["extensions"] == {TASKS: {}}
    assert "tasks" not in capabilities


def test_http_declared_failure_is_completed_with_the_inline_envelope(raw: Raw) -> None:
    arguments = {"seconds": 0, "title": "Nowhere", "outcome": "missing"}
    inline = raw.call("report_build", arguments, capabilities={})["result"]
    assert inline["isError"] is True
    done = raw.settled(created(raw.call("report_build", arguments))["taskId"])
    assert done["status"] == "completed"
    assert done["result"]["isError"] is True
    assert done["result"]["content"] == inline["content"]
    assert done["result"].get("structuredContent") == inline.get("structuredContent")
    assert _unreferenced(done["result"]["_meta"]) == _unreferenced(
        {k: v for k, v in inline["_meta"].items() if "serverInfo" not in k}
    )
    assert "dev.failwell/error" in done["result"]["_meta"] and "io.modelcontextprotocol/toolFailure" in json.dumps(done)


def test_http_crash_is_completed_internal_with_a_reference_only(raw: Raw, served: tuple[Running, Path]) -> None:
    arguments = {"seconds": 0, "title": "Sales", "outcome": "crash"}
    done = raw.settled(created(raw.call("report_build", arguments))["taskId"])
    assert done["status"] == "completed" and done["result"]["isError"] is True
    shown = json.dumps(done)
    for secret in SECRETS:
        assert secret not in shown, secret
    assert "reference" in done["result"]["content"][0]["text"].lower()


def test_http_optional_runs_inline_without_the_extension(raw: Raw) -> None:
    answer = raw.call("report_build", {"seconds": 0, "title": "Sales"}, capabilities={})
    assert answer["result"]["resultType"] == "complete"
    assert answer["result"]["structuredContent"] == {"report": "report Sales"}
    assert "taskId" not in answer["result"]


def test_http_required_without_the_extension_is_32021_with_http_400(raw: Raw) -> None:
    arguments = {"seconds": 0, "name": "monthly", "idempotency_key": "key-required-0001"}
    answer = raw.call("export_run", arguments, capabilities={})
    assert answer["status_code"] == 400
    assert answer["error"]["code"] == -32021
    assert answer["error"]["data"]["requiredCapabilities"] == {"extensions": {TASKS: {}}}


def test_http_tasks_methods_need_the_extension(raw: Raw) -> None:
    task = created(raw.call("report_build", {"seconds": 0, "title": "Sales"}))
    for method in ("tasks/get", "tasks/update", "tasks/cancel"):
        answer = raw.rpc(method, {"taskId": task["taskId"]}, capabilities={})
        assert answer["error"]["code"] == -32021, (method, answer)
        assert answer["status_code"] == 400


def test_http_tasks_result_and_list_do_not_exist(raw: Raw) -> None:
    for method in ("tasks/result", "tasks/list"):
        answer = raw.rpc(method, {"taskId": "x"})
        assert answer["error"]["code"] == -32601, (method, answer)


def test_http_unknown_task_is_32602(raw: Raw) -> None:
    answer = raw.get("no-such-task-id")
    assert answer["error"]["code"] == -32602


def test_http_another_callers_task_is_not_found_exactly_as_an_unknown_one(raw: Raw) -> None:
    task = created(raw.call("report_build", {"seconds": 5, "title": "Sales"}))
    unknown = raw.get("no-such-task-id")["error"]
    for method in ("tasks/get", "tasks/update", "tasks/cancel"):
        answer = raw.rpc(method, {"taskId": task["taskId"]}, token=BOB)
        assert answer["error"]["code"] == -32602, (method, answer)
        assert answer["error"]["message"] == unknown["message"]
        assert task["taskId"] not in json.dumps(answer["error"])
    assert raw.get(task["taskId"])["result"]["status"] == "working"  # bob's cancel did not stop it
    raw.rpc("tasks/cancel", {"taskId": task["taskId"]})


def test_http_mcp_name_must_be_the_task_id(raw: Raw) -> None:
    task = created(raw.call("report_build", {"seconds": 0, "title": "Sales"}))
    answer = raw.rpc("tasks/get", {"taskId": task["taskId"]}, name="another-id")
    assert answer["status_code"] == 400
    assert answer["error"]["code"] == -32020


def test_http_cancel_stops_the_handler_and_acks_again_when_terminal(raw: Raw) -> None:
    task = created(raw.call("report_build", {"seconds": 60, "title": "Sales"}))
    ack = raw.rpc("tasks/cancel", {"taskId": task["taskId"]})
    assert ack["result"] == {"resultType": "complete"} or set(ack["result"]) <= {"resultType", "_meta"}
    done = raw.settled(task["taskId"], within_s=5)
    assert done["status"] == "cancelled" and "result" not in done and "error" not in done
    again = raw.rpc("tasks/cancel", {"taskId": task["taskId"]})
    assert again["result"]["resultType"] == "complete"
    update = raw.rpc("tasks/update", {"taskId": task["taskId"], "inputResponses": {}})
    assert update["result"]["resultType"] == "complete"


def test_http_keyed_task_sent_again_is_the_same_task_and_runs_once(raw: Raw, served: tuple[Running, Path]) -> None:
    folder = served[1]
    arguments = {"seconds": 1, "name": "weekly", "idempotency_key": "key-same-task-0001"}
    first = created(raw.call("export_run", arguments))
    second = raw.call("export_run", arguments)["result"]
    assert second["resultType"] == "task" and second["taskId"] == first["taskId"]
    assert raw.settled(first["taskId"])["result"]["structuredContent"] == {"exported": "weekly"}
    third = raw.call("export_run", arguments)["result"]
    assert third["taskId"] == first["taskId"]
    assert effects(folder).count("export_run weekly key-same-task-0001") == 1


def test_http_cancelled_keyed_task_is_never_run_again(raw: Raw, served: tuple[Running, Path]) -> None:
    folder = served[1]
    arguments = {"seconds": 30, "name": "yearly", "idempotency_key": "key-cancelled-0001"}
    task = created(raw.call("export_run", arguments))
    time.sleep(0.3)
    raw.rpc("tasks/cancel", {"taskId": task["taskId"]})
    assert raw.settled(task["taskId"], within_s=5)["status"] == "cancelled"
    assert raw.call("export_run", arguments)["result"]["taskId"] == task["taskId"]
    time.sleep(0.5)
    assert not [line for line in effects(folder) if "key-cancelled-0001" in line]


# --- asking during a task, and confirming before one is made ------------------------------------------------------

ASKING: dict[str, Any] = {"extensions": {TASKS: {}}, "elicitation": {"form": {}}}


def waiting(raw: Raw, task_id: str, keys: set[str], within_s: float = 20) -> dict[str, Any]:
    """The task once it waits for exactly the input `keys` (polled, within a bound)."""
    end = time.monotonic() + within_s
    while time.monotonic() < end:
        result = dict(raw.get(task_id)["result"])
        if result["status"] == "input_required" and set(result.get("inputRequests", {})) == keys:
            return result
        assert result["status"] in ("working", "input_required"), result
        time.sleep(0.05)
    raise AssertionError(f"task {task_id} never asked exactly {keys}: {result}")


def accept(**content: Any) -> dict[str, Any]:
    return {"action": "accept", "content": content}


def test_http_a_task_asks_on_tasks_get_and_resumes_on_tasks_update(raw: Raw) -> None:
    task = created(raw.call("survey_run", {"topic": "lunch"}, capabilities=ASKING))
    asked = waiting(raw, task["taskId"], {"name", "colour"})
    assert "result" not in asked and "requestState" not in json.dumps(asked)
    name = asked["inputRequests"]["name"]
    assert name["method"] == "elicitation/create"
    assert name["params"]["message"] == "Who answers the lunch survey?"
    assert name["params"]["requestedSchema"]["properties"]["name"]["maxLength"] == 20
    answers = {"name": accept(name="Ada"), "colour": accept(colour="green")}
    ack = raw.rpc("tasks/update", {"taskId": task["taskId"], "inputResponses": answers})
    assert ack["result"]["resultType"] == "complete" and set(ack["result"]) <= {"resultType", "_meta"}
    done = raw.settled(task["taskId"])
    assert done["status"] == "completed", done
    assert done["result"]["structuredContent"] == {"summary": "Ada chose green for lunch"}


def test_http_a_partial_answer_is_acked_and_only_the_open_question_stays(raw: Raw) -> None:
    task = created(raw.call("survey_run", {"topic": "tea"}, capabilities=ASKING))
    waiting(raw, task["taskId"], {"name", "colour"})
    raw.rpc("tasks/update", {"taskId": task["taskId"], "inputResponses": {"name": accept(name="Bob")}})
    right_after = raw.get(task["taskId"])["result"]
    assert "name" not in right_after.get("inputRequests", {}), "an answered key is gone at once"
    asked = waiting(raw, task["taskId"], {"colour"})
    assert asked["inputRequests"]["colour"]["params"]["message"] == "Which colour for tea?"
    raw.rpc("tasks/update", {"taskId": task["taskId"], "inputResponses": {"colour": accept(colour="red")}})
    assert raw.settled(task["taskId"])["result"]["structuredContent"] == {"summary": "Bob chose red for tea"}


def test_http_an_answer_that_does_not_fit_is_asked_again_under_a_new_key(raw: Raw) -> None:
    task = created(raw.call("survey_run", {"topic": "cake", "together": False}, capabilities=ASKING))
    waiting(raw, task["taskId"], {"name"})
    raw.rpc("tasks/update", {"taskId": task["taskId"], "inputResponses": {"name": accept(name="Carol")}})
    waiting(raw, task["taskId"], {"colour"})
    unknown = {"colour": accept(colour="purple"), "not-asked": accept(x=1)}
    raw.rpc("tasks/update", {"taskId": task["taskId"], "inputResponses": unknown})
    again = waiting(raw, task["taskId"], {"colour~2"})
    assert again["inputRequests"]["colour~2"]["params"]["message"] == "Which colour for cake?"
    stale = raw.rpc("tasks/update", {"taskId": task["taskId"], "inputResponses": {"colour": accept(colour="red")}})
    assert stale["result"]["resultType"] == "complete", "an answered key is ignored, not refused"
    assert set(raw.get(task["taskId"])["result"]["inputRequests"]) == {"colour~2"}
    raw.rpc("tasks/update", {"taskId": task["taskId"], "inputResponses": {"colour~2": accept(colour="blue")}})
    assert raw.settled(task["taskId"])["result"]["structuredContent"] == {"summary": "Carol chose blue for cake"}


def test_http_a_declined_question_ends_the_task_completed_with_nothing_changed(raw: Raw) -> None:
    task = created(raw.call("survey_run", {"topic": "soup", "together": False}, capabilities=ASKING))
    waiting(raw, task["taskId"], {"name"})
    raw.rpc("tasks/update", {"taskId": task["taskId"], "inputResponses": {"name": {"action": "decline"}}})
    done = raw.settled(task["taskId"])
    assert done["status"] == "completed" and done["result"]["isError"] is True
    assert "declined" in done["result"]["content"][0]["text"]


def test_http_a_task_waiting_for_input_is_cancelled_and_another_caller_cannot_answer(raw: Raw) -> None:
    task = created(raw.call("survey_run", {"topic": "tacos"}, capabilities=ASKING))
    waiting(raw, task["taskId"], {"name", "colour"})
    answers = {"name": accept(name="Mallory"), "colour": accept(colour="red")}
    refused = raw.rpc("tasks/update", {"taskId": task["taskId"], "inputResponses": answers}, token=BOB)
    assert refused["error"]["code"] == -32602
    assert waiting(raw, task["taskId"], {"name", "colour"})
    raw.rpc("tasks/cancel", {"taskId": task["taskId"]})
    assert raw.settled(task["taskId"], within_s=5)["status"] == "cancelled"


def test_http_a_task_that_cannot_ask_fails_with_32021(raw: Raw) -> None:
    task = created(raw.call("survey_run", {"topic": "pie"}))  # the tasks extension, but no elicitation
    done = raw.settled(task["taskId"])
    assert done["status"] == "failed" and done["error"]["code"] == -32021
    assert done["error"]["data"]["requiredCapabilities"] == {"elicitation": {}}


def test_http_a_before_task_question_is_asked_by_mrtr_and_the_answer_reaches_the_task(raw: Raw) -> None:
    first = raw.call("import_run", {"source": "billing"}, capabilities=ASKING)["result"]
    assert first["resultType"] == "input_required" and "taskId" not in first
    assert set(first["inputRequests"]) == {"month"}, "only the before_task question, before any task"
    assert first["inputRequests"]["month"]["params"]["message"] == "Which month of billing should be imported?"
    answered = {"requestState": first["requestState"], "inputResponses": {"month": accept(month="2026-10")}}
    params = {"name": "import_run", "arguments": {"source": "billing"}, **answered}
    task = raw.rpc("tools/call", params, capabilities=ASKING)["result"]
    assert task["resultType"] == "task" and "requestState" not in task and "inputRequests" not in task
    asked = waiting(raw, task["taskId"], {"overwrite"})
    assert "month" not in json.dumps(asked["inputRequests"]), "a before_task question is not asked again"
    raw.rpc("tasks/update", {"taskId": task["taskId"], "inputResponses": {"overwrite": accept(overwrite=True)}})
    done = raw.settled(task["taskId"])
    assert done["result"]["structuredContent"] == {"imported": "billing 2026-10, overwriting existing records"}


def test_http_a_before_task_answer_that_does_not_fit_is_asked_again_before_any_task(raw: Raw) -> None:
    first = raw.call("import_run", {"source": "crm"}, capabilities=ASKING)["result"]
    wrong = {"requestState": first["requestState"], "inputResponses": {"month": accept(month="October")}}
    again = raw.rpc("tools/call", {"name": "import_run", "arguments": {"source": "crm"}, **wrong}, capabilities=ASKING)
    assert again["result"]["resultType"] == "input_required" and set(again["result"]["inputRequests"]) == {"month"}
    state = first["requestState"][:-4] + "AAAA"
    tampered = {"requestState": state, "inputResponses": {"month": accept(month="2026-01")}}
    params = {"name": "import_run", "arguments": {"source": "crm"}, **tampered}
    refused = raw.rpc("tools/call", params, capabilities=ASKING)
    assert refused["error"]["code"] == -32602, "a requestState that is not the server's makes no task"


def test_http_a_confirmation_is_asked_before_the_task_is_made(raw: Raw, served: tuple[Running, Path]) -> None:
    folder = served[1]
    arguments = {"archive": "2019", "seconds": 0.5, "idempotency_key": "key-purge-000000001"}
    asked = raw.call("archive_purge", arguments, capabilities=ASKING)["result"]
    assert asked["resultType"] == "input_required" and "taskId" not in asked, asked["content"]
    assert asked["inputRequests"]["confirm"]["params"]["message"].startswith("Purge the archive 2019?")
    assert not [line for line in effects(folder) if "key-purge-000000001" in line], "nothing runs before the accept"
    accepted = {"requestState": asked["requestState"], "inputResponses": {"confirm": accept(confirm=True)}}
    params = {"name": "archive_purge", "arguments": arguments, **accepted}
    task = raw.rpc("tools/call", params, capabilities=ASKING)["result"]
    assert task["resultType"] == "task" and "requestState" not in task
    again = raw.rpc("tools/call", params, capabilities=ASKING)["result"]
    assert again.get("taskId") == task["taskId"], "the same accepted round, sent again, is the same task"
    done = raw.settled(task["taskId"])
    assert done["status"] == "completed" and done["result"]["structuredContent"] == {"purged": "2019"}
    assert effects(folder).count("archive_purge 2019 key-purge-000000001") == 1


def test_http_a_declined_confirmation_makes_no_task(raw: Raw, served: tuple[Running, Path]) -> None:
    folder = served[1]
    arguments = {"archive": "2020", "seconds": 0, "idempotency_key": "key-purge-000000002"}
    asked = raw.call("archive_purge", arguments, capabilities=ASKING)["result"]
    declined = {"requestState": asked["requestState"], "inputResponses": {"confirm": {"action": "decline"}}}
    answer = raw.rpc("tools/call", {"name": "archive_purge", "arguments": arguments, **declined}, capabilities=ASKING)
    assert answer["result"]["isError"] is True and "taskId" not in answer["result"]
    assert "Nothing was changed" in answer["result"]["content"][0]["text"]
    time.sleep(0.3)
    assert not [line for line in effects(folder) if "key-purge-000000002" in line]


# --- stdio: the real `mcp` client, with the generated project's TaskPoller (a ClientExtension) ----------------------


def stdio_client_for(src: Path, folder: Path, extensions: list[Any]) -> Client:
    environment = {**os.environ, **server_env(folder), "PYTHONPATH": str(src)}
    server = StdioServerParameters(command=sys.executable, args=["-m", PACKAGE], env=environment)
    errlog = (folder / "stdio.log").open("a")
    return Client(stdio_client(server, errlog=errlog), extensions=extensions)


def generated_tasks_client(src: Path) -> Any:
    """The generated project's `_generated/tasks_client` module (imported from its `src`)."""
    sys.path.insert(0, str(src))
    try:
        return importlib.import_module(f"{PACKAGE}._generated.tasks_client")
    finally:
        sys.path.remove(str(src))


@pytest.fixture(scope="module")
def stdio_session(src: Path, tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    """One stdio server process, spoken to by a client that declares the extension; every scripted call in it."""
    folder = tmp_path_factory.mktemp("tasks-stdio")
    tasks = generated_tasks_client(src)
    poller = tasks.TaskPoller()
    seen: dict[str, Any] = {"folder": folder}

    async def script() -> None:
        async with stdio_client_for(src, folder, [poller]) as client:
            seen["version"] = client.protocol_version
            report = await client.call_tool("report_build", {"seconds": 0.5, "title": "Sales"})
            seen["report"] = report
            keyed = {"seconds": 0.5, "name": "stdio", "idempotency_key": "key-stdio-000001"}
            first = await client.session.call_tool("export_run", keyed, allow_claimed=True)
            second = await client.session.call_tool("export_run", keyed, allow_claimed=True)
            seen["same_task"] = (first.task_id, second.task_id)
            seen["export"] = await client.call_tool("export_run", keyed)
            slow = await client.session.call_tool("report_build", {"seconds": 60, "title": "Slow"}, allow_claimed=True)
            params = tasks.task_params(slow.task_id)
            await client.session.send_request(
                tasks.CancelTask(method="tasks/cancel", params=params), tasks.Acknowledged
            )
            with anyio.fail_after(5):
                while True:
                    got = await client.session.send_request(
                        tasks.GetTask(method="tasks/get", params=params), tasks.DetailedTask
                    )
                    if got.status != "working":
                        break
                    await anyio.sleep(0.05)
            seen["cancelled"] = got.status
        seen["created"] = list(poller.created)

    started = time.monotonic()
    anyio.run(script)
    seen["wall_s"] = time.monotonic() - started
    return seen


def test_stdio_the_mcp_client_gets_a_task_and_its_result(stdio_session: dict[str, Any]) -> None:
    assert stdio_session["version"] == MODERN
    report = stdio_session["report"]
    assert report.is_error is False and report.structured_content == {"report": "report Sales"}
    assert len(stdio_session["created"]) >= 1  # the poller resolved a task, not an inline answer


def test_stdio_the_same_key_is_the_same_task_and_runs_once(stdio_session: dict[str, Any]) -> None:
    first, second = stdio_session["same_task"]
    assert first == second
    assert stdio_session["export"].structured_content == {"exported": "stdio"}
    assert effects(stdio_session["folder"]) == ["export_run stdio key-stdio-000001"]


def test_stdio_cancel_ends_the_task_cancelled(stdio_session: dict[str, Any]) -> None:
    assert stdio_session["cancelled"] == "cancelled"


def test_http_a_caller_with_too_many_working_tasks_is_rate_limited_without_a_task(raw: Raw) -> None:
    """At most MAX_WORKING (16) tasks working per caller: the next call is a rate_limited result, and no task."""
    started = [created(raw.call("report_build", {"seconds": 30, "title": f"R{n}"}))["taskId"] for n in range(16)]
    try:
        refused = raw.call("report_build", {"seconds": 30, "title": "one more"})["result"]
        assert refused["resultType"] == "complete" and "taskId" not in refused
        assert refused["isError"] is True
        assert refused["_meta"]["dev.failwell/error"]["class"] == "rate_limited"
        assert "16 of your tasks are still working" in refused["content"][0]["text"]
        other = created(raw.call("report_build", {"seconds": 0, "title": "bob's"}, token=BOB))  # per caller
        assert other["taskId"] not in started
    finally:
        for task_id in started:
            raw.rpc("tasks/cancel", {"taskId": task_id})
    assert created(raw.call("report_build", {"seconds": 0, "title": "after"}))["status"] == "working"


def test_http_tasks_requests_count_against_the_callers_rate_limit(raw: Raw) -> None:
    """tasks/get is counted as every read request is (the spec allows 1000 an hour per caller): polling past it is
    -31429 with how long to wait; another caller is not affected."""
    task = created(raw.call("report_build", {"seconds": 0, "title": "Polled"}, token=CAROL))
    polls = 0
    while polls < 1100:  # bounded; the bucket refills a token every 3.6 s, so a few more may pass
        answer = raw.get(task["taskId"], token=CAROL)
        polls += 1
        if "error" in answer:
            break
    assert 999 <= polls <= 1005, polls  # the call took one token; the 1000th poll or one just after is refused
    refused = [answer]
    assert refused[0]["error"]["code"] == -31429
    assert refused[0]["error"]["data"]["class"] == "rate_limited" and refused[0]["error"]["data"]["retry_after_s"]
    assert raw.get("no-such-task-id", token=BOB)["error"]["code"] == -32602  # bob's own bucket: not refused


def test_the_generated_projects_own_tests_pass_with_its_task_tests(src: Path, tmp_path: Path) -> None:
    """The generated project's tests, its task tests among them (tests/generated/test_<tool>_task.py: completed,
    isError, timeout, cancelled, -32021 or inline, unknown id, the same key, a cancelled keyed task), run with the
    test venv and PYTHONPATH=src."""
    project = src.parent
    assert sorted(path.name for path in (project / "tests" / "generated").glob("test_*_task.py")) == [
        "test_archive_purge_task.py",
        "test_export_run_task.py",
        "test_import_run_task.py",
        "test_report_build_task.py",
        "test_survey_run_task.py",
    ]
    environment = {**os.environ, "PYTHONPATH": str(src), "TASKING_EFFECTS": str(tmp_path / "effects.txt")}
    run = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "tests"],
        cwd=project,
        env=environment,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert run.returncode == 0, run.stdout[-4000:] + run.stderr[-2000:]
    assert " passed" in run.stdout


_TASK_WRITES = """failwell: 1
server:
  name: exports
  version: 0.1.0
  description: Writes that run as tasks, with a key the caller may or must give.
tools:
  export:
    description: Export the notes.
    effect: write
    idempotency: optional
    task: required
    input:
      name: {type: string, minLength: 1, maxLength: 40, description: The name., example: a}
  archive:
    description: Archive the notes.
    effect: write
    idempotency: required
    task: optional
    input:
      name: {type: string, minLength: 1, maxLength: 40, description: The name., example: a}
"""


@pytest.mark.slow
def test_task_writes_with_an_optional_or_required_key_pass_their_own_checks(tmp_path: Path) -> None:
    """ruff, mypy --strict and the project's own generated tests, for writes that run as tasks: the same-key tests
    send a key whether the tool requires one or only takes one (with `idempotency: optional` they sent none, so
    two creates made two tasks), and the tasks client imports TASKS from where it is defined."""
    spec = tmp_path / "failwell.yaml"
    spec.write_text(_TASK_WRITES)
    project = tmp_path / "exports"
    created = failwell("new", str(project), "--spec", str(spec))
    assert created.returncode == 0, created.stdout + created.stderr
    env = {**os.environ, "PYTHONPATH": str(project / "src")}
    for command in (
        ["ruff", "check", "--no-cache", "."],
        ["ruff", "format", "--check", "--no-cache", "."],
        ["mypy", "--no-incremental", "--cache-dir", os.devnull],
        ["pytest", "-q", "-p", "no:cacheprovider", "tests/generated"],
    ):
        ran = subprocess.run(
            [sys.executable, "-m", *command], cwd=project, env=env, capture_output=True, text=True, timeout=900
        )
        assert ran.returncode == 0, (command, ran.stdout[-4000:], ran.stderr[-2000:])
