"""`failwell dev`: the project's server under the official MCP Inspector, started through `npx` from a
configuration file that holds the same entry `failwell install mcp-json` prints (`<project>/.failwell/mcp.json`)."""

from __future__ import annotations

import shutil
from pathlib import Path

from .errors import FailwellError
from .install import document
from .launch import Launch

INSPECTOR = "@modelcontextprotocol/inspector@2.12.0"
"""The Inspector release `failwell dev` runs (it needs Node 22.19 or newer)."""


def write_config(server: Launch) -> Path:
    """Write the server's mcp.json into the project's `.failwell/` folder (git ignores it), and return it."""
    path = server.project / ".failwell" / "mcp.json"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(document("mcp-json", server), encoding="utf-8")
    return path


def command(server: Launch, config: Path) -> list[str]:
    """The command that opens the Inspector on the server of `config`; FailwellError when npx is missing."""
    npx = shutil.which("npx")
    if npx is None:
        raise FailwellError(
            "npx is not on PATH: install Node.js 22.19 or newer (https://nodejs.org), then run it again"
        )
    return [npx, "-y", INSPECTOR, "--config", str(config), "--server", server.name]
