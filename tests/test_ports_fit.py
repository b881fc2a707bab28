"""The hand ports in tests/ports fit their originals fully (issue 40, "Done when": the six earlier ports 32 of 32,
the filesystem port 14 of 14). Each port is generated, its dependencies' `open` and its settings' hooks written as
its author would (the least that starts it: nothing here reaches a database or the web), started over stdio as the
original's client entry starts the original (the snapshot's flags and positionals, `{dir}` a scratch folder), and
its `tools/list` compared, tool by tool, with the original's real one: the corpus snapshot in tests/roundtrip
(tests/roundtrip/report.py's comparison, with what it sets aside: `_meta`, failwell's `idempotency_key`). The
postgres-mcp original needs Python 3.12 and a database to start, so its listings are kept beside its port
(tests/ports/postgres-mcp.json, how they were taken said there).

A port keeps failwell's hardening while it publishes what the original does: its declared failures, effects and
idempotency stay in its spec, and tests/test_ports.py generates each port and runs its own generated tests."""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path
from typing import Any

import anyio
import pytest
from mcp import Client, StdioServerParameters
from roundtrip import report
from ruamel.yaml import YAML

from conftest import REPO
from failwell import new

PORTS = REPO / "tests" / "ports"
ORIGINALS = {
    "context7": REPO / "tests" / "roundtrip" / "context7.json",
    "fetch": REPO / "tests" / "roundtrip" / "mcp-server-fetch.json",
    "filesystem": REPO / "tests" / "roundtrip" / "server-filesystem.json",
    "git": REPO / "tests" / "roundtrip" / "mcp-server-git.json",
    "postgres": PORTS / "postgres-mcp.json",
    "sqlite": REPO / "tests" / "roundtrip" / "mcp-server-sqlite.json",
    "time": REPO / "tests" / "roundtrip" / "mcp-server-time.json",
}
"""Each port's original: a snapshot of its real listings (tests/roundtrip/README.md says how one is taken)."""

DEPENDENCY = '''\
"""Opened at start; what the tools reach is not needed to list them."""

from ..._generated.settings import Settings


async def open(settings: Settings) -> None:
    return None
'''

SETTINGS = '''\
"""Defaults computed at start, as the original computes them."""

import os
from pathlib import Path


def default_local_timezone() -> str:
    """The machine's zone as mcp-server-time's tzlocal finds it: TZ, else /etc/localtime's link, else Etc/UTC."""
    named = os.environ.get("TZ", "").lstrip(":")
    if named:
        return named
    link = Path("/etc/localtime")
    if link.is_symlink() and "zoneinfo/" in str(link.readlink()):
        return str(link.readlink()).split("zoneinfo/", 1)[1]
    return "Etc/UTC"
'''


def _original(port: str) -> dict[str, Any]:
    found: dict[str, Any] = json.loads(ORIGINALS[port].read_text(encoding="utf-8"))
    return found


def _arguments(snapshot: dict[str, Any], scratch: Path) -> list[str]:
    """The original's client entry without its launcher and package: its flags and positionals."""
    command = [str(word) for word in snapshot["command"]]
    package = next(i for i, word in enumerate(command) if word.startswith(str(snapshot["package"])))
    return [word.replace("{dir}", str(scratch)) for word in command[package + 1 :]]


def _written(project: Path) -> Path:
    """The generated project with its dependencies opened as nothing and its setting hooks written."""
    handlers = next(path for path in (project / "src").iterdir() if (path / "__main__.py").is_file()) / "handlers"
    for dependency in sorted((handlers / "dependencies").glob("*.py")) if (handlers / "dependencies").is_dir() else []:
        if dependency.name != "__init__.py":
            dependency.write_text(DEPENDENCY)
    if (handlers / "settings.py").is_file():
        (handlers / "settings.py").write_text(SETTINGS)
    return project


