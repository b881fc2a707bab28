"""`notes_put`: write the note, then tell its subscribers (and the board's) that it changed."""

from .._generated.tools.notes_put import Context, Input
from .store import NOTES


async def handle(params: Input, ctx: Context) -> str:
    NOTES[params.note_id] = params.text
    await ctx.notify_updated(f"notes://{params.note_id}")
    await ctx.notify_updated("board://all")
    return f"{params.note_id} written"
