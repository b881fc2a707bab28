"""The README's first command ends in `examples/demo.py`: a real MCP client over stdio against the generated
tasks server. What the README shows it printing is what it prints (the reference ids aside); and what it shows a
bare SDK server sending for the same tools (`examples/bare_board.py`) is what that server sends."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from conftest import EXAMPLES, REPO

pytestmark = pytest.mark.slow


def shown_output() -> list[str]:
    """The lines of the README's block after "The demo prints, among others:"."""
    readme = (REPO / "README.md").read_text()
    block = readme.split("it prints, among others:", 1)[1].split("```", 2)[1]
    return [line for line in block.splitlines() if line.strip()]


def test_the_demo_prints_what_the_readme_shows(tmp_path: Path) -> None:
    env = {**os.environ, "PYTHONPATH": str(EXAMPLES / "tasks" / "src"), "XDG_DATA_HOME": str(tmp_path)}
    ran = subprocess.run(
        [sys.executable, str(EXAMPLES / "demo.py")], capture_output=True, text=True, timeout=120, env=env
    )
    assert ran.returncode == 0, ran.stderr[-2000:]
    # the demo's store is the checkout's .failwell/ (git ignores it), never this user's data folder
    assert [p for p in tmp_path.rglob("*") if p.is_file()] == []
    assert (EXAMPLES / "tasks" / ".failwell" / "tasks.sqlite3").is_file()
    printed = re.sub(r"ERR-[0-9A-F]{8}", "ERR-X", ran.stdout)
    for line in shown_output():
        line = re.sub(r"ERR-[0-9A-F]{8}", "ERR-X", line)
        if line.endswith(", ...}"):  # the README cuts the _meta line short
            line = line[: -len(", ...}")]
        assert line in printed, f"the README shows {line!r}; the demo printed:\n{printed}"


BARE_CALLS = """
import anyio, sys
from mcp import Client, StdioServerParameters

async def main() -> None:
    server = StdioServerParameters(command=sys.executable, args=[sys.argv[1]])
    async with Client(server) as client:
        for name, arguments in (("tasks_get", {"ref": "T-9"}), ("tasks_search", {"query": "x", "limit": "many"})):
            result = await client.call_tool(name, arguments)
            text = "\\n".join(block.text for block in result.content)
            print(f"== {name}\\nisError: {result.is_error}\\n{text}\\n")

anyio.run(main)
"""


def test_a_bare_sdk_server_sends_what_the_readme_shows(tmp_path: Path) -> None:
    readme = (REPO / "README.md").read_text()
    block = readme.split("the model reads this when a task does not exist", 1)[1].split("```", 2)[1]
    script = tmp_path / "calls.py"
    script.write_text(BARE_CALLS)
    ran = subprocess.run(
        [sys.executable, str(script), str(EXAMPLES / "bare_board.py")], capture_output=True, text=True, timeout=120
    )
    assert ran.returncode == 0, ran.stderr[-2000:]
    version = re.compile(r"errors\.pydantic\.dev/[0-9.]+/")
    printed = version.sub("errors.pydantic.dev/V/", ran.stdout)
    for line in block.splitlines():
        if line.startswith("== "):
            line = line.split("  {", 1)[0].split(" {", 1)[0]
        assert version.sub("errors.pydantic.dev/V/", line) in printed, f"{line!r} not in:\n{printed}"


def test_the_tours_first_line_puts_failwell_on_path() -> None:
    """Command 1 installs failwell into the checkout's .venv; the tour runs a bare `failwell`, after a first line
    that, run as written from the checkout in a shell that has no venv on PATH, makes `failwell` the venv's."""
    readme = (REPO / "README.md").read_text()
    command_1 = readme.split("```sh\n", 1)[1].split("\n```", 1)[0]
    assert ".venv/bin/pip install -q -e '.[test]'" in command_1, "command 1 installs failwell into .venv"
    tour = readme.split("## A five-minute tour", 1)[1].split("```sh\n", 1)[1].split("\n```", 1)[0]
    first, *rest = [line.split("  #", 1)[0].strip() for line in tour.splitlines() if line.strip()]
    assert rest[0].startswith("failwell "), "the line before the first bare `failwell`"
    venv_bin = REPO / ".venv" / "bin"
    if not (venv_bin / "failwell").is_file():
        pytest.skip("the checkout's .venv of command 1 (and of .ci/test) is not here")
    env = {"PATH": "/usr/bin:/bin", "HOME": os.environ.get("HOME", "/")}
    bare = subprocess.run(["bash", "-c", "command -v failwell"], cwd=REPO, env=env, capture_output=True, text=True)
    assert bare.stdout == "", "without it, no failwell on PATH (what a new shell has)"
    ran = subprocess.run(
        ["bash", "-e", "-c", f"{first}\nfailwell --version"], cwd=REPO, env=env, capture_output=True, text=True,
        timeout=60,
    )  # fmt: skip
    assert ran.returncode == 0, ran.stderr
    assert ran.stdout.startswith("failwell "), ran.stdout
