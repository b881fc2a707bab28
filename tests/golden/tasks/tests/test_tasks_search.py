"""Your tests for `tasks_search`: failwell created this file once and never overwrites it."""

import pytest

from tasks_mcp._generated.testing import call_tool

pytestmark = pytest.mark.anyio


@pytest.mark.xfail(reason="replace with a real test once the handler is implemented", strict=False)
async def test_tasks_search_answers() -> None:
    outcome = await call_tool("tasks_search", {"query": "release notes"})
    assert not outcome.is_error, outcome.text
