"""`tasks_close`: Close an open task, such as T-1, when its work is done.

This module is yours: failwell created it once and never overwrites it. Raise a declared failure
by name (for example `raise TaskMissing()`, imported from
`.._generated.tools.tasks_close`); anything else you raise reaches the model as an `internal`
error with a reference id, and the traceback goes to the log.
"""

from .._generated.tools.tasks_close import Context, Input, Output


async def handle(params: Input, ctx: Context) -> Output:
    """Close an open task, such as T-1, when its work is done."""
    raise NotImplementedError("tasks_close is not implemented yet")
