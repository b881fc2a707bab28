"""The round-trip corpus (issue 40 point 8): real MCP servers from npm and PyPI, each one's listings kept as a
snapshot (tests/roundtrip/<key>.json: package, version, registry, the client entry's command and dummy env, the
negotiated protocol version, serverInfo, capabilities, and every item of `tools/list`, `resources/list`,
`resources/templates/list` and `prompts/list` as the server sent it).

The fast tests read the snapshots only. The slow one installs each server (cached, tests/audit_corpus/servers.py),
lists it live with the real `mcp` client over stdio (tests/roundtrip/listing.py) and compares with its snapshot;
`FAILWELL_REFRESH_ROUNDTRIP=1 pytest tests/test_roundtrip_corpus.py -m slow` writes the snapshots anew."""

from __future__ import annotations

import json
import os
import re
from pathlib import Path
from typing import Any

import pytest
from roundtrip.listing import listings
from roundtrip.servers import BY_KEY, HERE, SERVERS, RoundTrip

SNAPSHOTS = sorted(HERE.glob("*.json"))
LISTS = ("tools", "resources", "resourceTemplates", "prompts")
PINNED = re.compile(r"^\d+(\.\d+)*([.-]?(a|b|rc|alpha|beta|post|dev)\.?\d+)*$")
"""An exact version (`2025.4.25`, `0.0.1a8`, `1.0.0-beta.2`): no range, tag or wildcard."""
HANDSHAKE_VERSIONS = {"2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25"}


def snapshot(key: str) -> dict[str, Any]:
    return dict(json.loads((HERE / f"{key}.json").read_text(encoding="utf-8")))


def as_text(data: dict[str, Any]) -> str:
    return json.dumps(data, indent=1, sort_keys=True, ensure_ascii=False) + "\n"


def recorded(entry: RoundTrip, live: dict[str, Any]) -> dict[str, Any]:
    server = entry.server
    return {
        "key": entry.key,
        "package": server.package,
        "version": server.version,
        "registry": server.registry,
        "command": entry.command,
        "env": entry.env,
        **live,
    }


def test_the_corpus_holds_thirty_servers_or_more_from_both_registries_each_pinned() -> None:
    keys = {path.stem for path in SNAPSHOTS}
    assert keys == set(BY_KEY), "a snapshot for each server of the corpus, and none else"
    assert len(keys) >= 30
    assert {BY_KEY[key].server.registry for key in keys} == {"pypi", "npm"}
    loose = [entry.key for entry in SERVERS if not PINNED.match(entry.server.version)]
    assert loose == [], "every version exact"


@pytest.mark.parametrize("path", SNAPSHOTS, ids=[path.stem for path in SNAPSHOTS])
def test_each_snapshot_has_the_shape_and_says_its_server(path: Path) -> None:
    text = path.read_text(encoding="utf-8")
    data = json.loads(text)
    assert text == as_text(data), "sorted keys, indent 1, UTF-8 as written"
    entry = BY_KEY[path.stem]
    assert set(data) == {
        *("key", "package", "version", "registry", "command", "env"),
        *("protocolVersion", "serverInfo", "capabilities", "listings"),
    }
    server = entry.server
    said = (data["key"], data["package"], data["version"], data["registry"], data["command"], data["env"])
    assert said == (entry.key, server.package, server.version, server.registry, entry.command, entry.env)
    assert data["command"][0] in {"npx", "uvx"} and server.version in " ".join(data["command"])
    assert data["protocolVersion"] in HANDSHAKE_VERSIONS
    assert isinstance(data["serverInfo"].get("name"), str) and isinstance(data["capabilities"], dict)
    assert set(data["listings"]) == set(LISTS)
    for kind in LISTS:
        capability = "resources" if kind == "resourceTemplates" else kind
        items = data["listings"][kind]
        assert isinstance(items, list)
        assert capability in data["capabilities"] or items == [], f"{kind}: listed only when advertised"
    tools = data["listings"]["tools"]
    assert tools, "every server of the corpus has tools"
    for tool in tools:
        assert isinstance(tool["name"], str) and tool["inputSchema"].get("type") == "object"
    names = [tool["name"] for tool in tools]
    assert len(names) == len(set(names)), "each tool once (pages followed, none repeated)"


@pytest.mark.slow
@pytest.mark.parametrize("key", [entry.key for entry in SERVERS])
def test_refresh_a_live_server_lists_what_its_snapshot_holds(key: str, tmp_path: Path) -> None:
    entry = BY_KEY[key]
    command, env = entry.start(tmp_path)
    live = recorded(entry, listings(command, env, cwd=str(tmp_path)))
    if os.environ.get("FAILWELL_REFRESH_ROUNDTRIP") == "1":
        (HERE / f"{key}.json").write_text(as_text(live), encoding="utf-8")
        return
    held = snapshot(key)
    assert live["listings"] == held["listings"], "the server lists what its snapshot holds"
    assert [live[k] for k in ("protocolVersion", "serverInfo", "capabilities")] == [
        held[k] for k in ("protocolVersion", "serverInfo", "capabilities")
    ]
