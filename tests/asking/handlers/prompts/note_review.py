"""note_review: asks the focus, then gives the prompt."""

from ..._generated.prompts.note_review import Context, Output, Params


async def handle(params: Params, ctx: Context) -> Output:
    focus = (await ctx.ask.focus()).focus
    return f"Review note {params.note_id}, focusing on {focus}."
