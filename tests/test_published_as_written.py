"""Issue 40 point 8, what the round trip still changed: an argument or output field named as a keyword or as a name
the generated models use (`schema`, `from`, `json`: firecrawl, dbhub, motherduck, clickhouse, tree-sitter) is
published as written, its Python attribute with a `_` after it (`params.schema_`); `schema_root` carries root
`$defs` no field refers to (a generated OpenAPI server's shared definitions: notion) and `x-` extension keys
(FastMCP's `x-fastmcp-wrap-result`: clickhouse, motherduck), published as written; a `$defs` name a `schema:` field
defines differently is refused (FW164). `audit --write-spec` drafts them so, and an argument with `$` in a nested
name (mongodb's `$meta`) as a `schema:` field, as written. The project runs as a subprocess under
the real `mcp` client over stdio, and passes its own ruff and `mypy --strict`."""

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
  name: shapes
  version: 0.1.0
  description: Checks shapes.
tools:
  check:
    description: Check a value against a schema.
    effect: read
    schema_root:
      input:
        $defs:
          unused: {type: object, properties: {a: {type: string}}}
        x-origin: openapi
      output: {x-fastmcp-wrap-result: true}
    input:
      schema: {type: string, example: s}
      from: {type: string, example: f}
      class: {type: string, required: false}
      shape:
        schema:
          $defs: {point: {type: object, properties: {x: {type: number}}}}
          $ref: "#/$defs/point"
        required: false
    output:
      json: {type: string}
"""

HANDLER = '''\
from .._generated.tools.check import Context, Input, Output


async def handle(params: Input, ctx: Context) -> Output:
    """The arguments, as the handler got them."""
    return Output(json_=f"{params.schema_} {params.from_} {params.class_}")
'''


def test_reserved_names_and_root_defs_lint_clean_and_a_def_given_twice_is_refused() -> None:
    assert [str(d) for d in diagnose(SPEC, "shapes.yaml")] == []
    twice = SPEC.replace("unused: {type: object,", "point: {type: string}\n          unused: {type: object,")
    found = [str(d) for d in diagnose(twice, "shapes.yaml")]
    assert len(found) == 1 and " FW164 `$defs` `point` is defined differently by a `schema:` field" in found[0], found
    keyed = SPEC.replace("      from: {type: string, example: f}\n", "      idempotency_key: {type: string}\n")
    found = [str(d) for d in diagnose(keyed, "shapes.yaml")]
    assert len(found) == 1 and " FW103 field name `idempotency_key` is reserved" in found[0], found
    both = SPEC.replace("      from: {type: string, example: f}\n", "      schema_: {type: string}\n")
    found = [str(d) for d in diagnose(both, "shapes.yaml") if d.severity == "error"]
    assert found and all("schema_" in line for line in found), found


def test_the_draft_keeps_reserved_names_root_defs_and_extension_keys() -> None:
    point = {"type": "object", "properties": {"x": {"type": "number"}}}
    sort = {  # mongodb's find: an operator's `$` in a nested name is a plain one, kept as written
        "type": "object",
        "additionalProperties": {"anyOf": [{"const": 1}, {"type": "object", "properties": {"$meta": {}}}]},
        "propertyNames": {"type": "string"},
    }
    listings = {
        "tools": [
            {
                "name": "scrape",
                "description": "Scrape.",
                "annotations": {"readOnlyHint": True},
                "inputSchema": {
                    "type": "object",
                    "$defs": {"point": point, "unused": {"type": "string"}},
                    "properties": {
                        "schema": {"type": "object"},
                        "from": {"type": "string"},
                        "at": {"$ref": "#/$defs/point"},
                        "sort": sort,
                    },
                    "required": ["from"],
                },
                "outputSchema": {
                    "type": "object",
                    "properties": {"json": {"type": "string"}},
                    "required": ["json"],
                    "x-fastmcp-wrap-result": True,
                },
            }
        ]
    }
    text = drafted({"name": "web", "version": "1.0.0"}, listings, "web-server")
    assert [str(d) for d in diagnose(text, "web.yaml") if d.severity == "error"] == []
    assert "renamed" not in text
    scrape = yaml.safe_load(text)["tools"]["scrape"]
    assert list(scrape["input"]) == ["schema", "from", "at", "sort"] and list(scrape["output"]) == ["json"]
    assert scrape["input"]["sort"] == {"schema": sort, "required": False}
    assert scrape["input"]["at"]["schema"]["$defs"] == {"point": point}
    assert scrape["schema_root"] == {
        "input": {"$defs": {"unused": {"type": "string"}}},
        "output": {"x-fastmcp-wrap-result": True},
    }


@pytest.fixture(scope="module")
def project(tmp_path_factory: pytest.TempPathFactory) -> Path:
    from failwell import generate, new

    root = tmp_path_factory.mktemp("shapes")
    spec = root / "shapes.yaml"
    spec.write_text(SPEC)
    new(root / "shapes", spec)
    (root / "shapes" / "src" / "shapes_mcp" / "handlers" / "check.py").write_text(HANDLER)
    generate(root / "shapes")
    return root / "shapes"


@pytest.mark.slow
@pytest.mark.anyio
async def test_the_names_and_root_keywords_are_published_as_written_and_the_handler_reads_them(project: Path) -> None:
    env = {"PATH": os.environ.get("PATH", ""), "PYTHONPATH": str(project / "src")}
    params = StdioServerParameters(command=sys.executable, args=["-m", "shapes_mcp"], env=env)
    with (project / "stderr.log").open("w") as errlog:
        async with Client(stdio_client(params, errlog=errlog), mode="legacy") as client:
            (tool,) = (await client.list_tools()).tools
            listed = tool.model_dump(mode="json", by_alias=True, exclude_none=True)
            inputs, outputs = listed["inputSchema"], listed["outputSchema"]
            assert list(inputs["properties"]) == ["schema", "from", "class", "shape"]
            assert inputs["$defs"] == {
                "unused": {"type": "object", "properties": {"a": {"type": "string"}}},
                "point": {"type": "object", "properties": {"x": {"type": "number"}}},
            }
            assert inputs["x-origin"] == "openapi" and inputs["properties"]["shape"] == {"$ref": "#/$defs/point"}
            assert outputs["x-fastmcp-wrap-result"] is True and list(outputs["properties"]) == ["json"]
            result = await client.call_tool("check", {"schema": "s", "from": "f", "class": "t", "shape": {"x": 1}})
            assert not result.is_error, result.content
            assert result.structured_content == {"json": "s f t"}
            refused = await client.call_tool("check", {"schema": "s", "from": "f", "shape": {"x": "one"}})
            assert refused.is_error and "shape" in refused.content[0].text  # type: ignore[union-attr]


@pytest.mark.slow
def test_the_project_with_reserved_names_passes_its_own_ruff_and_mypy(project: Path) -> None:
    for command in (["ruff", "check", "--no-cache", "."], ["mypy", "--strict", "--no-incremental", "src"]):
        result = subprocess.run(
            [sys.executable, "-m", *command],
            cwd=project,
            capture_output=True,
            text=True,
            env={**os.environ, "MYPYPATH": str(project / "src")},
            timeout=600,
        )
        assert result.returncode == 0, result.stdout
