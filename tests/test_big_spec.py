"""A 2,000-tool spec validates, generates, and its project imports and lists every tool (issue 15, point 4).

How fast is bench/run.py's to say (generate.2000_tools_seconds, validate.2000_tools_seconds); this only
holds that a spec this large works end to end. The spec is the one the benchmarks generate
(bench/regenerate.py's `spec`), written out here so the tests need nothing outside tests/."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from conftest import failwell

pytestmark = pytest.mark.slow

TOOLS = 2000


def big_spec(tools: int) -> str:
    """`tools` read tools, each with two arguments and one declared failure."""
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


LIST_TOOLS = """
import asyncio, json, sys

sys.path.insert(0, sys.argv[1])
from big_mcp._generated.server import build_server
from mcp import Client


async def main():
    async with Client(build_server()) as client:
        listed = await client.list_tools()
    print(json.dumps([[tool.name, tool.input_schema] for tool in listed.tools]))


asyncio.run(main())
"""


def test_a_2000_tool_spec_validates_generates_and_its_project_imports_and_lists_every_tool(tmp_path: Path) -> None:
    spec = tmp_path / "big.yaml"
    spec.write_text(big_spec(TOOLS), encoding="utf-8")
    checked = failwell("validate", spec)
    assert checked.returncode == 0, checked.stdout[-2000:] + checked.stderr[-2000:]
    assert checked.stdout == ""  # no diagnostic, not even a warning

    dest = tmp_path / "big"
    created = failwell("new", dest, "--spec", spec)
    assert created.returncode == 0, created.stdout[-2000:] + created.stderr[-2000:]
    names = [f"item_{number:04d}_get" for number in range(TOOLS)]
    package = dest / "src" / "big_mcp"
    for folder in (package / "_generated" / "tools", package / "handlers"):
        assert sorted(path.stem for path in folder.glob("item_*.py")) == names

    # The project as an installed package would be: its src on sys.path, in a process of its own, run from
    # outside the project (pip install --no-deps -e would change the suite's venv).
    listed = subprocess.run(
        [sys.executable, "-c", LIST_TOOLS, str(dest / "src")],
        capture_output=True,
        text=True,
        timeout=600,
        cwd=tmp_path,
        env={**os.environ, "PYTHONDONTWRITEBYTECODE": "1"},
    )
    assert listed.returncode == 0, listed.stderr[-4000:]
    tools = json.loads(listed.stdout)
    assert sorted(name for name, _ in tools) == names
    schema = dict(tools)[names[-1]]
    assert schema["required"] == ["item_id"]
    assert set(schema["properties"]) == {"item_id", "verbose"}
