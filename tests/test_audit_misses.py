"""The audit's misses of issue 41 (points 12-14), each on a real stdio server written by hand
(tests/lenient_server.py): a value the probe sent is no leak; an unannotated read is probed by default with calls
no server can carry out, and an error sent as a success is a `channel` finding; a server that dies at start shows
the end of its stderr; the unknown-name probes run at the newest and the oldest protocol version it accepts."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

from typer.testing import CliRunner

from conftest import REPO
from failwell.audit.findings import Report
from failwell.audit.judge import Answer, judge_leaks, sent_values
from failwell.cli import app

SERVER = str(REPO / "tests" / "lenient_server.py")


def audit(*args: str) -> tuple[int, dict[str, Any], str]:
    """`failwell audit --json [args] -- python lenient_server.py ...`: exit code, report, stderr."""
    options = [arg for arg in args if arg.startswith("--") and arg in ("--allow-writes", "--call-reads")]
    server = [arg for arg in args if arg not in options]
    result = CliRunner().invoke(app, ["audit", "--json", *options, "--", sys.executable, SERVER, *server])
    data = json.loads(result.stdout) if result.stdout.startswith("{") else {}
    return result.exit_code, data, result.stderr


def about(data: dict[str, Any], subject: str, rule: str) -> list[dict[str, Any]]:
    return [f for f in data["findings"] if f["subject"] == subject and f["rule"] == rule]


def test_a_value_the_probe_sent_is_no_leak_and_what_the_server_adds_still_is() -> None:
    code, data, err = audit("--call-reads")
    assert code == 1, err
    assert about(data, "fetch_page", "refuses"), "the extra argument is not named: the probe ran"
    assert about(data, "fetch_page", "leaks") == [], "the URL in the message is the one the audit sent"
    code, data, err = audit("--call-reads", "--leak")
    leaks = about(data, "fetch_page", "leaks")
    assert leaks and all("internals" in f["problem"] for f in leaks), data["findings"]
    assert "/srv/lenient/fetcher.py" in leaks[0]["answer"]


def test_sent_values_are_taken_out_exactly() -> None:
    sent = sent_values({"url": "http://127.0.0.1:9/", "deep": [{"path": "a"}], "n": 3})
    assert sent == ["http://127.0.0.1:9/", "127.0.0.1", "a"], "a URL's host was sent too"
    report = Report(target="t", transport="stdio")
    said = "Could not fetch http://127.0.0.1:9/: refused"
    judge_leaks(report, "t", "p", Answer(code=-32602, message=said), sent)
    judge_leaks(report, "t", "p", Answer(code=-32602, message=said.replace(":9/", ":9/robots.txt")), sent)
    judge_leaks(report, "t", "p", Answer(code=-32602, message=said.replace("127.0.0.1:9", "10.0.0.7:9")), sent)
    judge_leaks(report, "t", "p", Answer(code=-32602, message="no file a in /home/alice/data"), sent)
    assert [check.passed for check in report.checks] == [True, True, False, False], "only what was sent is the caller's"


def test_an_unannotated_read_is_probed_and_an_error_sent_as_success_is_a_channel_finding(tmp_path: Path) -> None:
    calls = tmp_path / "calls.jsonl"
    code, data, err = audit("--calls", str(calls))
    assert code == 1, err
    channel = about(data, "get_note", "channel")
    assert channel and all(f["problem"].startswith("an error sent as a success") for f in channel), data["findings"]
    assert {f["probe"] for f in channel} == {"required argument id left out", "id of the wrong type"}
    assert about(data, "get_note", "refuses") == []
    assert any(line.startswith("delete_note: not annotated read-only") for line in data["skipped"])
    assert not calls.exists(), "a tool that reads as a change is never called without --allow-writes"
    code, data, err = audit("--allow-writes", "--calls", str(calls))
    assert calls.exists(), "with --allow-writes the write is probed, and runs"
    accepted = [f for f in data["findings"] if f["problem"] == "input the schema forbids was accepted"]
    assert {f["subject"] for f in accepted} == {"delete_note"}, "an error sent as a success is not 'accepted'"
    assert len(about(data, "get_note", "channel")) >= 3


def test_a_server_that_dies_at_start_shows_the_end_of_its_stderr() -> None:
    code, _, err = audit("--die")
    assert code == 3 and "could not connect to" in err
    lines = err.splitlines()
    assert lines[0].endswith("Its stderr ended with (the last 3 lines):"), lines[0]
    assert lines[1:] == [
        "  stderr| Traceback (most recent call last):",
        '  stderr|   File "lenient.py", line 1, in <module>',
        "  stderr| \\x1b]52;c;cHduZWQ=\\x07KeyError: 'DATABASE_URL' (token [redacted token])",
    ]
    assert "\x1b" not in err and "\\x1b]52" in err, "escaped"
    assert "Lenient0123456789" not in err, "scrubbed"


def test_unknown_names_are_judged_at_the_newest_and_the_oldest_version() -> None:
    code, data, err = audit()
    assert code == 1, err
    server = {f["probe"]: f["problem"] for f in about(data, "server", "channel")}
    assert server["an unknown prompt at protocol 2025-11-25"] == "code -32603; the specification's is -32602"
    assert server["an unknown prompt at protocol 2024-11-05"] == "code 0; the specification's is -32602"
    codes = {f["probe"] for f in about(data, "server", "codes")}
    assert {"an unknown tool at protocol 2024-11-05", "an unknown resource at protocol 2024-11-05"} <= codes
