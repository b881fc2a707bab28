"""`aliases:` on a tool's input fields (issue 40.7): a call may send an argument by another name (as an older
version of the original took it), renamed to the field's name before the arguments are checked; no alias is
published in `inputSchema`; two fields claiming one alias are refused at FILE:LINE:COL (FW188). The project runs
as a subprocess under the real `mcp` client over stdio."""

from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest
from mcp import Client, StdioServerParameters

from failwell.render.pipeline import diagnose

SPEC = """\
failwell: 1
server:
  name: notes
  version: 0.1.0
  description: Notes in a folder, read by name.
tools:
  read_note:
    description: Read a note, such as todo.md, from the first line on.
    effect: read
    input:
      file_path:
        type: string
        minLength: 1
        maxLength: 100
        description: The note's file.
        example: todo.md
        aliases: [path, file]
      first_line: {type: integer, minimum: 1, required: false, aliases: [start], description: The first line.}
    output:
      file_path: {type: string}
      first_line: {type: integer}
"""

HANDLER = '''\
from .._generated.tools.read_note import Context, Input, Output


async def handle(params: Input, ctx: Context) -> Output:
    """The note's name and first line, as the handler got them."""
    return Output(file_path=params.file_path, first_line=params.first_line or 1)
'''


def _at(text: str, needle: str) -> tuple[int, int]:
    """The line and column (1-based) where `needle` first appears."""
    for number, line in enumerate(text.splitlines(), 1):
        if needle in line:
            return number, line.index(needle) + 1
    raise AssertionError(needle)


def test_aliases_lint_clean_and_two_fields_claiming_one_alias_are_refused_where_written() -> None:
    assert [str(d) for d in diagnose(SPEC, "notes.yaml")] == []
    twice = SPEC.replace("aliases: [start]", "aliases: [file]")
    found = [str(d) for d in diagnose(twice, "notes.yaml")]
    line, _ = _at(twice, "aliases: [file]")
    col = twice.splitlines()[line - 1].index("file]") + 1
    assert found == [
        f"notes.yaml:{line}:{col}: FW188 alias `file` of `first_line` is claimed by `file_path` too, so a call could "
        "not tell which argument it means; keep it on one field"
    ], found
    named = SPEC.replace("aliases: [start]", "aliases: [file_path]")
    found = [str(d) for d in diagnose(named, "notes.yaml")]
    assert len(found) == 1 and " FW188 alias `file_path` of `first_line` is the name of the argument" in found[0]
    on_output = SPEC.replace("      first_line: {type: integer}\n", "      first_line: {type: integer, aliases: [x]}\n")
    found = [str(d) for d in diagnose(on_output, "notes.yaml")]
    assert len(found) == 1 and " FW188 `aliases` applies to a tool's top-level `input` fields only" in found[0], found


@pytest.fixture(scope="module")
def project(tmp_path_factory: pytest.TempPathFactory) -> Path:
    from failwell import generate, new

    root = tmp_path_factory.mktemp("notes")
    spec = root / "notes.yaml"
    spec.write_text(SPEC)
    new(root / "notes", spec)
    (root / "notes" / "src" / "notes_mcp" / "handlers" / "read_note.py").write_text(HANDLER)
    generate(root / "notes")
    return root / "notes"


@pytest.mark.slow
@pytest.mark.anyio
async def test_an_alias_is_accepted_renamed_and_never_published(project: Path) -> None:
    env = {"PATH": os.environ.get("PATH", ""), "PYTHONPATH": str(project / "src")}
    params = StdioServerParameters(command=sys.executable, args=["-m", "notes_mcp"], env=env)
    async with Client(params) as client:
        listed = (await client.list_tools()).tools[0]
        assert sorted(listed.input_schema["properties"]) == ["file_path", "first_line"]
        published = str(listed.input_schema)
        assert not any(f"'{word}'" in published for word in ("aliases", "path", "file", "start")), published

        for sent in ({"path": "todo.md", "start": 3}, {"file": "todo.md", "first_line": 3}):
            result = await client.call_tool("read_note", sent)
            assert not result.is_error, result.content
            assert result.structured_content == {"file_path": "todo.md", "first_line": 3}

        # An alias beside the name it stands for is not guessed at: it is an argument the tool does not take.
        result = await client.call_tool("read_note", {"file_path": "todo.md", "path": "other.md"})
        assert result.is_error and "path" in result.content[0].text, result.content  # type: ignore[union-attr]
        result = await client.call_tool("read_note", {"path": "todo.md", "file": "other.md"})
        assert result.is_error, result.content
