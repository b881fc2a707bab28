"""`failwell audit` on 11 real MCP servers from PyPI and npm (issue 41), each finding checked against the raw
exchange it came from (tests/audit_corpus/verify.py, written apart from the judge): no false positive.

The fast test reads the recorded exchanges (tests/audit_corpus/<server>.json: the package, its version, the
options, and the report with every message sent and received); the slow one installs each server (cached, see
tests/audit_corpus/servers.py), audits it live, checks each live finding against the live exchange, and compares
them with the recorded ones. `FAILWELL_REFRESH_AUDIT_CORPUS=1 pytest tests/test_audit_corpus.py -m slow` writes
the recordings anew."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import pytest
from audit_corpus.servers import BY_KEY, HERE, SERVERS, Server, target
from audit_corpus.verify import check

from failwell.audit.run import audit

RECORDED = sorted(HERE.glob("*.json"))


def recorded(key: str) -> dict[str, Any]:
    return dict(json.loads((HERE / f"{key}.json").read_text(encoding="utf-8")))


def checked(report: dict[str, Any]) -> list[tuple[dict[str, Any], bool, str]]:
    return [(finding, *check(finding, report["exchange"])) for finding in report["findings"]]


def test_the_corpus_holds_ten_servers_or_more_from_both_registries() -> None:
    keys = {path.stem for path in RECORDED}
    assert keys == set(BY_KEY), "a recording for each server of the corpus, and none else"
    assert len(keys) >= 10 and {BY_KEY[key].registry for key in keys} == {"pypi", "npm"}


@pytest.mark.parametrize("key", [server.key for server in SERVERS])
def test_each_recorded_finding_is_true_of_its_exchange(key: str) -> None:
    data = recorded(key)
    server = BY_KEY[key]
    assert (data["package"], data["version"]) == (server.package, server.version)
    report = data["report"]
    assert report["tools"] and report["exchange"], "listed, and recorded"
    wrong = [(f["rule"], f["subject"], f["probe"], f["problem"], why) for f, ok, why in checked(report) if not ok]
    assert wrong == [], wrong


def _record(server: Server, report: dict[str, Any]) -> None:
    data = {
        "package": server.package,
        "version": server.version,
        "registry": server.registry,
        "pins": list(server.pins),
        "options": server.options,
        "report": report,
    }
    text = json.dumps(data, indent=1, sort_keys=True, ensure_ascii=False) + "\n"
    (HERE / f"{server.key}.json").write_text(text, encoding="utf-8")


def _said(report: dict[str, Any]) -> set[tuple[str, str, str, str]]:
    return {(f["rule"], f["subject"], f["probe"], f["problem"]) for f in report["findings"]}


@pytest.mark.slow
@pytest.mark.parametrize("key", [server.key for server in SERVERS])
def test_a_live_audit_finds_what_is_recorded_and_each_finding_is_true(key: str, tmp_path: Path) -> None:
    server = BY_KEY[key]
    where, options = target(server, tmp_path)
    report = audit(where, options).as_dict()
    wrong = [(f["rule"], f["subject"], f["probe"], f["problem"], why) for f, ok, why in checked(report) if not ok]
    assert wrong == [], wrong
    if os.environ.get("FAILWELL_REFRESH_AUDIT_CORPUS") == "1":
        _record(server, report)
        return
    assert _said(report) == _said(recorded(key)["report"]), "the server answers as recorded"
