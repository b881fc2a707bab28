"""`create_entities`: Create entities in the knowledge graph, such as a person named Ada.

This module is yours: failwell created it once and never overwrites it. Raise a declared failure
by name; anything else you raise reaches the model as an `internal`
error with a reference id, and the traceback goes to the log.
"""

from .._generated.tools.create_entities import Context, Input, Output


async def handle(params: Input, ctx: Context) -> Output:
    """Create entities in the knowledge graph, such as a person named Ada."""
    raise NotImplementedError("create_entities is not implemented yet")
