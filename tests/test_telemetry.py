"""Failure classes on the wire and on the dashboards: every error result carries the SEP-3313 draft's
`io.modelcontextprotocol/toolFailure` beside failwell's envelope (valid against a schema written from the
draft), and every tool call's span and the operation-duration histogram carry the failure class as
`error.type`, read here with the OpenTelemetry SDK's in-memory exporter and reader against a generated
server, in-process through the SDK's own in-memory client, and once over a real stdio pipe.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any, ClassVar

import jsonschema
import pytest
from httpserver import in_thread
from ledger import importable, receive, send, stdio_server
from mcp import Client
from mcp.shared.exceptions import MCPError
from mcp.types import EmptyResult, Request
from opentelemetry import metrics, trace
from opentelemetry.sdk.metrics import MeterProvider
from opentelemetry.sdk.metrics.export import InMemoryMetricReader
from opentelemetry.sdk.trace import ReadableSpan, TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter

TESTS = Path(__file__).resolve().parent
SCHEMA = json.loads((TESTS / "schemas" / "tool_failure_sep3313.json").read_text())
VALIDATOR = jsonschema.Draft202012Validator(SCHEMA)
SEP_KEY = "io.modelcontextprotocol/toolFailure"
FAILWELL_KEY = "dev.failwell/error"

SPEC = """\
failwell: 1
server:
  name: probe
  version: 0.1.0
  description: A server that fails in every way it is asked to, for the telemetry tests.
  store: memory
upstreams:
  api:
    base_url_env: PROBE_API_URL
    timeout_s: 2
    retries: 2
    breaker: {failures: 2, reset_s: 60}
tools:
  probe_fail:
    description: Fail with the class asked for.
    effect: read
    deadline_s: 5
    input:
      kind:
        enum: [not_found, permission_denied, conflict, upstream_unavailable, internal, timeout, none]
        description: How to fail.
        example: none
    failures:
      thing_missing:
        class: not_found
        message: "No such thing. Call probe_fail with kind none to see one."
      not_allowed:
        class: permission_denied
        message: "The probe may not do that. Tell the user to ask an operator for access."
      in_the_way:
        class: conflict
        message: "Something is in the way. Call probe_fail with kind none first."
      service_down:
        class: upstream_unavailable
        message: "The probe's service is down."
  probe_limited:
    description: Answer once a minute.
    effect: read
    rate_limit: {calls: 1, per_s: 60}
    input:
      word: {type: string, description: A word., example: hello}
  probe_fetch:
    description: Read a path of the probe API.
    effect: read
    deadline_s: 10
    upstreams: [api]
    input:
      path: {enum: [ok, flaky, down], description: Which path., example: ok}
  probe_write:
    description: Write a note through the probe API.
    effect: write
    idempotency: required
    deadline_s: 10
    upstreams: [api]
    input:
      path: {enum: [write, down], description: Which path., example: write}
      note: {type: string, description: The note., example: hi}
resources:
  probe_page:
    uri: "probe://pages/{number}"
    description: A page of the probe, or a failure for page 404.
    params:
      number: {type: integer, minimum: 1, example: 1}
    failures:
      page_gone:
        class: not_found
        message: "Page {number} is gone. Read probe://pages/1 instead."
