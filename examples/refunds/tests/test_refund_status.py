"""refund_status reads what refund_order made."""

from __future__ import annotations

from typing import TYPE_CHECKING

import pytest

from refunds_mcp._generated.testing import call_tool

if TYPE_CHECKING:
    from conftest import PaymentsAPI

pytestmark = pytest.mark.anyio


async def test_status_of_a_refund(payments_api: PaymentsAPI) -> None:
    made = await call_tool(
        "refund_order", {"order_id": "ord_8813ab", "amount_cents": 100, "idempotency_key": "status-test-key-0001"}
    )
    outcome = await call_tool("refund_status", {"refund_id": made.structured["refund_id"]})
    assert not outcome.is_error, outcome.text
    assert outcome.structured["amount_cents"] == 100


async def test_unknown_refund(payments_api: PaymentsAPI) -> None:
    outcome = await call_tool("refund_status", {"refund_id": "re_zzzzzz"})
    assert outcome.is_error
    assert outcome.text.startswith("No refund re_zzzzzz. Refund ids look like re_1a2b3c")
