"""Your tests for `tasks_search`: failwell created this file once and never overwrites it."""

from typing import Any

import pytest

from tasks_mcp._generated.testing import call_tool

pytestmark = pytest.mark.anyio


@pytest.mark.xfail(reason="replace with a real test once the handler is implemented", strict=False)
async def test_tasks_search_answers() -> None:
    arguments: dict[str, Any] = {
        "query": "release notes",
    }
    outcome = await call_tool("tasks_search", arguments)
    assert not outcome.is_error, outcome.text