"""

PAGE = '''\
"""`probe_page`: a page, or a failure for page 404."""

from ..._generated.resources.probe_page import Context, Output, PageGone, Params


async def handle(params: Params, ctx: Context) -> Output:
    if params.number == 404:
        raise PageGone()
    return f"page {params.number}"
'''

FAIL = '''\
"""`probe_fail`: fail with the class asked for."""

import asyncio

from .._generated.tools.probe_fail import Context, InTheWay, Input, NotAllowed, ServiceDown, ThingMissing


async def handle(params: Input, ctx: Context) -> str:
    failures = {
        "not_found": ThingMissing,
        "conflict": InTheWay,
        "upstream_unavailable": ServiceDown,
    }
    if params.kind == "permission_denied":
        raise NotAllowed(permission="probe:admin", role="viewer")
    if params.kind in failures:
        raise failures[params.kind]()
    if params.kind == "internal":
        raise RuntimeError("a bug")
    if params.kind == "timeout":
        await asyncio.sleep(30)
    return "fine"
'''

FETCH = '''\
"""`probe_fetch`: read a path of the probe API."""

from .._generated.tools.probe_fetch import Context, Input


async def handle(params: Input, ctx: Context) -> str:
    response = await ctx.upstreams.api.get(f"/{params.path}")
    return response.text
'''

WRITE = '''\
"""`probe_write`: write a note through the probe API."""

from .._generated.tools.probe_write import Context, Input


async def handle(params: Input, ctx: Context) -> str:
    response = await ctx.upstreams.api.post(f"/{params.path}", json={"note": params.note})
    return response.text
'''

LIMITED = '''\
"""`probe_limited`: answer once a minute."""

from .._generated.tools.probe_limited import Context, Input


async def handle(params: Input, ctx: Context) -> str:
    return params.word
'''


class ProbeApi(BaseHTTPRequestHandler):
    """The probe API on 127.0.0.1: /ok answers, /flaky fails once with 503 then answers, /down always 503s,
    /write answers a POST. Every Idempotency-Key it is sent is kept, so a test can look for it elsewhere."""

    flaky_served = 0
    keys: ClassVar[list[str]] = []
    lock = threading.Lock()

    def log_message(self, format: str, *args: Any) -> None:
        pass

    def answer(self, status: int, body: str) -> None:
        data = body.encode()
        self.send_response(status)
        self.send_header("content-type", "text/plain")
        self.send_header("content-length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def do_GET(self) -> None:
        with ProbeApi.lock:
            if self.path == "/flaky":
                ProbeApi.flaky_served += 1
                first = ProbeApi.flaky_served == 1
        if self.path == "/ok" or (self.path == "/flaky" and not first):
            self.answer(200, "ok")
        else:
            self.answer(503, "down")

    def do_POST(self) -> None:
        self.rfile.read(int(self.headers.get("content-length", "0")))
        with ProbeApi.lock:
            ProbeApi.keys.append(self.headers.get("idempotency-key", ""))
        self.answer(200 if self.path == "/write" else 503, "written")


@pytest.fixture(scope="module")
def api() -> Iterator[str]:
    server = ThreadingHTTPServer(("127.0.0.1", 0), ProbeApi)
    with in_thread(server):
        yield f"http://127.0.0.1:{server.server_address[1]}"


@pytest.fixture(scope="module")
def probe_src(tmp_path_factory: pytest.TempPathFactory) -> Path:
    from failwell import new

    root = tmp_path_factory.mktemp("probe")
    spec = root / "probe.yaml"
    spec.write_text(SPEC)
    new(root / "probe", spec)
    handlers = root / "probe" / "src" / "probe_mcp" / "handlers"
    for name, text in (
        ("probe_fail", FAIL),
        ("probe_fetch", FETCH),
        ("probe_write", WRITE),
        ("probe_limited", LIMITED),
    ):
        (handlers / f"{name}.py").write_text(text)
    (handlers / "resources" / "probe_page.py").write_text(PAGE)
    return root / "probe" / "src"


class Telemetry:
    """The process's OpenTelemetry SDK, set once (a provider cannot be replaced), read in memory."""

    def __init__(self) -> None:
        self.spans = InMemorySpanExporter()
        self.reader = InMemoryMetricReader()
        provider = trace.get_tracer_provider()
        if not isinstance(provider, TracerProvider):
            provider = TracerProvider()
            trace.set_tracer_provider(provider)
        provider.add_span_processor(SimpleSpanProcessor(self.spans))
        metrics.set_meter_provider(MeterProvider(metric_readers=[self.reader]))

    def finished(self, name: str) -> list[ReadableSpan]:
        return [span for span in self.spans.get_finished_spans() if span.name == name]

    def points(self, metric: str) -> dict[frozenset[tuple[str, Any]], float]:
        """Each data point of `metric` (a counter's value, a histogram's count), by its attributes."""
        found: dict[frozenset[tuple[str, Any]], float] = {}
        data = self.reader.get_metrics_data()
        for resource in data.resource_metrics if data else ():
            for scope in resource.scope_metrics:
                for each in scope.metrics:
                    if each.name == metric:
                        for point in each.data.data_points:
                            value = getattr(point, "count", None)
                            found[frozenset(point.attributes.items())] = getattr(point, "value", value)
        return found


