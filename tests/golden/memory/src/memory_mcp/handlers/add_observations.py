"""`add_observations`: Add observations to entities, such as "speaks French" to Ada.

This module is yours: failwell created it once and never overwrites it. Raise a declared failure
by name; anything else you raise reaches the model as an `internal`
error with a reference id, and the traceback goes to the log.
"""

from .._generated.tools.add_observations import Context, Input, Output


async def handle(params: Input, ctx: Context) -> Output:
    """Add observations to entities, such as "speaks French" to Ada."""
    raise NotImplementedError("add_observations is not implemented yet")
