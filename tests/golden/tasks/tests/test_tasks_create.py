"""Your tests for `tasks_create`: failwell created this file once and never overwrites it."""

from typing import Any

import pytest

from tasks_mcp._generated.testing import call_tool

pytestmark = pytest.mark.anyio


@pytest.mark.xfail(reason="replace with a real test once the handler is implemented", strict=False)
async def test_tasks_create_answers() -> None:
    arguments: dict[str, Any] = {
        "title": "Draft the release notes",
        "idempotency_key": "3f0c9b1e-7d2a-4c55-9e61-0a8f2b7c4d10",
    }
    outcome = await call_tool("tasks_create", arguments)
    assert not outcome.is_error, outcome.text
