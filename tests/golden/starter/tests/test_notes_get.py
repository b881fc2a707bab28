"""Your tests for `notes_get`: failwell created this file once and never overwrites it."""

import pytest

from notes_mcp._generated.testing import call_tool

pytestmark = pytest.mark.anyio


@pytest.mark.xfail(reason="replace with a real test once the handler is implemented", strict=False)
async def test_notes_get_answers() -> None:
    outcome = await call_tool("notes_get", {"note_id": "N-1"})
    assert not outcome.is_error, outcome.text
