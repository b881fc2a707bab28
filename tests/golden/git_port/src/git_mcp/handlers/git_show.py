"""`git_show`: The contents of a commit, with its changes.

This module is yours: failwell created it once and never overwrites it. Raise a declared failure
by name (for example `raise RevisionMissing()`, imported from
`.._generated.tools.git_show`); anything else you raise reaches the model as an `internal`
error with a reference id, and the traceback goes to the log.
"""

from .._generated.tools.git_show import Context, Input


async def handle(params: Input, ctx: Context) -> str:
    """The contents of a commit, with its changes."""
    raise NotImplementedError("git_show is not implemented yet")
