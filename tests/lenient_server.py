"""A stdio MCP server written by hand (newline-delimited JSON-RPC, no SDK), lenient the way many are, for the audit's
misses of issue 41 (points 12-14):

- `fetch_page` (read-only, a required `url`): every call fails naming the URL it was given, as a careful server
  should ("Could not fetch http://127.0.0.1:9/ ..."); the audit sent that URL, so it is no leak. With
  `--leak`, the message also names a path of the server's own (`/srv/lenient/fetcher.py`), which is one.
- `get_note` (no annotations, reads by its name): every error is sent as a success (`isError: false`, "Error: ...").
- `delete_note` (no annotations): appends a line to `--calls FILE` when called: never, without --allow-writes.
- an unknown tool, resource or prompt: JSON-RPC code 0 to a client of protocol 2024-11-05 or 2025-03-26, -32603
  to a newer one (`initialize` answers with the version offered, any of 2024-11-05 .. 2025-11-25).
- `--die`: writes a traceback and a planted token on stderr and exits before reading anything.

    python lenient_server.py [--leak] [--calls FILE] [--die]
"""

from __future__ import annotations

import json
import sys

TOKEN = "ghp_" + "Lenient0123456789abcdefghijklmnopqrstu"
VERSIONS = ("2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25")
OLD = ("2024-11-05", "2025-03-26")
OWN_PATH = "/srv/lenient/fetcher.py"


def _text(text: str, error: bool) -> dict[str, object]:
    return {"content": [{"type": "text", "text": text}], "isError": error}


TOOLS = [
    {
        "name": "fetch_page",
        "description": "Fetches a page.",
        "inputSchema": {
            "type": "object",
            "properties": {"url": {"type": "string", "format": "uri"}},
            "required": ["url"],
            "additionalProperties": False,
        },
        "annotations": {"readOnlyHint": True},
    },
    {
        "name": "get_note",
        "description": "Gets a note by its id.",
        "inputSchema": {"type": "object", "properties": {"id": {"type": "string"}}, "required": ["id"]},
    },
    {
        "name": "delete_note",
        "description": "Deletes a note.",
        "inputSchema": {"type": "object", "properties": {"id": {"type": "string"}}, "required": ["id"]},
    },
]


def answer(method: str, params: dict[str, object], options: dict[str, str], version: str) -> tuple[str, object]:
    unknown_code = 0 if version in OLD else -32603
    if method == "initialize":
        offered = str(params.get("protocolVersion"))
        info = {"name": "lenient", "version": "1.0"}
        capabilities = {"tools": {}, "resources": {}, "prompts": {}}
        chosen = offered if offered in VERSIONS else VERSIONS[-1]
        return "result", {"protocolVersion": chosen, "capabilities": capabilities, "serverInfo": info}
    if method == "tools/list":
        return "result", {"tools": TOOLS}
    if method == "resources/list":
        return "result", {"resources": []}
    if method == "resources/templates/list":
        return "result", {"resourceTemplates": []}
    if method == "prompts/list":
        return "result", {"prompts": []}
    if method == "tools/call":
        name, arguments = params.get("name"), params.get("arguments")
        arguments = arguments if isinstance(arguments, dict) else {}
        if name == "fetch_page":
            url = arguments.get("url")
            if not isinstance(url, str):
                return "result", _text("The argument url is required: give the address of the page.", True)
            own = f" (see {OWN_PATH})" if "leak" in options else ""
            said = f"Could not fetch {url}: the connection was refused{own}. Nothing was changed; retry later."
            return "result", _text(said, True)
        if name == "get_note":
            if not isinstance(arguments.get("id"), str):
                return "result", _text("Error: id is required and must be a string", False)
            return "result", _text(f"Error: no note {arguments['id']}", False)
        if name == "delete_note":
            if "calls" in options:
                with open(options["calls"], "a", encoding="utf-8") as calls:
                    calls.write(json.dumps(arguments) + "\n")
            return "result", _text("deleted", False)
        return "error", {"code": unknown_code, "message": f"Unknown tool: {name}"}
    if method == "resources/read":
        return "error", {"code": unknown_code, "message": f"Unknown resource: {params.get('uri')}"}
    if method == "prompts/get":
        return "error", {"code": unknown_code, "message": f"Unknown prompt: {params.get('name')}"}
    if method == "ping":
        return "result", {}
    return "error", {"code": -32601, "message": f"Method not found: {method}"}


def main(argv: list[str]) -> None:
    options: dict[str, str] = {}
    words = list(argv)
    while words:
        word = words.pop(0).removeprefix("--")
        options[word] = words.pop(0) if word == "calls" and words else ""
    if "die" in options:
        sys.stderr.write('Traceback (most recent call last):\n  File "lenient.py", line 1, in <module>\n')
        sys.stderr.write(f"\x1b]52;c;cHduZWQ=\x07KeyError: 'DATABASE_URL' (token {TOKEN})\n")
        sys.stderr.flush()
        sys.exit(1)
    version = VERSIONS[-1]
    for line in sys.stdin:
        try:
            message = json.loads(line)
            method, params, ident = message.get("method"), message.get("params") or {}, message.get("id")
        except (ValueError, AttributeError):
            print(json.dumps({"jsonrpc": "2.0", "id": None, "error": {"code": -32700, "message": "Parse error"}}))
            sys.stdout.flush()
            continue
        if ident is None or not isinstance(params, dict):
            continue
        kind, value = answer(str(method), params, options, version)
        if method == "initialize" and kind == "result" and isinstance(value, dict):
            version = str(value["protocolVersion"])
        print(json.dumps({"jsonrpc": "2.0", "id": ident, kind: value}), flush=True)


if __name__ == "__main__":
    main(sys.argv[1:])
