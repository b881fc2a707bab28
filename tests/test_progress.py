"""Progress notifications over a real stdio pipe: strictly increasing, at most ten a second per call, the
last one before the result always sent, and none after the result, whatever the handler reports."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from mcp import Client, StdioServerParameters

pytestmark = pytest.mark.slow

SPEC = """\
failwell: 1
server:
  name: gauge
tools:
  gauge_run:
    description: Report progress the way `how` says, then answer.
    effect: read
    deadline_s: 5
    input:
      how: {type: string, example: burst}
"""

HANDLER = """\
import asyncio
import time

from .._generated.runtime.calls import progress
from .._generated.tools.gauge_run import Context, Input, Output

LATE: set[asyncio.Task[None]] = set()


async def handle(params: Input, ctx: Context) -> Output:
    if params.how == "burst":
        await ctx.report_progress(1, 300)
        await ctx.report_progress(1, 300)  # not above the last: dropped
        await ctx.report_progress(0.5, 300)  # smaller: dropped
        await ctx.report_progress(float("nan"), 300)  # not a number: dropped
        for value in range(2, 301):
            await ctx.report_progress(value, 300, f"step {value}")
            await asyncio.sleep(0.001)
    if params.how == "late":
        async def later() -> None:
            await asyncio.sleep(0.3)
            await ctx.report_progress(1000)

        LATE.add(asyncio.create_task(later()))
    if params.how == "wait":
        await asyncio.sleep(0.8)
    if params.how == "steps":  # the conformance suite's tools-call-with-progress, as a plain handler writes it
        await ctx.report_progress(0, 100)
        await asyncio.sleep(0.05)
        await ctx.report_progress(50, 100)
        await asyncio.sleep(0.05)
        await ctx.report_progress(100, 100)
    if params.how == "pause":  # a report held for its slot while the handler works on: sent when the slot comes
        await ctx.report_progress(1, 3)
        await ctx.report_progress(2, 3)
        await asyncio.sleep(1.5)
        await ctx.report_progress(3, 3)
    if params.how == "slot":  # the slot widened to 1 s, so that no pause of a loaded machine decides the outcome
        progress.MIN_INTERVAL_S = 1.0
        await ctx.report_progress(1, 4)  # sent
        await ctx.report_progress(2, 4)  # held for its slot, 1 s on
        await asyncio.sleep(0)  # its timer starts waiting for that slot
        time.sleep(1.2)  # the event loop is blocked past that slot: the timer cannot send 2 yet
        await ctx.report_progress(3, 4)  # 2's slot has come: 2 is sent now, and 3 is held for the next slot
        for _ in range(5):  # the timer, overdue, runs: 3's slot is 1 s after 2 was sent, so it must wait
            await asyncio.sleep(0)
        await ctx.report_progress(4, 4)  # within 3's slot: 4 replaces 3 (3 sent here would be right after 2)
        await asyncio.sleep(1.5)
        progress.MIN_INTERVAL_S = 0.1
    return f"done: {params.how}"
