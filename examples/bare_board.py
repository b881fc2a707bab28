"""A task board on a bare MCPServer, written the way the SDK's docs show: the comparison the README makes."""

from mcp.server.mcpserver import MCPServer

mcp = MCPServer("bare-board")
BOARD = {"T-1": {"ref": "T-1", "title": "Draft the release notes", "status": "open"}}


@mcp.tool()
async def tasks_get(ref: str) -> dict[str, str]:
    """Read one task by its reference, such as T-1."""
    return BOARD[ref]


@mcp.tool()
async def tasks_search(query: str, limit: int = 10) -> list[dict[str, str]]:
    """Find tasks whose title contains the query."""
    return [task for task in BOARD.values() if query in task["title"]][:limit]


if __name__ == "__main__":
    mcp.run()
