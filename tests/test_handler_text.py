"""A handler that words the text beside its structured output itself (issue 26.7's second way): it returns
`WithText(output, text)`, and the model reads `text` while `structuredContent` is the output, checked as ever. The
project is generated, type-checked with mypy --strict, and run as a subprocess by the real `mcp` client."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from mcp import Client, StdioServerParameters

SPEC = """\
failwell: 1
server:
  name: shelf
  version: 0.1.0
  description: The files on a shelf, listed as a person reads them.
tools:
  shelf_list:
    description: List the files on the shelf, such as notes.txt, with their sizes.
    effect: read
    input:
      folder: {type: string, minLength: 1, maxLength: 100, description: The shelf's folder., example: docs}
    output:
      files: {type: array, items: {type: string}}
      total_bytes: {type: integer}
  shelf_count:
    description: Count the files on the shelf, such as the 2 in docs.
    effect: read
    input:
      folder: {type: string, minLength: 1, maxLength: 100, description: The shelf's folder., example: docs}
    output:
      count: {type: integer}
    text: "{count} files."
"""

HANDLERS = {
    "shelf_list.py": '''\
from .._generated.tools.shelf_list import Context, Input, Output, WithText


async def handle(params: Input, ctx: Context) -> WithText[Output]:
    """The listing as `ls -l` would say it, beside the structured output."""
    if params.folder == "broken":
        return WithText(Output(files=[], total_bytes=0), text=42)  # type: ignore[arg-type]
    files = {"notes.txt": 120, "plan.md": 2048}
    lines = [f"[FILE] {name} ({size} bytes)" for name, size in files.items()]
    return WithText(Output(files=list(files), total_bytes=sum(files.values())), text="\\n".join(lines))
''',
    "shelf_count.py": '''\
from .._generated.tools.shelf_count import Context, Input, Output, WithText


async def handle(params: Input, ctx: Context) -> Output | WithText[Output]:
    """The spec's `text:` words the count, unless the handler words it itself."""
    if params.folder == "empty":
        return WithText(Output(count=0), text="The shelf is empty.")
    return Output(count=2)
''',
}


@pytest.fixture(scope="module")
def project(tmp_path_factory: pytest.TempPathFactory) -> Path:
    from failwell import generate, new

    root = tmp_path_factory.mktemp("shelf")
    spec = root / "shelf.yaml"
    spec.write_text(SPEC)
    new(root / "shelf", spec)
    for name, source in HANDLERS.items():
        (root / "shelf" / "src" / "shelf_mcp" / "handlers" / name).write_text(source)
    generate(root / "shelf")
    return root / "shelf"


@pytest.mark.slow
@pytest.mark.anyio
async def test_the_model_reads_the_handlers_text_beside_the_structured_output(project: Path) -> None:
    env = {"PATH": os.environ.get("PATH", ""), "PYTHONPATH": str(project / "src")}
    params = StdioServerParameters(command=sys.executable, args=["-m", "shelf_mcp"], env=env)
    async with Client(params) as client:
        result = await client.call_tool("shelf_list", {"folder": "docs"})
        assert not result.is_error, result.content
        assert [block.text for block in result.content] == [  # type: ignore[union-attr]
            "[FILE] notes.txt (120 bytes)\n[FILE] plan.md (2048 bytes)"
        ]
        assert result.structured_content == {"files": ["notes.txt", "plan.md"], "total_bytes": 2168}

        # The handler's words win over the spec's `text:`; without them, the spec's words are the text.
        result = await client.call_tool("shelf_count", {"folder": "empty"})
        assert result.content[0].text == "The shelf is empty."  # type: ignore[union-attr]
        assert result.structured_content == {"count": 0}
        result = await client.call_tool("shelf_count", {"folder": "docs"})
        assert result.content[0].text == "2 files."  # type: ignore[union-attr]

        # Text that is not a str is the handler's fault: `internal`, never a malformed answer.
        result = await client.call_tool("shelf_list", {"folder": "broken"})
        assert result.is_error and (result.meta or {})["dev.failwell/error"]["class"] == "internal"
        assert "42" not in result.content[0].text  # type: ignore[union-attr]


@pytest.mark.slow
def test_a_handler_returning_with_text_is_strictly_typed(project: Path) -> None:
    ran = subprocess.run(
        [sys.executable, "-m", "mypy", "--strict", "src"], cwd=project, capture_output=True, text=True, timeout=600
    )
    assert ran.returncode == 0, ran.stdout[-3000:]
    wrong = project / "src" / "shelf_mcp" / "handlers" / "shelf_count.py"
    wrong.write_text(HANDLERS["shelf_count.py"].replace('text="The shelf is empty."', "text=None"))
    try:
        ran = subprocess.run(
            [sys.executable, "-m", "mypy", "--strict", "src"], cwd=project, capture_output=True, text=True, timeout=600
        )
        assert ran.returncode == 1 and "shelf_count.py" in ran.stdout, ran.stdout[-3000:]
    finally:
        wrong.write_text(HANDLERS["shelf_count.py"])
