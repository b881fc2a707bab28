"""`git_diff_unstaged`: Shows changes in the working directory that are not yet staged

This module is yours: failwell created it once and never overwrites it. Raise a declared failure
by name; anything else you raise reaches the model as an `internal`
error with a reference id, and the traceback goes to the log.
"""

from .._generated.tools.git_diff_unstaged import Context, Input


async def handle(params: Input, ctx: Context) -> str:
    """Shows changes in the working directory that are not yet staged"""
    raise NotImplementedError("git_diff_unstaged is not implemented yet")
