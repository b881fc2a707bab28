"""Resources, resource templates, prompts and a task tool listed as a ported original lists them (issue 40 point 8,
the last round-trip differences of tests/roundtrip/known.yaml): a resource's `name:` as written (sqlite's
`Business Insights Memo`), `unlisted: [description]` (everart's) and `unlisted: [mime_type]` (mongodb's), a prompt's
`unlisted: [arguments]` (server-everything's `simple-prompt`: no `arguments` key, where failwell lists `[]`), a URI
variable in camelCase (`{resourceId}`, its attribute `resource_id`), a URI that is an absolute path
(wikipedia's `/article/{title}`), and `execution: {taskSupport: required}` beside `task: required`. Each is listed
exactly by the real `mcp` client over stdio from a subprocess, and the reads behind them work; what they cannot
say is refused at FILE:LINE:COL; `audit --write-spec` drafts each from a listing."""

from __future__ import annotations

import os
import sys
from pathlib import Path
from typing import Any

import pytest
import yaml
from mcp import Client, StdioServerParameters
from mcp.client.stdio import stdio_client
from mcp.shared.exceptions import MCPError

from failwell.audit.draft import drafted
from failwell.render.pipeline import diagnose

SPEC = """\
failwell: 1
server:
  name: ported
  version: 0.1.0
  description: Publishes what its original listed.
tools:
  research:
    title: Research
    description: Research a topic, as a task.
    effect: read
    task: required
    execution: {taskSupport: required}
    input:
      topic: {type: string, description: The topic., example: cats}
  list_workbooks:
    description: "List workbooks: path to size in bytes."
    effect: read
    input:
      directory: {type: string, example: books}
    output: {}
    schema_root:
      output:
        additionalProperties: {type: integer}
resources:
  memo:
    name: Business Insights Memo
    uri: memo://insights
    description: The memo.
    unlisted: [description]
  config:
    uri: config://config
    description: The server's configuration.
    unlisted: [mime_type]
  dynamic_text:
    name: Dynamic Text Resource
    uri: demo://resource/dynamic/text/{resourceId}
    description: Text made from {resourceId}.
    params:
      resourceId: {type: integer, description: Which one., example: 7}
  article:
    uri: /article/{title}
    description: An article by its title.
    params:
      title: {type: string, example: Cats}
prompts:
  simple:
    title: Simple Prompt
    description: A prompt with no arguments.
    unlisted: [arguments]
  plain:
    description: A prompt with no arguments, listed as failwell lists one.
"""

HANDLERS = {
    "resources/memo.py": "return 'Insights.'",
    "resources/config.py": "return 'port=1'",
    "resources/article.py": "return f'Article {params.title}'",
    "prompts/simple.py": "return 'Say hello.'",
    "prompts/plain.py": "return 'Say hello plainly.'",
}
WORKBOOKS = """\
from typing import Any

from .._generated.tools.list_workbooks import Context, Input


async def handle(params: Input, ctx: Context) -> dict[str, Any]:
    if params.directory == "broken":
        return {"a.xlsx": "big"}
    return {"a.xlsx": 10, "b/c.xlsx": 2048}
"""
DYNAMIC = """\
from ..._generated.resources.dynamic_text import Context, Output, Params


async def handle(params: Params, ctx: Context) -> Output:
    return f"Resource {params.resource_id}"


async def listing(ctx: Context) -> list[Params]:
    return [Params.model_validate({"resourceId": 7})]
"""


@pytest.fixture(scope="module")
def project(tmp_path_factory: pytest.TempPathFactory) -> Path:
    from failwell import new

    root = tmp_path_factory.mktemp("ported")
    spec = root / "ported.yaml"
    spec.write_text(SPEC)
    new(root / "ported", spec)
    handlers = root / "ported" / "src" / "ported_mcp" / "handlers"
    for name, body in HANDLERS.items():
        kind, module = name.split("/")
        generated = f"..._generated.{kind}.{module.removesuffix('.py')}"
        text = f"from {generated} import Context, Output, Params\n\n\n"
        text += "async def handle(params: Params, ctx: Context) -> Output:\n"
        (handlers / name).write_text(text + f"    {body}\n")
    (handlers / "resources" / "dynamic_text.py").write_text(DYNAMIC)
    (handlers / "list_workbooks.py").write_text(WORKBOOKS)
    return root / "ported"


