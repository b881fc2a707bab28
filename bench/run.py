"""failwell's benchmarks, each side by side with its baseline in one run, one line per comparison:

    NAME ratio=R target=T ok|MISS   (plus the raw figures)

    python bench/run.py                    # everything (several minutes)
    python bench/run.py --quick            # fewer sizes and calls (about a minute)
    python bench/run.py --only startup     # one step (repeatable): startup, in-process, stdio, keyed-write,
                                           # telemetry, instructions, cli, memory, generation, validation,
                                           # imports, tasks-tests

Baselines: openapi-python-client generating a client with as many operations as the spec has tools
(installed into bench/.venv-opc on first use, from PyPI; run with its own ruff on PATH, as it is made to run, and
once without, reported beside); the tasks example's tools written by hand on
a bare MCPServer (bench/bare_tasks.py); the same tool without an idempotency key; a plain `mcp` client
script starting the same server as `failwell call`.

Both sides run from compiled bytecode: pip compiled the baselines' packages when it installed them, so
failwell's editable source and the example's are compiled first too (`compileall`); otherwise an environment
with PYTHONDONTWRITEBYTECODE set would recompile failwell's modules on every run and time that instead.
"""

from __future__ import annotations

import argparse
import asyncio
import compileall
import json
import logging
import os
import re
import statistics
import subprocess
import sys
import tempfile
import time
import venv
from collections.abc import Callable
from pathlib import Path
from typing import Any

BENCH = Path(__file__).resolve().parent
REPO = BENCH.parent
FAILWELL = str(Path(sys.executable).parent / "failwell")
OPC_VENV = BENCH / ".venv-opc"
sys.path[:0] = [str(BENCH), str(REPO / "examples" / "tasks" / "src")]

from regenerate import spec  # noqa: E402


def report(name: str, ratio: float, target: float, detail: str) -> None:
    verdict = "ok" if ratio <= target else "MISS"
    print(f"{name} ratio={ratio:.3f} target={target} {verdict}  {detail}", flush=True)


def timed(command: list[str], **kwargs: Any) -> float:
    started = time.perf_counter()
    subprocess.run(command, check=True, capture_output=True, **kwargs)
    return time.perf_counter() - started


def openapi(operations: int) -> dict[str, Any]:
    """An OpenAPI 3.1 document with `operations` GET operations shaped like the spec's tools."""
    item = {
        "type": "object",
        "properties": {"item_id": {"type": "string"}, "verbose": {"type": "boolean"}},
        "required": ["item_id"],
    }
    paths = {}
    for number in range(operations):
        paths[f"/items_{number:04d}/{{item_id}}"] = {
            "get": {
                "operationId": f"item_{number:04d}_get",
                "parameters": [
                    {
                        "name": "item_id",
                        "in": "path",
                        "required": True,
                        "schema": {"type": "string", "pattern": "^I-[0-9]+$"},
                    },
                    {"name": "verbose", "in": "query", "schema": {"type": "boolean", "default": False}},
                ],
                "responses": {
                    "200": {"description": "The item", "content": {"application/json": {"schema": item}}},
                    "404": {"description": "No such item"},
                },
            }
        }
    return {"openapi": "3.1.0", "info": {"title": "big", "version": "0.1.0"}, "paths": paths}


def opc() -> str:
    binary = OPC_VENV / "bin" / "openapi-python-client"
    if not binary.exists():
        venv.EnvBuilder(with_pip=True).create(OPC_VENV)
        subprocess.run([str(OPC_VENV / "bin" / "pip"), "install", "-q", "openapi-python-client"], check=True)
    return str(binary)


def opc_env(*, ruff: bool = True) -> dict[str, str]:
    """openapi-python-client's environment: its own venv's `ruff` (a dependency it declares) first on PATH, so that
    its post-generation hooks (`ruff check --fix`, `ruff format`) run as it is made to run; without them it warns
    "some pieces may be missing". `ruff=False`: a PATH without any ruff, reported beside it."""
    path = os.environ.get("PATH", "")
    if ruff:
        return {**os.environ, "PATH": f"{OPC_VENV / 'bin'}{os.pathsep}{path}"}
    kept = [folder for folder in path.split(os.pathsep) if folder and not (Path(folder) / "ruff").exists()]
    return {**os.environ, "PATH": os.pathsep.join(kept)}


