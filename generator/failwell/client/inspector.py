"""`failwell dev`: the project's server under the official MCP Inspector, started through `npx` from a
configuration file that holds the same entry `failwell install mcp-json` prints (`<project>/.failwell/mcp.json`).

`install` records its entry in that file too, and `failwell tools`, `call`, `read` and `prompt` start the
server with the environment recorded there (`recorded_env`), below `--env` and the shell's environment."""

from __future__ import annotations

import json
import os
import re
import shutil
import stat
import subprocess
from pathlib import Path

from .. import safewrite
from ..errors import FailwellError
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


def recorded_env(root: Path, name: str = "") -> dict[str, str]:
    """The env of server `name`'s entry (or of the only entry) recorded in `root`'s `.failwell/mcp.json`."""
    return recorded(root, name)[0]


def recorded(root: Path, name: str = "") -> tuple[dict[str, str], tuple[str, ...]]:
    """The env and the settings' flags (the args after the console script) of server `name`'s entry (or of the
    only entry) that `install` or `dev` recorded in `root`'s
    `.failwell/mcp.json`; empty when there is none. The file is read without following a link (a link there
    is refused, as every write there refuses one); FailwellError for a file that is not what failwell writes."""
    path = root / ".failwell" / "mcp.json"
    try:
        descriptor = os.open(path, os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_NONBLOCK", 0))
    except FileNotFoundError:
        return {}, ()
    except OSError as exc:
        for link in (path.parent, path):
            if link.is_symlink():
                raise FailwellError(
                    f"{link} is a symbolic link; the recorded environment is never read through one (a link there "
                    f"is never followed). Remove it (`rm {link}`), then run `failwell install` or `failwell dev` again"
                ) from None
        raise FailwellError(
            f"{path}: cannot read the recorded environment ({exc.strerror or exc.__class__.__name__}; a link "
            "there is never followed); delete it and run `failwell install` or `failwell dev` again"
        ) from None
    with os.fdopen(descriptor, "rb") as file:
        if not stat.S_ISREG(os.fstat(file.fileno()).st_mode):
            raise FailwellError(f"{path} is not a regular file; delete it and run `failwell install` again")
        raw = file.read(1_000_001)
    try:
        servers = json.loads(raw.decode("utf-8"))["mcpServers"]
        chosen = servers[name] if name in servers else next(iter(servers.values())) if len(servers) == 1 else {}
        env = chosen.get("env", {})
        args = chosen.get("args", [])
        if len(raw) > 1_000_000 or not all(isinstance(v, str) for v in [*env.values(), *args]):
            raise ValueError
    except (ValueError, KeyError, TypeError, AttributeError):
        raise FailwellError(
            f"{path} is not the mcp.json failwell records; delete it and run `failwell install` or `failwell dev` again"
        ) from None
    flags = args[4:] if args[:2] == ["run", "--directory"] else args  # `uv run --directory ROOT SCRIPT ...`
    return {str(key): value for key, value in env.items()}, tuple(flags)
