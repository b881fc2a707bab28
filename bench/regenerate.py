"""How long `failwell generate` takes on a 100-tool project: unchanged (target under 1 s), and after
one message is reworded (a full render), as the `failwell` command a person runs.

    python bench/regenerate.py [--tools 100] [--runs 5]
"""

from __future__ import annotations

import argparse
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

FAILWELL = str(Path(sys.executable).parent / "failwell")


def spec(tools: int) -> str:
    """A spec with `tools` read tools, each with two arguments and one declared failure."""
    lines = ["failwell: 1", "server: {name: big}", "tools:"]
    for number in range(tools):
        lines += [
            f"  item_{number:04d}_get:",
            f"    description: Read item {number} by its id.",
            "    effect: read",
            "    input:",
            "      item_id: {type: string, pattern: '^I-[0-9]+$', example: I-1}",
            "      verbose: {type: boolean, default: false}",
            "    failures:",
            "      missing:",
            "        class: not_found",
            "        message: 'No item {item_id}. Ids look like I-1; call item_0000_get with a known id.'",
        ]
    return "\n".join(lines) + "\n"


def timed(*args: str) -> float:
    started = time.perf_counter()
    subprocess.run([FAILWELL, *args], check=True, capture_output=True)
    return time.perf_counter() - started


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--tools", type=int, default=100)
    parser.add_argument("--runs", type=int, default=5)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        spec_path = Path(tmp) / "big.yaml"
        spec_path.write_text(spec(args.tools))
        project = Path(tmp) / "big"
        new_s = timed("new", str(project), "--spec", str(spec_path))
        unchanged = statistics.median(timed("generate", str(project)) for _ in range(args.runs))
        reworded = []
        for run in range(args.runs):
            target = project / "failwell.yaml"
            target.write_text(target.read_text().replace("Ids look like I-1", f"Ids look like I-{run + 2}", 1))
            reworded.append(timed("generate", str(project)))
        shutil.rmtree(project)
    print(f"new.{args.tools}_tools seconds={new_s:.2f}")
    ok = "ok" if unchanged < 1 else "MISS"
    print(f"regenerate.unchanged_{args.tools}_tools seconds={unchanged:.3f} ratio={unchanged:.3f} target=1 {ok}")
    print(f"regenerate.one_message_reworded_{args.tools}_tools seconds={statistics.median(reworded):.2f}")


if __name__ == "__main__":
    main()
