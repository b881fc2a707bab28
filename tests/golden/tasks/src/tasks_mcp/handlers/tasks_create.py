"""`tasks_create`: Add a task to the board and return it with its new reference.

This module is yours: failwell created it once and never overwrites it. Raise a declared failure
by name (for example `raise NotAllowed(permission="<permission>", role="<role>")`, imported from
`.._generated.tools.tasks_create`); anything else you raise reaches the model as an `internal`
error with a reference id, and the traceback goes to the log.
"""

from .._generated.tools.tasks_create import Context, Input, Output


async def handle(params: Input, ctx: Context) -> Output:
    """Add a task to the board and return it with its new reference."""
    raise NotImplementedError("tasks_create is not implemented yet")
