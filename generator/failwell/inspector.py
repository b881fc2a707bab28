"""`failwell dev`: the project's server under the official MCP Inspector, started through `npx` from a
configuration file that holds the same entry `failwell install mcp-json` prints (`<project>/.failwell/mcp.json`)."""

from __future__ import annotations

import re
import shutil
import subprocess
from pathlib import Path

from . import safewrite
from .errors import FailwellError
from .install import document
from .launch import Launch

INSPECTOR = "@modelcontextprotocol/inspector@2.12.0"
"""The Inspector release `failwell dev` runs (it needs Node 22.19 or newer)."""
NODE_NEEDED = (22, 19)
"""The oldest Node.js the Inspector starts on (its package.json's `engines`)."""


def node_problem() -> str | None:
    """What is wrong with the `node` that `npx` would run the Inspector on (the first on PATH), or None."""
    node = shutil.which("node")
    get = "install Node.js 22.19 or newer (https://nodejs.org, or `nvm install 22`) and put it first on PATH"
    if node is None:
        return f"node is not on PATH: {get}, then run it again"
    try:
        printed = subprocess.run([node, "--version"], capture_output=True, text=True, timeout=30).stdout.strip()
    except (OSError, subprocess.SubprocessError) as exc:
        return f"{node} --version did not run ({exc.__class__.__name__}): {get}, then run it again"
    found = re.match(r"v(\d+)\.(\d+)", printed)
    if found is None:
        return f"{node} --version printed {printed[:40]!r}, not a Node.js version: {get}, then run it again"
    if (int(found.group(1)), int(found.group(2))) < NODE_NEEDED:
        return (
            f"the Inspector ({INSPECTOR}) needs Node.js 22.19 or newer, and {node} is {printed}: {get}, "
            "then run it again"
        )
    return None


def write_config(server: Launch) -> Path:
    """Write the server's mcp.json into the project's `.failwell/` folder (git ignores it), and return it.
    It holds the server's whole environment, secrets too, so it is readable by its owner alone (0600),
    and a link on the way is refused, never followed (`safewrite`)."""
    path = server.project / ".failwell" / "mcp.json"
    safewrite.make_folders(server.project, path.parent)
    safewrite.write(path, document("mcp-json", server).encode("utf-8"), root=server.project, private=True)
    return path


def command(server: Launch, config: Path) -> list[str]:
    """The command that opens the Inspector on the server of `config`; FailwellError when npx is missing."""
    npx = shutil.which("npx")
    if npx is None:
        raise FailwellError(
            "npx is not on PATH: install Node.js 22.19 or newer (https://nodejs.org), then run it again"
        )
    return [npx, "-y", INSPECTOR, "--config", str(config), "--server", server.name]
