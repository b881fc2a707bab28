"""A server's listings as it sends them: started on stdio with the real `mcp` client (initialize at the newest
2025-era version, `mode="legacy"`: the server answers with the version it speaks), every page of `tools/list`,
`resources/list`, `resources/templates/list` and `prompts/list` followed, and the results taken from the wire
(the audit's `Recorder`), not from the client's models: what a snapshot keeps is what the server sent."""

from __future__ import annotations

import logging
import tempfile
from collections.abc import Mapping, Sequence
from typing import Any

import anyio
from mcp import Client, StdioServerParameters
from mcp.client.stdio import stdio_client
from mcp.shared.exceptions import MCPError

from failwell.audit.run import Recorder, Target, server_environment

KINDS = (
    ("tools", "tools/list", "list_tools", "tools", "tools"),
    ("resources", "resources/list", "list_resources", "resources", "resources"),
    ("resourceTemplates", "resources/templates/list", "list_resource_templates", "resourceTemplates", "resources"),
    ("prompts", "prompts/list", "list_prompts", "prompts", "prompts"),
)
"""(snapshot key, method, client method, result key, the capability that says the server has it)."""
MAX_PAGES = 100
METHOD_NOT_FOUND = -32601
TIMEOUT_S = 60.0


def listings(command: Sequence[str], env: Mapping[str, str], cwd: str | None = None) -> dict[str, Any]:
    """`protocolVersion`, `serverInfo`, `capabilities` and `listings` of the server `command` starts (with `env`
    beside the few variables an audited server gets, `server_environment`). A list whose capability the server
    does not advertise is [] and not asked for; one it advertises but answers -32601 (method not found) is []."""
    return anyio.run(_listings, list(command), dict(env), cwd)


async def _listings(command: list[str], env: dict[str, str], cwd: str | None) -> dict[str, Any]:
    logging.getLogger("mcp.client.stdio").setLevel(logging.CRITICAL)
    recorder = Recorder()
    environment = server_environment(Target(command=command, env=env))
    params = StdioServerParameters(command=command[0], args=command[1:], env=environment, cwd=cwd)
    asked: dict[str, list[Any]] = {key: [] for key, *_ in KINDS}
    with tempfile.TemporaryFile("w+") as errlog:
        try:
            with anyio.fail_after(TIMEOUT_S):
                async with Client(recorder.around(stdio_client(params, errlog=errlog)), mode="legacy") as client:
                    capabilities = client.server_capabilities
                    for key, _method, call, _result, capability in KINDS:
                        if getattr(capabilities, capability, None) is None:
                            continue
                        cursor: str | None = None
                        for _ in range(MAX_PAGES):
                            try:
                                page = await getattr(client, call)(cursor=cursor)
                            except MCPError as refused:
                                if refused.error.code != METHOD_NOT_FOUND:
                                    raise
                                break  # advertised, but not served (a 1.x SDK server's templates): none
                            asked[key].append(page)
                            cursor = page.next_cursor
                            if not cursor:
                                break
        except Exception as error:
            errlog.seek(0)
            tail = errlog.read()[-4000:]
            raise RuntimeError(f"{' '.join(command)} failed ({error!r}); its stderr ended with:\n{tail}") from None
    return _from_wire(recorder.log)


def _from_wire(log: list[dict[str, Any]]) -> dict[str, Any]:
    """The initialize result and each listing's items, in order, from the messages as sent and received."""
    methods: dict[Any, str] = {}
    results: dict[Any, dict[str, Any]] = {}
    order: list[Any] = []
    for entry in log:
        message = entry.get("message")
        if not isinstance(message, dict) or "id" not in message:
            continue
        if entry["direction"] == "sent" and "method" in message:
            methods[message["id"]] = message["method"]
            order.append(message["id"])
        elif entry["direction"] == "received" and "result" in message:
            results[message["id"]] = message["result"]
    initialized = next(results[i] for i in order if methods[i] == "initialize")
    listed: dict[str, list[Any]] = {key: [] for key, *_ in KINDS}
    for key, method, _call, result, _capability in KINDS:
        for request in order:
            if methods[request] == method and request in results:
                listed[key].extend(results[request][result])
    return {
        "protocolVersion": initialized["protocolVersion"],
        "serverInfo": initialized["serverInfo"],
        "capabilities": initialized["capabilities"],
        "listings": listed,
    }
