"""`refund_order`: Refund part or all of an order to the customer's original payment method.

This module is yours: failwell created it once and never overwrites it. Raise a declared failure
by name (for example `raise OrderMissing()`, imported from
`.._generated.tools.refund_order`); anything else you raise reaches the model as an `internal`
error with a reference id, and the traceback goes to the log.
"""

from .._generated.tools.refund_order import Context, Input, Output


async def handle(params: Input, ctx: Context) -> Output:
    """Refund part or all of an order to the customer's original payment method."""
    raise NotImplementedError("refund_order is not implemented yet")
