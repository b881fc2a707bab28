"""The task board's own tests for `tasks_search`."""

import pytest

from tasks_mcp._generated.testing import call_tool

pytestmark = pytest.mark.anyio


async def test_finds_open_tasks_by_title_words() -> None:
    outcome = await call_tool("tasks_search", {"query": "release notes"})
    assert not outcome.is_error, outcome.text
    assert outcome.structured["total"] == 1
    assert outcome.structured["tasks"][0]["ref"] == "T-1"


async def test_closed_tasks_need_status_any() -> None:
    outcome = await call_tool("tasks_search", {"query": "login"})
    assert outcome.is_error
    assert 'No open task among 2 has "login" in its title; every word must appear in it.' in outcome.text
    assert 'status "any"' in outcome.text
    found = await call_tool("tasks_search", {"query": "login", "status": "any"})
    assert [task["ref"] for task in found.structured["tasks"]] == ["T-2"]


async def test_a_rebuilding_index_is_upstream_unavailable(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("TASKS_SEARCH_INDEX", "rebuilding")
    outcome = await call_tool("tasks_search", {"query": "release notes"})
    assert outcome.is_error
    assert outcome.envelope["class"] == "upstream_unavailable"
    assert outcome.envelope["retry_after_s"] == 30
    assert outcome.text.endswith("Nothing was changed. Retry after 30 s; it may succeed then.")
