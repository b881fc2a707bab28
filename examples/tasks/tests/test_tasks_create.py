"""The task board's own tests for `tasks_create`."""

import pytest

from tasks_mcp._generated.testing import call_tool

pytestmark = pytest.mark.anyio


async def test_creates_a_task() -> None:
    outcome = await call_tool("tasks_create", {"title": "Write the changelog", "assignee": "@linus"})
    assert not outcome.is_error, outcome.text
    assert outcome.structured["title"] == "Write the changelog"
    assert outcome.structured["ref"].startswith("T-")


async def test_a_viewer_is_refused_with_the_permission_and_role(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("TASKS_ROLE", "viewer")
    outcome = await call_tool("tasks_create", {"title": "Plan the offsite"})
    assert outcome.is_error
    assert "needs the tasks:create permission" in outcome.text
    assert "your role on this board is viewer" in outcome.text
    assert outcome.envelope["class"] == "permission_denied"


async def test_unknown_assignee_lists_the_members() -> None:
    outcome = await call_tool("tasks_create", {"title": "Plan the offsite", "assignee": "@nobody"})
    assert outcome.is_error
    assert outcome.text.startswith("@nobody is not a member of this board. Members are @ada, @grace, @linus.")


async def test_the_eleventh_task_in_a_minute_says_how_long_to_wait() -> None:
    from tasks_mcp.board import CREATES_PER_MINUTE

    for number in range(CREATES_PER_MINUTE):
        created = await call_tool("tasks_create", {"title": f"Chore {number}"})
        assert not created.is_error, created.text
    refused = await call_tool("tasks_create", {"title": "One too many"})
    assert refused.is_error
    assert refused.envelope["class"] == "rate_limited"
    assert refused.envelope["retryable"] is True
    assert 1 <= refused.envelope["retry_after_s"] <= 60
    assert f"Retry after {refused.envelope['retry_after_s']} s" in refused.text