async def _tools(project: Path, arguments: list[str], env: dict[str, str]) -> list[dict[str, Any]]:
    package = next(path.name for path in sorted((project / "src").iterdir()) if (path / "__main__.py").is_file())
    environment = {
        "PATH": os.environ.get("PATH", ""),
        "PYTHONPATH": str(project / "src"),
        "FAILWELL_SQLITE_PATH": str(project / "store.sqlite3"),
        "TZ": "Etc/UTC",  # the zone the time snapshot was listed in
        **env,
    }
    params = StdioServerParameters(
        command=sys.executable, args=["-m", package, *arguments], env=environment, cwd=str(project)
    )
    tools: list[dict[str, Any]] = []
    async with Client(params, mode="legacy") as client:  # the 2025 era, as the snapshots were listed
        cursor: str | None = None
        for _page in range(100):
            result = await client.list_tools(cursor=cursor)
            tools.extend(tool.model_dump(mode="json", by_alias=True, exclude_none=True) for tool in result.tools)
            cursor = result.next_cursor
            if not cursor:
                break
    return tools


def _started(port: str, work: Path, arguments: list[str]) -> list[dict[str, Any]]:
    new(work / port, PORTS / f"{port}.yaml")
    project = _written(work / port)
    return anyio.run(_tools, project, arguments, dict(_original(port).get("env") or {}))


def fit(port: str, work: Path, variant: str = "") -> dict[str, list[str]]:
    """Each of the original's tools -> how the port's differs ([] when it fits fully, ["missing"] when unlisted);
    a tool the port lists that the original does not is under its name with ["added"]. `variant`: the original
    listed again under other flags (postgres-mcp's `restricted`: its own `command` and `tools`)."""
    snapshot = _original(port)
    started, tools = snapshot, snapshot["listings"]["tools"]
    if variant:
        started = {**snapshot, "command": snapshot[variant]["command"]}
        tools = snapshot[variant]["tools"]
    scratch = work / "dir"
    for folder in ("repo", "allowed"):  # what the snapshots' entries name under {dir}
        (scratch / folder).mkdir(parents=True, exist_ok=True)
    ported = _started(port, work, _arguments(started, scratch))
    ours = {str(tool["name"]): tool for tool in ported}
    out = {str(tool["name"]): report.item_kinds(tool, ours.get(str(tool["name"]))) for tool in tools}
    out.update({name: ["added"] for name in ours.keys() - out.keys()})
    return out


def _spec(port: str) -> dict[str, Any]:
    data: dict[str, Any] = YAML(typ="safe").load((PORTS / f"{port}.yaml").read_text())
    return data


CASES = [(port, "") for port in sorted(ORIGINALS)] + [("postgres", "restricted")]


@pytest.mark.parametrize(("port", "variant"), CASES)
def test_the_port_publishes_each_tool_as_its_original_does(tmp_path: Path, port: str, variant: str) -> None:
    found = fit(port, tmp_path, variant)
    differing = {name: kinds for name, kinds in found.items() if kinds}
    assert not differing, f"{port}: {len(found) - len(differing)} of {len(found)} tools fit; the rest: {differing}"


def test_the_time_ports_descriptions_name_the_zone_its_setting_holds(tmp_path: Path) -> None:
    """As mcp-server-time's: the zone `--local-timezone` names, else the machine's (the hook), in each argument's
    description."""
    given = {
        str(tool["name"]): tool
        for tool in _started("time", tmp_path / "given", ["--local-timezone", "America/New_York"])
    }
    machine = {str(tool["name"]): tool for tool in _started("time", tmp_path / "machine", [])}
    said = 0
    for name, tool in given.items():
        for field, schema in tool["inputSchema"]["properties"].items():
            if "local timezone" in schema.get("description", ""):
                assert "Use 'America/New_York' as local timezone" in schema["description"], (name, field)
                theirs = machine[name]["inputSchema"]["properties"][field]["description"]
                assert "Use 'Etc/UTC' as local timezone" in theirs, (name, field)  # TZ=Etc/UTC here
                said += 1
    assert said == 3, "timezone, source_timezone and target_timezone name the zone"
