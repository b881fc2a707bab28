"""`write_file`: Write a file (dates in {settings.zone}).

This module is yours: failwell created it once and never overwrites it. Raise a declared failure
by name; anything else you raise reaches the model as an `internal`
error with a reference id, and the traceback goes to the log.
"""

from .._generated.tools.write_file import Context, Input


async def handle(params: Input, ctx: Context) -> str:
    """Write a file (dates in {settings.zone})."""
    raise NotImplementedError("write_file is not implemented yet")