@pytest.fixture(scope="module")
def otel() -> Telemetry:
    return Telemetry()


@pytest.fixture
def probe(probe_src: Path, api: str, otel: Telemetry, monkeypatch: pytest.MonkeyPatch) -> Iterator[Any]:
    monkeypatch.setenv("PROBE_API_URL", api)
    with importable(probe_src, "probe_mcp"):
        from probe_mcp._generated.server import build_server

        otel.spans.clear()
        yield build_server


def sep(result: Any) -> dict[str, Any]:
    """The draft's object of a result, after checking it against the schema written from the draft."""
    found: dict[str, Any] = result.meta[SEP_KEY]
    VALIDATOR.validate(found)
    assert found["correlationId"] == result.meta[FAILWELL_KEY]["reference"]
    return found


EXPECTED = {
    # kind asked for -> (failwell class, failure name, SEP class)
    "not_found": ("not_found", "thing_missing", "capability"),
    "permission_denied": ("permission_denied", "not_allowed", "governance"),
    "conflict": ("conflict", "in_the_way", "capability"),
    "upstream_unavailable": ("upstream_unavailable", "service_down", "reliability"),
    "internal": ("internal", "internal", "capability"),
    "timeout": ("timeout", "deadline", "reliability"),
}


@pytest.mark.anyio
async def test_every_class_is_the_spans_error_type_the_histograms_and_the_drafts(probe: Any, otel: Telemetry) -> None:
    server = probe(deadlines={"probe_fail": 0.2})
    seen: dict[str, Any] = {}
    async with Client(server) as client:
        for kind in EXPECTED:
            seen[kind] = await client.call_tool("probe_fail", {"kind": kind})
        seen["invalid_input"] = await client.call_tool("probe_fail", {"kind": "sideways"})
        assert (await client.call_tool("probe_limited", {"word": "a"})).is_error is not True
        seen["rate_limited"] = await client.call_tool("probe_limited", {"word": "b"})
        fine = await client.call_tool("probe_fail", {"kind": "none"})
    expected = {
        **EXPECTED,
        "invalid_input": ("invalid_input", "invalid_arguments", "capability"),
        "rate_limited": ("rate_limited", "rate_limit", "reliability"),
    }
    assert set(expected) == {"invalid_input", "not_found", "permission_denied", "conflict", "rate_limited",
                             "upstream_unavailable", "timeout", "internal"}  # fmt: skip
    spans = otel.finished("tools/call probe_fail") + otel.finished("tools/call probe_limited")
    assert len(spans) == 10, "one span per call: the SDK's own middleware is replaced, not doubled"
    assert {span.instrumentation_scope.name for span in spans if span.instrumentation_scope} == {"failwell"}
    assert not any(span.attributes.get("error.type") == "tool_error" for span in otel.spans.get_finished_spans())
    by_reference = {span.attributes.get("failwell.failure.reference"): span for span in spans}
    for kind, (failure_class, name, sep_class) in expected.items():
        result = seen[kind]
        envelope = result.meta[FAILWELL_KEY]
        drafted = sep(result)
        assert (envelope["class"], envelope["failure"]) == (failure_class, name), kind
        assert (drafted["class"], drafted["code"], drafted["retryable"]) == (sep_class, name, envelope["retryable"])
        assert drafted["agentGuidance"] and drafted["agentGuidance"] in result.content[0].text
        span = by_reference[envelope["reference"]]
        assert span.kind == trace.SpanKind.SERVER
        assert span.status.status_code == trace.StatusCode.ERROR
        assert span.attributes["error.type"] == failure_class != "tool_error"
        assert span.attributes["failwell.failure.name"] == name
        assert span.attributes["failwell.failure.retryable"] is envelope["retryable"]
        assert span.attributes["failwell.failure.changed"] == "none"
        assert span.attributes["failwell.replay"] is False
    assert sep(seen["rate_limited"])["retryNotBefore"] > time.time() * 1000 + 30_000  # a minute's bucket
    assert fine.is_error is not True and SEP_KEY not in (fine.meta or {})
    (success,) = [span for span in otel.finished("tools/call probe_fail") if "error.type" not in span.attributes]
    assert "failwell.failure.class" not in success.attributes and success.status.status_code != trace.StatusCode.ERROR
    durations = otel.points("mcp.server.operation.duration")
    for failure_class, _, _ in expected.values():
        assert any(("error.type", failure_class) in attributes for attributes in durations), failure_class
    calls = [attributes for attributes in durations if ("mcp.method.name", "tools/call") in attributes]
    assert all(dict(attributes)["gen_ai.tool.name"] in ("probe_fail", "probe_limited") for attributes in calls)
    assert not any(key == "jsonrpc.request.id" for attributes in durations for key, _ in attributes)
    refusals = otel.points("failwell.rate_limit.refusals")
    assert refusals[frozenset({("gen_ai.tool.name", "probe_limited")})] >= 1


