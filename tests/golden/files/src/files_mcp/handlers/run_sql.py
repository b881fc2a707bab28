"""`run_sql`: Run a read-only SQL query on {settings.folder}.

This module is yours: failwell created it once and never overwrites it. Raise a declared failure
by name; anything else you raise reaches the model as an `internal`
error with a reference id, and the traceback goes to the log.
"""

from .._generated.tools.run_sql import Context, Input


async def handle(params: Input, ctx: Context) -> str:
    """Run a read-only SQL query on {settings.folder}."""
    raise NotImplementedError("run_sql is not implemented yet")
