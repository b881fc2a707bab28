"""The `about` resource."""

from ..._generated.resources.about import Context, Output, Params


async def handle(params: Params, ctx: Context) -> Output:
    return "Keeps short notes."
