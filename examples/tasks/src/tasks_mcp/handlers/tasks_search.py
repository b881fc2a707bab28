"""`tasks_search`: Find tasks whose title contains the query, newest first."""

from .._generated.tools.tasks_search import Context, IndexUnavailable, Input, NothingMatched, Output, OutputTasksItem
from ..board import BOARD, search_index_ready


async def handle(params: Input, ctx: Context) -> Output:
    """Find tasks whose title contains the query, newest first."""
    if not search_index_ready():
        raise IndexUnavailable(retry_after_s=30)
    words = params.query.lower().split()
    pool = [task for task in BOARD.tasks.values() if params.status in ("any", task.status)]
    found = [task for task in reversed(pool) if all(word in task.title.lower() for word in words)]
    if not found:
        raise NothingMatched(searched=len(pool))
    items = [OutputTasksItem(ref=task.ref, title=task.title, status=task.status) for task in found]
    return Output(tasks=items[: params.limit], total=len(found))
