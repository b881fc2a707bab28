"""`refund_status`: Read a refund by its id, such as re_1a2b3c, to see whether it went through.

This module is yours: failwell created it once and never overwrites it. Raise a declared failure
by name (for example `raise RefundMissing()`, imported from
`.._generated.tools.refund_status`); anything else you raise reaches the model as an `internal`
error with a reference id, and the traceback goes to the log.
"""

from .._generated.tools.refund_status import Context, Input, Output


async def handle(params: Input, ctx: Context) -> Output:
    """Read a refund by its id, such as re_1a2b3c, to see whether it went through."""
    raise NotImplementedError("refund_status is not implemented yet")
