"""Your tests for `tasks_close`: failwell created this file once and never overwrites it."""

from typing import Any

import pytest

from tasks_mcp._generated.testing import call_tool

pytestmark = pytest.mark.anyio


@pytest.mark.xfail(reason="replace with a real test once the handler is implemented", strict=False)
async def test_tasks_close_answers() -> None:
    arguments: dict[str, Any] = {
        "ref": "T-1",
    }
    outcome = await call_tool("tasks_close", arguments)
    assert not outcome.is_error, outcome.text
