"""`tasks_search`: Find tasks whose title contains the query, newest first.

This module is yours: failwell created it once and never overwrites it. Raise a declared failure
by name (for example `raise NothingMatched(searched=3)`, imported from
`.._generated.tools.tasks_search`); anything else you raise reaches the model as an `internal`
error with a reference id, and the traceback goes to the log.
"""

from .._generated.tools.tasks_search import Context, Input, Output


async def handle(params: Input, ctx: Context) -> Output:
    """Find tasks whose title contains the query, newest first."""
    raise NotImplementedError("tasks_search is not implemented yet")