def _dumped(items: Any) -> dict[str, dict[str, Any]]:
    out = {}
    for item in items:
        dumped = item.model_dump(mode="json", by_alias=True, exclude_none=True)
        dumped.pop("_meta", None)
        out[str(dumped.get("uri") or dumped.get("uriTemplate") or dumped["name"])] = dumped
    return out


@pytest.mark.anyio
async def test_resources_templates_prompts_and_a_task_are_listed_as_written_and_read(project: Path) -> None:
    env = {"PATH": os.environ.get("PATH", ""), "PYTHONPATH": str(project / "src")}
    params = StdioServerParameters(command=sys.executable, args=["-m", "ported_mcp"], env=env)
    with (project / "stderr.log").open("w") as errlog:
        async with Client(stdio_client(params, errlog=errlog), mode="legacy") as client:  # as snapshots are taken
            resources = _dumped((await client.list_resources()).resources)
            assert resources == {
                "memo://insights": {
                    "name": "Business Insights Memo",
                    "uri": "memo://insights",
                    "mimeType": "text/plain",
                },
                "config://config": {
                    "name": "config",
                    "uri": "config://config",
                    "description": "The server's configuration.",
                },
                "demo://resource/dynamic/text/7": {
                    "name": "Dynamic Text Resource",
                    "uri": "demo://resource/dynamic/text/7",
                    "description": "Text made from {resourceId}.",
                    "mimeType": "text/plain",
                },
            }
            templates = _dumped((await client.list_resource_templates()).resource_templates)
            assert templates == {
                "demo://resource/dynamic/text/{resourceId}": {
                    "name": "Dynamic Text Resource",
                    "uriTemplate": "demo://resource/dynamic/text/{resourceId}",
                    "description": "Text made from {resourceId}.",
                    "mimeType": "text/plain",
                },
                "/article/{title}": {
                    "name": "article",
                    "uriTemplate": "/article/{title}",
                    "description": "An article by its title.",
                    "mimeType": "text/plain",
                },
            }
            prompts = _dumped((await client.list_prompts()).prompts)
            assert prompts["simple"] == {
                "name": "simple",
                "title": "Simple Prompt",
                "description": "A prompt with no arguments.",
            }
            assert prompts["plain"]["arguments"] == [], "failwell's own prompts keep listing `arguments: []`"
            tools = _dumped((await client.list_tools()).tools)
            assert tools["research"]["execution"] == {"taskSupport": "required"}
            map_of_sizes = {"type": "object", "additionalProperties": {"type": "integer"}}
            assert tools["list_workbooks"]["outputSchema"] == map_of_sizes, "a map's root as written, no properties"
            listed = await client.call_tool("list_workbooks", {"directory": "books"})
            assert not listed.is_error and listed.structured_content == {"a.xlsx": 10, "b/c.xlsx": 2048}
            broken = await client.call_tool("list_workbooks", {"directory": "broken"})
            assert broken.is_error and (broken.meta or {})["dev.failwell/error"]["class"] == "internal", broken

            read = await client.read_resource("demo://resource/dynamic/text/42")
            assert [content.text for content in read.contents] == ["Resource 42"]  # type: ignore[union-attr]
            read = await client.read_resource("/article/Cats")
            assert [content.text for content in read.contents] == ["Article Cats"]  # type: ignore[union-attr]
            read = await client.read_resource("config://config")
            assert [(c.text, c.mime_type) for c in read.contents] == [("port=1", "text/plain")]  # type: ignore[union-attr]
            with pytest.raises(MCPError) as refused:
                await client.read_resource("demo://resource/dynamic/text/seven")
            assert refused.value.error.code == -32602 and "`resourceId`" in refused.value.error.message
            got = await client.get_prompt("simple")
            assert got.messages[0].content.text == "Say hello."  # type: ignore[union-attr]


