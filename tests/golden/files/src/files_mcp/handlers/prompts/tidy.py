"""The `tidy` prompt: Tidy the folder.

This module is yours: failwell created it once and never overwrites it. Return the prompt's text (one user
message) or a list of `Message("user" | "assistant", text)`. Raise a declared failure by name; it
reaches the client as a JSON-RPC error with the spec's words. Anything else you raise is an `internal` error
(-32603) with a reference id, and the traceback goes to the log.
"""

from ..._generated.prompts.tidy import Context, Output, Params


async def handle(params: Params, ctx: Context) -> Output:
    """Tidy the folder."""
    raise NotImplementedError("the tidy prompt is not implemented yet")
