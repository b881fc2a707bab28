"""Your tests for `records_accounts`: failwell created this file once and never overwrites it."""

from typing import Any

import pytest

from records_mcp._generated.testing import call_tool

pytestmark = pytest.mark.anyio


@pytest.mark.xfail(reason="replace with a real test once the handler is implemented", strict=False)
async def test_records_accounts_answers() -> None:
    arguments: dict[str, Any] = {}
    outcome = await call_tool("records_accounts", arguments)
    assert not outcome.is_error, outcome.text
