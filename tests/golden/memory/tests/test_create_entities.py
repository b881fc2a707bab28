"""Your tests for `create_entities`: failwell created this file once and never overwrites it."""

from typing import Any

import pytest

from memory_mcp._generated.testing import call_tool

pytestmark = pytest.mark.anyio


@pytest.mark.xfail(reason="replace with a real test once the handler is implemented", strict=False)
async def test_create_entities_answers() -> None:
    arguments: dict[str, Any] = {
        "entities": [
            {
                "name": "Ada",
                "entityType": "person",
                "observations": [
                    "example",
                ],
            },
        ],
    }
    outcome = await call_tool("create_entities", arguments)
    assert not outcome.is_error, outcome.text
