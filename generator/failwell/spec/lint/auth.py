"""Scopes and authorization servers."""

from __future__ import annotations

from typing import Any
from urllib.parse import urlsplit

from ...errors import Diagnostic
from ..naming import (
    DEFAULT_TOKENS_ENV,
)
from .common import _Linted

_SCOPED_VERB = {"tools": "call it", "resources": "read or list it", "prompts": "get it"}


def _scopes(doc: _Linted, out: list[Diagnostic], path: tuple[str, str], part: dict[str, Any], auth: Any) -> None:
    """Scopes need `auth` (FW136); with `auth`, every tool, resource and prompt says which scopes it needs, `[]`
    when any token may use it, so none is public by omission (FW160)."""
    kind, name = path
    noun = kind[:-1]
    if part.get("scopes") and not isinstance(auth, dict):
        message = (
            "scopes are checked against the caller's bearer token, and the server has no `auth`; "
            f"add `auth: {{}}` under `server:` (tokens from {DEFAULT_TOKENS_ENV}), or remove `scopes`"
        )
        out.append(doc.diagnostic((*path, "scopes"), "FW136", message, key=True))
    if isinstance(auth, dict) and "scopes" not in part and not doc.is_broken(path):
        message = (
            f"{noun} `{name}` does not say which scopes a token needs to {_SCOPED_VERB[kind]}, and the server has "
            f"`auth`; add `scopes: [...]` naming them (such as `scopes: [{name.split('_')[0]}:read]`), or "
            "`scopes: []` if any valid token may, so that nothing is public by omission"
        )
        out.append(doc.diagnostic(path, "FW160", message, key=True))


def issuer_problem(url: str) -> str | None:
    """What is wrong with an OAuth issuer URL (RFC 8414: https, a host, no query or fragment), or None.
    Plain http is allowed on loopback hosts, for an authorization server run locally while developing."""
    try:
        parts = urlsplit(url)
    except ValueError:  # such as an unclosed IPv6 host, `https://[::1`
        return "is not a valid URL"
    if parts.scheme not in ("https", "http") or not parts.hostname:
        return "is not an absolute https URL"
    if parts.scheme == "http" and parts.hostname not in ("127.0.0.1", "localhost", "::1"):
        return "uses plain http, which only a loopback host may"
    if parts.query or parts.fragment:
        return "has a query or fragment, which an issuer URL may not"
    return None
