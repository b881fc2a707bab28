"""`git_diff`: Shows differences between branches or commits

This module is yours: failwell created it once and never overwrites it. Raise a declared failure
by name (for example `raise RevisionMissing()`, imported from
`.._generated.tools.git_diff`); anything else you raise reaches the model as an `internal`
error with a reference id, and the traceback goes to the log.
"""

from .._generated.tools.git_diff import Context, Input


async def handle(params: Input, ctx: Context) -> str:
    """Shows differences between branches or commits"""
    raise NotImplementedError("git_diff is not implemented yet")
