"""How a ported tool is shown in `tools/list` where its original shows it otherwise (issue 40 point 8): only the
hints it names (`annotations.hints`, one left out meaning MCP's default) and `annotations.title`; `extra_arguments:
allow` (published without `additionalProperties: false`, an extra argument ignored and logged, not refused);
`schema_root` keywords at the schemas' roots and `verbatim_description`, as written; `execution` as its `task` is.
failwell's own specs stay as they were: inputs closed, all four hints. And what `audit --write-spec` drafts from
a listing: a tool without annotations is a destructive one in an open world that publishes no hint; no argument
description is made up; line breaks kept. A field named `formats` before one with a `format` (firecrawl's) does
not hide the runtime's `formats` module.
The project runs as a subprocess under the real `mcp` client over stdio."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
import yaml
from mcp import Client, StdioServerParameters
from mcp.client.stdio import stdio_client

from failwell.audit.draft import drafted
from failwell.render.pipeline import diagnose

SPEC = """\
failwell: 1
server:
  name: lookup
  version: 0.1.0
  description: Looks words up.
tools:
  lookup:
    title: Look up
    description: "Look a word up.\\nSecond line.\\n    "
    verbatim_description: true
    effect: read
    open_world: true
    annotations: {title: Lookup words, hints: [readOnlyHint]}
    extra_arguments: allow
    execution: {taskSupport: forbidden}
    schema_root:
      input: {$schema: "http://json-schema.org/draft-07/schema#", title: lookupArguments}
      output: {$schema: "http://json-schema.org/draft-07/schema#", title: lookupOutput, additionalProperties: false}
    input:
      word: {type: string, minLength: 1, example: cat}
    output:
      word: {type: string}
  strict_lookup:
    description: Look a word up, refusing what it does not take.
    effect: read
    input:
      word: {type: string, minLength: 1, example: cat}
      formats: {type: array, items: {type: string}, required: false}  # a field named as the runtime's module
      source: {type: string, format: uri, required: false}
    output:
      word: {type: string}
  ping:
    description: Say the server is up, whatever it is given.
    effect: read
    extra_arguments: allow
