"""`failwell tools`, `call`, `read` and `prompt`: the project's server started on stdio as a client starts it, and
spoken to with the official `mcp` client (imported only here, and only when used: a project's environment
has it, being what the server runs on; elsewhere `pip install 'failwell[client]'`)."""

from __future__ import annotations

import json
from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, Any, TypeVar

from .errors import FailwellError
from .launch import Launch

if TYPE_CHECKING:
    from mcp import Client

T = TypeVar("T")


def parse_arguments(pairs: list[str]) -> dict[str, Any]:
    """`key=value` pairs as tool arguments: a value that reads as JSON is that value (`limit=5`, `tags=["a"]`,
    `done=true`), anything else a string (`ref=T-1`); FailwellError for a pair without `=`."""
    arguments: dict[str, Any] = {}
    for pair in pairs:
        key, sep, value = pair.partition("=")
        if not sep or not key:
            raise FailwellError(f"{pair!r}: write each argument as key=value, such as ref=T-1 or limit=5")
        try:
            arguments[key] = json.loads(value)
        except ValueError:
            arguments[key] = value
    return arguments


def list_tools(server: Launch) -> list[dict[str, Any]]:
    """Every tool the server lists, as JSON data (`name`, `description`, `inputSchema`, `annotations`, ...)."""

    async def action(client: Client) -> list[dict[str, Any]]:
        listed = await client.list_tools()
        return [tool.model_dump(mode="json", by_alias=True, exclude_none=True) for tool in listed.tools]

    return _run(server, action)


def call_tool(server: Launch, tool: str, arguments: dict[str, Any]) -> dict[str, Any]:
    """The result of one call as JSON data (`content`, `isError`, `structuredContent`, `_meta`); FailwellError
    for a JSON-RPC error (an unknown tool), with its message."""

    async def action(client: Client) -> dict[str, Any]:
        result = await client.call_tool(tool, arguments)
        data: dict[str, Any] = result.model_dump(mode="json", by_alias=True, exclude_none=True)
        return data

    return _run(server, action)


def read_resource(server: Launch, uri: str) -> dict[str, Any]:
    """What `resources/read` answers for `uri` as JSON data (`contents`), or `{"error": {code, message, data}}`:
    a read has no isError channel, so its failures are JSON-RPC errors, which are its answer here."""

    async def action(client: Client) -> dict[str, Any]:
        return await _answer_or_error(client.read_resource(uri))

    return _run(server, action)


def get_prompt(server: Launch, name: str, arguments: dict[str, Any]) -> dict[str, Any]:
    """What `prompts/get` answers as JSON data (`messages`), or `{"error": {code, message, data}}`. A prompt's
    arguments are strings on the wire: a value parsed as JSON (`limit=5`) is sent as its text."""
    texts = {key: value if isinstance(value, str) else json.dumps(value) for key, value in arguments.items()}

    async def action(client: Client) -> dict[str, Any]:
        return await _answer_or_error(client.get_prompt(name, texts))

    return _run(server, action)


async def _answer_or_error(request: Awaitable[Any]) -> dict[str, Any]:
    from mcp.shared.exceptions import MCPError

    try:
        result = await request
    except MCPError as exc:
        error = exc.error.model_dump(mode="json", exclude_none=True)
        return {"error": error}
    data: dict[str, Any] = result.model_dump(mode="json", by_alias=True, exclude_none=True)
    return data


def _run(server: Launch, action: Callable[[Client], Awaitable[T]]) -> T:
    try:
        import anyio
        from mcp import Client, StdioServerParameters
        from mcp.client.stdio import get_default_environment
        from mcp.shared.exceptions import MCPError
    except ImportError:
        raise FailwellError(
            "this needs the mcp client: run it from the project's environment, or pip install 'failwell[client]'"
        ) from None
    params = StdioServerParameters(
        command=server.command,
        args=list(server.args),
        env={**get_default_environment(), **server.env},
        cwd=str(server.project),
    )

    async def session() -> T:
        async with Client(params) as client:
            return await action(client)

    try:
        return anyio.run(session)
    except Exception as exc:  # the client's task group wraps what went wrong in an ExceptionGroup
        cause = _innermost(exc)
        if isinstance(cause, MCPError):
            raise FailwellError(
                f"the server answered a JSON-RPC error {cause.error.code}: {cause.error.message}"
            ) from None
        if isinstance(cause, OSError):
            raise FailwellError(f"cannot start {server.command} ({cause.__class__.__name__})") from None
        raise


def _innermost(exc: BaseException) -> BaseException:
    """The first exception inside (nested) exception groups, or `exc` itself."""
    while isinstance(exc, BaseExceptionGroup) and exc.exceptions:
        exc = exc.exceptions[0]
    return exc
