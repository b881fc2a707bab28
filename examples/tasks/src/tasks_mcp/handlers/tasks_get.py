"""`tasks_get`: Read one task by its reference, such as T-1."""

from .._generated.tools.tasks_get import Context, Input, Output, TaskMissing
from ..board import BOARD


async def handle(params: Input, ctx: Context) -> Output:
    """Read one task by its reference, such as T-1."""
    task = BOARD.tasks.get(params.ref)
    if task is None:
        raise TaskMissing()
    return Output(ref=task.ref, title=task.title, status=task.status, assignee=task.assignee)
