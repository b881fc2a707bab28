"""The tasks example over streamable HTTP in a real subprocess on 127.0.0.1, driven by the real MCP
client and by raw HTTP: bearer tokens (401 with a JSON-RPC body), scopes, the caller each token
names, the health endpoint, DNS-rebinding protection, and what the log never holds."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest
from httpserver import ACCEPT, Running, client, free_port, http_server
from ledger import importable
from mcp.types import CallToolResult, TextContent

from conftest import EXAMPLES, copy_project

pytestmark = pytest.mark.slow

SRC = EXAMPLES / "tasks" / "src"
READER = "reader-token-7f3a9c2e5b"
WRITER = "writer-token-1d8e6b4a90"
OTHER_WRITER = "writer-token-c4f2a8e1d7"
EXPIRED = "expired-token-5e9b3c7a21"
TOKENS = {
    READER: {"subject": "ada", "scopes": ["tasks:read"]},
    WRITER: {"subject": "bob", "scopes": ["tasks:read", "tasks:write"]},
    OTHER_WRITER: {"subject": "cy", "scopes": ["tasks:read", "tasks:write"]},
    EXPIRED: {"subject": "old", "scopes": ["tasks:read"], "expires_at": 1_000_000_000},
}
LIST = {"jsonrpc": "2.0", "id": 41, "method": "tools/list"}


@pytest.fixture
def tasks(tmp_path: Path) -> Iterator[Running]:
    env = {"TASKS_TOKENS": json.dumps(TOKENS), "FAILWELL_SQLITE_PATH": str(tmp_path / "tasks.sqlite3")}
    with http_server("tasks_mcp", SRC, tmp_path / "stderr.log", env) as running:
        yield running


def text(result: CallToolResult) -> str:
    return "\n".join(block.text for block in result.content if isinstance(block, TextContent))


CHALLENGE = 'Bearer realm="tasks", resource_metadata="http://127.0.0.1:{port}/.well-known/oauth-protected-resource/mcp"'
INVALID = CHALLENGE + ', error="invalid_token", error_description='


@pytest.mark.parametrize(
    ("authorization", "challenge"),
    [
        (None, CHALLENGE),
        ("Bearer not-a-known-token-0000", INVALID + '"the bearer token is not valid"'),
        (f"Bearer {EXPIRED}", INVALID + '"the bearer token has expired"'),
        (f"Basic {READER}", CHALLENGE),
    ],
)
def test_a_missing_unknown_or_expired_token_is_401_with_a_json_rpc_body(
    tasks: Running, authorization: str | None, challenge: str
) -> None:
    headers = {**ACCEPT, **({"authorization": authorization} if authorization else {})}
    response = httpx.post(tasks.url, json=LIST, headers=headers)
    assert response.status_code == 401
    assert response.headers["www-authenticate"] == challenge.format(port=tasks.port)
    body = response.json()
    assert body["jsonrpc"] == "2.0" and body["id"] == 41
    assert body["error"]["code"] == -31001, "an application code, outside the reserved -32768..-32000"
    assert body["error"]["message"].startswith("Unauthorized: ")
    assert "Authorization: Bearer <token>" in body["error"]["message"]


def test_a_refused_body_that_is_not_json_rpc_gets_id_null(tasks: Running) -> None:
    response = httpx.post(tasks.url, content=b"not json", headers=ACCEPT)
    assert response.status_code == 401
    assert response.json()["id"] is None


@pytest.mark.anyio
async def test_a_token_without_a_tools_scope_gets_permission_denied_naming_it(tasks: Running) -> None:
    async with client(tasks.url, READER) as session:
        read = await session.call_tool("tasks_get", {"ref": "T-1"})
        assert not read.is_error
        write = await session.call_tool("tasks_create", {"title": "Ship it", "idempotency_key": "scope-check-0001"})
    assert write.is_error
    assert text(write).startswith(
        "tasks_create needs the tasks:write scope, which this assistant's token does not grant (it grants: tasks:read)."
    )
    envelope = (write.meta or {})["dev.failwell/error"]
    assert envelope["class"] == "permission_denied" and envelope["scope"] == "tasks:write"
    assert envelope["changed"] == "none" and envelope["retryable"] is False


@pytest.mark.anyio
@pytest.mark.parametrize("mode", ["auto", "legacy"])
async def test_idempotency_keys_are_scoped_to_the_tokens_subject(tasks: Running, mode: str) -> None:
    arguments = {"title": "Write the changelog", "idempotency_key": f"subject-scope-{mode}"}
    async with client(tasks.url, WRITER, mode) as bob:
        first = await bob.call_tool("tasks_create", arguments)
        again = await bob.call_tool("tasks_create", arguments)
    async with client(tasks.url, OTHER_WRITER, mode) as cy:
        other = await cy.call_tool("tasks_create", arguments)
    assert not first.is_error and not again.is_error and not other.is_error
    assert again.structured_content == first.structured_content, "the same caller's retry is a replay"
    assert other.structured_content != first.structured_content, "another caller's key is its own"


def test_health_needs_no_token_and_says_nothing_else(tasks: Running) -> None:
    response = httpx.get(f"http://127.0.0.1:{tasks.port}/healthz")
    assert response.status_code == 200
    assert response.json() == {"status": "ok"}
    assert response.headers["cache-control"] == "no-store"


def test_health_is_503_when_the_store_cannot_be_used(tmp_path: Path) -> None:
    store = tmp_path / "internal-db-host" / "tasks.sqlite3"
    env = {"TASKS_TOKENS": json.dumps(TOKENS), "FAILWELL_SQLITE_PATH": str(store)}
    with http_server("tasks_mcp", SRC, tmp_path / "stderr.log", env) as running:
        assert httpx.get(f"http://127.0.0.1:{running.port}/healthz").json() == {"status": "ok"}
        shutil.rmtree(store.parent)  # the store's volume goes away while the server runs
        store.parent.write_text("")
        response = httpx.get(f"http://127.0.0.1:{running.port}/healthz")
        assert response.status_code == 503
        assert response.json() == {"status": "unavailable"}
        assert str(tmp_path) not in response.text


def test_a_foreign_host_header_is_refused_on_a_loopback_bind(tasks: Running) -> None:
    headers = {**ACCEPT, "authorization": f"Bearer {READER}"}
    assert httpx.post(tasks.url, json=LIST, headers=headers).status_code == 200
    assert httpx.post(tasks.url, json=LIST, headers={**headers, "host": "evil.example.com"}).status_code == 421
    origin = {**headers, "origin": "http://evil.example.com"}
    assert httpx.post(tasks.url, json=LIST, headers=origin).status_code == 403
    # Without a token too: the host and origin are checked before the gate asks for one.
    assert httpx.post(tasks.url, json=LIST, headers={**ACCEPT, "host": "evil.example.com"}).status_code == 421
    assert httpx.post(tasks.url, json=LIST, headers={**ACCEPT, "origin": "http://evil.example.com"}).status_code == 403


def test_allowed_hosts_are_accepted_and_others_still_refused(tmp_path: Path) -> None:
    env = {"TASKS_TOKENS": json.dumps(TOKENS), "MCP_ALLOWED_HOSTS": "mcp.example.com"}
    flags = ("--allowed-origins", "https://app.example.com")
    with http_server("tasks_mcp", SRC, tmp_path / "stderr.log", env, *flags) as running:
        headers = {**ACCEPT, "authorization": f"Bearer {READER}"}
        for host in ("mcp.example.com", "mcp.example.com:443", f"127.0.0.1:{running.port}"):
            assert httpx.post(running.url, json=LIST, headers={**headers, "host": host}).status_code == 200, host
        assert httpx.post(running.url, json=LIST, headers={**headers, "host": "evil.example.com"}).status_code == 421
        allowed = {**headers, "origin": "https://app.example.com"}
        assert httpx.post(running.url, json=LIST, headers=allowed).status_code == 200
        foreign = {**headers, "origin": "https://evil.example.com"}
        assert httpx.post(running.url, json=LIST, headers=foreign).status_code == 403


@pytest.mark.anyio
async def test_no_token_reaches_the_log(tasks: Running) -> None:
    for token in (READER, EXPIRED, "not-a-known-token-0000"):
        httpx.post(tasks.url, json=LIST, headers={**ACCEPT, "authorization": f"Bearer {token}"})
    async with client(tasks.url, READER) as session:
        await session.call_tool("tasks_create", {"title": "x", "idempotency_key": "log-check-00001"})
        await session.call_tool("tasks_get", {"ref": "T-404"})
    logged = tasks.logged()
    assert '"refused": "expired"' in logged and '"refused": "unknown"' in logged, "the refusals are logged"
    for token in TOKENS:
        assert token not in logged
    assert "not-a-known-token" not in logged
    assert all(line.startswith("{") for line in logged.splitlines() if line.strip()), "every log line is JSON"


@pytest.mark.parametrize(
    ("value", "complaint"),
    [
        (None, "TASKS_TOKENS is not set"),
        ("tiny-t0ken", "shorter than 16 characters"),
        ('{"some-long-token-0000": {"scopes": ["tasks:read"]}}', 'needs a caller like {"subject": "ada"}'),
        ("{not json", "starts with { but is not JSON"),
        ('{"some-long-token-0000": {"subject": "ada", "scope": ["x"]}}', "has 'scope'; a caller has subject, scopes"),
    ],
)
def test_http_without_usable_tokens_does_not_start(tmp_path: Path, value: str | None, complaint: str) -> None:
    env = {key: val for key, val in os.environ.items() if key != "TASKS_TOKENS"}
    env.update({"PYTHONPATH": str(SRC), **({"TASKS_TOKENS": value} if value is not None else {})})
    reason, stderr = refused_start(tmp_path, env)
    assert complaint in reason
    if value:
        assert value not in stderr, "the bad value itself is not echoed"


def refused_start(tmp_path: Path, env: dict[str, str]) -> tuple[str, str]:
    """Start the tasks server over HTTP with exactly `env`; it must exit 2. Its logged reason, and all its stderr."""
    finished = subprocess.run(
        [sys.executable, "-m", "tasks_mcp", "--http", "--port", str(free_port())],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert finished.returncode == 2
    return json.loads(finished.stderr.strip().splitlines()[-1])["reason"], finished.stderr


CUSTOM_AUTH = '''\
"""A verifier of the person's own, as for tokens from an authorization server: each names its audience."""

