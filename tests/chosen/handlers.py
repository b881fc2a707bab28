"""The handlers of tests/chosen/failwell.yaml's project, by path under `handlers/`."""

HANDLERS = {
    "settings.py": '''"""The defaults of the settings computed at start."""

import os


def default_zone() -> str:
    """The local time zone (here: the test's, or a failure it asks for)."""
    if os.environ.get("ZONE_HOOK_FAILS"):
        raise LookupError("no zone file at /etc/localtime")
    return "Europe/Paris"
''',
    "read_file.py": '''"""`read_file`: what it was given."""

from .._generated.tools.read_file import Context, Input, Output


async def handle(params: Input, ctx: Context) -> Output:
    """The arguments as the handler got them."""
    return Output(path=params.path, folder=params.folder or "", raw=bool(params.raw))
''',
    "write_file.py": '''"""`write_file`."""

from .._generated.tools.write_file import Context, Input, Output


async def handle(params: Input, ctx: Context) -> Output:
    """Written."""
    return f"wrote {params.path}"
''',
    "run_sql.py": '''"""`run_sql`."""

from .._generated.tools.run_sql import Context, Input, Output


async def handle(params: Input, ctx: Context) -> Output:
    """Run (a statement `boom` breaks, to show what the chosen effect says of a failure)."""
    if params.sql == "boom":
        raise RuntimeError("the driver broke")
    return f"ran {params.sql}"
''',
    "purge.py": '''"""`purge`."""

from .._generated.tools.purge import Context, Input, Output


async def handle(params: Input, ctx: Context) -> Output:
    """Purged."""
    return "purged"
''',
    "resources/status.py": '''"""The `status` resource."""

from ..._generated.resources.status import Context, Output, Params


async def handle(params: Params, ctx: Context) -> Output:
    """The status."""
    return "fine"
''',
    "prompts/tidy.py": '''"""The `tidy` prompt."""

from ..._generated.prompts.tidy import Context, Output, Params


async def handle(params: Params, ctx: Context) -> Output:
    """Tidy."""
    return "Tidy the folder."
''',
}
