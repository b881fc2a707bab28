"""No planted secret reaches a client: 10,000 generated exceptions and failure arguments through the
generated tasks server in-process (Hypothesis), and 2,000 more over a real stdio subprocess, whose
stderr log must hold no credential or token either."""

from __future__ import annotations

import asyncio
import json
import logging
import os
import random
import subprocess
import sys
import textwrap
import threading
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from conftest import EXAMPLES, GOLDEN, REPO

SOURCE = GOLDEN / "tasks" / "src"
sys.path.insert(0, str(SOURCE))

from failwell.spec.failures import with_idempotency_key  # noqa: E402
from failwell.spec.fields import example_arguments  # noqa: E402
from failwell.spec.load import load_text  # noqa: E402
from leakcheck import MODULES, TOOLS, handler_for, scenario, tool_module  # noqa: E402
from tasks_mcp._generated.runtime.stores.store_memory import MemoryStore  # noqa: E402
from tasks_mcp._generated.server import build_server  # noqa: E402

pytestmark = pytest.mark.slow

SPEC = load_text((EXAMPLES / "tasks" / "failwell.yaml").read_text(encoding="utf-8"), "failwell.yaml").data
ARGUMENTS = {tool: example_arguments(with_idempotency_key(SPEC["tools"][tool])) for tool in TOOLS}
IN_PROCESS_CALLS = 10_000
STDIO_CALLS = 2_000
counted = {"in_process": 0}

_current: dict[str, Any] = {}


async def _dispatch(params: Any, ctx: Any) -> Any:
    return await handler_for(_current["plan"])(params, ctx)


SERVER = build_server({tool: _dispatch for tool in TOOLS}, store=MemoryStore())
MODULES.update({tool: sys.modules[f"tasks_mcp._generated.tools.{tool}"] for tool in TOOLS})
SERVER.services.rate_limit = None  # 10,000 calls from one caller would hit the example's limit of 120 a minute


def arguments_for(tool: str, number: int) -> dict[str, Any]:
    """Valid arguments, with a fresh idempotency key so no call replays another's result."""
    arguments = dict(ARGUMENTS[tool])
    if "idempotency_key" in arguments:
        arguments["idempotency_key"] = f"leak-test-{number:012d}"
    return arguments


def expected_failure(plan: dict[str, Any]) -> str:
    """The envelope's `failure` when the planned handler ran: its declared failure, or internal."""
    if "failure" not in plan:
        return "internal"
    module = tool_module(plan["tool"])
    return str(getattr(module, plan["failure"]).name)


LOOP = asyncio.new_event_loop()


def setup_module() -> None:
    logging.getLogger("failwell").disabled = True  # the stdio test below checks the log; here it only costs time


def teardown_module() -> None:
    logging.getLogger("failwell").disabled = False
    LOOP.close()


@settings(max_examples=IN_PROCESS_CALLS, deadline=None, database=None, suppress_health_check=list(HealthCheck))
@given(st.integers(min_value=0, max_value=2**64))
def test_no_secret_reaches_a_client_in_process(seed: int) -> None:
    plan = scenario(random.Random(seed))
    _current["plan"] = plan
    counted["in_process"] += 1
    result = LOOP.run_until_complete(SERVER.call_tool(plan["tool"], arguments_for(plan["tool"], counted["in_process"])))
    wire = result.model_dump_json(by_alias=True)
    assert result.is_error
    assert (result.meta or {})["dev.failwell/error"]["failure"] == expected_failure(plan), "the planned handler ran"
    assert [canary for canary in plan["canaries"] if canary in wire] == []


def test_the_in_process_run_covered_ten_thousand_calls() -> None:
    assert counted["in_process"] >= IN_PROCESS_CALLS


DRIVER = textwrap.dedent(
    """
    import json, sys
    sys.path[:0] = [{tests!r}, {source!r}]
    from leakcheck import TOOLS, handler_for
    from tasks_mcp._generated.runtime.cli import serve
    from tasks_mcp._generated.server import build_server
    from tasks_mcp._generated.runtime.stores.store_memory import MemoryStore

    plans = iter(json.load(open(sys.argv[1])))

    async def dispatch(params, ctx):
        return await handler_for(next(plans))(params, ctx)

    def build():
        server = build_server({{tool: dispatch for tool in TOOLS}}, store=MemoryStore())
        server.services.rate_limit = None
        return server

    serve(build, [])
    """
)


def test_no_secret_reaches_a_client_over_stdio_nor_the_log(tmp_path: Path) -> None:
    rng = random.Random(20261129)
    plans = [scenario(rng) for _ in range(STDIO_CALLS)]
    (tmp_path / "plans.json").write_text(json.dumps(plans))
    (tmp_path / "driver.py").write_text(DRIVER.format(tests=str(REPO / "tests"), source=str(SOURCE)))
    log = (tmp_path / "stderr.log").open("w+")
    process = subprocess.Popen(
        [sys.executable, str(tmp_path / "driver.py"), str(tmp_path / "plans.json")],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=log,
        text=True,
        env={**os.environ, "PYTHONUNBUFFERED": "0"},
    )
    watchdog = threading.Timer(300, process.kill)
    watchdog.start()
    assert process.stdin is not None and process.stdout is not None
    try:

        def ask(message: dict[str, Any]) -> dict[str, Any]:
            assert process.stdin is not None and process.stdout is not None
            process.stdin.write(json.dumps(message) + "\n")
            process.stdin.flush()
            answer: dict[str, Any] = json.loads(process.stdout.readline())
            return answer

        hello = {"protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "leaks", "version": "0"}}
        ask({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": hello})
        process.stdin.write(json.dumps({"jsonrpc": "2.0", "method": "notifications/initialized"}) + "\n")
        leaks = []
        for number, plan in enumerate(plans, start=1):
            params = {"name": plan["tool"], "arguments": arguments_for(plan["tool"], number)}
            answer = ask({"jsonrpc": "2.0", "id": number, "method": "tools/call", "params": params})
            assert answer["id"] == number and answer["result"]["isError"] is True
            wire = json.dumps(answer)
            assert answer["result"]["_meta"]["dev.failwell/error"]["failure"] == expected_failure(plan)
            leaks += [canary for canary in plan["canaries"] if canary in wire]
        process.stdin.close()
        process.wait(timeout=60)
    finally:
        watchdog.cancel()
        if process.poll() is None:
            process.kill()
            process.wait()
    log.seek(0)
    stderr = log.read()
    assert leaks == []
    internal = sum(1 for plan in plans if "exception" in plan)
    assert stderr.count('"class": "internal"') == internal
    logged = [secret for plan in plans for secret in plan["secrets"] if secret in stderr]
    assert logged == [], f"credentials or tokens in the log: {logged[:5]}"
