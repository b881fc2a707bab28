"""OAuth end to end: the real MCP client finds where to sign in from the generated server's 401 and its
protected resource metadata (RFC 9728), gets a token from an authorization server for that resource
(RFC 8707), and calls tools with it. The authorization server is a real HTTP server on 127.0.0.1
(client_credentials grant, RFC 7662 introspection); the server's `auth.py` introspects each token.
"""

from __future__ import annotations

import base64
import json
import secrets
import threading
import time
from collections.abc import AsyncIterator, Iterator
from contextlib import asynccontextmanager, contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs

import httpx
import httpx2
import pytest
from httpserver import ACCEPT, Running, http_server, in_thread
from mcp import Client
from mcp.client.auth.extensions.client_credentials import ClientCredentialsOAuthProvider
from mcp.client.streamable_http import streamable_http_client
from mcp.shared.auth import OAuthClientInformationFull, OAuthToken

from conftest import EXAMPLES, copy_project, failwell

pytestmark = pytest.mark.slow

CLIENTS = {
    "nightly-report": ("client-secret-9d2f7a41c6", {"tasks:read", "tasks:write"}),
    "dashboard": ("client-secret-4b7e1c9a30", {"tasks:read"}),
}
"""Each client of the authorization server: its secret and the scopes it may be granted."""
LIST = {"jsonrpc": "2.0", "id": 3, "method": "tools/list"}


class AuthorizationServer:
    """A real OAuth authorization server on 127.0.0.1: metadata (RFC 8414), the client_credentials grant
    (granting a client only its allowed scopes), and token introspection (RFC 7662). It records every
    token request it answers."""

    def __init__(self) -> None:
        self.issued: dict[str, dict[str, Any]] = {}
        self.token_requests: list[dict[str, str]] = []
        self.lock = threading.Lock()
        issuer = self

        class Handler(BaseHTTPRequestHandler):
            def do_GET(self) -> None:
                if self.path in ("/.well-known/oauth-authorization-server", "/.well-known/openid-configuration"):
                    self.reply(200, issuer.metadata())
                else:
                    self.reply(404, {"error": "not_found"})

            def do_POST(self) -> None:
                length = int(self.headers.get("content-length") or 0)
                form = {key: values[0] for key, values in parse_qs(self.rfile.read(length).decode()).items()}
                if self.path == "/token":
                    self.reply(*issuer.token(form, self.headers.get("authorization", "")))
                elif self.path == "/introspect":
                    self.reply(200, issuer.introspect(form.get("token", "")))
                else:
                    self.reply(404, {"error": "not_found"})

            def reply(self, status: int, body: dict[str, Any]) -> None:
                data = json.dumps(body).encode()
                self.send_response(status)
                self.send_header("content-type", "application/json")
                self.send_header("content-length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            def log_message(self, format: str, *args: Any) -> None:
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.server.daemon_threads = True
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}"

    def metadata(self) -> dict[str, Any]:
        return {
            "issuer": self.url,
            "authorization_endpoint": f"{self.url}/authorize",  # required by RFC 8414; unused by this grant
            "token_endpoint": f"{self.url}/token",
            "introspection_endpoint": f"{self.url}/introspect",
            "grant_types_supported": ["client_credentials"],
            "token_endpoint_auth_methods_supported": ["client_secret_basic"],
            "response_types_supported": ["token"],
        }

    def token(self, form: dict[str, str], authorization: str) -> tuple[int, dict[str, Any]]:
        client_id, _, secret = base64.b64decode(authorization.removeprefix("Basic ")).decode().partition(":")
        if client_id not in CLIENTS or secret != CLIENTS[client_id][0]:
            return 401, {"error": "invalid_client"}
        if form.get("grant_type") != "client_credentials":
            return 400, {"error": "unsupported_grant_type"}
        with self.lock:
            self.token_requests.append(
                {"client": client_id, "resource": form.get("resource", ""), "scope": form.get("scope", "")}
            )
        granted = " ".join(sorted(set(form.get("scope", "").split()) & CLIENTS[client_id][1]))
        return 200, self.issue(client_id, form.get("resource"), granted)

    def issue(self, client_id: str, resource: str | None, scope: str) -> dict[str, Any]:
        """A token for `client_id`, issued for `resource` (its audience), with `scope`."""
        token = secrets.token_urlsafe(24)
        claims = {
            "client_id": client_id,
            "sub": client_id,
            "scope": scope,
            "aud": resource,
            "exp": int(time.time()) + 3600,
        }
        with self.lock:
            self.issued[token] = claims
        return {"access_token": token, "token_type": "Bearer", "expires_in": 3600, "scope": scope}

    def introspect(self, token: str) -> dict[str, Any]:
        with self.lock:
            claims = self.issued.get(token)
        return {"active": True, **claims} if claims else {"active": False}

    @contextmanager
    def running(self) -> Iterator[AuthorizationServer]:
        with in_thread(self.server):
            yield self


