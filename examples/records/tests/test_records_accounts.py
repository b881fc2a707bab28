"""records_accounts: every account with its balance, after the transfers that moved credits."""

import pytest

from records_mcp._generated.testing import call_tool
from records_mcp.store import RECORDS

pytestmark = pytest.mark.anyio


async def test_lists_every_account_with_its_balance() -> None:
    outcome = await call_tool("records_accounts", {})
    assert not outcome.is_error, outcome.text
    assert outcome.structured["accounts"] == [
        {"account": "acct-1", "balance": 100},
        {"account": "acct-2", "balance": 50},
        {"account": "acct-3", "balance": 0},
    ]


async def test_balances_follow_a_transfer() -> None:
    transfer = {"from_account": "acct-1", "to_account": "acct-3", "credits": 25}
    moved = await call_tool("records_transfer", {"transfers": [transfer], "idempotency_key": "transfer-0000000009"})
    assert not moved.is_error, moved.text
    outcome = await call_tool("records_accounts", {})
    assert {a["account"]: a["balance"] for a in outcome.structured["accounts"]} == RECORDS.balances
    assert RECORDS.balances == {"acct-1": 75, "acct-2": 50, "acct-3": 25}
