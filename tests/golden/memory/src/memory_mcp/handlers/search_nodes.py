"""`search_nodes`: Find entities by a query, or by several queries at once, such as "Ada".

This module is yours: failwell created it once and never overwrites it. Raise a declared failure
by name; anything else you raise reaches the model as an `internal`
error with a reference id, and the traceback goes to the log.
"""

from .._generated.tools.search_nodes import Context, Input, Output


async def handle(params: Input, ctx: Context) -> Output:
    """Find entities by a query, or by several queries at once, such as "Ada"."""
    raise NotImplementedError("search_nodes is not implemented yet")
