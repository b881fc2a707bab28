"""records_transfer: an all_or_nothing batch applies every transfer or none."""

import pytest

from records_mcp._generated.testing import call_tool
from records_mcp.store import RECORDS

pytestmark = pytest.mark.anyio


async def test_all_transfers_are_applied() -> None:
    transfers = [
        {"from_account": "acct-1", "to_account": "acct-3", "credits": 30},
        {"from_account": "acct-3", "to_account": "acct-2", "credits": 10},
    ]
    outcome = await call_tool("records_transfer", {"transfers": transfers, "idempotency_key": "transfer-0000000001"})
    assert not outcome.is_error, outcome.text
    assert len(outcome.structured["results"]) == 2
    assert RECORDS.balances == {"acct-1": 70, "acct-2": 60, "acct-3": 20}


async def test_one_bad_transfer_and_nothing_is_written() -> None:
    transfers = [
        {"from_account": "acct-1", "to_account": "acct-2", "credits": 30},
        {"from_account": "acct-3", "to_account": "acct-2", "credits": 10},
    ]
    outcome = await call_tool("records_transfer", {"transfers": transfers, "idempotency_key": "transfer-0000000002"})
    assert outcome.is_error
    assert "Account acct-3 holds only 0 credits by then" in outcome.text
    assert "transfers[1] failed, so none of the 2 transfers was written. Nothing was changed." in outcome.text
    assert outcome.envelope["changed"] == "none"
    assert RECORDS.balances == {"acct-1": 100, "acct-2": 50, "acct-3": 0}