def generation(sizes: list[int], runs: int) -> None:
    baseline = opc()
    ours: dict[int, float] = {}
    for size in sizes:
        with tempfile.TemporaryDirectory() as tmp:
            root = Path(tmp)
            (root / "spec.yaml").write_text(spec(size))
            (root / "openapi.json").write_text(json.dumps(openapi(size)))
            mine, theirs = [], []
            for run in range(runs):
                mine.append(timed([FAILWELL, "new", str(root / f"ours{run}"), "--spec", str(root / "spec.yaml")]))
                out = root / f"theirs{run}"
                command = [baseline, "generate", "--path", str(root / "openapi.json"), "--output-path", str(out)]
                theirs.append(timed(command, env=opc_env()))
            out = root / "theirs-without-ruff"
            command = [baseline, "generate", "--path", str(root / "openapi.json"), "--output-path", str(out)]
            bare = timed(command, env=opc_env(ruff=False))
            ours[size] = statistics.median(mine)
            other = statistics.median(theirs)
            report(f"generate.{size}_tools_vs_openapi_python_client", ours[size] / other, 0.5,
                   f"failwell={ours[size]:.2f}s openapi-python-client={other:.2f}s "
                   f"(without its ruff hooks {bare:.2f}s: ratio {ours[size] / bare:.3f})")  # fmt: skip
    if 100 in ours:
        report("generate.100_tools_seconds", ours[100] / 2.0, 1.0, f"failwell={ours[100]:.2f}s target<2s")
    if 2000 in ours:
        report("generate.2000_tools_seconds", ours[2000] / 4.0, 1.0, f"failwell={ours[2000]:.2f}s target<4s")
    big = [size for size in sizes if size >= 100]
    if len(big) >= 2 and 10 in ours:
        small, large = 10, max(big)
        per_tool_small = (ours[min(big)] - ours[small]) / (min(big) - small)
        per_tool_large = (ours[large] - ours[min(big)]) / (large - min(big))
        ratio = per_tool_large / per_tool_small if per_tool_small > 0 else float("inf")  # <= 0: noise, not a pass
        report("generate.linear_per_tool_cost", ratio, 1.5,
               f"{per_tool_small * 1000:.1f}ms/tool at {small}-{min(big)}, "
               f"{per_tool_large * 1000:.1f}ms/tool at {min(big)}-{large}")  # fmt: skip


def validation(size: int, runs: int) -> None:
    """`failwell validate` alone on a spec of `size` tools: reading, the bounds, the schema, lint and wording."""
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "spec.yaml"
        path.write_text(spec(size))
        seconds = statistics.median(timed([FAILWELL, "validate", str(path)]) for _ in range(runs))
    report(f"validate.{size}_tools_seconds", seconds / 4.0, 1.0, f"failwell={seconds:.2f}s target<4s")


def p50_us(samples: list[float]) -> float:
    return statistics.median(samples) * 1e6


