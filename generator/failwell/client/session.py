"""`failwell tools`, `call`, `read` and `prompt`: the project's server started on stdio as a client starts it, and
spoken to with the official `mcp` client (imported only here, and only when used: a project's environment
has it, being what the server runs on; elsewhere `pip install 'failwell[client]'`)."""

from __future__ import annotations

import json
import sys
import tempfile
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

from ..errors import FailwellError
from .launch import Launch
from .terminal import visible

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
        if exc.error.code == CONNECTION_CLOSED:
            raise  # not the server's answer: _run says whether the server exited, and how
        error = exc.error.model_dump(mode="json", exclude_none=True)
        return {"error": error}
    data: dict[str, Any] = result.model_dump(mode="json", by_alias=True, exclude_none=True)
    return data


_WATCH = (
    "import subprocess, sys\n"
    "try:\n"
    "    code = subprocess.run(sys.argv[2:]).returncode\n"
    "except OSError as exc:\n"
    "    with open(sys.argv[1], 'w') as f: f.write('start:' + exc.__class__.__name__)\n"
    "    sys.exit(127)\n"
    "with open(sys.argv[1], 'w') as f: f.write(str(code))\n"
    "sys.exit(code if code >= 0 else 1)\n"
)
"""Runs the server with the stdio it is given and records its exit status in a file, so a server that ends
before answering is reported with its status (the mcp client does not expose the process)."""
CONNECTION_CLOSED = -32000
"""The code the mcp client gives a request whose connection ended before an answer (not the server's)."""


def _run(server: Launch, action: Callable[[Client], Awaitable[T]]) -> T:
    try:
        import anyio
        from mcp import Client, StdioServerParameters
        from mcp.client.stdio import get_default_environment, stdio_client
        from mcp.shared.exceptions import MCPError
    except ImportError:
        raise FailwellError(
            "this needs the mcp client: run it from the project's environment, or pip install 'failwell[client]'"
        ) from None
    with tempfile.TemporaryDirectory(prefix="failwell-call-") as folder:
        status = Path(folder) / "status"
        params = StdioServerParameters(
            command=sys.executable,
            args=["-c", _WATCH, str(status), server.command, *server.args],
            env={**get_default_environment(), **server.env},
            cwd=str(server.project),
        )
        with (Path(folder) / "stderr").open("w+", encoding="utf-8", errors="replace") as errlog:

            async def session() -> T:
                async with Client(stdio_client(params, errlog=errlog)) as client:
                    return await action(client)

            try:
                return anyio.run(session)
            except Exception as exc:  # the client's task group wraps what went wrong in an ExceptionGroup
                cause = _innermost(exc)
                exited = _exit_status(status)
                if exited is not None and exited.startswith("start:"):
                    raise FailwellError(f"cannot start {server.command} ({exited[6:]})") from None
                answered = isinstance(cause, MCPError) and cause.error.code != CONNECTION_CLOSED
                if exited is not None and not answered:
                    errlog.seek(0)
                    said = [_readable(line) for line in errlog.read().splitlines() if line.strip()]
                    raise FailwellError(
                        f"the server exited (status {exited}) before answering"
                        + (f"; it said: {said[-1]}" if said else "; it wrote nothing on stderr")
                    ) from None
                if isinstance(cause, MCPError):
                    raise FailwellError(
                        f"the server answered a JSON-RPC error {cause.error.code}: {cause.error.message}"
                    ) from None
                if isinstance(cause, OSError):
                    raise FailwellError(f"cannot start {server.command} ({cause.__class__.__name__})") from None
                raise
            finally:
                errlog.seek(0)
                sys.stderr.write(visible(errlog.read()))  # the server's own lines, as a terminal may show them


def _exit_status(status: Path) -> str | None:
    """The exit status the watcher recorded (or `start:<error>` when the command could not start), or None
    while the server had not ended."""
    try:
        return status.read_text(encoding="utf-8").strip() or None
    except OSError:
        return None


def _innermost(exc: BaseException) -> BaseException:
    """The first exception inside (nested) exception groups, or `exc` itself."""
    while isinstance(exc, BaseExceptionGroup) and exc.exceptions:
        exc = exc.exceptions[0]
    return exc


def _readable(line: str) -> str:
    """A stderr line as a person reads it: a JSON log line as its message and reason, anything else as is."""
    try:
        record = json.loads(line)
    except ValueError:
        return line.strip()
    said = record.get("event", record.get("message")) if isinstance(record, dict) else None
    if not isinstance(said, str):
        return line.strip()
    reason = record.get("reason")
    return f"{said}: {reason}" if isinstance(reason, str) else said
