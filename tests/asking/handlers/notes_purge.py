"""notes_purge: each run appends one line to the file ASKING_EFFECTS names."""

import os

from .._generated.tools.notes_purge import Context, Input, Output


async def handle(params: Input, ctx: Context) -> Output:
    with open(os.environ["ASKING_EFFECTS"], "a", encoding="utf-8") as effects:
        effects.write(f"notes_purge {params.folder}\n")
    return Output(purged=params.folder)
