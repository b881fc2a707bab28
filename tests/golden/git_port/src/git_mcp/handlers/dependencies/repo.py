"""The `repo` dependency: The repository named by --repository, checked to be a git work tree at start; git runs in it.

This module is yours: failwell created it once and never overwrites it. `open` is called once, when the server
starts; what it returns is what a tool, resource or
prompt that lists `repo` in `uses:` reaches through `ctx.deps.repo`:
`await ctx.deps.repo.call(fn)` awaits `fn(value)`, and `.run(fn)` runs blocking code in a worker
thread, each under the dependency's timeout, retries, circuit breaker and `errors:` classes.
Annotate `open`'s return type: handlers see the value with that type. `close` is optional.
`open` is given the server's settings (`settings.<name>`, typed), read from their flags and variables at start.
"""

from typing import Any

from ..._generated.settings import Settings


async def open(settings: Settings) -> Any:
    """Open the repo dependency and return it (a connection, a pool, a client)."""
    raise NotImplementedError("the repo dependency is not written yet")


async def close(value: Any) -> None:
    """Close what `open` returned, when the server stops."""
