"""Your tests for `notes_add`: failwell created this file once and never overwrites it."""

from typing import Any

import pytest

from notes_mcp._generated.testing import call_tool

pytestmark = pytest.mark.anyio


@pytest.mark.xfail(reason="replace with a real test once the handler is implemented", strict=False)
async def test_notes_add_answers() -> None:
    arguments: dict[str, Any] = {
        "text": "Buy milk",
        "idempotency_key": "3f0c9b1e-7d2a-4c55-9e61-0a8f2b7c4d10",
    }
    outcome = await call_tool("notes_add", arguments)
    assert not outcome.is_error, outcome.text
