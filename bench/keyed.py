"""What an idempotency key costs: p50 latency of a keyed write against the same tool called without a key,
on each store (memory, SQLite, Redis), side by side in one run, through the generated server in-process.

    python bench/keyed.py [--calls 2000]      (needs redis-server on PATH for the Redis row)

Prints one line per store: `keyed_write.<store> p50_added_ms=... p99_added_ms=... ratio=R target=T ok|MISS`,
where the target is the issue's: a keyed write adds at most 1 ms at p50 and 3 ms at p99.
"""

from __future__ import annotations

import argparse
import asyncio
import logging
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

sys.path[:0] = [
    str(Path(__file__).resolve().parents[1] / "tests"),
    str(Path(__file__).resolve().parents[1] / "generator"),
]

from ledger import make_project, redis_server  # noqa: E402


async def latencies(server: Any, tool: str, calls: int, keyed: bool) -> tuple[float, float]:
    """p50 and p99 in milliseconds, the first tenth of the calls left out as warm-up."""
    samples = []
    for number in range(calls):
        arguments: dict[str, Any] = {"account": "acct-1", "amount": 5}
        if keyed:
            arguments["idempotency_key"] = f"bench-key-{number:012d}"
        started = time.perf_counter()
        await server.call_tool(tool, arguments)
        samples.append(time.perf_counter() - started)
    kept = sorted(samples[calls // 10 :])
    return statistics.median(kept) * 1000, kept[min(len(kept) - 1, int(len(kept) * 0.99))] * 1000


async def measure(store: Any, calls: int) -> tuple[tuple[float, float], tuple[float, float]]:
    from ledger_mcp._generated.server import build_server
    from ledger_mcp._generated.tools import ledger_add

    async def add(params: ledger_add.Input, ctx: Any) -> ledger_add.Output:
        return ledger_add.Output(entry=1)

    keyed_server = build_server({"ledger_add": add}, store=store)
    keyed_server.services.rate_limit = None
    from ledger_mcp._generated.runtime.store_memory import MemoryStore

    plain = build_server({"ledger_add": add}, store=MemoryStore())
    plain.services.rate_limit = None
    plain.services.store = None  # no store: the key is ignored, so this is the tool without deduplication
    base = await latencies(plain, "ledger_add", calls, keyed=True)
    keyed = await latencies(keyed_server, "ledger_add", calls, keyed=True)
    await keyed_server.aclose()
    return base, keyed


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--calls", type=int, default=2000)
    args = parser.parse_args()
    logging.disable(logging.CRITICAL)
    with tempfile.TemporaryDirectory() as tmp:
        src = make_project(Path(tmp), "redis")
        sys.path.insert(0, str(src))
        from ledger_mcp._generated.runtime.store_memory import MemoryStore
        from ledger_mcp._generated.runtime.store_redis import RedisStore
        from ledger_mcp._generated.runtime.store_sqlite import SQLiteStore

        with redis_server() as url:
            stores = {
                "memory": MemoryStore(),
                "sqlite": SQLiteStore(Path(tmp) / "bench.sqlite3"),
                "redis": RedisStore(url),
            }
            for name, store in stores.items():
                (base, base99), (keyed, keyed99) = asyncio.run(measure(store, args.calls))
                added, added99 = keyed - base, keyed99 - base99
                verdict = "ok" if added <= 1.0 and added99 <= 3.0 else "MISS"
                print(
                    f"keyed_write.{name} p50_without_key_ms={base:.3f} p50_keyed_ms={keyed:.3f} "
                    f"p50_added_ms={added:.3f} p99_added_ms={added99:.3f} ratio={keyed / base:.2f} "
                    f"target=added<=1ms_p50,3ms_p99 {verdict}"
                )


if __name__ == "__main__":
    main()
