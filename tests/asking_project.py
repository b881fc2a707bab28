"""The project of failwell's tests of confirmation and questions (tests/test_confirm.py, tests/test_asks.py):
tests/asking/failwell.yaml generated with the CLI (with the store a test needs) and its handlers copied in, and
the few helpers those tests share: the effects file every changing handler appends to, two bearer tokens of
different subjects, raw JSON-RPC over streamable HTTP."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import httpx

from conftest import REPO, failwell

ASKING = REPO / "tests" / "asking"
PACKAGE = "asking_mcp"
TOKENS = {
    "asking-token-ada-5f0c2e9b71": {"subject": "ada", "scopes": []},
    "asking-token-bob-8d3a6c1e42": {"subject": "bob", "scopes": []},
}
ADA, BOB = list(TOKENS)
MODERN = "2026-07-28"
CAPABILITIES: dict[str, Any] = {"elicitation": {"form": {}}, "sampling": {}, "roots": {"listChanged": False}}


def generate(dest: Path, store: str = "sqlite") -> Path:
    """tests/asking/failwell.yaml with `store`, generated into `dest` with its handlers; returns its `src`."""
    spec = dest.parent / f"{dest.name}.yaml"
    spec.write_text((ASKING / "failwell.yaml").read_text().replace("store: sqlite", f"store: {store}"))
    created = failwell("new", dest, "--spec", spec)
    assert created.returncode == 0, created.stdout + created.stderr
    for handler in sorted((ASKING / "handlers").rglob("*.py")):
        shutil.copy(handler, dest / "src" / PACKAGE / "handlers" / handler.relative_to(ASKING / "handlers"))
    return dest / "src"


def server_env(folder: Path, effects: Path, **more: str) -> dict[str, str]:
    """What every server of these tests gets: its SQLite file, the effects file, the tokens."""
    return {
        "FAILWELL_SQLITE_PATH": str(folder / "asking.sqlite3"),
        "ASKING_EFFECTS": str(effects),
        "ASKING_TOKENS": json.dumps(TOKENS),
        **more,
    }


def effects(path: Path) -> list[str]:
    """The lines the handlers appended so far: one per run that changed something."""
    return path.read_text().splitlines() if path.exists() else []


def body(response: httpx.Response) -> dict[str, Any]:
    """The JSON-RPC message of a response, sent as JSON or as the last SSE event."""
    if response.headers.get("content-type", "").startswith("application/json"):
        return dict(response.json())
    data = [line[len("data: ") :] for line in response.text.splitlines() if line.startswith("data: ")]
    assert data, (response.status_code, response.text)
    return dict(json.loads(data[-1]))


class Raw:
    """Raw stateless JSON-RPC posts at 2026-07-28 over streamable HTTP: the test decides every byte."""

    def __init__(self, http: httpx.Client, url: str, token: str | None = ADA) -> None:
        self.http = http
        self.url = url
        self.token = token
        self.sent = 0

    def post(
        self,
        method: str,
        params: dict[str, Any],
        *,
        token: str | None = None,
        capabilities: dict[str, Any] | None = None,
        url: str | None = None,
    ) -> httpx.Response:
        self.sent += 1
        meta = {
            "io.modelcontextprotocol/protocolVersion": MODERN,
            "io.modelcontextprotocol/clientInfo": {"name": "asking-test", "version": "0"},
            "io.modelcontextprotocol/clientCapabilities": CAPABILITIES if capabilities is None else capabilities,
        }
        name = params.get("name", params.get("uri", ""))
        headers = {
            "accept": "application/json, text/event-stream",
            "content-type": "application/json",
            "mcp-protocol-version": MODERN,
            "mcp-method": method,
            "mcp-name": str(name),
        }
        bearer = token or self.token
        if bearer:
            headers["authorization"] = f"Bearer {bearer}"
        message = {"jsonrpc": "2.0", "id": self.sent, "method": method, "params": {**params, "_meta": meta}}
        return self.http.post(url or self.url, json=message, headers=headers)

    def call(self, name: str, arguments: dict[str, Any], **extra: Any) -> dict[str, Any]:
        """tools/call; extra keyword arguments (`inputResponses`, `requestState`, `token`, `capabilities`, `url`)
        go into params or the request."""
        options = {key: extra.pop(key) for key in ("token", "capabilities", "url") if key in extra}
        response = self.post("tools/call", {"name": name, "arguments": arguments, **extra}, **options)
        return body(response)
