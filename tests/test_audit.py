"""`failwell audit` (issue 30): the probes made from a schema, the draft spec written from a listing, the
report's three forms (fast, in-process); then real servers over stdio and streamable HTTP (slow): failwell's
own examples must score clean, and a sloppy server written the way many are (no annotations, pydantic's
errors, a print on stdout, extra arguments ignored) is caught on each count, its write tool never called."""

from __future__ import annotations

import json
import re
import sys
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import anyio
import pytest
import yaml
from typer.testing import CliRunner

from conftest import REPO
from failwell import validate
from failwell.audit.draft import draft
from failwell.audit.findings import Finding, Report
from failwell.audit.judge import Answer, judge_code, judge_leaks
from failwell.audit.probes import EXTRA, PLANTED, probes, valid_arguments
from failwell.audit.report import as_html, as_json, terminal
from failwell.cli import app

SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "ref": {"type": "string", "pattern": "^T-[0-9]+$", "maxLength": 12, "examples": ["T-1"]},
        "days": {"type": "integer", "minimum": 1, "maximum": 7},
        "status": {"type": "string", "enum": ["open", "done"]},
        "tags": {"type": "array", "items": {"type": "string"}},
    },
    "required": ["ref", "days"],
}


def test_probes_cover_each_kind_the_schema_allows_and_plant_the_credential() -> None:
    found = probes(SCHEMA)
    kinds = {(probe.kind, probe.field) for probe in found}
    assert {("missing", "ref"), ("missing", "days"), ("type", "ref"), ("type", "days"), ("bounds", "ref")} <= kinds
    assert {("bounds", "days"), ("pattern", "ref"), ("enum", "status"), ("extra", EXTRA)} <= kinds
    assert valid_arguments(SCHEMA) == {"ref": "T-1", "days": 1}
    by_kind = {(probe.kind, probe.field): probe for probe in found}
    assert by_kind["missing", "ref"].arguments == {"days": 1}
    assert by_kind["bounds", "days"].arguments == {"ref": "T-1", "days": 8}
    assert by_kind["type", "days"].arguments["days"] == "not-a-number"
    for kind in (("pattern", "ref"), ("enum", "status"), ("extra", EXTRA)):
        assert PLANTED in json.dumps(by_kind[kind].arguments)
    assert (
        len(probes({"type": "object", "properties": {f"f{i}": {"type": "string", "maxLength": 3} for i in range(9)}}))
        <= 10
    )


def test_the_planted_credential_and_bad_codes_are_judged() -> None:
    report = Report(target="t", transport="stdio")
    judge_leaks(report, "t", "p", Answer(code=-32602, message=f"bad: input_value={PLANTED!r}"))
    judge_leaks(report, "t", "p", Answer(code=-32602, message=f"`ref` received {PLANTED!r}, but"), [], "ref")
    judge_leaks(report, "t", "p", Answer(code=-32602, message="No such ref; pass T-1."))
    judge_code(report, "t", "p", Answer(code=0, message="x"))
    judge_code(report, "t", "p", Answer(code=-32050, message="x"))
    judge_code(report, "t", "p", Answer(code=-32602, message="x"))
    assert [(f.rule, f.severity) for f in report.findings] == [
        ("leaks", "error"),
        ("leaks", "warning"),
        ("codes", "error"),
        ("codes", "error"),
    ]
    assert report.score == round(100 * 2 / 6)


LISTED = [
    {
        "name": "get-sum",
        "description": "Adds two numbers.",
        "inputSchema": {
            "type": "object",
            "properties": {"a": {"type": "number", "description": "First"}, "b": {"type": "number"}},
            "required": ["a", "b"],
        },
        "annotations": {"readOnlyHint": True},
    },
    {
        "name": "write_file",
        "inputSchema": {
            "type": "object",
            "properties": {
                "path": {"type": "string"},
                "mode": {"anyOf": [{"type": "string", "enum": ["w", "a"]}, {"type": "null"}], "default": None},
                "lines": {"type": "array", "items": {"type": "string", "maxLength": 200}, "maxItems": 10},
                "options": {"type": "object", "properties": {"dry_run": {"type": "boolean"}}},
            },
            "required": ["path"],
        },
        "annotations": {"destructiveHint": True, "idempotentHint": True},
    },
]


