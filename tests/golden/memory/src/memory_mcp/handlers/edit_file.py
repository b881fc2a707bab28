"""`edit_file`: Replace text in a file, such as notes.txt; dry-run to see the diff first.

This module is yours: failwell created it once and never overwrites it. Raise a declared failure
by name; anything else you raise reaches the model as an `internal`
error with a reference id, and the traceback goes to the log.
"""

from .._generated.tools.edit_file import Context, Input, Output


async def handle(params: Input, ctx: Context) -> Output:
    """Replace text in a file, such as notes.txt; dry-run to see the diff first."""
    raise NotImplementedError("edit_file is not implemented yet")
