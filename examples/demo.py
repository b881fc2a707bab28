"""Drive the generated tasks server with the real MCP client over stdio: a call that succeeds and
calls that fail well, each printed as the model would read it.

    python examples/demo.py          (after `pip install -e examples/tasks`)
"""

from __future__ import annotations

import importlib.util
import json
import os
import sys
from pathlib import Path

import anyio
from mcp import Client, StdioServerParameters
from mcp.shared.exceptions import MCPError
from mcp.types import CallToolResult, TextContent


def show(title: str, result: CallToolResult) -> None:
    text = "\n".join(block.text for block in result.content if isinstance(block, TextContent))
    print(f"\n== {title}\nisError: {result.is_error}\n{text}")
    if result.meta:
        print(f"_meta: {json.dumps(result.meta)}")


async def main() -> None:
    # The server gets this process's environment, as a client's `env` setting would give it one, and keeps its
    # idempotency records in the checkout's .failwell/ (git ignores it), as `failwell install` sets it, rather
    # than in this user's data folder.
    store = Path(__file__).resolve().parent / "tasks" / ".failwell" / "tasks.sqlite3"
    env = {**os.environ, "FAILWELL_SQLITE_PATH": os.environ.get("FAILWELL_SQLITE_PATH", str(store))}
    server = StdioServerParameters(command=sys.executable, args=["-m", "tasks_mcp"], env=env)
    async with Client(server) as client:
        tools = await client.list_tools()
        print("tools:", ", ".join(tool.name for tool in tools.tools))
        show('tasks_get {"ref": "T-1"}  (succeeds)', await client.call_tool("tasks_get", {"ref": "T-1"}))
        show('tasks_get {"ref": "T-9"}  (a declared failure)', await client.call_tool("tasks_get", {"ref": "T-9"}))
        bad_arguments = {"query": "x", "limit": 500, "colour": "red"}
        show(f"tasks_search {json.dumps(bad_arguments)}  (invalid arguments)",
             await client.call_tool("tasks_search", bad_arguments))  # fmt: skip
        try:
            await client.call_tool("tasks_delete", {"ref": "T-1"})
        except MCPError as exc:
            print(f"\n== tasks_delete  (unknown tool: a JSON-RPC error)\ncode: {exc.error.code}\n{exc.error.message}")
            print(f"data: {json.dumps(exc.error.data)}")


if __name__ == "__main__":
    if importlib.util.find_spec("tasks_mcp") is None:
        sys.exit("demo: the tasks example is not installed; run `pip install -e examples/tasks` first")
    anyio.run(main)