def test_a_draft_spec_from_a_listing_validates_as_written(tmp_path: Path) -> None:
    report = Report(target="npx demo", transport="stdio", server={"name": "Demo Server!", "version": "2.0.1-beta"})
    report.tools = LISTED
    text = draft(report)
    spec = tmp_path / "failwell.yaml"
    spec.write_text(text)
    validate(spec)
    assert "  name: demo-server\n" in text and "  version: 2.0.1\n" in text
    assert text.count("# DRAFT: declare its failures") == 2
    assert "effect: read" in text and "effect: destructive" in text and "idempotent: true" in text


def test_a_draft_renames_what_a_spec_cannot_take_and_says_so(tmp_path: Path) -> None:
    """Names real servers publish that a spec does not take as they are (a tool named like a builtin, two arguments
    with one Python name): renamed, marked, valid; a `from` or `json` argument is taken as written (its attribute
    `from_`). An argument whose nested names are plain
    (server-filesystem's `edits[].oldText`, a `class`) is drafted as the `schema:` it lists, names as listed; one
    holding a name with a space or a quote is drafted in the curated keys, renamed (`oldText` beside it too)."""
    report = Report(target="npx demo", transport="stdio", server={"name": "demo", "version": "1"})
    edits = {"type": "object", "properties": {"oldText": {"type": "string"}, "new text": {"type": "string"}}}
    report.tools = [
        {
            "name": "edit_file",
            "description": "Edits a file.",
            "inputSchema": {
                "type": "object",
                "properties": {
                    "from": {"type": "string"},
                    "json": {"type": "boolean"},
                    "dryRun": {"type": "boolean"},
                    "dry_run": {"type": "boolean"},
                    "edits": {"type": "array", "items": edits},
                },
                "required": ["from"],
            },
            "annotations": {"destructiveHint": True},
        },
        {"name": "list", "description": "Lists.", "inputSchema": {"type": "object"}, "annotations": {}},
    ]
    text = draft(report)
    spec = tmp_path / "failwell.yaml"
    spec.write_text(text)
    validate(spec)
    data = yaml.safe_load(text)
    fields = data["tools"]["edit_file"]["input"]
    assert list(fields) == ["from", "json", "dryRun", "dry_run_value", "edits"], "reserved words published as written"
    assert "required" not in fields["from"] and fields["json"]["required"] is False
    assert list(fields["edits"]["items"]["properties"]) == ["old_text", "new_text"]
    assert "list_value" in data["tools"]
    assert (
        "# DRAFT: renamed to names a spec takes, so clients will see the new ones: `dry_run` as `dry_run_value`" in text
    )
    assert "the tool `list` as `list_value`" in text and "`oldText` as `old_text`" in text
    edits["properties"] = {"oldText": {"type": "string"}, "class": {"type": "string"}}
    kept = yaml.safe_load(draft(report))["tools"]["edit_file"]["input"]["edits"]
    assert kept == {"schema": {"type": "array", "items": edits}, "required": False}, "names as listed"


def sample_report() -> Report:
    report = Report(target="python -m x", transport="stdio", server={"name": "x", "version": "1"})
    report.tools = LISTED
    report.record("leaks", "get-sum", Finding("leaks", "error", "get-sum", "a off its pattern", "dump", "<b>x</b>"))
    report.record("wording", "get-sum", None)
    report.skipped.append("write_file: not annotated read-only; pass --allow-writes to probe it")
    return report


def test_the_report_reads_in_a_terminal_as_json_and_as_one_html_file() -> None:
    report = sample_report()
    summary = terminal(report)
    assert "score 50/100: 1 error(s), 0 warning(s)" in summary and "> <b>x</b>" in summary
    data = json.loads(as_json(report))
    assert data["score"] == 50 and data["scores"]["rules"] == {"leaks": 0, "wording": 100}
    assert data["findings"][0]["answer"] == "<b>x</b>"
    page = as_html(report)
    assert "&lt;b&gt;x&lt;/b&gt;" in page and "<b>x</b>" not in page.split("<body>")[1].replace("<b>get-sum</b>", "")
    assert not re.search(r"<script|<link|src=|href=|@import|url\(", page), "one file, nothing fetched"


