"""Your tests for `edit_file`: failwell created this file once and never overwrites it."""

from typing import Any

import pytest

from memory_mcp._generated.testing import call_tool

pytestmark = pytest.mark.anyio


@pytest.mark.xfail(reason="replace with a real test once the handler is implemented", strict=False)
async def test_edit_file_answers() -> None:
    arguments: dict[str, Any] = {
        "path": "notes.txt",
        "edits": [
            {
                "oldText": "example",
                "newText": "example",
            },
        ],
    }
    outcome = await call_tool("edit_file", arguments)
    assert not outcome.is_error, outcome.text
