"""bench/openapi_fastmcp.py (issue 41's closing note: failwell's import side by side with FastMCP's `from_openapi`
on the same calls) keeps working: run on one small document of the corpus, both sides are driven, FastMCP with
the same operations, forced statuses and argument values as failwell, and every corpus check either judges
FastMCP or says why it cannot. The mapping of failwell's arguments to FastMCP's is checked on its own, fast."""

from __future__ import annotations

import functools
import importlib.util
import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from conftest import REPO

BENCH = REPO / "bench" / "openapi_fastmcp.py"


@functools.cache
def bench_module() -> Any:
    """bench/openapi_fastmcp.py as a module (its dataclasses need it in sys.modules while it loads)."""
    spec = importlib.util.spec_from_file_location("openapi_fastmcp_bench", BENCH)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


def test_failwell_arguments_reach_fastmcp_by_place_and_wire_name() -> None:
    bench = bench_module()
    where = {
        "planet_id": ("path", "planetId"),
        "habitability_index": ("body", "habitabilityIndex"),
        "request_id": ("header", "X-Request-Id"),
        "idempotency_key": ("header", "Idempotency-Key"),
        "note": ("body", "note"),
    }
    parameter_map = {
        "planetId": {"location": "path", "openapi_name": "planetId"},
        "habitabilityIndex": {"location": "body", "openapi_name": "habitabilityIndex"},
        "x_request_id": {"location": "header", "openapi_name": "x-request-id"},
    }
    arguments = {"planet_id": 1, "habitability_index": 0.5, "request_id": "r", "note": "n", "extra": True}
    mapped, unmapped = bench.map_arguments(arguments, where, parameter_map, {"habitabilityIndex"})
    assert mapped == {"planetId": 1, "habitabilityIndex": 0.5, "x_request_id": "r"}
    assert unmapped == ["note", "extra"]
    # a body FastMCP takes whole (one argument, not a property of the body's schema)
    whole = {"planetId": parameter_map["planetId"], "body": {"location": "body", "openapi_name": "body"}}
    mapped, unmapped = bench.map_arguments(
        {"planet_id": 1, "habitability_index": 0.5}, where, whole, {"habitabilityIndex"}
    )
    assert (mapped, unmapped) == ({"planetId": 1, "body": {"habitabilityIndex": 0.5}}, [])
    mapped, _ = bench.map_arguments({"body": [1, 2]}, {"body": ("whole", "body")}, whole, set())
    assert mapped == {"body": [1, 2]}


def test_every_corpus_check_judges_fastmcp_or_says_why_not() -> None:
    bench = bench_module()
    kinds = {check.kind for check in bench.FASTMCP_CHECKS}
    corpus_kinds = {check.kind for check in bench.harness.CHECKS}
    assert corpus_kinds <= kinds | set(bench.NOT_FOR_FASTMCP)
    assert not kinds & set(bench.NOT_FOR_FASTMCP)
    assert all(reason for reason in bench.NOT_FOR_FASTMCP.values())


def test_wait_told_reads_the_words() -> None:
    bench = bench_module()
    call = bench.harness.Call("d", "3.1.0", "t", "GET", "/", 429, "", {}, False, True, "read")
    call.is_error, call.answered, call.retry_after_header = True, [429], "120"
    call.text = "Rate limited by upstream API, please retry later"
    assert bench.check_wait_told(call)
    call.text = "HTTP error 429: wait 2 minutes"
    assert bench.check_wait_told(call) is None
    call.text = "Retry after 60 s"
    assert bench.check_wait_told(call)


@pytest.mark.slow
def test_the_bench_drives_both_sides_on_one_document(tmp_path: Path) -> None:
    out = tmp_path / "table.json"
    done = subprocess.run(
        [sys.executable, str(BENCH), "--json", str(out), "--only", "galaxy"],
        capture_output=True,
        text=True,
        timeout=1200,
        cwd=tmp_path,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    data = json.loads(out.read_text())
    assert data["fastmcp_version"] == bench_module().FASTMCP_VERSION
    (row,) = data["table"]
    failwell, fastmcp = row["failwell"], row["fastmcp"]
    assert failwell["failure"] is None and failwell["calls_driven"] >= row["selected"] >= 1
    assert fastmcp["accepted"] is True and fastmcp["failure"] is None, fastmcp
    assert fastmcp["tools"] == row["selected"] and not fastmcp["operations_without_tool"]
    calls = data["calls"]["galaxy"]
    theirs = [call for call in calls["failwell"] if 0 not in call["answered"]]
    ours = calls["fastmcp"]
    assert [(c["method"], c["path"], c["forced"]) for c in ours] == [
        (c["method"], c["path"], c["forced"]) for c in theirs
    ]
    # every call reached FastMCP's server; an answer its own client refused (Prism's example does not fit FastMCP's
    # output schema) is no harness error: answer_fits_output counts it
    refused = [c for c in ours if c["error"] and "structured content" in c["error"]]
    assert all(call["answered"] for call in ours), [c["error"] for c in ours]
    assert all(not c["error"] for c in ours if c not in refused), [c["error"] for c in ours]
    assert all("answer_fits_output" in c["wrong"] for c in refused), [c["wrong"] for c in refused]
    assert fastmcp["arguments_unmapped"] == fastmcp["arguments_filled"] == 0
    for mine, model in zip(ours, theirs, strict=True):
        # the same values under FastMCP's names (failwell's names are snake_case, FastMCP's the wire names)
        assert sorted(map(json.dumps, mine["arguments"].values())) == sorted(
            map(json.dumps, model["arguments"].values())
        )
    assert fastmcp["calls_driven"] == len(ours) and 0 <= fastmcp["calls_right"] <= len(ours)
    assert sum(1 for call in ours if not call["wrong"]) == fastmcp["calls_right"]
    lines = done.stdout.splitlines()
    assert lines[0].startswith("| document |") and any(line.startswith("| galaxy | 3.1.1 | 10 (6) |") for line in lines)
    assert f"{fastmcp['calls_right']}/{fastmcp['calls_driven']}" in next(line for line in lines if "| galaxy |" in line)
