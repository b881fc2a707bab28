"""Resource-template matching time against a hostile URI's length, the old matcher and the new side by side.

    python bench/uri_match.py [--cap 60] [--reps 50]

The old matcher (a copy of what the runtime had before: one backtracking regular expression per template,
`[^/?#]+` per variable, `fullmatch`) runs in a child process stopped after `--cap` seconds, since it can run
for hours; a size is not tried once a smaller one was stopped. The new one is the runtime's own
`ResourceDefinition.match` (the tasks example's vendored copy, so run `python tests/regen.py` first), timed
in-process, p50 of `--reps` runs. The URIs are no template's (each ends in a `/` where none may be), which is
the old matcher's worst case: every way of splitting the URI is tried before it gives up.

Prints one line per template and size: `uri_match.<template> bytes=N old_s=... new_us=...`.
"""

from __future__ import annotations

import argparse
import dataclasses
import re
import statistics
import subprocess
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO / "examples" / "tasks" / "src"))

CASES = {
    "dates://{year}-{month}-{day}": "-",
    "v://{a}.{b}.{c}.{d}": ".",
    "tasks://{ref}": "T",
}
"""Each template, and the character its hostile URI repeats."""
SIZES = (1024, 4096, 65536)
_VARIABLE = re.compile(r"\{([a-z][a-z0-9_]*)\}")


def hostile(template: str, size: int) -> str:
    head = template.split("{", 1)[0]
    return head + CASES[template] * (size - len(head) - 1) + "/"


def old_pattern(template: str) -> re.Pattern[str]:
    """The matcher the runtime had before: a regular expression that backtracks."""
    parts = _VARIABLE.split(template)
    regex = "".join(re.escape(part) if index % 2 == 0 else f"(?P<{part}>[^/?#]+)" for index, part in enumerate(parts))
    return re.compile(regex)


def old_seconds(template: str, size: int, cap: float) -> float | None:
    """How long the old matcher took, in a child process; None when it was stopped at `cap` seconds."""
    code = (
        "import sys, time; sys.path.insert(0, sys.argv[1]); from uri_match import hostile, old_pattern; "
        "p = old_pattern(sys.argv[2]); u = hostile(sys.argv[2], int(sys.argv[3])); "
        "s = time.perf_counter(); p.fullmatch(u); print(time.perf_counter() - s)"
    )
    command = [sys.executable, "-c", code, str(Path(__file__).parent), template, str(size)]
    try:
        done = subprocess.run(command, capture_output=True, text=True, timeout=cap, check=True)
    except subprocess.TimeoutExpired:
        return None
    return float(done.stdout)


def new_us(template: str, size: int, reps: int) -> float:
    from tasks_mcp._generated.resources import task

    async def handle(params: object, ctx: object) -> object:
        return {}

    resource = dataclasses.replace(task.definition(handle), uri=template)  # type: ignore[arg-type]
    uri = hostile(template, size)
    samples = []
    for _ in range(reps):
        started = time.perf_counter()
        assert resource.match(uri) is None
        samples.append(time.perf_counter() - started)
    return statistics.median(samples) * 1e6


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--cap", type=float, default=60.0)
    parser.add_argument("--reps", type=int, default=50)
    args = parser.parse_args()
    for template in CASES:
        stopped = False
        for size in SIZES:
            old = None if stopped else old_seconds(template, size, args.cap)
            stopped = old is None
            shown = f"{old:.6f}" if old is not None else f">{args.cap:g} (stopped)"
            new = new_us(template, size, args.reps)
            print(f"uri_match.{template} bytes={size} old_s={shown} new_us={new:.1f}", flush=True)


if __name__ == "__main__":
    main()
