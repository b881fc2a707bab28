"""notes_move: confirmed first, then asks the folder; each run appends one line to the file ASKING_EFFECTS names."""

import os

from .._generated.tools.notes_move import Context, Input, Output


async def handle(params: Input, ctx: Context) -> Output:
    folder = (await ctx.ask.to()).folder
    with open(os.environ["ASKING_EFFECTS"], "a", encoding="utf-8") as effects:
        effects.write(f"notes_move {params.note_id} {folder} {params.idempotency_key}\n")
    return Output(moved=f"{params.note_id}:{folder}")
