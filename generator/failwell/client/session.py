"""`failwell tools`, `call`, `read` and `prompt`: the project's server started on stdio as a client starts it, and
spoken to with the official `mcp` client (imported only here, and only when used: a project's environment
has it, being what the server runs on; elsewhere `pip install 'failwell[client]'`)."""

from __future__ import annotations

import json
import sys
import tempfile
from collections.abc import Awaitable, Callable, Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

from ..errors import FailwellError
from .launch import Launch
from .terminal import visible

if TYPE_CHECKING:
    from mcp import Client

T = TypeVar("T")


def split_pairs(pairs: Sequence[str]) -> dict[str, str]:
    """`key=value` pairs as the text of each value; FailwellError for a pair without `=`."""
    texts: dict[str, str] = {}
    for pair in pairs:
        key, sep, value = pair.partition("=")
        if not sep or not key:
            raise FailwellError(f"{pair!r}: write each argument as key=value, such as ref=T-1 or limit=5")
        texts[key] = value
    return texts


_JSON_TYPES: tuple[tuple[type, str], ...] = (
    (bool, "boolean"),
    (int, "integer"),
    (float, "number"),
    (str, "string"),
    (list, "array"),
    (dict, "object"),
    (type(None), "null"),
)


def _json_type(value: Any) -> str:
    return next(name for kind, name in _JSON_TYPES if isinstance(value, kind))


def _types(schema: Any, root: Mapping[str, Any], depth: int = 0) -> set[str]:
    """The JSON types `schema` allows (`type`, the members of `anyOf`/`oneOf`, an `enum`'s or `const`'s values,
    a local `$ref`), `integer` counted as a `number` too; empty when it says nothing of its type."""
    if not isinstance(schema, Mapping) or depth > 8:
        return set()
    ref = schema.get("$ref")
    if isinstance(ref, str) and ref.startswith("#/"):
        target: Any = root
        for part in ref[2:].split("/"):
            target = target.get(part) if isinstance(target, Mapping) else None
        return _types(target, root, depth + 1)
    kinds = schema.get("type")
    found = (
        {kinds}
        if isinstance(kinds, str)
        else {k for k in kinds if isinstance(k, str)}
        if isinstance(kinds, list)
        else set()
    )
    if "const" in schema:
        found.add(_json_type(schema["const"]))
    if isinstance(schema.get("enum"), list):
        found.update(_json_type(option) for option in schema["enum"])
    for key in ("anyOf", "oneOf"):
        for member in schema.get(key) or []:
            member_types = _types(member, root, depth + 1)
            if not member_types:
                return set()  # a member that takes anything: the union says nothing of the type
            found |= member_types
    if "integer" in found:
        found.add("number")
    return found


def coerce_arguments(texts: Mapping[str, str], schema: Any) -> tuple[dict[str, Any], list[str]]:
    """The arguments `texts` (`key` -> the text after `=`) as a tool whose input schema is `schema` takes them,
    and a note for each value that could be read two ways. A property that takes only strings gets the text as
    it is (`query=2024` is "2024"); one that takes no string gets the text read as JSON (`limit=5`, `done=true`,
    `tags=["a"]`); a union with a string, or a property the schema does not type, gets the text read as JSON when
    it reads as a value of another type it takes, else the text, noted when both were possible."""
    root: Mapping[str, Any] = schema if isinstance(schema, Mapping) else {}
    properties = root.get("properties")
    properties = properties if isinstance(properties, Mapping) else {}
    arguments: dict[str, Any] = {}
    notes: list[str] = []
    for key, text in texts.items():
        allowed = _types(properties.get(key), root)
        try:
            parsed: Any = json.loads(text)
        except ValueError:
            arguments[key] = text  # not JSON: the text, whatever the schema (the server says what it takes)
            continue
        kind = _json_type(parsed)
        if allowed == {"string"} or (allowed and "string" in allowed and kind not in allowed):
            arguments[key] = text
        elif not allowed or "string" in allowed:
            arguments[key] = parsed
            if kind != "string" and key in properties:
                said = f"a string or {_json_type_phrase(allowed - {'string'})}" if allowed else "any type"
                sent = "null" if parsed is None else f"the {kind} {json.dumps(parsed)}"
                notes.append(
                    f"{key}={text} is sent as {sent} (its schema takes {said}); "
                    f"write {key}='{json.dumps(text)}' to send the text"
                )
        else:
            arguments[key] = parsed
    return arguments, notes


