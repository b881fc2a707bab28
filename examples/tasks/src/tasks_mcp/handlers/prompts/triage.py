"""The `triage` prompt: ask for a triage of one task - who should own it and what to do next."""

from ..._generated.prompts.triage import Context, Message, Output, Params, TaskArchived, TaskMissing
from ...board import BOARD, MEMBERS


async def handle(params: Params, ctx: Context) -> Output:
    """The task's facts, and what to decide."""
    if params.ref in BOARD.archived:
        raise TaskArchived()
    task = BOARD.tasks.get(params.ref)
    if task is None:
        raise TaskMissing()
    owner = task.assignee or "nobody yet"
    detail = "In two sentences" if params.depth != "thorough" else "Step by step, with the risks"
    return [
        Message(
            "user",
            f'Triage task {task.ref}, "{task.title}" ({task.status}, assigned to {owner}). '
            f"{detail}: who of {', '.join(MEMBERS)} should own it, and what is the next step?",
        )
    ]