"""

HANDLER = '''\
from .._generated.tools.{name} import Context, Input, Output


async def handle(params: Input, ctx: Context) -> Output:
    """The word, as the handler got it."""
    return Output(word=params.word)
'''


def test_the_listing_keys_lint_clean_and_a_root_that_says_what_the_tool_does_not_do_is_refused() -> None:
    assert [str(d) for d in diagnose(SPEC, "lookup.yaml")] == []
    refusing = SPEC.replace("    extra_arguments: allow\n", "").replace(
        "title: lookupArguments}", "title: x, additionalProperties: true}"
    )
    found = [str(d) for d in diagnose(refusing, "lookup.yaml")]
    assert len(found) == 1 and " FW165 the input schema is published open" in found[0], found
    empty = SPEC.replace("title: lookupArguments}", "title: x, required: []}")
    found = [str(d) for d in diagnose(empty, "lookup.yaml")]
    assert len(found) == 1 and " FW165 `required: []` is published while `word` is required" in found[0], found
    optional = SPEC.replace("{taskSupport: forbidden}", "{taskSupport: optional}")
    found = [str(d) for d in diagnose(optional, "lookup.yaml")]
    assert (
        len(found) == 1
        and " FW165 `execution.taskSupport: optional` is published, but the tool's `task` is not set" in found[0]
    ), found


@pytest.fixture(scope="module")
def project(tmp_path_factory: pytest.TempPathFactory) -> Path:
    from failwell import generate, new

    root = tmp_path_factory.mktemp("lookup")
    spec = root / "lookup.yaml"
    spec.write_text(SPEC)
    new(root / "lookup", spec)
    for name in ("lookup", "strict_lookup"):
        (root / "lookup" / "src" / "lookup_mcp" / "handlers" / f"{name}.py").write_text(HANDLER.format(name=name))
    generate(root / "lookup")
    return root / "lookup"


@pytest.mark.slow
@pytest.mark.anyio
async def test_a_tool_is_listed_as_its_spec_says_and_extra_arguments_are_ignored(project: Path) -> None:
    env = {"PATH": os.environ.get("PATH", ""), "PYTHONPATH": str(project / "src")}
    params = StdioServerParameters(command=sys.executable, args=["-m", "lookup_mcp"], env=env)
    with (project / "stderr.log").open("w") as errlog:
        async with Client(stdio_client(params, errlog=errlog), mode="legacy") as client:  # as snapshots are taken
            tools = {
                tool.name: tool.model_dump(mode="json", by_alias=True, exclude_none=True)
                for tool in (await client.list_tools()).tools
            }
            lookup = {key: value for key, value in tools["lookup"].items() if key != "_meta"}
            assert lookup == {
                "name": "lookup",
                "title": "Look up",
                "description": "Look a word up.\nSecond line.\n    ",
                "inputSchema": {
                    "$schema": "http://json-schema.org/draft-07/schema#",
                    "type": "object",
                    "properties": {"word": {"type": "string", "minLength": 1, "examples": ["cat"]}},
                    "required": ["word"],
                    "title": "lookupArguments",
                },
                "outputSchema": {
                    "$schema": "http://json-schema.org/draft-07/schema#",
                    "type": "object",
                    "properties": {"word": {"type": "string"}},
                    "required": ["word"],
                    "additionalProperties": False,
                    "title": "lookupOutput",
                },
                "annotations": {"title": "Lookup words", "readOnlyHint": True},
                "execution": {"taskSupport": "forbidden"},
            }
            strict = tools["strict_lookup"]
            assert strict["inputSchema"]["additionalProperties"] is False
            assert "additionalProperties" not in strict["outputSchema"]
            assert set(strict["annotations"]) == {"readOnlyHint", "destructiveHint", "idempotentHint", "openWorldHint"}

            result = await client.call_tool("lookup", {"word": "cat", "colour": "red"})
            assert not result.is_error, result.content
            assert result.structured_content == {"word": "cat"}
            refused = await client.call_tool("strict_lookup", {"word": "cat", "colour": "red"})
            assert refused.is_error and "`colour` is not an argument" in refused.content[0].text  # type: ignore[union-attr]
    logged = (project / "stderr.log").read_text()
    assert '"extra arguments ignored"' in logged and '"colour"' in logged, logged


def test_the_draft_keeps_what_a_listing_says_and_leaves_out_what_it_does_not() -> None:
    listings = {
        "tools": [
            {
                "name": "wipe",
                "description": "Wipe a table.\n\nCannot be undone.",
                "inputSchema": {"type": "object", "properties": {"table": {"type": "string"}}, "required": ["table"]},
            }
        ]
    }
    tables = {"uri": "db://tables", "description": "The tables.", "mimeType": "text/csv"}
    listings["resources"] = [{"name": "tables", **tables}]
    listings["resourceTemplates"] = [{"name": "row", "uriTemplate": "db://rows/{rowId}", "description": "A row."}]
    listings["prompts"] = [
        {"name": "explain", "description": "Explain a query.", "arguments": [{"name": "query", "required": True}]}
    ]
    text = drafted({"name": "db", "version": "1.0.0"}, listings, "db-server")
    assert [str(d) for d in diagnose(text, "db.yaml") if d.severity == "error"] == []
    wipe = yaml.safe_load(text)["tools"]["wipe"]
    assert wipe["description"] == "Wipe a table.\n\nCannot be undone."
    assert (wipe["effect"], wipe["open_world"], wipe["annotations"]) == ("destructive", True, {"hints": []})
    assert wipe["input"] == {"table": {"type": "string"}}, "no description made up"
    assert wipe["extra_arguments"] == "allow", "the original leaves its arguments open"
    spec = yaml.safe_load(text)
    row = {"uri": "db://rows/{rowId}", "description": "A row.", "unlisted": ["mime_type"]}
    assert spec["resources"] == {
        "tables": {"uri": "db://tables", "description": "The tables.", "mime_type": "text/csv"},
        "row": {**row, "params": {"rowId": {"type": "string"}}},  # camelCase as listed; its attribute `row_id`
    }
    explain = {"description": "Explain a query.", "arguments": {"query": {"type": "string"}}}
    assert spec["prompts"] == {"explain": explain}


@pytest.mark.slow
def test_the_projects_own_error_tests_pass_and_ruff_accepts_them(project: Path) -> None:
    """A tool whose extra arguments are allowed gets a test that one is dropped before its handler (not the closed
    tool's refusal), and a tool with no input and open extras imports no helper it does not use."""
    tests = project / "tests" / "generated"
    assert "test_unknown_extra_argument_is_ignored" in (tests / "test_lookup_errors.py").read_text()
    assert "test_unknown_extra_argument_is_named" in (tests / "test_strict_lookup_errors.py").read_text()
    assert "never_called" not in (tests / "test_ping_errors.py").read_text()
    env = {**os.environ, "PYTHONPATH": "src"}
    for command in (
        ["-m", "ruff", "check", "--no-cache", "."],
        ["-m", "pytest", "-q", "-p", "no:cacheprovider", "tests/generated"],
    ):
        ran = subprocess.run(
            [sys.executable, *command], cwd=project, env=env, capture_output=True, text=True, timeout=600
        )
        assert ran.returncode == 0, ran.stdout[-3000:] + ran.stderr[-3000:]
