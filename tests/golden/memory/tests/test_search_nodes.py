"""Your tests for `search_nodes`: failwell created this file once and never overwrites it."""

from typing import Any

import pytest

from memory_mcp._generated.testing import call_tool

pytestmark = pytest.mark.anyio


@pytest.mark.xfail(reason="replace with a real test once the handler is implemented", strict=False)
async def test_search_nodes_answers() -> None:
    arguments: dict[str, Any] = {
        "query": "example",
    }
    outcome = await call_tool("search_nodes", arguments)
    assert not outcome.is_error, outcome.text
