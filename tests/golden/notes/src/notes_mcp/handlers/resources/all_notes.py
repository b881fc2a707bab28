"""The `all_notes` resource: Every note, one a line.

This module is yours: failwell created it once and never overwrites it. Raise a declared failure
by name; it reaches the client as a JSON-RPC error with the spec's words.
Anything else you raise is an `internal` error (-32603) with a reference id, and the traceback goes to the log.
"""

from ..._generated.resources.all_notes import Context, Output, Params


async def handle(params: Params, ctx: Context) -> Output:
    """Every note, one a line."""
    raise NotImplementedError("the all_notes resource is not implemented yet")
