"""`notes_add`: Add a note and return its id.

This module is yours: failwell created it once and never overwrites it. Raise a declared failure
by name (for example `raise NotebookFull(limit=3)`, imported from
`.._generated.tools.notes_add`); anything else you raise reaches the model as an `internal`
error with a reference id, and the traceback goes to the log.
"""

from .._generated.tools.notes_add import Context, Input


async def handle(params: Input, ctx: Context) -> str:
    """Add a note and return its id."""
    raise NotImplementedError("notes_add is not implemented yet")
