"""Issue 40 point 8: every snapshot of a real server's listings (tests/roundtrip/<key>.json) drafted by the code
`failwell audit --write-spec` runs, generated, started over stdio and listed by the real `mcp` client publishes what
the original does, compared as JSON (what is set aside, exactly: tests/roundtrip/report.py's docstring).

The differences still left are held in tests/roundtrip/known.yaml, by server and item: a new difference (or a new
kind of one) fails as a regression; one gone fails too, asking to rewrite the file
(`python tests/roundtrip/report.py --write`), so the file always says what is left."""

from __future__ import annotations

from typing import Any

import pytest
import yaml
from roundtrip import report

SNAPSHOTS = report.snapshots()


@pytest.fixture(scope="module")
def measured() -> dict[str, dict[str, list[str]]]:
    """Every snapshot ported in this process, each port started once."""
    return report.measure()


def _known() -> dict[str, dict[str, list[str]]]:
    found: Any = yaml.safe_load(report.KNOWN.read_text(encoding="utf-8")) if report.KNOWN.is_file() else {}
    return found or {}


@pytest.mark.parametrize("key", [str(snapshot["key"]) for snapshot in SNAPSHOTS])
def test_the_port_publishes_what_the_original_lists(measured: dict[str, dict[str, list[str]]], key: str) -> None:
    now, known = measured[key], _known().get(key) or {}
    worse = {
        label: sorted(set(kinds) - set(known.get(label) or []))
        for label, kinds in now.items()
        if set(kinds) - set(known.get(label) or [])
    }
    assert not worse, f"{key}: differences not in tests/roundtrip/known.yaml (a regression): {worse}"
    better = {
        label: sorted(set(kinds) - set(now.get(label) or []))
        for label, kinds in known.items()
        if set(kinds) - set(now.get(label) or [])
    }
    assert not better, (
        f"{key}: known differences gone: {better}; run `python tests/roundtrip/report.py --write` and commit known.yaml"
    )


def test_the_comparison_sees_each_kind_of_difference() -> None:
    """The comparison itself: what it sets aside and what it names."""
    original = {
        "name": "add",
        "description": "Adds.\nTwo lines.",
        "inputSchema": {"type": "object", "properties": {"a": {"type": "number"}}, "required": ["a"]},
        "annotations": {"readOnlyHint": False},
        "_meta": {"x": 1},
    }
    ported = {
        "name": "add",
        "description": "Adds. Two lines.",
        "inputSchema": {
            "type": "object",
            "properties": {"a": {"type": "number", "description": "The a."}, "idempotency_key": {"type": "string"}},
            "required": ["a"],
            "additionalProperties": False,
        },
        "annotations": {"readOnlyHint": False, "openWorldHint": False},
    }
    assert report.item_kinds(original, ported) == [
        "annotations: openWorldHint added",
        "description: line breaks",
        "inputSchema: additionalProperties added",
        "inputSchema: description added",
    ]
    same = {**original, "_meta": {"other": True}}
    assert report.item_kinds(original, same) == []
    keyed = {**original, "annotations": {"idempotentHint": True}}
    assert "inputSchema: property added" in report.item_kinds(keyed, {**ported, "annotations": keyed["annotations"]})
    assert report.differences({"tools": [original]}, {"tools": []}) == {"tools/add": ["missing"]}
