"""The `triage` prompt: Ask for a triage of one task, such as T-1 - who should own it and what to do next.

This module is yours: failwell created it once and never overwrites it. Return the prompt's text (one user
message) or a list of `Message("user" | "assistant", text)`. Raise a declared failure by name (for example
`raise TaskMissing()`, imported from `..._generated.prompts.triage`); it
reaches the client as a JSON-RPC error with the spec's words. Anything else you raise is an `internal` error
(-32603) with a reference id, and the traceback goes to the log.
"""

from ..._generated.prompts.triage import Context, Output, Params


async def handle(params: Params, ctx: Context) -> Output:
    """Ask for a triage of one task, such as T-1 - who should own it and what to do next."""
    raise NotImplementedError("the triage prompt is not implemented yet")
