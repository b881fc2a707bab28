"""notes_label: the person's typed answer, shown with its Python types; a decline caught when `catch`."""

from .._generated.runtime.asking.asks import Declined
from .._generated.tools.notes_label import Context, Input


async def handle(params: Input, ctx: Context) -> str:
    try:
        answer = await ctx.ask.label()
    except Declined as declined:
        if not params.catch:
            raise
        return f"{params.note_id} keeps no label: its person chose {declined.action}."
    return f"{params.note_id} labelled {answer.label!r} priority={answer.priority!r} pinned={answer.pinned!r}"
