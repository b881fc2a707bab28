"""The `note` resource: One note's text.

This module is yours: failwell created it once and never overwrites it. Raise a declared failure
by name; it reaches the client as a JSON-RPC error with the spec's words.
Anything else you raise is an `internal` error (-32603) with a reference id, and the traceback goes to the log.

Define `async def listing(ctx: Context) -> list[Params]` too, and `resources/list` shows the resources it
names (say, the most recent ones; a client can read any other by its URI).
"""

from ..._generated.resources.note import Context, Output, Params


async def handle(params: Params, ctx: Context) -> Output:
    """One note's text."""
    raise NotImplementedError("the note resource is not implemented yet")
