"""An OpenAPI document served by FastMCP's `FastMCP.from_openapi` over stdio, for bench/openapi_fastmcp.py: run
with the Python of bench/.venv-fastmcp (FastMCP is not one of failwell's dependencies), never imported.

    python openapi_fastmcp_server.py DOCUMENT.json BASE_URL FACTS.json CLIENT.json

It builds an httpx2 client on BASE_URL with the headers, query parameters and cookies of CLIENT.json (the
credentials a FastMCP user passes to their client: `from_openapi` reads no security scheme), hands it and the
document to `FastMCP.from_openapi` with its defaults, writes FACTS.json (the FastMCP version, each tool's
operation and parameter map, the warnings FastMCP logged while reading, or the reason it refused the document)
and serves the tools on stdio until stdin closes."""

from __future__ import annotations

import json
import logging
import sys
import traceback
from pathlib import Path
from typing import Any


class Collect(logging.Handler):
    """Every warning or error FastMCP logs while it reads the document."""

    def __init__(self) -> None:
        super().__init__(logging.WARNING)
        self.lines: list[str] = []

    def emit(self, record: logging.LogRecord) -> None:
        self.lines.append(f"{record.levelname}: {record.getMessage()[:400]}")


def refusal(error: Exception) -> str:
    """One line saying why: openapi-pydantic's deepest error (where, what, the value refused) and how many."""
    errors = getattr(error.__cause__, "errors", None)
    if callable(errors):
        found = errors()
        if found:
            first = max(found, key=lambda e: len(e.get("loc", ())))  # the deepest: a union's other branches fail early
            where = ".".join(str(part) for part in first.get("loc", ()))
            value = json.dumps(first.get("input"), default=str)
            value = value if len(value) <= 100 else value[:99] + "…"
            return f"openapi-pydantic finds {len(found)} errors, one at {where}: {first.get('msg')} (given {value})"
    return f"{type(error).__name__}: {str(error)[:600]}"


def main(argv: list[str]) -> int:
    document_path, base_url, facts_path, client_path = argv
    import fastmcp
    import httpx2
    from fastmcp import FastMCP

    facts: dict[str, Any] = {"fastmcp": fastmcp.__version__, "accepted": False}
    collect = Collect()
    logging.getLogger("fastmcp").addHandler(collect)
    document = json.loads(Path(document_path).read_text())
    client_facts = json.loads(Path(client_path).read_text())
    client = httpx2.AsyncClient(
        base_url=base_url,
        headers=client_facts.get("headers") or {},
        params=client_facts.get("params") or {},
        cookies=client_facts.get("cookies") or {},
        timeout=30.0,  # the client `from_openapi` makes itself when given none
    )
    try:
        server = FastMCP.from_openapi(document, client=client, name="corpus")
    except Exception as error:  # the refusal, recorded: the bench reports it as the document not accepted
        facts["refusal"] = refusal(error)
        facts["traceback"] = traceback.format_exc()[-2000:]
        facts["warnings"] = collect.lines
        Path(facts_path).write_text(json.dumps(facts, indent=1))
        return 3
    tools: list[dict[str, Any]] = []
    for provider in server.providers:
        for tool in getattr(provider, "_tools", {}).values():
            route = tool._route
            tools.append(
                {
                    "name": tool.name,
                    "method": route.method.upper(),
                    "path": route.path,
                    "parameter_map": route.parameter_map,
                }
            )
    facts.update(accepted=True, tools=tools, warnings=collect.lines)
    Path(facts_path).write_text(json.dumps(facts, indent=1))
    logging.getLogger("fastmcp").removeHandler(collect)
    server.run(transport="stdio", show_banner=False)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
