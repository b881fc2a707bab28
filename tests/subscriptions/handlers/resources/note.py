"""The `note` resource."""

from ..._generated.resources.note import Context, Output, Params
from ..store import NOTES


async def handle(params: Params, ctx: Context) -> Output:
    return NOTES.get(params.note_id, "")
