"""`refund_order`: Refund part or all of an order to the customer's original payment method.

The payments API deduplicates by Idempotency-Key. The upstream client sends a key derived from the
call's `idempotency_key`, so a retry of a refund that timed out finds the first refund instead of
making a second one; and because the call is keyed, the client may retry a 5xx on its own too.
"""

from .._generated.runtime.upstreams.upstream import UpstreamError
from .._generated.tools.refund_order import Context, Input, OrderMissing, Output, OverRefund


async def handle(params: Input, ctx: Context) -> Output:
    """Create the refund at the payments API (once per idempotency key)."""
    body = {"order_id": params.order_id, "amount_cents": params.amount_cents}
    try:
        response = await ctx.upstreams.payments_api.post("/refunds", json=body)
    except UpstreamError as error:
        if error.status == 404:
            raise OrderMissing() from None
        if error.status == 409 and error.response is not None:
            raise OverRefund(refundable_cents=int(error.response.json()["refundable_cents"])) from None
        raise
    return Output.model_validate(response.json())