# --- real servers (slow) -------------------------------------------------------------------------------------

SLOPPY = '''\
import os
from typing import Annotated

from pydantic import Field
from mcp.server.mcpserver import MCPServer
from mcp.types import CallToolResult, TextContent, ToolAnnotations

server = MCPServer("sloppy")


@server.tool(annotations=ToolAnnotations(read_only_hint=True))
def lookup(name: Annotated[str, Field(max_length=10, pattern="^[a-z]+$")], limit: int = 5) -> CallToolResult:
    """Look a name up."""
    stale = {"class": "reliability", "code": "cache_stale", "retryable": True, "correlationId": "c-1"}
    return CallToolResult(  # a success that says it failed
        content=[TextContent(type="text", text=f"found {name}")], _meta={"io.modelcontextprotocol/toolFailure": stale}
    )


@server.tool()
def delete_everything(confirm: bool) -> str:
    with open(os.environ["CALLS_FILE"], "a") as calls:
        calls.write("delete_everything\\n")
    return "deleted"


@server.resource("sloppy://notes", name="notes")
def notes() -> str:
    return "notes"


_capabilities = server._lowlevel_server.get_capabilities


def unadvertised(*args, **kwargs):  # serves resources without saying so
    return _capabilities(*args, **kwargs).model_copy(update={"resources": None})


server._lowlevel_server.get_capabilities = unadvertised
print("sloppy server starting")
server.run()
'''


def run(*args: str | Path) -> tuple[int, str, str]:
    result = CliRunner().invoke(app, ["audit", *[str(arg) for arg in args]], prog_name="failwell")
    return result.exit_code, result.stdout, result.stderr


@pytest.mark.slow
def test_a_sloppy_server_is_caught_and_its_write_tool_never_called(tmp_path: Path) -> None:
    script, calls = tmp_path / "sloppy.py", tmp_path / "calls.txt"
    script.write_text(SLOPPY)
    out_json = tmp_path / "report.json"
    # the server gets PATH, HOME, LANG and --env alone from this shell: unbuffered, the stray print comes at once
    unbuffered = ["--env", "PYTHONUNBUFFERED=1"]
    code, out, err = run("--json", "--env", f"CALLS_FILE={calls}", *unbuffered, "--", sys.executable, str(script))
    out_json.write_text(out)
    assert code == 1, err
    data = json.loads(out)
    problems = {(f["rule"], f["subject"]) for f in data["findings"]}
    assert ("stdout", "server") in problems, "the print on stdout"
    assert ("refuses", "lookup") in problems, "an unknown extra argument was accepted"
    assert ("leaks", "lookup") in problems, "pydantic's dump, with the input and a documentation URL"
    assert ("envelope", "lookup") in problems and ("wording", "lookup") in problems
    assert any(
        f["problem"].startswith("a success result carrying io.modelcontextprotocol/toolFailure")
        and f["probe"] == "an unknown extra argument"
        for f in data["findings"]
    ), "the draft's object on a success (the extra argument ignored, the call ran)"
    assert ("listing", "delete_everything") in problems, "no annotations"
    assert any(f["problem"] == "resources are served (notes) but not advertised" for f in data["findings"])
    malformed = {f["probe"]: f["problem"] for f in data["findings"] if f["subject"] == "server"}
    assert malformed["tools/call with params that are not an object"].startswith("no answer"), "the SDK drops it"
    assert "an unknown method" not in malformed, "the SDK answers -32601"
    newest = data["server"]["protocol"]
    assert malformed[f"an unknown prompt at protocol {newest}"] == "code -32603; the specification's is -32602"
    said = {(f["probe"], f["problem"]) for f in data["findings"]}
    assert ("an unknown prompt at protocol 2024-11-05", "code 0; the specification's is -32602") in said, (
        "the same server, at the oldest version it accepts"
    )
    assert "'sloppy server starting'" in json.dumps(data["findings"]), "the stray stdout line, quoted"
    assert any("delete_everything" in item for item in data["skipped"])
    assert not calls.exists(), "a tool not annotated read-only is never called without --allow-writes"
    assert data["scores"]["tools"]["lookup"] < 70

    spec = tmp_path / "draft.yaml"
    code, out, err = run("--write-spec", spec, "--html", tmp_path / "a.html", "--", sys.executable, str(script))
    assert code == 1 and "a draft that validates" in err
    validate(spec)
    assert "lookup:" in spec.read_text() and "delete_everything:" in spec.read_text()
    assert (tmp_path / "a.html").read_text().startswith("<!doctype html>")

    code, out, err = run("--allow-writes", "--json", "--env", f"CALLS_FILE={calls}", "--", sys.executable, str(script))
    assert code == 1
    assert calls.read_text().count("delete_everything") >= 1, "with --allow-writes it is probed, and runs"