async def in_process(calls: int) -> None:
    from bare_tasks import mcp as bare
    from mcp import Client

    from tasks_mcp._generated.runtime.stores.store_memory import MemoryStore
    from tasks_mcp._generated.server import build_server
    from tasks_mcp._generated.tools import tasks_get

    generated = build_server(store=MemoryStore())

    async def missing(params: Any, ctx: Any) -> Any:
        raise tasks_get.TaskMissing()

    failing = build_server({"tasks_get": missing}, store=MemoryStore())
    for server in (generated, failing):
        server.services.rate_limit = None  # the example allows 120 calls a minute; the baseline has no limit

    async def measure(server: Any) -> list[float]:
        samples = []
        async with Client(server) as client:
            for number in range(calls + calls // 5):
                started = time.perf_counter()
                await client.call_tool("tasks_get", {"ref": "T-1"})
                if number >= calls // 5:
                    samples.append(time.perf_counter() - started)
        return samples

    rounds: dict[str, list[float]] = {"bare": [], "generated": [], "failing": []}
    for _ in range(3):
        for name, server in (("bare", bare), ("generated", generated), ("failing", failing)):
            rounds[name] += await measure(server)
    bare_p50, gen_p50, fail_p50 = (p50_us(rounds[name]) for name in ("bare", "generated", "failing"))
    report("runtime.in_process_read_vs_bare_mcpserver", gen_p50 / bare_p50, 1.0,
           f"generated={gen_p50:.0f}us bare={bare_p50:.0f}us p50")  # fmt: skip
    report("runtime.declared_failure_vs_success", fail_p50 / gen_p50, 1.10,
           f"failure={fail_p50:.0f}us success={gen_p50:.0f}us p50")  # fmt: skip


class StdioServer:
    """A server subprocess driven with raw JSON-RPC lines: nothing but the server on the clock."""

    def __init__(self, command: list[str]) -> None:
        env = {**os.environ, "PYTHONPATH": str(REPO / "examples" / "tasks" / "src"), "LOG_LEVEL": "WARNING"}
        pipe, quiet = subprocess.PIPE, subprocess.DEVNULL
        self.process = subprocess.Popen(
            command, stdin=pipe, stdout=pipe, stderr=quiet, text=True, env=env, cwd=tempfile.gettempdir()
        )
        hello = {"protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "bench", "version": "0"}}
        self.ask({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": hello})
        self.send({"jsonrpc": "2.0", "method": "notifications/initialized"})

    def send(self, message: dict[str, Any]) -> None:
        assert self.process.stdin is not None
        self.process.stdin.write(json.dumps(message) + "\n")
        self.process.stdin.flush()

    def ask(self, message: dict[str, Any]) -> dict[str, Any]:
        assert self.process.stdout is not None
        self.send(message)
        while True:
            answer: dict[str, Any] = json.loads(self.process.stdout.readline())
            if answer.get("id") == message["id"]:
                return answer

    def close(self) -> None:
        assert self.process.stdin is not None
        self.process.stdin.close()
        self.process.wait(timeout=30)


GENERATED = [sys.executable, str(BENCH / "tasks-mcp")]
"""The example's server as its console script starts it (the script's name ends in -mcp: a command)."""
BARE = [sys.executable, str(BENCH / "bare_tasks.py")]


def stdio(calls: int) -> None:
    samples: dict[str, list[float]] = {"bare": [], "generated": []}
    for _ in range(3):
        for name, command in (("bare", BARE), ("generated", GENERATED)):
            server = StdioServer(command)
            for number in range(1, calls + calls // 5 + 1):
                call = {"name": "tasks_get", "arguments": {"ref": "T-1"}}
                started = time.perf_counter()
                server.ask({"jsonrpc": "2.0", "id": number, "method": "tools/call", "params": call})
                if number > calls // 5:
                    samples[name].append(time.perf_counter() - started)
            server.close()
    bare_p50, gen_p50 = p50_us(samples["bare"]), p50_us(samples["generated"])
    report("runtime.stdio_read_vs_bare_mcpserver", gen_p50 / bare_p50, 1.0,
           f"generated={gen_p50:.0f}us bare={bare_p50:.0f}us p50")  # fmt: skip


def startup(runs: int) -> None:
    def first_answer(command: list[str]) -> float:
        started = time.perf_counter()
        server = StdioServer(command)
        server.ask({"jsonrpc": "2.0", "id": 1, "method": "tools/list"})
        elapsed = time.perf_counter() - started
        server.close()
        return elapsed

    generated, bare = [], []
    for _ in range(runs):
        generated.append(first_answer(GENERATED))
        bare.append(first_answer(BARE))
    gen, base = statistics.median(generated), statistics.median(bare)
    report("startup.first_tools_list_vs_bare_mcpserver", gen / base, 0.9,
           f"generated={gen * 1000:.0f}ms bare={base * 1000:.0f}ms")  # fmt: skip


PLAIN_CLIENT = (
    "import sys, anyio\n"
    "from mcp import Client, StdioServerParameters\n"
    "from mcp.client.stdio import get_default_environment, stdio_client\n"
    "async def main():\n"
    "    env = get_default_environment() | {'PYTHONPATH': sys.argv[2]}\n"
    "    params = StdioServerParameters(command=sys.argv[1], env=env)\n"
    "    async with Client(stdio_client(params)) as client:\n"
    "        result = await client.call_tool('tasks_get', {'ref': 'T-1'})\n"
    "        print(result.model_dump_json())\n"
    "anyio.run(main)\n"
)
"""The baseline for `failwell call`: the few lines a person would write with the `mcp` client."""


def cli_call(runs: int) -> None:
    """`failwell call tasks_get ref=T-1` against a plain `mcp` client script starting the same server and
    making the same call, each from a fresh process: what a person waits for at the prompt (reported)."""
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        (root / "failwell.yaml").write_text((REPO / "examples" / "tasks" / "failwell.yaml").read_text())
        script = root / ".venv" / "bin" / "tasks-mcp"  # where `failwell call` looks for the project's server
        script.parent.mkdir(parents=True)
        source = REPO / "examples" / "tasks" / "src"  # `failwell call` passes the server only what it needs
        server = (BENCH / "tasks-mcp").read_text()
        script.write_text(f"#!{sys.executable}\nimport sys\nsys.path.insert(0, {str(source)!r})\n{server}")
        script.chmod(0o755)
        env = {**os.environ, "PYTHONPATH": str(REPO / "examples" / "tasks" / "src"), "LOG_LEVEL": "WARNING"}
        ours, plain = [], []
        for _ in range(runs):
            ours.append(timed([FAILWELL, "call", "tasks_get", "ref=T-1"], cwd=root, env=env))
            plain.append(timed([sys.executable, "-c", PLAIN_CLIENT, str(script), env["PYTHONPATH"]], cwd=root, env=env))
    mine, base = statistics.median(ours), statistics.median(plain)
    print(f"cli.failwell_call_vs_plain_mcp_client ratio={mine / base:.3f} (reported)  "
          f"failwell call={mine * 1000:.0f}ms plain client script={base * 1000:.0f}ms", flush=True)  # fmt: skip


def idle_memory(runs: int) -> None:
    """Peak resident memory (VmHWM) of an idle server after initialize and tools/list: generated against bare."""

    def peak(command: list[str]) -> int:
        server = StdioServer(command)
        server.ask({"jsonrpc": "2.0", "id": 1, "method": "tools/list"})
        status = Path(f"/proc/{server.process.pid}/status").read_text()
        server.close()
        return next(int(line.split()[1]) for line in status.splitlines() if line.startswith("VmHWM:"))

    if not Path("/proc/self/status").is_file():
        print("memory skipped: no /proc here", flush=True)
        return
    generated = statistics.median(peak(GENERATED) for _ in range(runs))
    bare = statistics.median(peak(BARE) for _ in range(runs))
    print(f"memory.idle_peak_vs_bare_mcpserver ratio={generated / bare:.3f} (reported)  "
          f"generated={generated / 1024:.1f}MiB bare={bare / 1024:.1f}MiB", flush=True)  # fmt: skip


def keyed_write(calls: int) -> None:
    result = subprocess.run([sys.executable, str(BENCH / "keyed.py"), "--calls", str(calls)],
                            check=True, capture_output=True, text=True)  # fmt: skip
    for line in result.stdout.splitlines():
        if line.startswith("keyed_write.sqlite"):
            fields = dict(part.split("=", 1) for part in line.split() if "=" in part)
            p50, p99 = float(fields["p50_added_ms"]), float(fields["p99_added_ms"])
            report("runtime.keyed_write_sqlite_added_p50_ms", p50 / 1.0, 1.0, f"{p50:.3f}ms target<=1ms")
            report("runtime.keyed_write_sqlite_added_p99_ms", p99 / 3.0, 1.0, f"{p99:.3f}ms target<=3ms")
            print(line, flush=True)


TODAY = "9fa37fd"
"""The last commit before the SEP-3313 envelope and the telemetry: "today", for the no-SDK comparison."""


def extract_today(folder: str) -> Path | None:
    """The tasks example's package as it was at TODAY, as `tasks_today` in a folder of `folder`; None outside git."""
    archive = subprocess.run(["git", "-C", str(REPO), "archive", TODAY, "examples/tasks/src"], capture_output=True)
    if archive.returncode != 0:
        return None
    subprocess.run(["tar", "-x", "-C", folder], input=archive.stdout, check=True)
    today = Path(folder) / "today"
    today.mkdir()
    (Path(folder) / "examples" / "tasks" / "src" / "tasks_mcp").rename(today / "tasks_today")
    return today


def instructions(calls: int) -> None:
    """bench/instructions.py: the per-call and start-up comparisons in instructions (valgrind), which load cannot
    move, with TODAY's runtime beside this one."""
    with tempfile.TemporaryDirectory() as folder:
        today = extract_today(folder)
        command = [sys.executable, str(BENCH / "instructions.py"), "--calls", str(calls)]
        command += ["--today", str(today)] if today is not None else []
        subprocess.run(command, check=True)


def telemetry(calls: int) -> None:
    """A succeeding and a failing call: today's runtime and this one with no OpenTelemetry SDK configured, taking
    turns in one process; then this one with the SDK, an in-memory exporter and reader (bench/telemetry.py)."""
    with tempfile.TemporaryDirectory() as folder:
        today = extract_today(folder)
        if today is None:
            print(f"telemetry skipped: no commit {TODAY} to compare with (not a git checkout?)", flush=True)
            return
        command = [sys.executable, str(BENCH / "telemetry.py"), "--calls", str(calls), "--today", str(today), "--sdk"]
        env = {**os.environ, "PYTHONPATH": str(REPO / "examples" / "tasks" / "src")}
        result = subprocess.run(command, check=True, capture_output=True, text=True, env=env)
    figure = {key: float(value) for key, value in (part.split("=", 1) for part in result.stdout.split()[1:])}
    for path in ("success", "failure"):
        now, today = figure[f"none_{path}_us"], figure[f"today_{path}_us"]
        report(f"telemetry.no_sdk_vs_today_{path}", figure[f"ratio_none_today_{path}"], 1.02,
               f"now={now:.0f}us today={today:.0f}us p50, ratio paired by round (today: {TODAY})")  # fmt: skip
    off = figure["off_failure_us"]
    report("telemetry.no_sdk_without_the_draft_object_vs_today_failure", figure["ratio_off_today_failure"], 1.02,
           f"now={off:.0f}us p50 with server.tool_failure_envelope: false")  # fmt: skip
    for path in ("success", "failure"):
        sdk, none = figure[f"sdk_{path}_us"], figure[f"none_{path}_us"]
        report(f"telemetry.in_memory_sdk_vs_no_sdk_{path}", sdk / none, 2.0,
               f"sdk={sdk:.0f}us none={none:.0f}us p50 (reported)")  # fmt: skip
    print(f"telemetry failure/success p50: today {figure['today_failure_us'] / figure['today_success_us']:.3f}, "
          f"no SDK {figure['none_failure_us'] / figure['none_success_us']:.3f}, "
          f"in-memory SDK {figure['sdk_failure_us'] / figure['sdk_success_us']:.3f}", flush=True)  # fmt: skip


SHARED_OPENAPI = next(
    (path for path in (REPO.parent / "shared" / "openapi", REPO.parent.parent / "shared" / "openapi") if path.is_dir()),
    REPO.parent / "shared" / "openapi",
)
"""../shared/openapi beside the repository, or beside the folder of its worktrees."""
REAL_DOCUMENTS = {
    "twilio": SHARED_OPENAPI / "twilio_api_v2010.json",
    "digitalocean": SHARED_OPENAPI / "digitalocean" / "specification" / "DigitalOcean-public.v2.yaml",
    "github": Path(
        os.environ.get(
            "FAILWELL_GITHUB_OPENAPI",
            Path.home() / ".cache" / "failwell-ci" / "octokit-openapi-23.0.2" / "api.github.com.json",
        )
    ),
}
"""The real OpenAPI documents (../shared/openapi; GitHub's is the one bash .ci/test caches)."""


def import_openapi_operations(document: Path) -> list[Any]:
    """The operations of an OpenAPI document, as failwell's importer reads them."""
    from failwell.importers.openapi.document import load
    from failwell.importers.openapi.operations import operations

    return operations(load(str(document)))


def real_imports() -> None:
    """`failwell import openapi DOC --all` (spec, handlers and the generated project) of each whole real document,
    side by side with openapi-python-client generating a client for the same document: seconds per operation."""
    baseline = opc()
    for name, document in REAL_DOCUMENTS.items():
        if not document.is_file():
            print(f"import.{name} skipped: {document} is not here", flush=True)
            continue
        with tempfile.TemporaryDirectory() as tmp:
            root = Path(tmp)
            started = time.perf_counter()
            run = subprocess.run(
                [FAILWELL, "import", "openapi", str(document), str(root / "ours"), "--all"],
                capture_output=True,
                text=True,
            )
            ours = time.perf_counter() - started
            files = len(json.loads((root / "ours" / "failwell.manifest.json").read_text()).get("files", {}))
            spec_text = (root / "ours" / "failwell.yaml").read_text() if run.returncode == 0 else ""
            tools = spec_text.count("\n    effect: ")
            operations = len(import_openapi_operations(document))
            said = re.search(r"operation\(s\) in ([0-9.]+) s", run.stderr)
            importing = f" (import {said.group(1)}s of it)" if said else ""
            started = time.perf_counter()
            theirs_run = subprocess.run(
                [baseline, "generate", "--path", str(document), "--output-path", str(root / "theirs")],
                capture_output=True,
                text=True,
                env=opc_env(),
            )
            theirs = time.perf_counter() - started
        per_ours = ours / max(tools, 1)
        detail = (
            f"failwell={ours:.1f}s{importing} for {tools} tools of {operations} operations "
            f"({per_ours * 1000:.1f}ms/operation, "
            f"{files} files) openapi-python-client={theirs:.1f}s ({theirs / operations * 1000:.1f}ms/operation)"
            + ("" if theirs_run.returncode == 0 else " (it refused the document: no client written)")
        )
        report(f"import.{name}_whole_vs_openapi_python_client", ours / theirs, 1.0, detail)


def tasks_tests() -> None:
    seconds = timed([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider"], cwd=REPO / "examples" / "tasks",
                    env={**os.environ, "PYTHONPATH": "src"})  # fmt: skip
    report("tests.tasks_generated_suite_seconds", seconds / 20.0, 1.0, f"{seconds:.1f}s target<20s")


def precompile() -> None:
    """Bytecode for failwell and the example, as pip writes it for the baselines' installed packages."""
    runtime = REPO / "template" / "src" / "{{ package }}" / "_generated" / "runtime"  # failwell._runtime's modules
    for folder in (REPO / "generator" / "failwell", runtime, REPO / "examples" / "tasks" / "src"):
        compileall.compile_dir(folder, quiet=2, force=False)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--quick", action="store_true", help="fewer sizes, runs and calls: about a minute")
    parser.add_argument("--only", action="append", default=[], metavar="STEP", help="run only this step")
    args = parser.parse_args()
    logging.disable(logging.CRITICAL)
    sizes = [1, 10, 100] if args.quick else [1, 10, 100, 1000, 2000]  # tools; openapi-python-client as many operations
    steps: dict[str, Callable[[], None]] = {
        "startup": lambda: startup(3 if args.quick else 9),
        "in-process": lambda: asyncio.run(in_process(300 if args.quick else 2000)),
        "stdio": lambda: stdio(200 if args.quick else 1000),
        "keyed-write": lambda: keyed_write(300 if args.quick else 2000),
        "telemetry": lambda: telemetry(400 if args.quick else 2000),
        "instructions": lambda: instructions(50 if args.quick else 200),
        "cli": lambda: cli_call(3 if args.quick else 9),
        "memory": lambda: idle_memory(3),
        "generation": lambda: generation(sizes, 1 if args.quick else 3),
        "validation": lambda: validation(2000, 1 if args.quick else 5),
        "imports": real_imports,
        "tasks-tests": tasks_tests,
    }
    unknown = [name for name in args.only if name not in steps]
    if unknown:
        parser.error(f"unknown step {', '.join(unknown)}; the steps are {', '.join(steps)}")
    chosen = args.only or [name for name in steps if not (args.quick and name in ("imports", "tasks-tests"))]
    precompile()
    for name in chosen:
        steps[name]()


if __name__ == "__main__":
    main()
