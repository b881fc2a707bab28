"""notes_delete: deletes nothing real; each run appends one line to the file ASKING_EFFECTS names."""

import os

from .._generated.tools.notes_delete import Context, Input, Output


async def handle(params: Input, ctx: Context) -> Output:
    with open(os.environ["ASKING_EFFECTS"], "a", encoding="utf-8") as effects:
        effects.write(f"notes_delete {params.note_id} {params.folder} {params.idempotency_key}\n")
    return Output(deleted=params.note_id)
