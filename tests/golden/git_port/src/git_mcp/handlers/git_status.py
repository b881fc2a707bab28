"""`git_status`: Shows the working tree status

This module is yours: failwell created it once and never overwrites it. Raise a declared failure
by name (for example `raise NotARepository()`, imported from
`.._generated.tools.git_status`); anything else you raise reaches the model as an `internal`
error with a reference id, and the traceback goes to the log.
"""

from .._generated.tools.git_status import Context, Input


async def handle(params: Input, ctx: Context) -> str:
    """Shows the working tree status"""
    raise NotImplementedError("git_status is not implemented yet")