@pytest.mark.anyio
async def test_an_unknown_tool_is_a_json_rpc_error_on_the_span_and_no_tool_name_on_the_metric(
    probe: Any, otel: Telemetry
) -> None:
    async with Client(probe()) as client:
        with pytest.raises(Exception, match="Unknown tool"):
            await client.call_tool("probe_nonsense_tool_name", {})
    (span,) = otel.finished("tools/call _OTHER")
    assert span.attributes["error.type"] == "-32602"
    assert span.attributes["gen_ai.tool.name"] == "_OTHER", "an undeclared name is not a span's either"
    names = {dict(a).get("gen_ai.tool.name") for a in otel.points("mcp.server.operation.duration")}
    assert "probe_nonsense_tool_name" not in names


@pytest.mark.anyio
async def test_a_resources_failure_class_is_its_spans_error_type(probe: Any, otel: Telemetry) -> None:
    async with Client(probe()) as client:
        with pytest.raises(Exception, match="Page 404 is gone"):
            await client.read_resource("probe://pages/404")
        with pytest.raises(Exception, match="Unknown resource"):
            await client.read_resource("probe://nowhere")
    gone, unknown = otel.finished("resources/read")
    assert gone.attributes["error.type"] == "not_found" and gone.attributes["rpc.response.status_code"] == "-32602"
    assert unknown.attributes["error.type"] == "-32602", "not a declared failure: the JSON-RPC code"


@pytest.mark.anyio
async def test_made_up_methods_and_names_are_one_series_so_a_real_failure_keeps_its_own(
    probe: Any, otel: Telemetry
) -> None:
    """2,100 made-up methods (past the SDK's 2,000 series a metric keeps) and made-up tool and prompt names
    are all `_OTHER`, on spans and on the histogram; the real failure that follows has a series of its own,
    not the overflow one."""
    made_up = [f"x-{number}/made_up" for number in range(2100)]
    async with Client(probe()) as client:
        for method in made_up:
            with pytest.raises(MCPError):
                await client.session.send_request(Request(method=method, params=None), EmptyResult)
        for number in range(30):
            with pytest.raises(Exception, match="Unknown tool"):
                await client.call_tool(f"made_up_tool_{number}", {})
            with pytest.raises(MCPError):
                await client.get_prompt(f"made_up_prompt_{number}")
        failed = await client.call_tool("probe_fail", {"kind": "not_found"})
    assert failed.is_error
    names = {span.name for span in otel.spans.get_finished_spans()}
    assert not {name for name in names if "made_up" in name}, "no made-up name is a span's name"
    assert len(otel.finished("_OTHER")) == 2100
    assert len(otel.finished("tools/call _OTHER")) == 30 and len(otel.finished("prompts/get _OTHER")) == 30
    points = otel.points("mcp.server.operation.duration")
    methods = {dict(attributes).get("mcp.method.name") for attributes in points}
    assert "_OTHER" in methods and not {m for m in methods if m and "made_up" in m}
    assert not [a for a in points if dict(a).get("otel.metric.overflow")], "nothing landed in the overflow series"
    real = [a for a in points if dict(a).get("gen_ai.tool.name") == "probe_fail" and ("error.type", "not_found") in a]
    assert real, "the real failure has its own series"


