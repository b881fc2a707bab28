"""`git_add`: Adds file contents to the staging area

This module is yours: failwell created it once and never overwrites it. Raise a declared failure
by name (for example `raise FileMissing(file="<file>")`, imported from
`.._generated.tools.git_add`); anything else you raise reaches the model as an `internal`
error with a reference id, and the traceback goes to the log.
"""

from .._generated.tools.git_add import Context, Input


async def handle(params: Input, ctx: Context) -> str:
    """Adds file contents to the staging area"""
    raise NotImplementedError("git_add is not implemented yet")
