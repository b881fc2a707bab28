"""The `task` resource: one task by its reference, as JSON. The board lists its open tasks."""

from ..._generated.resources.task import Context, Output, Params, TaskArchived, TaskMissing
from ...board import BOARD


async def handle(params: Params, ctx: Context) -> Output:
    """One task by its reference, as JSON."""
    if params.ref in BOARD.archived:
        raise TaskArchived()
    task = BOARD.tasks.get(params.ref)
    if task is None:
        raise TaskMissing()
    return {"ref": task.ref, "title": task.title, "status": task.status, "assignee": task.assignee}


async def listing(ctx: Context) -> list[Params]:
    """The open tasks, for `resources/list` (any other task is read by its URI)."""
    return [Params(ref=task.ref) for task in BOARD.tasks.values() if task.status == "open"]