import os

from ._generated.runtime.transport.tokens import AccessToken, TokenVerifier

AUDIENCES = {
    "custom-verifier-token-01": os.environ["MCP_RESOURCE_URL"],
    "other-audience-token-01": "https://other.example.com/mcp",
}


class Fixed:
    async def verify_token(self, token: str) -> AccessToken | None:
        if token == "identity-provider-down-01":
            raise ConnectionError("idp.internal:8443 refused the connection")
        if token not in AUDIENCES:
            return None
        resource = AUDIENCES[token]
        return AccessToken(token=token, client_id="custom", subject="custom", scopes=["tasks:read"], resource=resource)


def verifier() -> TokenVerifier:
    return Fixed()
'''


@pytest.mark.anyio
async def test_the_persons_own_verifier_decides(tmp_path: Path) -> None:
    project = copy_project(EXAMPLES / "tasks", tmp_path / "tasks")
    (project / "src" / "tasks_mcp" / "auth.py").write_text(CUSTOM_AUTH)
    shutil.rmtree(project / ".failwell", ignore_errors=True)
    port = free_port()
    # The URL clients use, as behind a proxy: tokens must be issued for it, not for the bind address.
    resource = "https://tasks.example.com/mcp"
    env = {"FAILWELL_SQLITE_PATH": str(tmp_path / "tasks.sqlite3"), "MCP_RESOURCE_URL": resource}
    with http_server("tasks_mcp", project / "src", tmp_path / "stderr.log", env, port=port) as running:
        async with client(running.url, "custom-verifier-token-01") as session:
            assert not (await session.call_tool("tasks_get", {"ref": "T-1"})).is_error
        refused = httpx.post(running.url, json=LIST, headers={**ACCEPT, "authorization": f"Bearer {READER}"})
        assert refused.status_code == 401
        other = httpx.post(
            running.url, json=LIST, headers={**ACCEPT, "authorization": "Bearer other-audience-token-01"}
        )
        assert other.status_code == 401, "a token issued for another server is refused"
        assert (
            'error_description="the bearer token was not issued for this server"' in other.headers["www-authenticate"]
        )
        assert (
            'resource_metadata="https://tasks.example.com/.well-known/oauth-protected-resource/mcp"'
            in (other.headers["www-authenticate"])
        )
        metadata = httpx.get(f"http://127.0.0.1:{port}/.well-known/oauth-protected-resource/mcp")
        assert metadata.json()["resource"] == resource
        broken = {**ACCEPT, "authorization": "Bearer identity-provider-down-01"}
        down = httpx.post(running.url, json=LIST, headers=broken)
        assert down.status_code == 503, "a verifier that fails is not a refused token: the client may retry"
        assert down.json()["error"] == {"code": -32603, "message": "The credentials could not be checked; retry."}
        assert "idp.internal" in running.logged(), "the cause is in the log, not in the answer"


def test_the_protected_resource_metadata_says_who_issues_tokens(tasks: Running) -> None:
    response = httpx.get(f"http://127.0.0.1:{tasks.port}/.well-known/oauth-protected-resource/mcp")
    assert response.status_code == 200
    assert response.json() == {
        "resource": f"http://127.0.0.1:{tasks.port}/mcp",
        "authorization_servers": ["https://auth.example.com"],
        "scopes_supported": ["tasks:read", "tasks:write"],
        "bearer_methods_supported": ["header"],
        "resource_name": "tasks",
    }
    preflight = httpx.options(
        response.url,
        headers={
            "origin": "https://app.example.com",
            "access-control-request-method": "GET",
            "access-control-request-headers": "mcp-protocol-version",
        },
    )
    assert preflight.status_code == 200 and preflight.headers["access-control-allow-origin"] in (
        "*",
        "https://app.example.com",
    )


@pytest.mark.parametrize(
    ("value", "complaint"),
    [
        ("tasks.example.com/mcp", "is not an absolute http(s) URL"),
        ("https://tasks.example.com/mcp#x", "without query or fragment"),
    ],
)
def test_a_bad_resource_url_stops_the_server(tmp_path: Path, value: str, complaint: str) -> None:
    env = {**os.environ, "PYTHONPATH": str(SRC), "TASKS_TOKENS": json.dumps(TOKENS), "MCP_RESOURCE_URL": value}
    reason, _ = refused_start(tmp_path, env)
    assert complaint in reason


def test_off_loopback_the_resource_url_must_be_given() -> None:
    # Checked without binding anything: the URL clients use cannot be guessed from a public bind address.
    with importable(SRC, "tasks_mcp"):
        from tasks_mcp._generated.runtime.setup.config import ConfigurationError
        from tasks_mcp._generated.runtime.transport.oauth import resource_url

        assert resource_url("", "127.0.0.1", 8000, "/mcp") == "http://127.0.0.1:8000/mcp"
        assert resource_url("", "::1", 8000, "/mcp") == "http://[::1]:8000/mcp"
        with pytest.raises(ConfigurationError, match="pass --resource-url or set MCP_RESOURCE_URL"):
            resource_url("", "0.0.0.0", 8000, "/mcp")