@pytest.mark.slow
@pytest.mark.parametrize("example", ["weather", "tasks", "records", "refunds"])
def test_failwell_examples_score_clean(example: str, tmp_path: Path) -> None:
    env = [
        f"PYTHONPATH={REPO / 'examples' / example / 'src'}",
        "FORECAST_API_URL=http://127.0.0.1:9",
        "PAYMENTS_API_URL=http://127.0.0.1:9",
        f"FAILWELL_SQLITE_PATH={tmp_path / 'store.sqlite3'}",
    ]
    args = [arg for item in env for arg in ("--env", item)]
    code, out, err = run(
        "--allow-writes", "--call-reads", "--json", *args, "--", sys.executable, "-m", f"{example}_mcp"
    )
    assert code == 0, out + err
    data = json.loads(out)
    assert data["findings"] == [] and data["score"] == 100, "clean: no error and no warning"
    assert data["skipped"] == [] and data["counts"]["checks"] >= 80, "every tool probed, writes too"


@pytest.mark.slow
def test_a_failwell_server_over_streamable_http_with_a_header(tmp_path: Path) -> None:
    from httpserver import http_server

    src = REPO / "examples" / "weather" / "src"
    env = {"PYTHONPATH": str(src), "FORECAST_API_URL": "http://127.0.0.1:9"}
    with http_server("weather_mcp", src, tmp_path / "server.log", env) as server:
        code, out, err = run(server.url, "--header", "X-Audit: yes", "--call-reads")
    assert code == 0, out + err
    assert "over http" in out and "score 100/100: clean" in out


GUARDED = """\
import sys

import uvicorn
from mcp.server.mcpserver import MCPServer
from mcp.types import ToolAnnotations

server = MCPServer("guarded")


@server.tool(annotations=ToolAnnotations(read_only_hint=True))
def lookup(name: str) -> str:
    \"\"\"Look a name up.\"\"\"
    return name


inner = server.streamable_http_app()


async def app(scope, receive, send):  # every HTTP request needs the bearer token; refused ones are counted
    if scope["type"] == "http" and dict(scope["headers"]).get(b"authorization") != b"Bearer audit-token":
        with open(sys.argv[2], "a") as refused:
            refused.write(scope["method"] + "\\n")
        await send({"type": "http.response.start", "status": 401, "headers": [(b"content-type", b"text/plain")]})
        await send({"type": "http.response.body", "body": b"unauthorized"})
        return
    await inner(scope, receive, send)


uvicorn.run(app, host="127.0.0.1", port=int(sys.argv[1]), log_level="warning")
"""


@pytest.mark.slow
def test_header_carries_auth_to_every_request(tmp_path: Path) -> None:
    """A server behind a bearer token: without `--header` it cannot be reached (exit 3); with it, every request
    the audit makes (the session's and the raw body that is not JSON) carries the header."""
    import subprocess

    from httpserver import free_port, wait_for_port

    script, refused = tmp_path / "guarded.py", tmp_path / "refused.txt"
    script.write_text(GUARDED)
    port = free_port()
    process = subprocess.Popen([sys.executable, str(script), str(port), str(refused)], stderr=subprocess.DEVNULL)
    try:
        wait_for_port(port, process)
        url = f"http://127.0.0.1:{port}/mcp"
        code, _, err = run(url)
        assert code == 3 and "could not connect to" in err, err
        assert refused.read_text(), "the server refused the audit without the token"
        refused.unlink()
        code, out, err = run(url, "--header", "Authorization: Bearer audit-token", "--json")
    finally:
        process.terminate()
        process.wait(timeout=10)
    assert code in (0, 1), err
    data = json.loads(out)
    assert [tool["name"] for tool in data["tools"]] == ["lookup"] and data["transport"] == "http"
    assert not refused.exists(), "a request went out without the header"


