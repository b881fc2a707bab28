"""What paging a huge `resources/list` costs: the time of the first page (the listing computed, its URIs made
off the event loop) and the p50 of the following pages, for a template listing 100,000 resources, through the
generated server in-process with the real `mcp` client.

    python bench/listing.py [--items 100000] [--pages 20]

Prints `listing.first_page_ms=... listing.next_page_p50_ms=... target=T ok|MISS`, where the target is the issue's:
a following page costs no more than 50 ms (before, every page recomputed the whole listing on the event loop,
about a second for 100,000).
"""

from __future__ import annotations

import argparse
import logging
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

import anyio

sys.path[:0] = [
    str(Path(__file__).resolve().parents[1] / "tests"),
    str(Path(__file__).resolve().parents[1] / "generator"),
]

from test_listings import HANDLER, SPEC  # noqa: E402

from failwell import new  # noqa: E402

TARGET_MS = 50.0


async def measure(pages: int) -> tuple[float, float]:
    from many_mcp._generated.server import build_server
    from mcp import Client

    async with Client(build_server()) as session:
        started = time.perf_counter()
        page = await session.list_resources()
        first = (time.perf_counter() - started) * 1000
        samples = []
        for _ in range(pages):
            started = time.perf_counter()
            page = await session.list_resources(cursor=page.next_cursor)
            samples.append((time.perf_counter() - started) * 1000)
    return first, statistics.median(samples)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--items", type=int, default=100_000)
    parser.add_argument("--pages", type=int, default=20)
    args = parser.parse_args()
    logging.disable(logging.CRITICAL)
    os.environ["MANY_ITEMS"] = str(args.items)
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        (root / "many.yaml").write_text(SPEC)
        new(root / "many", root / "many.yaml")
        (root / "many" / "src" / "many_mcp" / "handlers" / "resources" / "item.py").write_text(HANDLER)
        sys.path.insert(0, str(root / "many" / "src"))
        first, following = anyio.run(measure, args.pages)
    verdict = "ok" if following <= TARGET_MS else "MISS"
    print(
        f"listing.first_page_ms={first:.1f} listing.next_page_p50_ms={following:.2f} "
        f"items={args.items} target={TARGET_MS:g} {verdict}"
    )


if __name__ == "__main__":
    main()
