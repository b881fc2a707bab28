"""import_run: the month (asked before its task is made), then whether to overwrite (asked while it runs)."""

from .._generated.tools.import_run import Context, Input, Output


async def handle(params: Input, ctx: Context) -> Output:
    month = await ctx.ask.month()
    overwrite = await ctx.ask.overwrite()
    mode = "overwriting" if overwrite.overwrite else "keeping"
    return Output(imported=f"{params.source} {month.month}, {mode} existing records")
