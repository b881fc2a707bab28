"""survey_run: asks the person a name and a colour (in one round, or one after the other), then answers both."""

from .._generated.tools.survey_run import Context, Input, Output


async def handle(params: Input, ctx: Context) -> Output:
    if params.together:
        await ctx.ask.together(ctx.ask.name(), ctx.ask.colour())
    name = await ctx.ask.name()
    colour = await ctx.ask.colour()
    return Output(summary=f"{name.name} chose {colour.colour} for {params.topic}")
