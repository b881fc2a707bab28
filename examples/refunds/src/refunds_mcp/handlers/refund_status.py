"""`refund_status`: Read a refund by its id, such as re_1a2b3c, to see whether it went through."""

from .._generated.runtime.upstreams.upstream import UpstreamError
from .._generated.tools.refund_status import Context, Input, Output, RefundMissing


async def handle(params: Input, ctx: Context) -> Output:
    """Read the refund from the payments API."""
    try:
        response = await ctx.upstreams.payments_api.get(f"/refunds/{params.refund_id}")
    except UpstreamError as error:
        if error.status == 404:
            raise RefundMissing() from None
        raise
    return Output.model_validate(response.json())
