"""Stage 3, the client side: how a client starts the generated server (`launch`), its entry in each client's
file (`install`, `clients`), and the server spoken to over stdio (`session`) or in the Inspector
(`inspector`). Imports the earlier stages only.

It is also failwell's public client API, the SEP-3313 client reference (`reference`, needs the `client` extra,
`pip install 'failwell[client]'`): `call_tool` over an `mcp` client session, raising a typed `ToolFailure` and
retrying only what the draft and failwell's rules allow. The names are re-exported here, imported on first use,
so the commands above do not need `mcp` installed."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from .reference import (
        CapabilityFailure,
        GovernanceFailure,
        ReliabilityFailure,
        ToolFailure,
        UnclassifiedFailure,
        call_tool,
        read_failure,
    )

__all__ = [
    "CapabilityFailure",
    "GovernanceFailure",
    "ReliabilityFailure",
    "ToolFailure",
    "UnclassifiedFailure",
    "call_tool",
    "read_failure",
]


def __getattr__(name: str) -> Any:
    if name in __all__:
        from . import reference

        return getattr(reference, name)
    raise AttributeError(f"module 'failwell.client' has no attribute {name!r}")