@pytest.mark.anyio
async def test_a_uris_query_fragment_and_user_never_reach_a_span(probe: Any, otel: Telemetry) -> None:
    """A URI's `?access_token=`, `#fragment` and `user:password@` are cut from a span's status description."""
    async with Client(probe()) as client:
        for uri in (
            "probe://nowhere?access_token=SECRET-QUERY-1",
            "probe://pages/x?x=1&access_token=SECRET-QUERY-2#SECRET-FRAGMENT",
            "probe://admin:SECRET-PASSWORD@pages/1",
        ):
            with pytest.raises(MCPError):
                await client.read_resource(uri)
    spans = otel.finished("resources/read")
    assert len(spans) == 3
    recorded = json.dumps([[span.status.description, dict(span.attributes or {})] for span in spans])
    assert "probe://nowhere" in recorded, "the URI itself is kept"
    assert "SECRET" not in recorded, recorded


@pytest.mark.anyio
async def test_an_upstream_retry_is_two_child_spans_and_the_call_says_two_attempts(probe: Any, otel: Telemetry) -> None:
    ProbeApi.flaky_served = 0
    async with Client(probe()) as client:
        result = await client.call_tool("probe_fetch", {"path": "flaky"})
    assert result.is_error is not True
    (call,) = otel.finished("tools/call probe_fetch")
    attempts = [span for span in otel.finished("GET") if span.parent and span.parent.span_id == call.context.span_id]
    assert len(attempts) == 2
    first, second = sorted(attempts, key=lambda span: span.start_time or 0)
    assert first.kind == trace.SpanKind.CLIENT and first.attributes["http.response.status_code"] == 503
    assert (
        first.attributes["error.type"] == "upstream_unavailable" and "http.request.resend_count" not in first.attributes
    )
    assert second.attributes["http.response.status_code"] == 200 and second.attributes["http.request.resend_count"] == 1
    assert second.attributes["failwell.upstream.name"] == "api" and second.attributes["server.address"] == "127.0.0.1"
    assert call.attributes["failwell.upstream.attempts"] == 2
    assert call.attributes["failwell.breaker.state"] == "closed"
    assert "error.type" not in call.attributes


@pytest.mark.anyio
async def test_a_breaker_opening_is_counted_and_the_call_says_open(probe: Any, otel: Telemetry) -> None:
    before = otel.points("failwell.breaker.openings").get(frozenset({("failwell.upstream.name", "api")}), 0)
    async with Client(probe()) as client:
        result = await client.call_tool("probe_fetch", {"path": "down"})
        again = await client.call_tool("probe_fetch", {"path": "ok"})
    assert result.meta[FAILWELL_KEY]["class"] == again.meta[FAILWELL_KEY]["class"] == "upstream_unavailable"
    drafted = sep(again)
    assert drafted["class"] == "reliability" and drafted["retryable"] is True
    assert drafted["retryNotBefore"] > time.time() * 1000 + 50_000  # the breaker's 60 s reset
    opened, paused = otel.finished("tools/call probe_fetch")
    assert opened.attributes["failwell.upstream.attempts"] == 2  # 503, 503: the breaker opened, no third
    assert opened.attributes["failwell.breaker.state"] == paused.attributes["failwell.breaker.state"] == "open"
    assert paused.attributes["failwell.upstream.attempts"] == 0
    assert opened.attributes["error.type"] == "upstream_unavailable"
    after = otel.points("failwell.breaker.openings")[frozenset({("failwell.upstream.name", "api")})]
    assert after == before + 1