def _json_type_phrase(kinds: set[str]) -> str:
    kinds = kinds - {"number"} if "integer" in kinds else kinds
    names = sorted(f"an {kind}" if kind[0] in "aeiou" else f"a {kind}" for kind in kinds)
    return " or ".join(names) or "a value"


def list_tools(server: Launch, *, verbose: bool = False) -> list[dict[str, Any]]:
    """Every tool the server lists, as JSON data (`name`, `description`, `inputSchema`, `annotations`, ...)."""

    async def action(client: Client) -> list[dict[str, Any]]:
        return await _listed(client)

    return _run(server, action, verbose=verbose)


async def _listed(client: Client) -> list[dict[str, Any]]:
    tools: list[dict[str, Any]] = []
    cursor: str | None = None
    for _ in range(100):  # at most 100 pages
        listed = await client.list_tools(cursor=cursor)
        tools.extend(tool.model_dump(mode="json", by_alias=True, exclude_none=True) for tool in listed.tools)
        cursor = listed.next_cursor
        if not cursor:
            break
    return tools


def call_tool(
    server: Launch,
    tool: str,
    texts: Mapping[str, str],
    *,
    verbose: bool = False,
    note: Callable[[str], None] = lambda line: None,
) -> dict[str, Any]:
    """The result of one call as JSON data (`content`, `isError`, `structuredContent`, `_meta`), its arguments
    `texts` read by the tool's input schema from `tools/list` (`coerce_arguments`, each note given to `note`);
    FailwellError for a JSON-RPC error (an unknown tool), with its message."""

    async def action(client: Client) -> dict[str, Any]:
        schema: Any = {}
        if texts:
            schema = next((t.get("inputSchema") for t in await _listed(client) if t.get("name") == tool), {})
        arguments, notes = coerce_arguments(texts, schema)
        for line in notes:
            note(line)
        result = await client.call_tool(tool, arguments)
        data: dict[str, Any] = result.model_dump(mode="json", by_alias=True, exclude_none=True)
        return data

    return _run(server, action, verbose=verbose)


def read_resource(server: Launch, uri: str, *, verbose: bool = False) -> dict[str, Any]:
    """What `resources/read` answers for `uri` as JSON data (`contents`), or `{"error": {code, message, data}}`:
    a read has no isError channel, so its failures are JSON-RPC errors, which are its answer here."""

    async def action(client: Client) -> dict[str, Any]:
        return await _answer_or_error(client.read_resource(uri))

    return _run(server, action, verbose=verbose)


def get_prompt(server: Launch, name: str, texts: Mapping[str, str], *, verbose: bool = False) -> dict[str, Any]:
    """What `prompts/get` answers as JSON data (`messages`), or `{"error": {code, message, data}}`. A prompt's
    arguments are strings on the wire (its listing gives them no other type): each is sent as the text given
    (`amount=1.50` is "1.50")."""

    async def action(client: Client) -> dict[str, Any]:
        return await _answer_or_error(client.get_prompt(name, dict(texts)))

    return _run(server, action, verbose=verbose)


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


SHOWN_ON_FAILURE = 20
"""The server's last stderr lines shown when it could not be spoken to (all of them with `--verbose`)."""


def _run(server: Launch, action: Callable[[Client], Awaitable[T]], *, verbose: bool = False) -> T:
    """`action` on a client session with the server started on stdio. The server's stderr (its log lines) is
    shown on this stderr with `verbose`, else only its last lines when the session failed."""
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

            failed = True
            try:
                answer = anyio.run(session)
                failed = False
                return answer
            except Exception as exc:  # the client's task group wraps what went wrong in an ExceptionGroup
                cause = _innermost(exc)
                exited = _exit_status(status)
                if exited is not None and exited.startswith("start:"):
                    raise FailwellError(f"cannot start {server.command} ({exited[6:]})") from None
                answered = isinstance(cause, MCPError) and cause.error.code != CONNECTION_CLOSED
                failed = not answered
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
                if verbose or failed:
                    errlog.seek(0)
                    lines = errlog.read().splitlines(keepends=True)
                    sys.stderr.write(visible("".join(lines if verbose else lines[-SHOWN_ON_FAILURE:])))


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
