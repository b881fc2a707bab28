"""`text: none` on a tool (issue 40.7): a success result carries no text block, only its structured content (and a
`content` tool's blocks after it), as servers that publish structured content only answer. The project is
generated and run as a subprocess by the real `mcp` client over stdio."""

from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest
from mcp import Client, StdioServerParameters

SPEC = """\
failwell: 1
server:
  name: gauge
  version: 0.1.0
  description: The readings of a gauge, as structured content only.
tools:
  gauge_read:
    description: Read the gauge, such as the 21 degrees it shows now.
    effect: read
    input:
      gauge: {type: string, minLength: 1, maxLength: 50, description: The gauge's name., example: hall}
    output:
      degrees: {type: integer}
      gauge: {type: string}
    text: none
  gauge_chart:
    description: Chart the gauge's readings, such as the last hour of the hall's.
    effect: read
    input:
      gauge: {type: string, minLength: 1, maxLength: 50, description: The gauge's name., example: hall}
    output:
      points: {type: integer}
    content: {kinds: [image], mime_types: [image/png]}
    text: none
  gauge_spoken:
    description: Read the gauge aloud, such as 21 degrees in the hall.
    effect: read
    input:
      gauge: {type: string, minLength: 1, maxLength: 50, description: The gauge's name., example: hall}
    output:
      degrees: {type: integer}
"""

HANDLERS = {
    "gauge_read.py": '''\
from .._generated.tools.gauge_read import Context, Input, Output


async def handle(params: Input, ctx: Context) -> Output:
    """The gauge's reading, as structured content only."""
    return Output(degrees=21, gauge=params.gauge)
''',
    "gauge_chart.py": '''\
from .._generated.tools.gauge_chart import Context, Image, Input, Output, WithContent


async def handle(params: Input, ctx: Context) -> WithContent[Output]:
    """The chart as an image beside the count of its points."""
    return WithContent(Output(points=60), [Image(b"\\\\x89PNG", "image/png")])
''',
    "gauge_spoken.py": '''\
from .._generated.tools.gauge_spoken import Context, Input, Output


async def handle(params: Input, ctx: Context) -> Output:
    """The reading, with its JSON as the text block (no `text:`)."""
    return Output(degrees=21)
''',
}


@pytest.fixture(scope="module")
def project(tmp_path_factory: pytest.TempPathFactory) -> Path:
    from failwell import generate, new

    root = tmp_path_factory.mktemp("gauge")
    spec = root / "gauge.yaml"
    spec.write_text(SPEC)
    new(root / "gauge", spec)
    for name, source in HANDLERS.items():
        (root / "gauge" / "src" / "gauge_mcp" / "handlers" / name).write_text(source)
    generate(root / "gauge")
    return root / "gauge"


@pytest.mark.slow
@pytest.mark.anyio
async def test_text_none_answers_with_structured_content_only(project: Path) -> None:
    env = {"PATH": os.environ.get("PATH", ""), "PYTHONPATH": str(project / "src")}
    params = StdioServerParameters(command=sys.executable, args=["-m", "gauge_mcp"], env=env)
    async with Client(params) as client:
        result = await client.call_tool("gauge_read", {"gauge": "hall"})
        assert not result.is_error, result.content
        assert result.content == []
        assert result.structured_content == {"degrees": 21, "gauge": "hall"}

        # With `content`, the blocks alone follow the structured content.
        result = await client.call_tool("gauge_chart", {"gauge": "hall"})
        assert not result.is_error, result.content
        assert [block.type for block in result.content] == ["image"]
        assert result.structured_content == {"points": 60}

        # Without `text: none`, the text block is the output's JSON as ever.
        result = await client.call_tool("gauge_spoken", {"gauge": "hall"})
        assert [block.type for block in result.content] == ["text"]

        # A failure still has its words: an error result is never empty.
        result = await client.call_tool("gauge_read", {"gauge": ""})
        assert result.is_error and "gauge" in result.content[0].text  # type: ignore[union-attr]


def test_text_none_needs_an_output_and_is_otherwise_clean() -> None:
    from failwell.render.pipeline import diagnose

    assert [str(d) for d in diagnose(SPEC, "gauge.yaml")] == []
    spec = SPEC.replace("    output:\n      points: {type: integer}\n", "")
    found = [str(d) for d in diagnose(spec, "gauge.yaml") if d.code == "FW147"]
    assert len(found) == 1 and "declare an `output`" in found[0], found
