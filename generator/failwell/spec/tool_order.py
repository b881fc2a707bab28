"""`server.tool_order`: the order `tools/list` shows the tools in.

`name` (the default) is natural name order (`t2` before `t10`), the order the generated modules are imported in;
`spec` is the order the spec writes them in, as a port of a server whose clients or tests expect its own order."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Protocol, TypeVar


class _Named(Protocol):
    @property
    def name(self) -> str: ...


T = TypeVar("T", bound=_Named)


def listing_order(tools: Sequence[T], written: Sequence[Any], order: str) -> tuple[T, ...]:
    """`tools` (in natural name order) as `tools/list` shows them: as they are, or in the order `written`."""
    if order != "spec":
        return tuple(tools)
    place = {name: index for index, name in enumerate(written)}
    return tuple(sorted(tools, key=lambda tool: place.get(tool.name, len(place))))
