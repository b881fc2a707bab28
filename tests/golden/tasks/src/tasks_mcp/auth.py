"""Who may call this server over HTTP. Yours to edit: failwell creates this file once and never overwrites it.

`verifier()` runs once when the server starts with `--http`. Its `verify_token(token)` returns the
token's caller as an `AccessToken` (subject, scopes, expires_at), or None to refuse the request with
HTTP 401. The default accepts the tokens in the TASKS_TOKENS environment variable (see the README);
replace it to check tokens with your identity provider. Keep it fast, and never log a token.

Tokens from the authorization servers in the spec must be issued for this server: set the AccessToken's
`resource` to the token's audience (its `aud` claim), and the server refuses any other with HTTP 401.
The server's own URL is MCP_RESOURCE_URL (or --resource-url). The default's static tokens are exempt.
"""

from ._generated.runtime.transport.tokens import StaticTokens, TokenVerifier
from ._generated.server import SCOPES


def verifier() -> TokenVerifier:
    """The verifier for every HTTP request; a ConfigurationError here stops the server with its message."""
    return StaticTokens.from_env("TASKS_TOKENS", SCOPES)
