"""The task board's own tests for `tasks_get`."""

import pytest

from tasks_mcp._generated.testing import call_tool

pytestmark = pytest.mark.anyio


async def test_reads_a_task() -> None:
    outcome = await call_tool("tasks_get", {"ref": "T-1"})
    assert not outcome.is_error, outcome.text
    assert outcome.structured == {
        "ref": "T-1",
        "title": "Draft the release notes",
        "status": "open",
        "assignee": "@ada",
    }


async def test_missing_task_says_how_to_find_one() -> None:
    outcome = await call_tool("tasks_get", {"ref": "T-999"})
    assert outcome.is_error
    assert outcome.text == (
        "No task T-999. Refs look like T-1. Call tasks_search to find a task by its title. "
        "Nothing was changed. Retrying the same call will not help."
    )
    assert outcome.envelope["class"] == "not_found"
