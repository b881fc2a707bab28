"""Your tests for `add_observations`: failwell created this file once and never overwrites it."""

from typing import Any

import pytest

from memory_mcp._generated.testing import call_tool

pytestmark = pytest.mark.anyio


@pytest.mark.xfail(reason="replace with a real test once the handler is implemented", strict=False)
async def test_add_observations_answers() -> None:
    arguments: dict[str, Any] = {
        "observations": [
            {
                "entityName": "Ada",
                "contents": [
                    "example",
                ],
            },
        ],
    }
    outcome = await call_tool("add_observations", arguments)
    assert not outcome.is_error, outcome.text
