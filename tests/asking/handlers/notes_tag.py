"""notes_tag: asks the tag first, then appends one line to the file ASKING_EFFECTS names."""

import os

from .._generated.tools.notes_tag import Context, Input, Output


async def handle(params: Input, ctx: Context) -> Output:
    tag = (await ctx.ask.tag()).tag
    with open(os.environ["ASKING_EFFECTS"], "a", encoding="utf-8") as effects:
        effects.write(f"notes_tag {params.note_id} {tag} {params.idempotency_key}\n")
    return Output(tagged=f"{params.note_id}:{tag}")
