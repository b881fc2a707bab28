"""`server.settings`: flags and variables that collide with the server's own, placeholders that exist."""

from __future__ import annotations

import difflib
import re
from typing import Any

from ...errors import Diagnostic
from .. import messages, setting_kinds
from ..naming import (
    DEFAULT_TOKENS_ENV,
    setting_env,
    setting_flag,
)
from .common import _Linted
from .fields import _field

SERVER_FLAGS = frozenset(
    {"-h", "--help", "--http", "--host", "--port", "--path", "--allowed-hosts", "--allowed-origins", "--stateful",
     "--max-connections", "--resource-url"}
)  # fmt: skip
"""The flags the generated command line takes itself (`runtime/cli.py`)."""
SERVER_ENV = frozenset(
    {"LOG_LEVEL", "MCP_HOST", "MCP_PORT", "MCP_PATH", "MCP_ALLOWED_HOSTS", "MCP_ALLOWED_ORIGINS", "MCP_STATEFUL",
     "MCP_MAX_CONNECTIONS", "MCP_RESOURCE_URL", "FAILWELL_SQLITE_PATH"}
)  # fmt: skip
"""The environment variables the generated server reads itself (besides the spec's own)."""
_SETTING_PLACEHOLDER = re.compile(r"\{settings\.([^{}]*)\}")


def _settings(doc: _Linted, out: list[Diagnostic], server: dict[str, Any], upstreams: dict[str, Any]) -> None:
    """`server.settings`: each one's constraints as a field's, flags and variables taken once, and every
    `{settings.<name>}` of a description naming a declared setting that is not a secret."""
    specs = setting_kinds.declared(server.get("settings"))
    name = str(server["name"]) if isinstance(server.get("name"), str) else "server"
    taken: dict[str, str] = {flag: "the server itself" for flag in SERVER_FLAGS}
    taken.update((env, "the server itself") for env in SERVER_ENV)
    auth = server.get("auth") if isinstance(server.get("auth"), dict) else {}
    assert isinstance(auth, dict)
    taken[str(auth.get("tokens_env", DEFAULT_TOKENS_ENV))] = "the server's bearer tokens"
    taken[str(server.get("redis_url_env", "REDIS_URL"))] = "the server's Redis store"
    for upstream, spec in upstreams.items():
        if isinstance(spec, dict) and isinstance(spec.get("base_url_env"), str):
            taken[spec["base_url_env"]] = f"the `{upstream}` upstream"
    for setting, spec in specs.items():
        path = ("server", "settings", setting)
        if not isinstance(spec, dict) or doc.is_broken(path, below=False):
            continue
        if setting.startswith("model_"):
            message = f"setting `{setting}`: names starting with model_ are pydantic's own; rename it"
            out.append(doc.diagnostic(path, "FW193", message, key=True))
        if spec.get("required") is True and "default" in spec:
            message = f"setting `{setting}` is required and has a default, so it is never missing; drop one of them"
            out.append(doc.diagnostic((*path, "required"), "FW193", message))
        respelled = setting_kinds.spellings(server)
        for key, value in (("flag", setting_flag(setting, spec)), ("env", setting_env(name, setting, spec))):
            own = value.removeprefix("--") if value in setting_kinds.OWN_FLAGS else ""
            if not value or (own and respelled.get(own)):
                continue  # a positional setting without a flag; failwell's own flag spelled as the original's
            if value in taken:
                message = (
                    f"setting `{setting}` is read from {value}, which {taken[value]} already takes; "
                    f"give it another `{key}`"
                )
                if own:
                    spelled = "--transport sse" if own == "http" else f"--sse-{own}"
                    message += (
                        f", or spell the server's own {value} as the original server does with "
                        f"`server.transport_flags` ({own}: {spelled}, say)"
                    )
                out.append(doc.diagnostic((*path, key) if key in spec else path, "FW190", message, key=key not in spec))
            else:
                taken[value] = f"setting `{setting}`"
        if spec.get("type") != "json" or isinstance(spec.get("schema"), dict):  # else FW194 says what is missing
            _field(doc, out, path, {**setting_kinds.field(spec), **{k: v for k, v in spec.items() if k == "required"}})
    out.extend(setting_kinds.lint(doc, server, taken))
    for kind in ("tools", "resources", "prompts"):
        parts = doc.data.get(kind) if isinstance(doc.data.get(kind), dict) else {}
        assert isinstance(parts, dict)
        for part, spec in parts.items():
            text = spec.get("description") if isinstance(spec, dict) else None
            if not isinstance(text, str) or doc.is_broken((kind, part, "description")):
                continue
            for wanted in _SETTING_PLACEHOLDER.findall(text):
                where = (kind, part, "description")
                if wanted not in specs:
                    near = difflib.get_close_matches(wanted, list(specs), n=1)
                    listed = f"; the settings are {', '.join(specs)}" if specs else "; declare it under server.settings"
                    hint = f"; did you mean {{settings.{near[0]}}}?" if near else listed
                    out.append(doc.diagnostic(where, "FW191", f"{{settings.{wanted}}} names no setting{hint}"))
                elif isinstance(specs[wanted], dict) and specs[wanted].get("secret"):
                    message = (
                        f"{{settings.{wanted}}} would publish a secret setting in a description every client "
                        "lists; leave it out"
                    )
                    out.append(doc.diagnostic(where, "FW192", message))
                elif messages.secret_named(wanted):
                    message = (
                        f"{{settings.{wanted}}} is named like a secret, so every client would list `[redacted]` in "
                        f"its place; leave it out, and mark the setting `secret: true` if it holds one"
                    )
                    out.append(doc.diagnostic(where, "FW192", message))