INTROSPECTING_AUTH = '''\
"""Tokens from the authorization server, checked by introspection (RFC 7662)."""

import os

import httpx2

from ._generated.runtime.transport.tokens import AccessToken, TokenVerifier


class Introspection:
    def __init__(self, endpoint: str) -> None:
        self.endpoint = endpoint

    async def verify_token(self, token: str) -> AccessToken | None:
        async with httpx2.AsyncClient(timeout=5) as http:
            claims = (await http.post(self.endpoint, data={"token": token})).json()
        if not claims.get("active"):
            return None
        return AccessToken(
            token=token,
            client_id=claims["client_id"],
            subject=claims["sub"],
            scopes=claims["scope"].split(),
            expires_at=claims["exp"],
            resource=claims.get("aud"),
        )


def verifier() -> TokenVerifier:
    return Introspection(os.environ["TASKS_INTROSPECTION_URL"])
'''


class Storage:
    """Where the client keeps its tokens: in memory, for one test."""

    def __init__(self) -> None:
        self.tokens: OAuthToken | None = None
        self.client_info: OAuthClientInformationFull | None = None

    async def get_tokens(self) -> OAuthToken | None:
        return self.tokens

    async def set_tokens(self, tokens: OAuthToken) -> None:
        self.tokens = tokens

    async def get_client_info(self) -> OAuthClientInformationFull | None:
        return self.client_info

    async def set_client_info(self, client_info: OAuthClientInformationFull) -> None:
        self.client_info = client_info


@pytest.fixture
def oauth(tmp_path: Path) -> Iterator[tuple[Running, AuthorizationServer]]:
    """The tasks example with the loopback authorization server in its spec and an introspecting auth.py."""
    with AuthorizationServer().running() as issuer:
        project = copy_project(EXAMPLES / "tasks", tmp_path / "tasks")
        spec = project / "failwell.yaml"
        spec.write_text(spec.read_text().replace("https://auth.example.com", issuer.url))
        assert failwell("generate", project).returncode == 0
        (project / "src" / "tasks_mcp" / "auth.py").write_text(INTROSPECTING_AUTH)
        env = {
            "FAILWELL_SQLITE_PATH": str(tmp_path / "tasks.sqlite3"),
            "TASKS_INTROSPECTION_URL": f"{issuer.url}/introspect",
        }
        with http_server("tasks_mcp", project / "src", tmp_path / "stderr.log", env) as running:
            yield running, issuer


@asynccontextmanager
async def signed_in(url: str, issuer: str, client_id: str) -> AsyncIterator[Client]:
    """The real MCP client with the SDK's client_credentials provider: it discovers everything from the 401."""
    secret = CLIENTS[client_id][0]
    provider = ClientCredentialsOAuthProvider(
        server_url=url, storage=Storage(), client_id=client_id, client_secret=secret, issuer=issuer
    )
    async with (
        httpx2.AsyncClient(auth=provider, timeout=30) as http,
        Client(streamable_http_client(url, http_client=http)) as session,
    ):
        yield session


@pytest.mark.anyio
async def test_the_sdk_client_signs_in_through_the_metadata_and_calls_tools(
    oauth: tuple[Running, AuthorizationServer],
) -> None:
    running, issuer = oauth
    async with signed_in(running.url, issuer.url, "nightly-report") as session:
        found = await session.call_tool("tasks_get", {"ref": "T-1"})
        assert not found.is_error, found
        created = await session.call_tool(
            "tasks_create", {"title": "Ship it", "idempotency_key": "oauth-run-0001-create"}
        )
        assert not created.is_error, created
    # The client asked for a token for exactly this server, with the scopes the metadata listed.
    (request,) = issuer.token_requests
    assert request == {"client": "nightly-report", "resource": running.url, "scope": "tasks:read tasks:write"}
    logged = running.logged()
    assert all(token not in logged for token in issuer.issued)


@pytest.mark.anyio
async def test_a_token_without_a_scope_gets_permission_denied_naming_it(
    oauth: tuple[Running, AuthorizationServer],
) -> None:
    running, issuer = oauth
    async with signed_in(running.url, issuer.url, "dashboard") as session:
        assert not (await session.call_tool("tasks_get", {"ref": "T-1"})).is_error
        refused = await session.call_tool(
            "tasks_create", {"title": "Ship it", "idempotency_key": "oauth-run-0002-create"}
        )
    assert refused.is_error
    assert refused.meta is not None and refused.meta["dev.failwell/error"]["scope"] == "tasks:write"


def test_a_token_issued_for_another_server_is_refused(oauth: tuple[Running, AuthorizationServer]) -> None:
    running, issuer = oauth
    elsewhere = issuer.issue("dashboard", "https://other.example.com/mcp", "tasks:read")["access_token"]
    refused = httpx.post(running.url, json=LIST, headers={**ACCEPT, "authorization": f"Bearer {elsewhere}"})
    assert refused.status_code == 401
    assert 'error_description="the bearer token was not issued for this server"' in refused.headers["www-authenticate"]
    here = issuer.issue("dashboard", running.url, "tasks:read")["access_token"]
    accepted = httpx.post(running.url, json=LIST, headers={**ACCEPT, "authorization": f"Bearer {here}"})
    assert accepted.status_code == 200
