"""Issue 40, points 1 and 2: names as written at every depth, and `schema:` on any input or output field.

The memory server's shapes (`entities: [{name, entityType, observations}]`, `observations: [{entityName,
contents}]`, output `addedObservations`), the filesystem server's `edits: [{oldText, newText}]`, an `anyOf` argument
and a `$defs`/`$ref` output are published exactly as written (compared as JSON over a real stdio server), checked
at run time (a bad nested value refused naming its path as the client wrote it; a good one reaches the handler
with the right Python values), and the generated project passes its own ruff and mypy --strict."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from mcp import Client, StdioServerParameters

from conftest import REPO
from failwell.render.pipeline import diagnose

SPEC = (REPO / "tests" / "any_depth" / "memory.yaml").read_text(encoding="utf-8")
"""The spec, also a golden case (tests/regen.py)."""

HANDLERS = {
    "create_entities.py": '''\
from .._generated.tools.create_entities import Context, Input, Output, OutputEntitiesItem


async def handle(params: Input, ctx: Context) -> Output:
    """Echo the entities, as the memory server answers."""
    made = [
        OutputEntitiesItem(name=e.name, entity_type=e.entity_type, observations=e.observations) for e in params.entities
    ]
    return Output(entities=made)
''',
    "add_observations.py": '''\
from typing import Any

from .._generated.tools.add_observations import Context, Input, Output, OutputResultsItem


async def handle(params: Input, ctx: Context) -> Output | dict[str, Any]:
    """A dict with the names as published (FastMCP's habit), for the first; the model, for the rest."""
    if params.observations[0].entity_name == "as-dict":
        return {
            "results": [{"entityName": o.entity_name, "addedObservations": o.contents} for o in params.observations]
        }
    results = [OutputResultsItem(entity_name=o.entity_name, added_observations=o.contents) for o in params.observations]
    return Output(results=results)
''',
    "edit_file.py": '''\
from .._generated.tools.edit_file import Context, Input, Output


async def handle(params: Input, ctx: Context) -> Output:
    """The edits, as a diff of sorts: the handler reads them by their Python names."""
    lines = [f"-{edit.old_text}\\n+{edit.new_text}" for edit in params.edits]
    return Output(diff=("(dry run)\\n" if params.dry_run else "") + "\\n".join(lines))
''',
    "search_nodes.py": '''\
from .._generated.tools.search_nodes import Context, Input, Output


async def handle(params: Input, ctx: Context) -> Output:
    """The queries as entities: a str or a list of them, as the schema's anyOf allows."""
    queries = [params.query] if isinstance(params.query, str) else params.query
    kinds = sorted(params.kinds or {})
    graph = [{"name": q, "entityType": type(params.query).__name__, "observations": kinds} for q in queries]
    if queries == ["bad-output"]:
        graph = [{"name": "x"}]
    return Output(graph=graph, mode="search")
''',
}


@pytest.fixture(scope="module")
def project(tmp_path_factory: pytest.TempPathFactory) -> Path:
    from failwell import generate, new

    root = tmp_path_factory.mktemp("memory")
    spec = root / "memory.yaml"
    spec.write_text(SPEC)
    new(root / "memory", spec)
    for name, source in HANDLERS.items():
        (root / "memory" / "src" / "memory_mcp" / "handlers" / name).write_text(source)
    generate(root / "memory")
    return root / "memory"


def _found(text: str) -> list[str]:
    return [str(d) for d in diagnose(text, "spec.yaml")]


def _at(text: str, needle: str, col: int) -> str:
    line = next(number for number, found in enumerate(text.splitlines(), 1) if needle in found)
    return f"spec.yaml:{line}:{col}"


# The spec ---------------------------------------------------------------------------------------------------------


def test_nested_names_as_written_and_schema_fields_are_valid() -> None:
    assert _found(SPEC) == []


def test_two_nested_names_that_derive_one_python_name_are_refused_at_their_line() -> None:
    twin = SPEC.replace(
        "            newText: {type: string, description: Text to put in its place.}",
        "            newText: {type: string, description: Text to put in its place.}\n"
        "            new_text: {type: string, description: Again.}",
    )
    found = [line for line in _found(twin) if " FW154 " in line]
    assert found == [
        f"{_at(twin, '            new_text:', 13)}: FW154 field `new_text` and the name at "
        f"{_at(twin, '            newText:', 13)} both become the attribute `new_text` of the generated input model; "
        "rename one of them"
    ], found
    twin = SPEC.replace(
        "            addedObservations: {type: array, items: {type: string}}",
        "            addedObservations: {type: array, items: {type: string}}\n"
        "            added-observations: {type: string}",
    )
    found = [line for line in _found(twin) if " FW154 " in line]
    assert len(found) == 1 and "the attribute `added_observations` of the generated output model" in found[0], found


def test_a_schema_that_is_not_2020_12_is_refused_at_its_line_with_what_to_do() -> None:
    bad = SPEC.replace("            - {type: string, minLength: 1}", "            - {type: text, minLength: 1}")
    found = [line for line in _found(bad) if " FW162 " in line]
    assert len(found) == 1 and found[0].startswith(_at(bad, "{type: text", 16) + ": FW162 "), found
    assert (
        'not a valid JSON Schema 2020-12: `type` cannot be "text"' in found[0]
        and "json-schema.org/draft/2020-12" in found[0]
    ), found
    dangling = SPEC.replace('items: {$ref: "#/$defs/Entity"}', 'items: {$ref: "#/$defs/Node"}')
    found = [line for line in _found(dangling) if " FW162 " in line]
    assert len(found) == 1 and '`$ref` "#/$defs/Node" must name one of this schema\'s own `$defs`' in found[0]
    beside = SPEC.replace(
        "      kinds:\n        required: false", "      kinds:\n        type: object\n        required: false"
    )
    found = [line for line in _found(beside) if " FW163 " in line]
    line = beside.splitlines().index("      kinds:") + 2
    assert found and found[0].startswith(f"spec.yaml:{line}:9: FW163 `type` beside `schema`"), found
    twice = SPEC.replace(
        "      mode:\n        schema: {const: search}",
        '      mode:\n        schema: {$defs: {Entity: {type: string}}, $ref: "#/$defs/Entity"}',
    )
    found = [line for line in _found(twice) if " FW164 " in line]
    assert len(found) == 1 and "`$defs` `Entity` is defined differently at spec.yaml:" in found[0], found


# The generated project: published as written, checked at run time ------------------------------------------------


def _env(project: Path) -> dict[str, str]:
    return {"PATH": os.environ.get("PATH", ""), "PYTHONPATH": str(project / "src")}


def _text(result: Any) -> str:
    return str(result.content[0].text)


ENTITY = {
    "type": "object",
    "properties": {
        "name": {"type": "string"},
        "entityType": {"type": "string"},
        "observations": {"type": "array", "items": {"type": "string"}},
    },
    "required": ["name", "entityType", "observations"],
    "additionalProperties": False,
}


@pytest.mark.slow
@pytest.mark.anyio
async def test_listed_exactly_as_written_and_checked_at_every_depth(project: Path) -> None:
    params = StdioServerParameters(command=sys.executable, args=["-m", "memory_mcp"], env=_env(project))
    async with Client(params) as client:
        tools = {tool.name: tool for tool in (await client.list_tools()).tools}
        edit = tools["edit_file"].input_schema["properties"]["edits"]
        assert edit == {
            "type": "array",
            "items": {
                "type": "object",
                "properties": {
                    "oldText": {"type": "string", "description": "Text to search for."},
                    "newText": {"type": "string", "description": "Text to put in its place."},
                },
                "required": ["oldText", "newText"],
                "additionalProperties": False,
            },
        }, edit
        entities = tools["create_entities"].input_schema["properties"]["entities"]["items"]["properties"]
        assert list(entities) == ["name", "entityType", "observations"]
        results = tools["add_observations"].output_schema["properties"]["results"]["items"]["properties"]
        assert results == {
            "entityName": {"type": "string"},
            "addedObservations": {"type": "array", "items": {"type": "string"}},
        }, results
        search = tools["search_nodes"]
        assert search.input_schema["properties"]["query"] == {
            "description": "One query, or several.",
            "anyOf": [
                {"type": "string", "minLength": 1},
                {"type": "array", "items": {"type": "string", "minLength": 1}, "minItems": 1},
            ],
        }
        assert search.input_schema["required"] == ["query"]
        assert search.output_schema == {
            "type": "object",
            "properties": {
                "graph": {"type": "array", "items": {"$ref": "#/$defs/Entity"}},
                "mode": {"const": "search"},
            },
            "required": ["graph", "mode"],
            "$defs": {"Entity": ENTITY},
        }, search.output_schema

        # Names as written at every depth reach the handler by their Python names, and come back as written.
        sent = [{"name": "Ada", "entityType": "person", "observations": ["math"]}]
        result = await client.call_tool("create_entities", {"entities": sent})
        assert not result.is_error, _text(result)
        assert result.structured_content == {"entities": sent}
        result = await client.call_tool(
            "edit_file", {"path": "a.txt", "edits": [{"oldText": "x", "newText": "y"}], "dryRun": True}
        )
        assert result.structured_content == {"diff": "(dry run)\n-x\n+y"}, _text(result)
        for first in ("Ada", "as-dict"):
            result = await client.call_tool(
                "add_observations", {"observations": [{"entityName": first, "contents": ["a", "b"]}]}
            )
            assert result.structured_content == {"results": [{"entityName": first, "addedObservations": ["a", "b"]}]}, (
                _text(result)
            )

        # A bad nested value is refused naming its path as the client wrote it.
        result = await client.call_tool(
            "create_entities", {"entities": [{"name": "Ada", "entityType": 5, "observations": []}]}
        )
        text = _text(result)
        assert result.is_error and "`entities[0].entityType` received 5 (an integer), but it accepts" in text, text
        result = await client.call_tool("create_entities", {"entities": [{"name": "Ada", "observations": []}]})
        assert "`entities[0].entityType` is required but was not given" in _text(result), _text(result)
        result = await client.call_tool("edit_file", {"path": "a.txt", "edits": [{"oldText": "x", "new_text": "y"}]})
        text = _text(result)
        assert "`edits[0].new_text` is not an argument of edit_file" in text, text

        # The anyOf argument: a str and a list reach the handler as such; anything else is refused with both.
        result = await client.call_tool("search_nodes", {"query": "Ada"})
        assert result.structured_content == {
            "graph": [{"name": "Ada", "entityType": "str", "observations": []}],
            "mode": "search",
        }, _text(result)
        result = await client.call_tool("search_nodes", {"query": ["Ada", "Bob"], "kinds": {"person": 2}})
        assert result.structured_content["graph"][1] == {  # type: ignore[index]
            "name": "Bob",
            "entityType": "list",
            "observations": ["person"],
        }, _text(result)
        result = await client.call_tool("search_nodes", {"query": 7})
        text = _text(result)
        assert result.is_error and (result.meta or {})["dev.failwell/error"]["class"] == "invalid_input", text
        assert (
            "`query` received 7 (an integer), but it accepts a string of at least 1 character or a list of at least "
            "1 item, each a string of at least 1 character." in text
        ), text
        assert "Nothing was changed." in text and "Retrying with the same arguments will fail the same way." in text
        result = await client.call_tool("search_nodes", {"query": ["Ada", ""]})
        assert "`query` received" in _text(result), _text(result)
        result = await client.call_tool("search_nodes", {"query": "Ada", "kinds": {"person": -1, "Bad": 1}})
        text = _text(result)
        assert "`kinds.person` received -1 (an integer), but it accepts an integer at least 0." in text, text
        assert "`kinds` received" in text, text  # the property name `Bad` fails propertyNames' pattern

        # An output that does not fit its schema is the handler's fault: internal, never sent.
        result = await client.call_tool("search_nodes", {"query": "bad-output"})
        assert result.is_error and (result.meta or {})["dev.failwell/error"]["class"] == "internal", _text(result)


@pytest.mark.slow
def test_the_project_passes_its_own_tests_ruff_and_mypy_strict(project: Path) -> None:
    for command in (
        ["ruff", "check", "--no-cache", "."],
        ["ruff", "format", "--check", "--no-cache", "."],
        ["mypy", "src"],
        ["pytest", "-q", "-p", "no:cacheprovider", "tests/generated"],
    ):
        ran = subprocess.run(
            [sys.executable, "-m", *command],
            cwd=project,
            env={**os.environ, "PYTHONPATH": str(project / "src")},
            capture_output=True,
            text=True,
            timeout=600,
        )
        assert ran.returncode == 0, (command, ran.stdout[-4000:] + ran.stderr[-2000:])


def test_published_json_of_the_spec_is_the_schema_written() -> None:
    """The same comparison without a server: the published schema of a `schema:` field is its JSON, as written."""
    from failwell.spec import fields

    spec = {"schema": {"$defs": {"E": {"type": "string"}}, "oneOf": [{"$ref": "#/$defs/E"}, {"type": "null"}]}}
    published = fields.published_schema({"x": spec})
    assert json.loads(json.dumps(published)) == {
        "type": "object",
        "properties": {"x": {"oneOf": [{"$ref": "#/$defs/E"}, {"type": "null"}]}},
        "required": ["x"],
        "additionalProperties": False,
        "$defs": {"E": {"type": "string"}},
    }
