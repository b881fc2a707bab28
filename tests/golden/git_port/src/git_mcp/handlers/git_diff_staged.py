"""`git_diff_staged`: Shows changes that are staged for commit

This module is yours: failwell created it once and never overwrites it. Raise a declared failure
by name; anything else you raise reaches the model as an `internal`
error with a reference id, and the traceback goes to the log.
"""

from .._generated.tools.git_diff_staged import Context, Input


async def handle(params: Input, ctx: Context) -> str:
    """Shows changes that are staged for commit"""
    raise NotImplementedError("git_diff_staged is not implemented yet")