def test_what_the_keys_cannot_say_is_refused_where_it_is_written() -> None:
    assert [str(d) for d in diagnose(SPEC, "ported.yaml")] == []
    hiding = SPEC.replace(
        "    unlisted: [arguments]\n", "    unlisted: [arguments]\n    arguments:\n      who: {type: string}\n"
    )
    found = [str(d) for d in diagnose(hiding, "ported.yaml")]
    assert found == [
        "ported.yaml:49:16: FW165 `arguments` is left out of the listing, but the prompt takes arguments a client "
        "must see; remove `arguments` from `unlisted`, or the arguments"
    ], found
    for uri, said in (
        ("//article/{title}", "FW170 the URI has no scheme"),
        ("demo://resource/{ResourceId}", "FW171 `{ResourceId}` is not a name of a lowercase letter"),
    ):
        found = [str(d) for d in diagnose(SPEC.replace("/article/{title}", uri), "ported.yaml")]
        assert any(said in line for line in found), found
    wrong = SPEC.replace("unlisted: [mime_type]", "unlisted: [uri]")
    assert any("FW012" in str(d) and "unlisted" in str(d) for d in diagnose(wrong, "ported.yaml"))
    bad_map = SPEC.replace("additionalProperties: {type: integer}", "additionalProperties: {type: whole}")
    found = [str(d) for d in diagnose(bad_map, "ported.yaml")]
    assert len(found) == 1 and found[0].startswith("ported.yaml:23:32:") and " FW162 " in found[0], found
    no_output = SPEC.replace("    output: {}\n", "")
    found = [str(d) for d in diagnose(no_output, "ported.yaml")]
    assert found == [
        "ported.yaml:22:31: FW165 a schema for the output's further keys needs an `output` (`output: {}` for a map "
        "alone)"
    ], found
    snake = SPEC.replace("resourceId", "resource_id")
    assert [str(d) for d in diagnose(snake, "ported.yaml")] == []
    reserved = SPEC.replace("{title}", "{schema}").replace("      title: {type", "      schema: {type")
    assert any(" FW10" in str(d) and "schema" in str(d) for d in diagnose(reserved, "ported.yaml"))


def test_the_draft_writes_each_key_from_a_listing() -> None:
    listings: dict[str, Any] = {
        "tools": [
            {
                "name": "research",
                "description": "Research.",
                "inputSchema": {"type": "object", "properties": {"topic": {"type": "string"}}},
                "annotations": {"readOnlyHint": True},
                "execution": {"taskSupport": "required"},
            },
            {
                "name": "list_workbooks",
                "description": "Path to size.",
                "inputSchema": {"type": "object", "properties": {}},
                "outputSchema": {"type": "object", "additionalProperties": {"type": "integer"}},
                "annotations": {"readOnlyHint": True},
            },
        ],
        "resources": [
            {"name": "Business Insights Memo", "uri": "memo://insights", "mimeType": "text/plain"},
            {"name": "config", "uri": "config://config", "description": "The configuration."},
        ],
        "resourceTemplates": [
            {
                "name": "article",
                "uriTemplate": "/article/{title}",
                "description": "An article.",
                "mimeType": "text/plain",
            },
            {"name": "exported-data", "uriTemplate": "exported-data://{exportName}", "description": "Exports."},
        ],
        "prompts": [{"name": "simple-prompt", "description": "No arguments."}],
    }
    text = drafted({"name": "ported", "version": "1.0.0"}, listings, "ported-server")
    assert [str(d) for d in diagnose(text, "ported.yaml") if d.severity == "error"] == []
    spec = yaml.safe_load(text)
    research = spec["tools"]["research"]
    assert (research["task"], research["execution"]) == ("required", {"taskSupport": "required"})
    workbooks = spec["tools"]["list_workbooks"]
    assert (workbooks["output"], workbooks["schema_root"]) == (
        {},
        {"output": {"additionalProperties": {"type": "integer"}}},
    )
    assert spec["resources"] == {
        "business_insights_memo": {
            "name": "Business Insights Memo",
            "uri": "memo://insights",
            "description": "The Business Insights Memo resource.",
            "mime_type": "text/plain",
            "unlisted": ["description"],
        },
        "config": {"uri": "config://config", "description": "The configuration.", "unlisted": ["mime_type"]},
        "article": {
            "uri": "/article/{title}",
            "description": "An article.",
            "mime_type": "text/plain",
            "params": {"title": {"type": "string"}},
        },
        "exported-data": {
            "uri": "exported-data://{exportName}",
            "description": "Exports.",
            "unlisted": ["mime_type"],
            "params": {"exportName": {"type": "string"}},
        },
    }
    assert spec["prompts"] == {"simple-prompt": {"description": "No arguments.", "unlisted": ["arguments"]}}