@pytest.mark.anyio
async def test_a_replay_and_an_unknown_outcome_are_on_the_span_and_counted_and_no_key_is_recorded(
    probe: Any, otel: Telemetry
) -> None:
    replays = otel.points("failwell.idempotency.replays").get(frozenset({("gen_ai.tool.name", "probe_write")}), 0)
    ProbeApi.keys.clear()
    async with Client(probe()) as client:
        write = {"path": "write", "note": "hi", "idempotency_key": "telemetry-key-0001"}
        first = await client.call_tool("probe_write", write)
        second = await client.call_tool("probe_write", write)
        broken = {"path": "down", "note": "hi", "idempotency_key": "telemetry-key-0002"}
        lost = await client.call_tool("probe_write", broken)
        unknown = await client.call_tool("probe_write", broken)
    assert first.is_error is not True and second.content[0].text == first.content[0].text
    assert lost.meta[FAILWELL_KEY]["changed"] == "possible"
    assert unknown.meta[FAILWELL_KEY]["failure"] == "idempotency_key_outcome_unknown"
    assert sep(unknown)["class"] == "capability" and sep(unknown)["agentGuidance"].startswith("Check whether")
    ran, replayed, failed, refused = otel.finished("tools/call probe_write")
    assert (ran.attributes["failwell.replay"], replayed.attributes["failwell.replay"]) == (False, True)
    assert "failwell.upstream.attempts" not in replayed.attributes  # answered from the store: no upstream met
    assert failed.attributes["error.type"] == "upstream_unavailable"
    assert failed.attributes["failwell.failure.changed"] == "possible"
    assert refused.attributes["error.type"] == "conflict"
    after = otel.points("failwell.idempotency.replays")[frozenset({("gen_ai.tool.name", "probe_write")})]
    assert after == replays + 1
    assert otel.points("failwell.idempotency.unknown_outcomes")[frozenset({("gen_ai.tool.name", "probe_write")})] >= 1
    derived = [key for key in ProbeApi.keys if key]
    assert derived, "the writes sent their derived key upstream"
    recorded = json.dumps([dict(span.attributes or {}) for span in otel.spans.get_finished_spans()], default=str)
    assert not any(key in recorded for key in derived) and "telemetry-key-000" not in recorded
    for each in ("failwell.idempotency.replays", "failwell.idempotency.unknown_outcomes", "failwell.breaker.openings",
                 "failwell.rate_limit.refusals", "mcp.server.operation.duration"):  # fmt: skip
        for attributes in otel.points(each):
            assert {key for key, _ in attributes} <= {
                "gen_ai.tool.name",
                "gen_ai.operation.name",
                "failwell.upstream.name",
                "mcp.method.name",
                "mcp.protocol.version",
                "error.type",
            }, (each, attributes)


def test_the_guidance_is_the_last_sentence_that_says_what_to_do(probe: Any) -> None:
    from probe_mcp._generated.runtime.wording.tool_failure import agent_guidance

    said = {
        "No thing T-1. Refs look like T-1. Call probe_find to find one. Nothing was changed. "
        "Retrying the same call will not help.": "Call probe_find to find one.",
        "It may not. Ask an admin. It needs the p:admin permission, and the caller's role is viewer. "
        "Nothing was changed. Retrying will not help until the permission is granted.": "Ask an admin.",
        "Not accepted:\n- `a` received 1 (an integer), but it accepts one of: x, y.\nCorrect them, call t. "
        "Nothing was changed. Retrying with the same arguments will fail the same way.": "Correct them, call t.",
        "2 of 3 rows were written; 1 failed and was not:\n- rows[1]: bad\nPart of the change was applied. "
        "Send only the failed rows again, after fixing them.": "Send only the failed rows again, after fixing them.",
        "It was limited. Nothing was changed. Retry after 3 s; calling sooner will be refused again.": (
            "Retry after 3 s; calling sooner will be refused again."
        ),
        "Use one of: a, b. Nothing was changed.": "Use one of: a, b.",
        "Nothing was changed.": "",
    }
    assert {text: agent_guidance(text) for text in said} == said


