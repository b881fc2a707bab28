"""The telemetry benchmark, in one process: p50 of a succeeding and of a failing `tasks_get`, in-process through
the SDK's in-memory client.

`--today DIR`: DIR holds the tasks example as it was before telemetry (run.py extracts it from git), as the
package `tasks_today`; its calls and this runtime's, with no OpenTelemetry SDK configured (the API's no-ops,
what every server runs unless its user sets one up), take turns in batches, so the machine's noise falls on
both alike; "off" is this runtime without the SEP-3313 object (`server.tool_failure_envelope: false`).
`--sdk`: then (a provider is set once per process) this runtime with the SDK, an in-memory span exporter and
an in-memory metric reader. Prints one line of `<variant>_<path>_us=...` and `ratio_<variant>_today_<path>=...`.
"""

from __future__ import annotations

import argparse
import asyncio
import importlib
import logging
import statistics
import sys
import time
from dataclasses import replace
from typing import Any

ROUNDS = 20
"""Turns each variant takes: short ones, so that a burst of load on the shared machine falls on all of them."""


def configure_sdk() -> None:
    from opentelemetry import metrics, trace
    from opentelemetry.sdk.metrics import MeterProvider
    from opentelemetry.sdk.metrics.export import InMemoryMetricReader
    from opentelemetry.sdk.trace import TracerProvider
    from opentelemetry.sdk.trace.export import SimpleSpanProcessor
    from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter

    provider = TracerProvider()
    provider.add_span_processor(SimpleSpanProcessor(InMemorySpanExporter()))
    trace.set_tracer_provider(provider)
    metrics.set_meter_provider(MeterProvider(metric_readers=[InMemoryMetricReader()]))


def servers(package: str) -> dict[str, Any]:
    """The example's server answering `tasks_get`, and one whose handler raises its declared failure."""
    build_server = importlib.import_module(f"{package}._generated.server").build_server
    memory_store = importlib.import_module(f"{package}._generated.runtime.stores.store_memory").MemoryStore
    tasks_get = importlib.import_module(f"{package}._generated.tools.tasks_get")

    async def missing(params: Any, ctx: Any) -> Any:
        raise tasks_get.TaskMissing()

    built = {
        "success": build_server(store=memory_store()),
        "failure": build_server({"tasks_get": missing}, store=memory_store()),
    }
    for server in built.values():
        server.services.rate_limit = None
    return built


async def batch(server: Any, calls: int, samples: list[float]) -> None:
    from mcp import Client

    async with Client(server) as client:
        for number in range(calls + calls // 5):
            started = time.perf_counter()
            await client.call_tool("tasks_get", {"ref": "T-1"})
            if number >= calls // 5:
                samples.append(time.perf_counter() - started)


async def take_turns(variants: dict[str, dict[str, Any]], calls: int) -> dict[str, list[float]]:
    """Each variant's servers in turn, ROUNDS times: each round's p50 of each, in µs, as `<variant>_<path>`."""
    rounds: dict[str, list[float]] = {f"{name}_{path}": [] for name in variants for path in ("success", "failure")}
    for _ in range(ROUNDS):
        for name, built in variants.items():
            for path, server in built.items():
                samples: list[float] = []
                await batch(server, calls // ROUNDS, samples)
                rounds[f"{name}_{path}"].append(statistics.median(samples) * 1e6)
    return rounds


def paired(rounds: dict[str, list[float]], variant: str, baseline: str, path: str) -> float:
    """The median over rounds of the variant's p50 over the baseline's in the same round: a burst of load on the
    shared machine moves a whole round, not the ratio."""
    pairs = zip(rounds[f"{variant}_{path}"], rounds[f"{baseline}_{path}"], strict=True)
    return statistics.median(mine / theirs for mine, theirs in pairs)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--calls", type=int, default=2000)
    parser.add_argument("--today", help="a folder holding the tasks example before telemetry, as `tasks_today`")
    parser.add_argument("--sdk", action="store_true", help="then again with the SDK and in-memory exporters")
    args = parser.parse_args()
    logging.disable(logging.CRITICAL)
    variants = {"none": servers("tasks_mcp"), "off": servers("tasks_mcp")}
    for server in variants["off"].values():  # as `server.tool_failure_envelope: false` builds it
        server.definitions = {
            name: replace(tool, tool_failure_envelope=False) for name, tool in server.definitions.items()
        }
    if args.today:
        sys.path.insert(0, args.today)
        variants["today"] = servers("tasks_today")
    rounds = asyncio.run(take_turns(variants, args.calls))
    figures = {f"{key}_us": statistics.median(values) for key, values in rounds.items()}
    if args.today:
        for variant in ("none", "off"):
            for path in ("success", "failure"):
                figures[f"ratio_{variant}_today_{path}"] = paired(rounds, variant, "today", path)
    if args.sdk:
        configure_sdk()
        rounds = asyncio.run(take_turns({"sdk": servers("tasks_mcp")}, args.calls))
        figures |= {f"{key}_us": statistics.median(values) for key, values in rounds.items()}
    print("telemetry " + " ".join(f"{key}={value:.4g}" for key, value in sorted(figures.items())))


if __name__ == "__main__":
    main()
