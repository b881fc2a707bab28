"""The task board's own tests for `tasks_create`."""

import pytest

from tasks_mcp._generated.testing import call_tool

pytestmark = pytest.mark.anyio


async def test_creates_a_task() -> None:
    outcome = await call_tool(
        "tasks_create",
        {"title": "Write the changelog", "assignee": "@linus", "idempotency_key": "create-changelog-0001"},
    )
    assert not outcome.is_error, outcome.text
    assert outcome.structured["title"] == "Write the changelog"
    assert outcome.structured["ref"].startswith("T-")


async def test_a_viewer_is_refused_with_the_permission_and_role(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("TASKS_ROLE", "viewer")
    outcome = await call_tool("tasks_create", {"title": "Plan the offsite", "idempotency_key": "create-offsite-000001"})
    assert outcome.is_error
    assert "needs the tasks:create permission" in outcome.text
    assert "your role on this board is viewer" in outcome.text
    assert outcome.envelope["class"] == "permission_denied"


async def test_unknown_assignee_lists_the_members() -> None:
    outcome = await call_tool(
        "tasks_create", {"title": "Plan the offsite", "assignee": "@nobody", "idempotency_key": "create-offsite-000002"}
    )
    assert outcome.is_error
    assert outcome.text.startswith("@nobody is not a member of this board. Members are @ada, @grace, @linus.")


async def test_the_eleventh_task_in_a_minute_says_how_long_to_wait() -> None:
    from tasks_mcp.board import CREATES_PER_MINUTE

    for number in range(CREATES_PER_MINUTE):
        created = await call_tool(
            "tasks_create", {"title": f"Chore {number}", "idempotency_key": f"chore-{number:012d}"}
        )
        assert not created.is_error, created.text
    refused = await call_tool("tasks_create", {"title": "One too many", "idempotency_key": "one-too-many-000001"})
    assert refused.is_error
    assert refused.envelope["class"] == "rate_limited"
    assert refused.envelope["retryable"] is True
    assert 1 <= refused.envelope["retry_after_s"] <= 60
    assert f"Retry after {refused.envelope['retry_after_s']} s" in refused.text


async def test_a_retry_with_the_same_key_creates_one_task() -> None:
    from tasks_mcp._generated.runtime.stores.store_memory import MemoryStore
    from tasks_mcp._generated.server import build_server
    from tasks_mcp.board import BOARD

    server = build_server(store=MemoryStore())
    arguments = {"title": "Book the venue", "idempotency_key": "book-venue-2026-11-29"}
    first = await call_tool("tasks_create", arguments, server=server)
    again = await call_tool("tasks_create", arguments, server=server)
    assert not first.is_error and again.structured == first.structured
    assert [task.title for task in BOARD.tasks.values()].count("Book the venue") == 1
    other = await call_tool("tasks_create", {**arguments, "title": "Book a different venue"}, server=server)
    assert other.is_error
    assert other.envelope["failure"] == "idempotency_key_reused"
    assert "already used for tasks_create with different arguments" in other.text