"""


@pytest.fixture(scope="module")
def gauge_src(tmp_path_factory: pytest.TempPathFactory) -> Path:
    from failwell import new

    root = tmp_path_factory.mktemp("gauge")
    spec = root / "gauge.yaml"
    spec.write_text(SPEC)
    new(root / "gauge", spec)
    (root / "gauge" / "src" / "gauge_mcp" / "handlers" / "gauge_run.py").write_text(HANDLER)
    return root / "gauge" / "src"


def session(src: Path, calls: list[tuple[int, str]]) -> list[dict[str, Any]]:
    """Every line the server wrote, in order, for `calls` (id, how), each asking for progress."""
    hello = {"protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "t", "version": "0"}}
    lines = [
        {"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": hello},
        {"jsonrpc": "2.0", "method": "notifications/initialized"},
    ]
    for number, how in calls:
        params = {"name": "gauge_run", "arguments": {"how": how}, "_meta": {"progressToken": f"p{number}"}}
        lines.append({"jsonrpc": "2.0", "id": number, "method": "tools/call", "params": params})
    ran = subprocess.run(
        [sys.executable, "-m", "gauge_mcp"],
        input="".join(json.dumps(line) + "\n" for line in lines).encode(),
        capture_output=True,
        timeout=60,
        env={**os.environ, "PYTHONPATH": str(src)},
    )
    assert ran.returncode == 0, ran.stderr.decode()[-2000:]
    return [json.loads(line) for line in ran.stdout.splitlines()]


def progress_of(wire: list[dict[str, Any]], token: str) -> list[dict[str, Any]]:
    return [
        line["params"]
        for line in wire
        if line.get("method") == "notifications/progress" and line["params"]["progressToken"] == token
    ]


def test_progress_increases_is_rate_limited_and_its_last_value_comes_before_the_result(gauge_src: Path) -> None:
    wire = session(gauge_src, [(1, "burst")])
    sent = progress_of(wire, "p1")
    values = [params["progress"] for params in sent]
    assert values == sorted(set(values)) and values[0] == 1, "strictly increasing; the repeats and the NaN dropped"
    assert values[-1] == 300 and sent[-1]["message"] == "step 300", "the last report is always sent"
    assert 3 <= len(values) <= 20, f"299 reports over ~0.4 s, at most ten a second: {len(values)} sent"
    answer = next(index for index, line in enumerate(wire) if line.get("id") == 1)
    last_progress = max(index for index, line in enumerate(wire) if line.get("method") == "notifications/progress")
    assert last_progress < answer, "every notification comes before the result"


def test_nothing_is_sent_for_a_call_after_its_result(gauge_src: Path) -> None:
    wire = session(gauge_src, [(1, "late"), (2, "wait")])  # the second call keeps the session open past 0.3 s
    assert [line["id"] for line in wire if "id" in line and "result" in line][-2:] == [1, 2]
    assert progress_of(wire, "p1") == [], "a report made after the answer is not sent"


@pytest.mark.anyio
async def test_progress_is_thinned_never_lost_every_step_reaches_the_real_client_in_order(gauge_src: Path) -> None:
    """0, 50 and 100 of 100, 50 ms apart: each step is held for its slot, not replaced, so all three arrive."""
    seen: list[tuple[float, float | None]] = []

    async def on_progress(progress: float, total: float | None, message: str | None) -> None:
        seen.append((progress, total))

    params = StdioServerParameters(
        command=sys.executable, args=["-m", "gauge_mcp"], env={**os.environ, "PYTHONPATH": str(gauge_src)}
    )
    async with Client(params) as client:
        result = await client.call_tool("gauge_run", {"how": "steps"}, progress_callback=on_progress)
        assert not result.is_error
        assert seen == [(0, 100), (50, 100), (100, 100)], "every distinct step, in order, the final one included"


def test_a_held_report_is_sent_when_its_slot_comes_not_only_with_the_result(gauge_src: Path) -> None:
    """1 is sent, 2 comes at once and is held; the handler then works 1.5 s: 2 goes out when its slot comes,
    so a reader watching the call sees it long before 3 and the result (the wire's order shows it)."""
    wire = session(gauge_src, [(1, "pause"), (2, "steps")])  # both calls run at once
    values = [params["progress"] for params in progress_of(wire, "p1")]
    assert values == [1, 2, 3]
    # The "steps" call (p2) runs beside it and ends within ~0.1 s: had 2 waited for p1's result, it would come
    # after p2's answer; sent at its slot, it comes before.
    two = next(
        i
        for i, line in enumerate(wire)
        if line.get("method") == "notifications/progress"
        and line["params"]["progressToken"] == "p1"
        and line["params"]["progress"] == 2
    )
    three = next(
        i
        for i, line in enumerate(wire)
        if line.get("method") == "notifications/progress"
        and line["params"]["progressToken"] == "p1"
        and line["params"]["progress"] == 3
    )
    answer_2 = next(i for i, line in enumerate(wire) if line.get("id") == 2)
    assert two < answer_2 < three


def test_the_timer_never_sends_right_after_a_report_that_took_its_slot(gauge_src: Path) -> None:
    """A held report whose slot came while the event loop was busy is sent by the next report, which is then held
    itself; the held report's timer, running late, must wait for the next slot instead of sending that one at once
    (two notifications back to back, against the rate bound). So 3, held within its slot, is replaced by 4."""
    wire = session(gauge_src, [(1, "slot")])
    assert [params["progress"] for params in progress_of(wire, "p1")] == [1, 2, 4]
