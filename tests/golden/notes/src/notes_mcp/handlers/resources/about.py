"""The `about` resource: What this server is.

This module is yours: failwell created it once and never overwrites it. Raise a declared failure
by name; it reaches the client as a JSON-RPC error with the spec's words.
Anything else you raise is an `internal` error (-32603) with a reference id, and the traceback goes to the log.
"""

from ..._generated.resources.about import Context, Output, Params


async def handle(params: Params, ctx: Context) -> Output:
    """What this server is."""
    raise NotImplementedError("the about resource is not implemented yet")
