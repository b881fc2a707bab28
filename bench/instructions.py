"""The per-call and start-up comparisons of bench/run.py counted in CPU instructions instead of seconds, under
valgrind (`cachegrind`, no cache simulation): a count does not move when other work shares the machine, so
these ratios hold on a busy machine where the timed ones wander by several points from run to run.

    python bench/instructions.py [--calls 200]     (needs valgrind on PATH; a few minutes, runs in parallel)

A variant is run twice, with a few calls and with `--calls` more; the difference, divided by the extra calls,
is what one call costs, everything else (starting Python, imports, building the server) cancelled out. Start-up
is the count of a server process that answers `initialize` and `tools/list`, then reads end of input.
Variants: the tasks example's runtime as it is (`now`), as it was before telemetry (`today`, run.py's TODAY,
extracted from git) and the same tools on a bare MCPServer (bench/bare_tasks.py).
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

BENCH = Path(__file__).resolve().parent
REPO = BENCH.parent
SOURCE = REPO / "examples" / "tasks" / "src"
FEW = 20
"""The calls of the shorter run of each pair: enough to warm every cache of the call path."""

IN_PROCESS = """
import asyncio, logging, sys
sys.path[:0] = [{bench!r}, {today!r}, {source!r}]
logging.disable(logging.CRITICAL)
from mcp import Client
if {package!r} == "bare":
    from bare_tasks import mcp as server
else:
    import telemetry
    server = telemetry.servers({package!r})[{path!r}]
async def main():
    async with Client(server) as client:
        for _ in range({calls}):
            await client.call_tool("tasks_get", {{"ref": "T-1"}})
asyncio.run(main())
"""
"""The in-process driver: `calls` calls of `tasks_get` through the SDK's in-memory client, as run.py makes them."""


def counted(command: list[str], env: dict[str, str] | None = None, lines: list[str] = ()) -> int:
    """The instructions `command` runs, its stdin fed `lines` (each answered before the next is sent)."""
    valgrind = ["valgrind", "--tool=cachegrind", "--cache-sim=no", "--cachegrind-out-file=/dev/null"]
    process = subprocess.Popen(
        [*valgrind, *command],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=env,
        cwd=tempfile.gettempdir(),
    )
    assert process.stdin is not None and process.stdout is not None and process.stderr is not None
    for line in lines:
        process.stdin.write(line + "\n")
        process.stdin.flush()
        sent = json.loads(line)
        while "id" in sent and json.loads(process.stdout.readline()).get("id") != sent["id"]:
            pass
    process.stdin.close()
    process.stdout.read()
    error = process.stderr.read()
    process.wait(timeout=600)
    found = re.search(r"I\s+refs:\s+([\d,]+)", error)
    if process.returncode != 0 or found is None:
        raise RuntimeError(f"{command[:3]} ended with {process.returncode}: {error[-2000:]}")
    return int(found.group(1).replace(",", ""))


def stdio_lines(calls: int) -> list[str]:
    hello = {"protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "bench", "version": "0"}}
    lines = [
        {"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": hello},
        {"jsonrpc": "2.0", "method": "notifications/initialized"},
        {"jsonrpc": "2.0", "id": 1, "method": "tools/list"},
    ]
    call = {"name": "tasks_get", "arguments": {"ref": "T-1"}}
    lines += [{"jsonrpc": "2.0", "id": 2 + n, "method": "tools/call", "params": call} for n in range(calls)]
    return [json.dumps(line) for line in lines]


def report(name: str, ratio: float, target: float, detail: str) -> None:
    verdict = "ok" if ratio <= target else "MISS"
    print(f"{name} ratio={ratio:.3f} target={target} {verdict}  {detail}", flush=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--calls", type=int, default=200)
    parser.add_argument("--today", type=Path, help="a folder holding run.py's TODAY runtime as package tasks_today")
    args = parser.parse_args()
    if shutil.which("valgrind") is None:
        print("instructions skipped: valgrind is not on PATH (apt-get install valgrind)", flush=True)
        return
    sys.path.insert(0, str(BENCH))
    from run import BARE, GENERATED, precompile

    precompile()
    fixed = {**os.environ, "PYTHONHASHSEED": "0"}  # one hash seed for every run: a count moves about 1% with it
    env = {**fixed, "PYTHONPATH": str(SOURCE), "LOG_LEVEL": "WARNING"}
    today = str(args.today) if args.today else ""
    packages = [("bare", "success"), ("tasks_mcp", "success"), ("tasks_mcp", "failure")]
    if today:
        packages += [("tasks_today", "success"), ("tasks_today", "failure")]
    jobs: dict[tuple[str, ...], tuple[list[str], dict[str, str] | None, list[str]]] = {}
    for package, path in packages:
        for calls in (FEW, FEW + args.calls):
            code = IN_PROCESS.format(
                bench=str(BENCH), today=today, source=str(SOURCE), package=package, path=path, calls=calls
            )
            jobs[("in_process", package, path, str(calls))] = ([sys.executable, "-c", code], fixed, [])
    for name, command in (("bare", BARE), ("tasks_mcp", GENERATED)):
        for calls in (0, args.calls):
            jobs[("stdio", name, "success", str(calls))] = (command, env, stdio_lines(calls))
    with ThreadPoolExecutor(max_workers=os.cpu_count() or 2) as pool:
        futures = {key: pool.submit(counted, *job) for key, job in jobs.items()}
        count = {key: future.result() for key, future in futures.items()}

    def per_call(where: str, package: str, path: str) -> float:
        low, high = (FEW, FEW + args.calls) if where == "in_process" else (0, args.calls)
        return (count[(where, package, path, str(high))] - count[(where, package, path, str(low))]) / args.calls

    bare, now, failing = (per_call("in_process", *variant) for variant in packages[:3])
    report("instructions.in_process_read_vs_bare_mcpserver", now / bare, 1.0,
           f"generated={now / 1000:.0f}k bare={bare / 1000:.0f}k instructions a call")  # fmt: skip
    if today:
        for path, ours in (("success", now), ("failure", failing)):
            theirs = per_call("in_process", "tasks_today", path)
            detail = f"now={ours / 1000:.0f}k today={theirs / 1000:.0f}k instructions a call (today: before telemetry)"
            report(f"instructions.in_process_{path}_vs_today", ours / theirs, 1.02, detail)
    stdio_bare, stdio_now = per_call("stdio", "bare", "success"), per_call("stdio", "tasks_mcp", "success")
    detail = f"generated={stdio_now / 1000:.0f}k bare={stdio_bare / 1000:.0f}k instructions a call, server process"
    report("instructions.stdio_read_vs_bare_mcpserver", stdio_now / stdio_bare, 1.0, detail)
    start_bare, start_now = count[("stdio", "bare", "success", "0")], count[("stdio", "tasks_mcp", "success", "0")]
    detail = f"generated={start_now / 1e6:.0f}M bare={start_bare / 1e6:.0f}M instructions, start to end of input"
    report("instructions.startup_first_tools_list_vs_bare_mcpserver", start_now / start_bare, 0.9, detail)


if __name__ == "__main__":
    main()
