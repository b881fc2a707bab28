"""notes_summarize: the client's model and the client's roots, asked in one round (`together`) or in two."""

from .._generated.tools.notes_summarize import Context, Input


async def handle(params: Input, ctx: Context) -> str:
    summary = ctx.ask.summary(f"Summarize the folder {params.folder} in one line.", system="Be brief.")
    folders = ctx.ask.folders()
    if params.together:
        await ctx.ask.together(summary, folders)
    text = await summary
    roots = await folders
    return f"{params.folder}: {text} | roots: " + ", ".join(f"{root.name}={root.uri}" for root in roots)
