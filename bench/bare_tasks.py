"""The baseline for bench/run.py: the tasks example's four tools on a bare MCPServer, written by hand
the way the SDK's docs show, with the same input constraints and output shape."""

from typing import Annotated, Literal

from mcp.server.mcpserver import MCPServer
from pydantic import BaseModel, Field

mcp = MCPServer("bare-tasks")


class Task(BaseModel):
    ref: str
    title: str
    status: Literal["open", "closed"]
    assignee: str | None = None


@mcp.tool()
async def tasks_get(ref: Annotated[str, Field(pattern="^T-[0-9]+$")]) -> Task:
    return Task(ref=ref, title="Draft the release notes", status="open", assignee="@ada")


@mcp.tool()
async def tasks_search(
    query: Annotated[str, Field(min_length=2, max_length=100)],
    status: Literal["open", "closed", "any"] = "open",
    limit: Annotated[int, Field(ge=1, le=50)] = 10,
) -> list[Task]:
    return []


@mcp.tool()
async def tasks_create(
    title: Annotated[str, Field(min_length=1, max_length=200)], idempotency_key: str, assignee: str | None = None
) -> Task:
    return Task(ref="T-9", title=title, status="open")


@mcp.tool()
async def tasks_close(ref: str, reason: str | None = None) -> Task:
    return Task(ref=ref, title="x", status="closed")


if __name__ == "__main__":
    mcp.run()
