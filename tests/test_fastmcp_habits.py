"""FastMCP habits work: a plain `def handle` (of a tool, a resource or a prompt) runs in a worker thread within
the deadline, and a returned dict shaped like `Output` is validated against it. A real generated project whose
handlers use both passes its own `mypy --strict`, and is driven over a real stdio subprocess with the real `mcp`
client."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import anyio
import pytest
from mcp import Client, StdioServerParameters

pytestmark = [pytest.mark.slow, pytest.mark.anyio]

SPEC = """\
failwell: 1
server:
  name: habits
  store: sqlite
tools:
  habits_sync:
    description: Answer from a plain def handler.
    effect: read
    input:
      word: {type: string, example: hello}
    output:
      echoed: {type: string}
      length: {type: integer}
  habits_dict:
    description: Answer with a dict shaped like Output, from an async handler.
    effect: read
    input:
      word: {type: string, example: hello}
    output:
      echoed: {type: string}
      length: {type: integer}
  habits_both:
    description: Answer with a dict from a plain def handler; `bad` makes the dict not fit Output.
    effect: read
    input:
      word: {type: string, example: hello}
      bad: {type: boolean, default: false}
    output:
      echoed: {type: string}
      length: {type: integer}
  habits_text:
    description: Answer text from a plain def handler that declares no output.
    effect: read
    input:
      word: {type: string, example: hello}
  habits_block:
    description: Block its thread for a while (a plain def that sleeps), past its deadline.
    effect: read
    deadline_s: 1
    input:
      seconds: {type: number, example: 3}
    output:
      slept: {type: number}
  habits_write:
    description: Apply one change from a plain def that blocks past its deadline and its grace.
    effect: write
    idempotency: required
    check_with: habits_sync
    deadline_s: 1
    input:
      seconds: {type: number, example: 4}
    output:
      applied: {type: boolean}
resources:
  motto:
    uri: "habits://motto"
    description: The motto, from a plain def handler.
prompts:
  greet:
    description: Greet someone, from a plain def handler.
    arguments:
      name: {type: string, example: Ada}
"""
READERS = {
    "resources/motto": """\
from ..._generated.resources.motto import Context, Output, Params


def handle(params: Params, ctx: Context) -> Output:
    return "Fail well."
""",
    "prompts/greet": """\
from ..._generated.prompts.greet import Context, Output, Params


def handle(params: Params, ctx: Context) -> Output:
    return f"Say hello to {params.name}."
""",
}

HANDLERS = {
    "habits_sync": """\
from .._generated.tools.habits_sync import Context, Input, Output


def handle(params: Input, ctx: Context) -> Output:
    assert ctx.remaining_s() > 0  # the deadline is readable from the worker thread
    return Output(echoed=params.word, length=len(params.word))
""",
    "habits_dict": """\
from typing import Any

from .._generated.tools.habits_dict import Context, Input


async def handle(params: Input, ctx: Context) -> dict[str, Any]:
    return {"echoed": params.word, "length": len(params.word)}
""",
    "habits_both": """\
from typing import Any

from .._generated.tools.habits_both import Context, Input


def handle(params: Input, ctx: Context) -> dict[str, Any]:
    if params.bad:
        return {"echoed": params.word, "length": "SECRET-not-a-number-7f3a"}
    return {"echoed": params.word, "length": len(params.word)}
""",
    "habits_text": """\
from .._generated.tools.habits_text import Context, Input


def handle(params: Input, ctx: Context) -> str:
    return f"text: {params.word}"
""",
    "habits_block": """\
import time

from .._generated.tools.habits_block import Context, Input, Output


def handle(params: Input, ctx: Context) -> Output:
    time.sleep(params.seconds)  # blocks its own thread, never the server
    return Output(slept=params.seconds)
""",
    "habits_write": """\
import os
import time

from .._generated.tools.habits_write import Context, Input, Output


def handle(params: Input, ctx: Context) -> Output:
    with open(os.environ["HABITS_JOURNAL"], "a") as journal:
        journal.write(f"start {params.idempotency_key}\\n")
    time.sleep(params.seconds)
    with open(os.environ["HABITS_JOURNAL"], "a") as journal:
        journal.write(f"done {params.idempotency_key}\\n")
    return Output(applied=True)
