"""Your tests for `notes_put`: failwell created this file once and never overwrites it."""

from typing import Any

import pytest

from notes_mcp._generated.testing import call_tool

pytestmark = pytest.mark.anyio


@pytest.mark.xfail(reason="replace with a real test once the handler is implemented", strict=False)
async def test_notes_put_answers() -> None:
    arguments: dict[str, Any] = {
        "note_id": "N-1",
        "text": "Buy milk",
    }
    outcome = await call_tool("notes_put", arguments)
    assert not outcome.is_error, outcome.text
