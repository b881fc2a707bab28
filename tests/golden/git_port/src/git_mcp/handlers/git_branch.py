"""`git_branch`: List Git branches

This module is yours: failwell created it once and never overwrites it. Raise a declared failure
by name; anything else you raise reaches the model as an `internal`
error with a reference id, and the traceback goes to the log.
"""

from .._generated.tools.git_branch import Context, Input


async def handle(params: Input, ctx: Context) -> str:
    """List Git branches"""
    raise NotImplementedError("git_branch is not implemented yet")