def test_the_spec_switch_leaves_the_draft_out(tmp_path: Path) -> None:
    from failwell import new

    spec = tmp_path / "quiet.yaml"
    spec.write_text(
        SPEC.replace("name: probe\n", "name: quiet\n  tool_failure_envelope: false\n", 1).replace("probe_", "quiet_")
    )
    new(tmp_path / "quiet", spec)
    server_py = (tmp_path / "quiet" / "src" / "quiet_mcp" / "_generated" / "server.py").read_text()
    assert "tool_failure_envelope=False" in server_py
    program = (
        "import asyncio\n"
        "from quiet_mcp._generated.server import build_server\n"
        "result = asyncio.run(build_server().call_tool('quiet_fail', {'kind': 'not_found'}))\n"
        "print(result.is_error, sorted(result.meta or {}))\n"
    )
    env = {**os.environ, "PYTHONPATH": str(tmp_path / "quiet" / "src")}
    run = subprocess.run([sys.executable, "-c", program], capture_output=True, text=True, timeout=60, env=env)
    assert run.returncode == 0, run.stderr
    assert run.stdout.strip() == f"True {[FAILWELL_KEY]}"


@pytest.mark.slow
def test_the_draft_envelope_arrives_over_stdio_and_validates(probe_src: Path, api: str) -> None:
    process = stdio_server(probe_src, {"PROBE_API_URL": api}, "probe_mcp")
    try:
        calls = [
            ("probe_fail", {"kind": "not_found"}),
            ("probe_limited", {"word": "a"}),
            ("probe_limited", {"word": "b"}),
        ]
        answers = []
        for number, (name, arguments) in enumerate(calls, start=1):
            send(process, {"jsonrpc": "2.0", "id": number, "method": "tools/call",
                           "params": {"name": name, "arguments": arguments}})  # fmt: skip
            answers.append(receive(process)["result"])
        sent_at = time.time()
    finally:
        process.kill()
        process.wait()
    missing, _, limited = answers
    for answer in (missing, limited):
        assert answer["isError"] is True
        VALIDATOR.validate(answer["_meta"][SEP_KEY])
        assert answer["_meta"][SEP_KEY]["correlationId"] == answer["_meta"][FAILWELL_KEY]["reference"]
    assert missing["_meta"][SEP_KEY]["agentGuidance"] == "Call probe_fail with kind none to see one."
    assert limited["_meta"][SEP_KEY]["class"] == "reliability" and limited["_meta"][SEP_KEY]["retryable"] is True
    wait_ms = limited["_meta"][FAILWELL_KEY]["retry_after_s"] * 1000
    assert sent_at * 1000 - 5_000 < limited["_meta"][SEP_KEY]["retryNotBefore"] - wait_ms <= sent_at * 1000


@pytest.mark.slow
def test_the_official_typescript_client_accepts_the_results_that_carry_the_draft(probe_src: Path, api: str) -> None:
    from test_conformance import inspect

    target = ["env", f"PYTHONPATH={probe_src}", f"PROBE_API_URL={api}", sys.executable, "-m", "probe_mcp"]
    code, failed = inspect(target, "--method", "tools/call", "--tool-name", "probe_fail", "--tool-arg", "kind=conflict")
    assert code == 0, failed
    assert failed["isError"] is True
    drafted = failed["_meta"][SEP_KEY]
    VALIDATOR.validate(drafted)
    assert (drafted["class"], drafted["code"]) == ("capability", "in_the_way")
    assert drafted["correlationId"] == failed["_meta"][FAILWELL_KEY]["reference"]
