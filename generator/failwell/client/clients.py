"""The MCP clients `failwell install` configures: where each keeps its configuration, per platform and scope,
and the entry it expects for a stdio server.

Sources (checked 2026-12):
- Claude Desktop: `claude_desktop_config.json`, top-level `mcpServers` of `{command, args, env}`; macOS
  `~/Library/Application Support/Claude/`, Windows `%APPDATA%\\Claude\\`, Linux `$XDG_CONFIG_HOME/Claude/`
  (default `~/.config/Claude/`, where the Linux builds and FastMCP's `install claude-desktop` put it);
  modelcontextprotocol.io/quickstart/user, FastMCP `cli/install/claude_desktop.py`.
- Claude Code: user scope `~/.claude.json` top-level `mcpServers`, project scope `.mcp.json` at the project
  root (checked in, shared), entries `{type: "stdio", command, args, env}`; code.claude.com/docs/en/mcp.
- Cursor: user scope `~/.cursor/mcp.json` (`%USERPROFILE%\\.cursor\\mcp.json` on Windows), project scope
  `.cursor/mcp.json`, top-level `mcpServers` of `{command, args, env}`; cursor.com/docs (MCP).
- VS Code: workspace `.vscode/mcp.json` or the user profile's `mcp.json` (macOS `~/Library/Application
  Support/Code/User/`, Windows `%APPDATA%\\Code\\User\\`, Linux `~/.config/Code/User/`), top-level `servers`
  of `{type: "stdio", command, args, env}`; code.visualstudio.com/docs/copilot/reference/mcp-configuration.
- Secrets in a project-scope file (made to be committed) are written as references the client expands
  from its own environment when it starts the server: Claude Code's `.mcp.json` expands `${VAR}` (and
  `${VAR:-default}`) in `command`, `args`, `env`, `url` and `headers` (code.claude.com/docs/en/mcp,
  "Environment variable expansion in `.mcp.json`"); VS Code's `mcp.json` takes its predefined variables,
  `${env:VAR}` among them, in server configurations (code.visualstudio.com/docs/copilot/reference/
  mcp-configuration, code.visualstudio.com/docs/reference/variables-reference); Cursor's `mcp.json`
  interpolates `${env:NAME}` in `command`, `args`, `env`, `url` and `headers` (cursor.com/docs/mcp, "Config
  interpolation").
- A project-scope file is also made to be shared, so it holds no path of this machine: every path under the
  project (the console script in its `.venv`, `uv run --directory`, the SQLite store) is written from the
  client's own variable for the project's folder (`PROJECT_FOLDERS`). VS Code: `${workspaceFolder}`, "the
  path of the folder opened in VS Code", which `mcp.json` server configurations take
  (code.visualstudio.com/docs/copilot/reference/mcp-configuration: "You can use predefined variables in the
  server configuration, for example to refer to the workspace folder (${workspaceFolder})";
  code.visualstudio.com/docs/reference/variables-reference). Cursor: `${workspaceFolder}` among its config
  interpolation variables (`${env:NAME}`, `${userHome}`, `${workspaceFolder}`, `${workspaceFolderBasename}`,
  `${pathSeparator}`; cursor.com/docs/mcp, "Config interpolation"). Claude Code documents no variable for
  the project's folder in `.mcp.json`, only `${VAR}` and `${VAR:-default}` expansion of its own environment
  (code.claude.com/docs/en/mcp, "Environment variable expansion in `.mcp.json`"); it exports
  CLAUDE_PROJECT_DIR, the project root, to hooks and to the stdio servers it starts (code.claude.com/docs/en/
  hooks; for MCP servers github.com/anthropics/claude-code issue 58121, not yet in the MCP page). So its
  entry says `${CLAUDE_PROJECT_DIR:-.}`: the project root where that is set, else `.`, the folder Claude
  Code was started in (its project root), and `failwell install` prints a note saying so.
- `mcp-json`: no file; the `{"mcpServers": {...}}` document the others share (and the MCP Inspector's
  `--config` reads), printed.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

from ..errors import FailwellError
from .launch import Launch

Platform = Literal["darwin", "linux", "win32"]
Scope = Literal["user", "project"]


@dataclass(frozen=True)
class Client:
    """One client's configuration format."""

    name: str
    key: str
    """The top-level key holding one entry per server."""
    typed: bool
    """Whether each entry says `"type": "stdio"`."""
    scopes: tuple[Scope, ...]
    """The scopes it has, the default first."""


CLIENTS: dict[str, Client] = {
    "claude-desktop": Client("Claude Desktop", "mcpServers", False, ("user",)),
    "claude-code": Client("Claude Code", "mcpServers", True, ("user", "project")),
    "cursor": Client("Cursor", "mcpServers", False, ("user", "project")),
    "vscode": Client("VS Code", "servers", True, ("project", "user")),
    "mcp-json": Client("an mcp.json", "mcpServers", False, ()),
}


def client(name: str) -> Client:
    """The client called `name`; FailwellError listing the known ones."""
    if name not in CLIENTS:
        raise FailwellError(f"unknown client {name!r}; pick one of: {', '.join(CLIENTS)}")
    return CLIENTS[name]


