"""refund_order against a real (fake) payments API: the timeout-then-retry story ends in one refund."""

from __future__ import annotations

from typing import TYPE_CHECKING

import anyio
import pytest

from refunds_mcp._generated.runtime.stores.store_memory import MemoryStore
from refunds_mcp._generated.server import build_server
from refunds_mcp._generated.testing import call_tool

if TYPE_CHECKING:
    from conftest import PaymentsAPI

pytestmark = pytest.mark.anyio

KEY = "refund-ord_8813ab-2026-11-29-001"


async def test_a_refund(payments_api: PaymentsAPI) -> None:
    outcome = await call_tool("refund_order", {"order_id": "ord_8813ab", "amount_cents": 4000, "idempotency_key": KEY})
    assert not outcome.is_error, outcome.text
    assert outcome.structured["status"] == "succeeded"
    assert payments_api.refundable["ord_8813ab"] == 6000


async def test_timeout_then_retry_with_the_same_key_refunds_exactly_once(payments_api: PaymentsAPI) -> None:
    arguments = {"order_id": "ord_8813ab", "amount_cents": 4000, "idempotency_key": KEY}
    payments_api.slow_once_s = 2.0  # the refund is made at once; the answer comes after the deadline
    server = build_server(deadlines={"refund_order": 1.0}, store=MemoryStore())
    first = await call_tool("refund_order", arguments, server=server)
    assert first.is_error
    assert first.envelope["class"] == "timeout"
    assert first.envelope["changed"] == "possible"
    assert first.envelope["retryable"] is True
    assert "goes on for up to 1 s more: retry with the same idempotency_key after 2 s to get its result" in first.text
    assert len(payments_api.refunds) == 1, "the refund went through although the tool timed out"

    for _ in range(3):
        retry = await call_tool("refund_order", arguments, server=server)
        if retry.envelope.get("failure") != "idempotency_key_in_progress":
            break
        await anyio.sleep(retry.envelope["retry_after_s"])  # the first run is still finishing its grace period
    assert not retry.is_error, retry.text
    assert len(payments_api.refunds) == 1, "exactly one refund"
    assert retry.structured["refund_id"] == next(iter(payments_api.refunds))
    assert payments_api.refundable["ord_8813ab"] == 6000
    assert payments_api.keys[0] == payments_api.keys[1] != KEY, "the same derived key, never the caller's own"


async def test_a_keyed_write_is_retried_after_a_500(payments_api: PaymentsAPI) -> None:
    payments_api.fail_next = 1
    outcome = await call_tool("refund_order", {"order_id": "ord_77aa01", "amount_cents": 500, "idempotency_key": KEY})
    assert not outcome.is_error, outcome.text
    assert len(payments_api.keys) == 2 and len(payments_api.refunds) == 1


async def test_over_refund_says_what_is_left(payments_api: PaymentsAPI) -> None:
    outcome = await call_tool("refund_order", {"order_id": "ord_77aa01", "amount_cents": 9000, "idempotency_key": KEY})
    assert outcome.is_error
    assert outcome.text.startswith(
        "Order ord_77aa01 has only 2500 cents left to refund, so 9000 cents cannot be refunded."
    )
    assert "10.0.4.7" not in outcome.text


async def test_a_missing_key_is_named() -> None:
    outcome = await call_tool("refund_order", {"order_id": "ord_8813ab", "amount_cents": 4000})
    assert outcome.is_error
    assert "`idempotency_key` is required" in outcome.text
