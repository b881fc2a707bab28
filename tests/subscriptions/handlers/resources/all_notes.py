"""The `all_notes` resource."""

from ..._generated.resources.all_notes import Context, Output, Params
from ..store import NOTES


async def handle(params: Params, ctx: Context) -> Output:
    return "\n".join(f"{key}: {value}" for key, value in sorted(NOTES.items()))