""",
}


@pytest.fixture(scope="module")
def project(tmp_path_factory: pytest.TempPathFactory) -> Path:
    from failwell import generate, new

    root = tmp_path_factory.mktemp("habits")
    spec = root / "habits.yaml"
    spec.write_text(SPEC)
    new(root / "habits", spec)
    for name, source in {**HANDLERS, **READERS}.items():
        (root / "habits" / "src" / "habits_mcp" / "handlers" / f"{name}.py").write_text(source)
    generate(root / "habits")  # the handlers as written pass `generate` (no "needs async def handle")
    return root / "habits"


def test_the_projects_own_mypy_strict_accepts_both_habits(project: Path) -> None:
    ran = subprocess.run(
        [sys.executable, "-m", "mypy", "src"], cwd=project, capture_output=True, text=True, timeout=600
    )
    assert ran.returncode == 0, ran.stdout[-4000:] + ran.stderr[-2000:]


def answer(result: Any) -> tuple[bool, str, dict[str, Any], Any]:
    text = "\n".join(block.text for block in result.content if getattr(block, "text", None) is not None)
    envelope = dict((result.meta or {}).get("dev.failwell/error") or {})
    return bool(result.is_error), text, envelope, result.structured_content


async def test_a_plain_def_and_a_returned_dict_answer_over_real_stdio(project: Path, tmp_path: Path) -> None:
    env = {
        **os.environ,
        "PYTHONPATH": str(project / "src"),
        "FAILWELL_SQLITE_PATH": str(tmp_path / "records.sqlite3"),
        "HABITS_JOURNAL": str(tmp_path / "journal.txt"),
    }
    params = StdioServerParameters(command=sys.executable, args=["-m", "habits_mcp"], env=env)
    async with Client(params) as client:
        for tool in ("habits_sync", "habits_dict", "habits_both"):
            failed, text, _, structured = answer(await client.call_tool(tool, {"word": "hello"}))
            assert not failed, (tool, text)
            assert structured == {"echoed": "hello", "length": 5}, tool
        failed, text, _, _ = answer(await client.call_tool("habits_text", {"word": "hi"}))
        assert (failed, text) == (False, "text: hi")

        failed, text, envelope, _ = answer(await client.call_tool("habits_both", {"word": "x", "bad": True}))
        assert failed and envelope["class"] == "internal", text
        assert "SECRET" not in text and "length" not in text and "handlers" not in text, "nothing leaks"

        # A plain def that blocks: its thread blocks, not the server. Another caller is answered meanwhile.
        async with anyio.create_task_group() as group:
            blocked: list[Any] = []

            async def block() -> None:
                blocked.append(answer(await client.call_tool("habits_block", {"seconds": 3})))

            group.start_soon(block)
            await anyio.sleep(0.2)
            with anyio.fail_after(10):  # liveness: the other caller is answered at all
                failed, _, _, structured = answer(await client.call_tool("habits_sync", {"word": "meanwhile"}))
            assert not failed and structured["echoed"] == "meanwhile"
        failed, text, envelope, _ = blocked[0]
        assert failed and envelope["failure"] == "deadline" and envelope["changed"] == "none", text

        # A keyed write in a thread outlives its deadline and its grace: answered at the deadline, then its
        # outcome is unknown (the thread could not be stopped), and the retry is told so; it ran once.
        key = {"seconds": 4, "idempotency_key": "habits-write-key-0001"}
        failed, text, envelope, _ = answer(await client.call_tool("habits_write", key))
        assert failed and envelope["failure"] == "deadline" and envelope["changed"] == "possible", text
        await anyio.sleep(envelope["retry_after_s"])
        failed, text, envelope, _ = answer(await client.call_tool("habits_write", key))
        assert failed and envelope["failure"] == "idempotency_key_outcome_unknown", text
        journal = (tmp_path / "journal.txt").read_text().splitlines()
        assert journal.count(f"start {key['idempotency_key']}") == 1


def test_a_dict_that_does_not_fit_is_logged_naming_the_handler_and_the_field(project: Path, tmp_path: Path) -> None:
    hello = {"protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "t", "version": "0"}}
    call = {"name": "habits_both", "arguments": {"word": "x", "bad": True}}
    lines = [
        {"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": hello},
        {"jsonrpc": "2.0", "method": "notifications/initialized"},
        {"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": call},
    ]
    env = {**os.environ, "PYTHONPATH": str(project / "src"), "FAILWELL_SQLITE_PATH": str(tmp_path / "r.sqlite3")}
    ran = subprocess.run(
        [sys.executable, "-m", "habits_mcp"],
        input="".join(json.dumps(line) + "\n" for line in lines),
        capture_output=True,
        text=True,
        timeout=60,
        env=env,
    )
    result = next(json.loads(line)["result"] for line in ran.stdout.splitlines() if '"id":1' in line.replace(" ", ""))
    envelope = result["_meta"]["dev.failwell/error"]
    assert result["isError"] and envelope["class"] == "internal"
    assert "length" not in result["content"][0]["text"] and "SECRET" not in json.dumps(result)
    logged = [json.loads(line) for line in ran.stderr.splitlines() if line.startswith("{")]
    failure = next(line for line in logged if line.get("reference") == envelope["reference"])
    assert failure["tool"] == "habits_both" and failure["class"] == "internal"
    assert "habits_mcp.handlers.habits_both.handle returned a dict that does not fit Output" in failure["traceback"]
    assert "length: Input should be a valid integer" in failure["traceback"], "the field that did not fit is named"
    assert "SECRET" not in ran.stderr, "the value itself is not logged"
