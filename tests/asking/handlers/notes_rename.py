"""notes_rename: the new title in one round, then whether the person is sure in the next."""

from .._generated.tools.notes_rename import Context, Input


async def handle(params: Input, ctx: Context) -> str:
    title = (await ctx.ask.title()).title
    sure = (await ctx.ask.sure(title=title)).sure
    return f"{params.note_id} renamed to {title}" if sure else f"{params.note_id} keeps its title"
