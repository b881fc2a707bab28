"""archive_purge: waits `seconds`, then appends one line to the file TASKING_EFFECTS names (a run that changed)."""

import os

import anyio

from .._generated.tools.archive_purge import Context, Input, Output


async def handle(params: Input, ctx: Context) -> Output:
    await anyio.sleep(params.seconds)
    with open(os.environ["TASKING_EFFECTS"], "a", encoding="utf-8") as effects:
        effects.write(f"archive_purge {params.archive} {params.idempotency_key}\n")
    return Output(purged=params.archive)
