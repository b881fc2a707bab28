"""`git_checkout`: Switches branches

This module is yours: failwell created it once and never overwrites it. Raise a declared failure
by name (for example `raise BranchMissing()`, imported from
`.._generated.tools.git_checkout`); anything else you raise reaches the model as an `internal`
error with a reference id, and the traceback goes to the log.

A retry whose earlier run ended with its outcome unknown (the process died, the deadline passed) is
refused unless this module defines `async def reconcile(params: Input, ctx: Context) -> Output | None`:
return the output when the change is there, or None when it is not (then `handle` runs).
`ctx.idempotency_key` is the same on every retry: store it with the change to find it again.
"""

from .._generated.tools.git_checkout import Context, Input


async def handle(params: Input, ctx: Context) -> str:
    """Switches branches"""
    raise NotImplementedError("git_checkout is not implemented yet")
