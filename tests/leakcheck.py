"""Planted secrets, and handlers that carry them, for the leak tests (in-process and over stdio).

A scenario is plain JSON: which tool to call, and whether its handler raises an unexpected
exception (built from secret-laden text, with causes, context, notes and groups) or a declared
failure whose string arguments carry secrets. `canaries` are the substrings that must never reach
a client: passwords, tokens, addresses, hosts, paths, SQL.
"""

from __future__ import annotations

import inspect
import random
import string
from typing import Any

TOOLS_MODULE = "tasks_mcp._generated.tools"
MODULES: dict[str, Any] = {}
"""The tool modules the server under test was built from, by tool (set by an in-process test): a handler raises
their failure classes, whatever another test's copy of the package has since put in `sys.modules`."""


def tool_module(tool: str) -> Any:
    """The module of `tool`'s generated code: the server's own when recorded, else imported."""
    import importlib

    return MODULES.get(tool) or importlib.import_module(f"{TOOLS_MODULE}.{tool}")


TOOLS = ("tasks_close", "tasks_create", "tasks_get", "tasks_search")


def _word(rng: random.Random, size: int = 10, alphabet: str = string.ascii_letters + string.digits) -> str:
    return "".join(rng.choice(alphabet) for _ in range(size))


def secret(rng: random.Random) -> tuple[str, list[str], list[str]]:
    """(text carrying one secret, the canaries no client may see, the subset no log may hold either)."""
    pw = "pw" + _word(rng)
    token = _word(rng, 32)
    ghp = "ghp_" + _word(rng, 36)
    akia = "AKIA" + _word(rng, 16, string.ascii_uppercase + string.digits)
    ip = ".".join(str(rng.randint(1, 254)) for _ in range(4))
    host = f"db-{rng.randint(1, 99)}.{rng.choice(['prod', 'eu', 'core'])}.{rng.choice(['internal', 'local', 'corp'])}"
    folder = rng.choice(["var", "srv", "home", "opt"])
    path = f"/{folder}/{_word(rng, 6)}/{_word(rng, 8)}.{rng.choice(['db', 'py', 'pem'])}"
    table = "t_" + _word(rng, 8, string.ascii_lowercase)
    shapes = [
        (f"postgres://admin:{pw}@{host}:5432/app", [pw, host], [pw]),
        (f"mysql://root:{pw}@{ip}/shop", [pw, ip], [pw]),
        (f"https://svc:{pw}@api.example.com/v1", [pw], [pw]),
        (f"Bearer {token}", [token], [token]),
        (f"Authorization: Bearer {token}", [token], [token]),
        (f"sk_live_{token[:24]}", [token[:24]], [token[:24]]),
        (ghp, [ghp], [ghp]),
        (akia, [akia], [akia]),
        (f"xoxb-{rng.randint(10**9, 10**10)}-{token[:20]}", [token[:20]], [token[:20]]),
        (f"eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiI{token[:10]}.{token[10:30]}", [token[10:30]], [token[10:30]]),
        (f"{ip}:{rng.randint(1, 65535)}", [ip], []),
        (f"fe80::{rng.randint(1, 9999):x}:{rng.randint(1, 9999):x}", ["fe80::"], []),
        (host, [host], []),
        (path, [path], []),
        (f"C:\\Users\\{_word(rng, 6)}\\secrets.txt", ["secrets.txt"], []),
        (f"SELECT * FROM {table} WHERE password = '{pw}'", [table, pw], [pw]),
        (f"password={pw}", [pw], [pw]),
        (f"api_key: {token}", [token], [token]),
        (f'Traceback (most recent call last):\n  File "{path}", line 3', ["Traceback", path], []),
    ]
    return rng.choice(shapes)


def text_with_secrets(rng: random.Random, secrets: list[str]) -> tuple[str, list[str]]:
    """A sentence with one to three secrets among ordinary words; the log-secrets are added to `secrets`."""
    words, canaries = [], []
    for _ in range(rng.randint(1, 3)):
        words.append(rng.choice(["could not reach", "failed at", "retry", "upstream", "see", "for user", "value"]))
        text, found, hidden = secret(rng)
        words.append(text)
        canaries.extend(found)
        secrets.extend(hidden)
    return " ".join(words), canaries


EXCEPTIONS = ("RuntimeError", "ValueError", "KeyError", "OSError", "ConnectionError", "TimeoutError", "PermissionError",
              "LookupError", "AssertionError", "TypeError", "FileNotFoundError", "Custom")  # fmt: skip


def scenario(rng: random.Random) -> dict[str, Any]:
    """One call: its tool, and what its handler raises."""

    tool = rng.choice(TOOLS)
    module = tool_module(tool)
    failures = [
        name
        for name, value in vars(module).items()
        if inspect.isclass(value) and value.__module__ == module.__name__ and hasattr(value, "failure_class")
    ]
    canaries: list[str] = []
    secrets: list[str] = []
    if failures and rng.random() < 0.5:
        name = rng.choice(failures)
        kwargs: dict[str, Any] = {}
        for param in inspect.signature(getattr(module, name)).parameters.values():
            if param.name == "changed":
                continue  # what changed, said by the handler: none of the message's values
            if param.name == "retry_after_s":
                kwargs[param.name] = round(rng.uniform(0.5, 120), 1)
            elif "str" in str(param.annotation):
                kwargs[param.name], found = text_with_secrets(rng, secrets)
                canaries += found
            else:
                kwargs[param.name] = rng.randint(0, 10_000)
        return {"tool": tool, "failure": name, "kwargs": kwargs, "canaries": canaries, "secrets": secrets}
    layers = []
    for _ in range(rng.randint(1, 3)):
        message, found = text_with_secrets(rng, secrets)
        layers.append({"type": rng.choice(EXCEPTIONS), "message": message, "link": rng.choice(["cause", "context"])})
        canaries += found
    note, found = text_with_secrets(rng, secrets)
    canaries += found
    group = rng.random() < 0.2
    return {"tool": tool, "exception": layers, "note": note, "group": group, "canaries": canaries, "secrets": secrets}


class Custom(Exception):
    """An exception type of the application's own, with the secret also kept as an attribute."""

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.dsn = message


def build_exception(plan: dict[str, Any]) -> BaseException:
    import builtins

    error: BaseException | None = None
    for layer in plan["exception"]:
        kind = Custom if layer["type"] == "Custom" else getattr(builtins, layer["type"])
        current = kind(layer["message"])
        if error is not None:
            if layer["link"] == "cause":
                current.__cause__ = error
            else:
                current.__context__ = error
        error = current
    assert error is not None
    error.add_note(plan["note"])
    if plan["group"]:
        return ExceptionGroup("several failures", [error, RuntimeError(plan["note"])])
    return error


def handler_for(plan: dict[str, Any]) -> Any:
    """A handler that raises what the scenario says."""

    async def handle(params: Any, ctx: Any) -> Any:
        if "failure" in plan:
            module = tool_module(plan["tool"])
            raise getattr(module, plan["failure"])(**plan["kwargs"])
        raise build_exception(plan)

    return handle