WARNED = """\
import sys

from mcp.server.mcpserver import MCPServer
from mcp.shared.exceptions import MCPError


class Warned(MCPServer):
    async def get_prompt(self, name, arguments=None, context=None):
        if name not in {prompt.name for prompt in await self.list_prompts()}:
            raise MCPError(-32602, f"Unknown prompt: {name}")
        return await super().get_prompt(name, arguments, context)


server = Warned("warned")


@server.tool()  # no annotations: a warning, and never called
def ping() -> str:
    \"\"\"Answer pong.\"\"\"
    return "pong"


server.run("streamable-http", host="127.0.0.1", port=int(sys.argv[1]))
"""


@pytest.mark.slow
def test_warnings_pass_unless_strict(tmp_path: Path) -> None:
    """A server whose only findings are warnings (a tool without annotations, an unknown tool answered as an
    isError result): exit 0, and 1 with --strict, for CI that holds a server to warnings too."""
    import subprocess

    from httpserver import free_port, wait_for_port

    script = tmp_path / "warned.py"
    script.write_text(WARNED)
    port = free_port()
    process = subprocess.Popen([sys.executable, str(script), str(port)], stderr=subprocess.DEVNULL)
    try:
        wait_for_port(port, process)
        url = f"http://127.0.0.1:{port}/mcp"
        code, out, err = run(url, "--json")
        strict_code, _, _ = run(url, "--strict")
    finally:
        process.terminate()
        process.wait(timeout=10)
    data = json.loads(out)
    assert data["counts"]["errors"] == 0 and data["counts"]["warnings"] > 0, data["findings"]
    assert (code, strict_code) == (0, 1), err


@pytest.fixture
def no_server() -> Iterator[str]:
    yield str(REPO / "tests" / "no-such-server-binary")


def test_a_server_that_cannot_start_is_one_clear_line_and_exit_3(no_server: str) -> None:
    code, _, err = run("--", no_server)
    assert code == 3 and "could not connect to" in err and "Traceback" not in err
    code, _, err = run("--header", "nocolon", "http://127.0.0.1:9/mcp")
    assert code == 1 and "write it as NAME:VALUE" in err


class _Answering(BaseHTTPRequestHandler):
    """A loopback endpoint answering every POST with `reply` (status, content type, body)."""

    reply: tuple[int, str, bytes] = (200, "text/html", b"<html>oops</html>")

    def do_POST(self) -> None:
        self.rfile.read(int(self.headers.get("content-length", "0")))
        status, kind, body = self.reply
        self.send_response(status)
        self.send_header("content-type", kind)
        self.send_header("content-length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, format: str, *args: object) -> None:
        pass


@pytest.mark.parametrize(
    ("reply", "problem"),
    [
        (
            (400, "application/json", b'{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"Parse error"}}'),
            None,
        ),
        ((200, "text/html", b"<html>Traceback: oops</html>"), "not a JSON-RPC error"),
        (
            (200, "application/json", b'{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"Parse error"}}'),
            "4xx",
        ),
        ((400, "application/json", b'{"jsonrpc":"2.0","id":null,"error":{"code":-32603,"message":"boom"}}'), "-32700"),
    ],
)
def test_a_body_that_is_not_json_is_probed_over_http(reply: tuple[int, str, bytes], problem: str | None) -> None:
    from failwell.audit.malformed import probe_malformed_http

    handler = type("Handler", (_Answering,), {"reply": reply})
    server = ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        report = Report(target="fake", transport="http")
        anyio.run(probe_malformed_http, report, f"http://127.0.0.1:{server.server_port}/mcp", {}, 5.0)
    finally:
        server.shutdown()
        server.server_close()
        thread.join(timeout=5)
    found = [finding for finding in report.findings if finding.probe == "a body that is not JSON"]
    if problem is None:
        assert found == [] and report.checks, "a good answer is a check that passed"
    else:
        assert any(problem in finding.problem for finding in found), found