def config_path(
    name: str,
    platform: Platform,
    home: Path,
    environ: Mapping[str, str],
    project: Path,
    scope: str | None = None,
) -> Path:
    """Where client `name` keeps its configuration on `platform`, for the user `home` and `environ`
    (APPDATA, XDG_CONFIG_HOME), or in `project` for a project scope (`None`: the client's default);
    FailwellError for a scope it lacks."""
    chosen = client(name)
    if scope not in (None, "user", "project"):
        raise FailwellError(f"--scope {scope!r}: pick user or project")
    scope = scope or (chosen.scopes[0] if chosen.scopes else None)
    if scope not in chosen.scopes:
        kinds = " or ".join(chosen.scopes) or "no file"
        raise FailwellError(f"{chosen.name} has no {scope} configuration; its scopes: {kinds}")
    if name == "claude-desktop":
        return _app_folder(platform, home, environ) / "Claude" / "claude_desktop_config.json"
    if name == "claude-code":
        return home / ".claude.json" if scope == "user" else project / ".mcp.json"
    if name == "cursor":
        return (home if scope == "user" else project) / ".cursor" / "mcp.json"
    if scope == "project":
        return project / ".vscode" / "mcp.json"
    return _app_folder(platform, home, environ) / "Code" / "User" / "mcp.json"


def _app_folder(platform: Platform, home: Path, environ: Mapping[str, str]) -> Path:
    """The per-user application settings folder: Application Support, %APPDATA% or the XDG config home."""
    if platform == "darwin":
        return home / "Library" / "Application Support"
    if platform == "win32":
        return Path(environ["APPDATA"]) if environ.get("APPDATA") else home / "AppData" / "Roaming"
    return Path(environ["XDG_CONFIG_HOME"]) if environ.get("XDG_CONFIG_HOME") else home / ".config"


REFERENCES = {"claude-code": "${{{}}}", "cursor": "${{env:{}}}", "vscode": "${{env:{}}}"}
"""How each client with a project scope reads a variable from its own environment (sources above)."""


def reference(name: str, variable: str) -> str:
    """Client `name`'s reference to the environment variable `variable`, as its configuration writes it."""
    return REFERENCES[name].format(variable)


PROJECT_FOLDERS = {
    "claude-code": "${CLAUDE_PROJECT_DIR:-.}",
    "cursor": "${workspaceFolder}",
    "vscode": "${workspaceFolder}",
}
"""How each client with a project scope names the project's folder in its project file (sources above)."""


def entry(name: str, server: Launch, scope: str | None = None) -> dict[str, Any]:
    """The configuration entry client `name` reads to start `server`. In a project-scope file (shared: it is
    committed) each of the server's secrets is the client's reference to the variable instead of its value,
    and each path under the project (an arg, a flag's `--flag=PATH`, an env value) starts with the client's
    variable for the project's folder."""
    shared = scope == "project"

    def portable(value: str) -> str:
        if not shared:
            return value
        path = _paths(value)
        return value[: len(value) - len(path)] + _under_folder(path, server.project, PROJECT_FOLDERS[name])

    found: dict[str, Any] = {"type": "stdio"} if client(name).typed else {}
    found["command"] = portable(server.command)
    found["args"] = [portable(arg) for arg in server.args]
    found["env"] = {
        key: reference(name, key) if shared and key in server.secrets else portable(value)
        for key, value in sorted(server.env.items())
    }
    return found


def _under_folder(value: str, root: Path, folder: str) -> str:
    """`value` with the absolute project folder `root` it starts with written as `folder`."""
    if not root.is_absolute():
        return value
    text = str(root)
    if value == text:
        return folder
    for separator in ("/", "\\"):
        if value.startswith(text + separator):
            return folder + "/" + value[len(text) + 1 :].replace("\\", "/")
    return value


def _paths(value: str) -> str:
    """The part of an arg or env value that may be a path: a flag's value (`--flag=PATH`), else all of it."""
    _, equals, given = value.partition("=")
    return given if value.startswith("-") and equals else value


def _looks_relative(value: str) -> bool:
    """Whether `value` reads as a relative path (`data/bm.db`, `./x`, `~/x`): a separator, no scheme, not absolute,
    not a reference (`${...}`) and not a flag."""
    if not value or value.startswith(("$", "-")) or "://" in value or Path(value).is_absolute():
        return False
    return value.startswith(("./", "../", ".\\", "..\\", "~")) or "/" in value or "\\" in value


def portability_notes(name: str, server: Launch) -> list[str]:
    """What a teammate who checks out a project-scope entry of client `name` must know: the paths that stay
    this machine's (a command, arg, flag value or env value outside the project), the values that read as
    relative paths (a client resolves them against the folder it starts the server in, not the project), and,
    for Claude Code, how its entry finds the project."""
    notes = []
    written = entry(name, server, "project")
    values = [written["command"], *map(_paths, written["args"]), *written["env"].values()]
    outside = [value for value in values if Path(value).is_absolute()]
    if outside:
        notes.append(
            f"{', '.join(outside)} is a path of this machine, outside the project, and {client(name).name} has "
            "no variable for it: a teammate needs it at the same place, or runs `failwell install` again"
        )
    relative = [value for value in values if _looks_relative(value)]
    if relative:
        folder = PROJECT_FOLDERS[name]
        notes.append(
            f"{', '.join(relative)} reads as a relative path, which {client(name).name} resolves against the folder "
            f"it starts the server in, not the project: if it is one, install again with the absolute path "
            f"(such as $PWD/{relative[0].removeprefix('./')} from the project's folder), written as {folder}/..."
        )
    if name == "claude-code":
        notes.append(
            "Claude Code documents no variable for the project's folder in .mcp.json (only ${VAR} and "
            "${VAR:-default}); the entry says ${CLAUDE_PROJECT_DIR:-.}, the project root where Claude Code sets "
            "CLAUDE_PROJECT_DIR, else the folder it was started in: start claude in the project root"
        )
    return notes
