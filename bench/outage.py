"""Upstream load and time to fail during a full outage: the generated weather server against a naive
3-attempt retry policy, side by side, on a real HTTP server on 127.0.0.1 that answers 503 to everything.

    python bench/outage.py [--calls 300]

Prints one line per comparison: `NAME value ... ratio=R target=T ok|MISS`.
"""

from __future__ import annotations

import argparse
import logging
import statistics
import sys
import time
from pathlib import Path

import anyio
import httpx

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "examples" / "weather" / "src"))

from weather_mcp._generated.server import build_server
from weather_mcp._generated.testing import FakeUpstream, Reply

ARGUMENTS = {"place": "Lisbon"}


async def generated(calls: int, url: str) -> list[float]:
    """Latencies (s) of each call through the generated server."""
    import os

    os.environ["FORECAST_API_URL"] = url
    server = build_server()
    latencies = []
    for _ in range(calls):
        started = time.perf_counter()
        result = await server.call_tool("weather_forecast", ARGUMENTS)
        latencies.append(time.perf_counter() - started)
        assert result.is_error
    await server.aclose()
    return latencies


async def naive(calls: int, url: str) -> None:
    """Three attempts per call, no breaker, no backoff: what a hand-written retry loop often does."""
    async with httpx.AsyncClient(base_url=url, timeout=4) as client:
        for _ in range(calls):
            for _attempt in range(3):
                response = await client.get("/forecast", params=ARGUMENTS)
                if response.status_code < 500:
                    break


def line(name: str, ratio: float, target: float, detail: str, lower_is_better: bool = True) -> str:
    ok = ratio <= target if lower_is_better else ratio >= target
    return f"{name} {detail} ratio={ratio:.3f} target={target} {'ok' if ok else 'MISS'}"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--calls", type=int, default=300)
    args = parser.parse_args()
    logging.disable(logging.CRITICAL)
    with FakeUpstream(default=Reply(503)) as fake:
        latencies = anyio.run(generated, args.calls, fake.url)
        generated_attempts = len(fake.requests)
    with FakeUpstream(default=Reply(503)) as fake:
        anyio.run(naive, args.calls, fake.url)
        naive_attempts = len(fake.requests)
    per_call = generated_attempts / args.calls
    print(
        line(
            "outage.upstream_attempts_per_call",
            generated_attempts / naive_attempts,
            0.2,
            f"generated={per_call:.3f} naive={naive_attempts / args.calls:.3f} calls={args.calls}",
        )
    )
    open_latencies = sorted(latencies[2:])  # the first two calls spend the five failures that open the circuit
    p50 = statistics.median(open_latencies) * 1000
    p99 = open_latencies[int(len(open_latencies) * 0.99) - 1] * 1000
    print(line("outage.fail_fast_p99_ms", p99 / 5.0, 1.0, f"p50={p50:.3f}ms p99={p99:.3f}ms (target p99 < 5 ms)"))


if __name__ == "__main__":
    main()
