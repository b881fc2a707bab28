"""The `status` resource: Status of {settings.folder}.

This module is yours: failwell created it once and never overwrites it. Raise a declared failure
by name; it reaches the client as a JSON-RPC error with the spec's words.
Anything else you raise is an `internal` error (-32603) with a reference id, and the traceback goes to the log.
"""

from ..._generated.resources.status import Context, Output, Params


async def handle(params: Params, ctx: Context) -> Output:
    """Status of {settings.folder}."""
    raise NotImplementedError("the status resource is not implemented yet")
