"""report_build: reports progress, waits, then answers, fails as declared or crashes (a secret in its text)."""

import anyio

from .._generated.tools.report_build import Context, Input, NoData, Output


async def handle(params: Input, ctx: Context) -> Output:
    await ctx.report_progress(0, 1, f"building {params.title}")
    await anyio.sleep(params.seconds)
    await ctx.report_progress(1, 1)
    if params.outcome == "missing":
        raise NoData(title=params.title)
    if params.outcome == "crash":
        raise RuntimeError("connect to postgres://admin:hunter2@10.0.0.7/reports failed")
    return Output(report=f"report {params.title}")
