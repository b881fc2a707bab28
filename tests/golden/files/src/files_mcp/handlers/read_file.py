"""`read_file`: Read a file of {settings.folder}.

This module is yours: failwell created it once and never overwrites it. Raise a declared failure
by name; anything else you raise reaches the model as an `internal`
error with a reference id, and the traceback goes to the log.
"""

from .._generated.tools.read_file import Context, Input, Output


async def handle(params: Input, ctx: Context) -> Output:
    """Read a file of {settings.folder}."""
    raise NotImplementedError("read_file is not implemented yet")
