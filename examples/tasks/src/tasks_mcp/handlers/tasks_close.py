"""`tasks_close`: Close an open task, such as T-1, when its work is done."""

from .._generated.tools.tasks_close import AlreadyClosed, Context, Input, NotAllowed, Output, TaskMissing
from ..board import BOARD, PERMISSIONS, caller_role


async def handle(params: Input, ctx: Context) -> Output:
    """Close an open task, such as T-1, when its work is done."""
    role = caller_role()
    if "tasks:close" not in PERMISSIONS[role]:
        raise NotAllowed(permission="tasks:close", role=role)
    task = BOARD.tasks.get(params.ref)
    if task is None:
        raise TaskMissing()
    if task.status == "closed":
        raise AlreadyClosed(closed_by=task.closed_by or "someone")
    task.status, task.closed_by, task.reason = "closed", f"the assistant ({role})", params.reason
    return Output(ref=task.ref, title=task.title, status=task.status, assignee=task.assignee)
