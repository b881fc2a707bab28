"""`tasks_get`: Read one task by its reference, such as T-1.

This module is yours: failwell created it once and never overwrites it. Raise a declared failure
by name (for example `raise TaskMissing()`, imported from
`.._generated.tools.tasks_get`); anything else you raise reaches the model as an `internal`
error with a reference id, and the traceback goes to the log.
"""

from .._generated.tools.tasks_get import Context, Input, Output


async def handle(params: Input, ctx: Context) -> Output:
    """Read one task by its reference, such as T-1."""
    raise NotImplementedError("tasks_get is not implemented yet")
