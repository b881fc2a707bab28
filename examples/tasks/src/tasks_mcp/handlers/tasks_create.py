"""`tasks_create`: Add a task to the board and return it with its new reference."""

import time

from .._generated.tools.tasks_create import (
    BoardFull,
    Context,
    Input,
    NotAllowed,
    Output,
    TooManyNewTasks,
    UnknownAssignee,
)
from ..board import BOARD, MEMBERS, OPEN_LIMIT, PERMISSIONS, Task, caller_role


async def handle(params: Input, ctx: Context) -> Output:
    """Add a task to the board and return it with its new reference."""
    role = caller_role()
    if "tasks:create" not in PERMISSIONS[role]:
        raise NotAllowed(permission="tasks:create", role=role)
    if params.assignee is not None and params.assignee not in MEMBERS:
        raise UnknownAssignee(members=", ".join(MEMBERS))
    if BOARD.open_count() >= OPEN_LIMIT:
        raise BoardFull(limit=OPEN_LIMIT)
    wait = BOARD.seconds_until_create_allowed()
    if wait:
        raise TooManyNewTasks(retry_after_s=wait)
    task = Task(ref=BOARD.next_ref(), title=params.title, assignee=params.assignee)
    BOARD.tasks[task.ref] = task
    BOARD.recent_creates.append(time.monotonic())
    return Output(ref=task.ref, title=task.title, status=task.status, assignee=task.assignee)
