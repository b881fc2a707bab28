"""Issue 40 point 7, the smaller things a port needs, over a real stdio subprocess with the real `mcp` client:
`server.tool_order: spec` (tools/list in the spec's order; natural name order by default), resource, template and
prompt titles with spaces published as written, a prompt handler's own description, and `permission_denied` words
that name no role when the failure declares none (the fetch server's robots.txt refusal)."""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

import pytest
from mcp import Client, StdioServerParameters
from mcp.types import CallToolResult
from typer.testing import CliRunner

from failwell import new
from failwell.cli import app

pytestmark = [pytest.mark.anyio]

SPEC = """\
failwell: 1
server:
  name: pages
  version: 0.1.0
  description: Fetches pages a site's robots.txt allows.
  tool_order: spec
tools:
  fetch:
    description: Fetch one page by its URL, such as https://example.com/.
    effect: read
    input:
      url: {type: string, format: uri, description: The page's address., example: "https://example.com/"}
    output:
      text: {type: string, description: The page's text.}
    failures:
      robots_disallow:
        class: permission_denied
        message: >-
          The site's robots.txt does not allow fetching {url}. Ask the user to open the page themselves and
          paste what is needed.
  admin_reset:
    description: Forget every page fetched so far, such as after a change of policy.
    effect: write
    idempotent: true
    failures:
      not_admin:
        class: permission_denied
        message: Only an admin may reset the cache; tell the user to ask one.
  cache_list:
    description: List the addresses of the pages fetched so far.
    effect: read
    output:
      urls: {type: array, items: {type: string}, description: The addresses.}
resources:
  robots:
    uri: "pages://robots"
    title: "Robots rules:  as the site wrote them"
    description: The robots.txt rules in force.
  page:
    uri: "pages://page/{host}"
    title: Cached page of one host
    description: The cached page of one host.
    params:
      host: {type: string, pattern: "^[a-z0-9.-]+$", description: The host., example: example.com}
prompts:
  summarize_page:
    title: Summarize a page, briefly
    description: Summarize one fetched page.
    arguments:
      url: {type: string, description: The page's address., example: "https://example.com/"}
"""

HANDLERS = {
    "fetch.py": """\
from .._generated.tools.fetch import Context, Input, Output, RobotsDisallow


async def handle(params: Input, ctx: Context) -> Output:
    if "private" in params.url:
        raise RobotsDisallow()
    if "policy" in params.url:
        raise RobotsDisallow(permission="robots.txt allow")
    return Output(text="Hello")
""",
    "admin_reset.py": """\
from .._generated.tools.admin_reset import Context, Input, NotAdmin, Output


async def handle(params: Input, ctx: Context) -> Output:
    raise NotAdmin(permission="cache:reset", role="reader")
""",
    "cache_list.py": """\
from .._generated.tools.cache_list import Context, Input, Output


async def handle(params: Input, ctx: Context) -> Output:
    return Output(urls=[])
""",
    "resources/robots.py": """\
from ..._generated.resources.robots import Context, Output, Params


async def handle(params: Params, ctx: Context) -> Output:
    return "User-agent: *"
""",
    "resources/page.py": """\
from ..._generated.resources.page import Context, Output, Params


async def handle(params: Params, ctx: Context) -> Output:
    return "Hello"
""",
    "prompts/summarize_page.py": """\
from ..._generated.prompts.summarize_page import Context, Described, Message, Output, Params


async def handle(params: Params, ctx: Context) -> Output:
    if params.url.endswith("/plain"):
        return "Summarize " + params.url
    return Described(f"Summarize {params.url}, fetched just now", [Message("user", "Summarize " + params.url)])
""",
}


@pytest.fixture(scope="module")
def pages(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("pages")
    spec = root / "pages.yaml"
    spec.write_text(SPEC)
    project = root / "pages"
    new(project, spec)
    for relative, source in HANDLERS.items():
        (project / "src" / "pages_mcp" / "handlers" / relative).write_text(source)
    return project


def stdio(project: Path) -> StdioServerParameters:
    env = {**os.environ, "PYTHONPATH": str(project / "src")}
    return StdioServerParameters(command=sys.executable, args=["-m", "pages_mcp"], env=env)


def text(result: CallToolResult) -> str:
    return "".join(getattr(block, "text", "") for block in result.content)


async def test_tools_are_listed_in_the_spec_order_and_titles_as_written(pages: Path) -> None:
    async with Client(stdio(pages)) as client:
        assert [tool.name for tool in (await client.list_tools()).tools] == ["fetch", "admin_reset", "cache_list"]
        [robots] = (await client.list_resources()).resources
        assert robots.title == "Robots rules:  as the site wrote them"
        [page] = (await client.list_resource_templates()).resource_templates
        assert page.title == "Cached page of one host"
        [prompt] = (await client.list_prompts()).prompts
        assert prompt.title == "Summarize a page, briefly"


async def test_a_prompt_handler_gives_its_own_description_else_the_spec_s(pages: Path) -> None:
    async with Client(stdio(pages)) as client:
        own = await client.get_prompt("summarize_page", {"url": "https://example.com/a"})
        assert own.description == "Summarize https://example.com/a, fetched just now"
        assert [m.content.text for m in own.messages] == ["Summarize https://example.com/a"]  # type: ignore[union-attr]
        plain = await client.get_prompt("summarize_page", {"url": "https://example.com/plain"})
        assert plain.description == "Summarize one fetched page."


async def test_a_refusal_by_policy_names_no_role(pages: Path) -> None:
    async with Client(stdio(pages)) as client:
        refused = await client.call_tool("fetch", {"url": "https://example.com/private"})
        assert refused.is_error
        said = text(refused)
        assert said.startswith("The site's robots.txt does not allow fetching https://example.com/private.")
        assert "role" not in said and "It needs the" not in said, said
        envelope = (refused.meta or {})["dev.failwell/error"]
        assert envelope["class"] == "permission_denied" and "role" not in envelope and "permission" not in envelope
        policy = text(await client.call_tool("fetch", {"url": "https://example.com/policy"}))
        assert "It needs the robots.txt allow permission." in policy and "role" not in policy, policy
        by_role = text(await client.call_tool("admin_reset", {}))
        assert "It needs the cache:reset permission, and the caller's role is reader." in by_role, by_role


def test_failwell_messages_shows_the_words_without_a_role(pages: Path) -> None:
    result = CliRunner().invoke(app, ["messages", str(pages / "failwell.yaml"), "--format", "json"])
    assert result.exit_code == 0, result.output
    [robots] = [row for row in json.loads(result.output) if row["failure"] == "robots_disallow"]
    assert robots["text"] == (
        "The site's robots.txt does not allow fetching https://example.com/. Ask the user to open the page "
        "themselves and paste what is needed. Nothing was changed. Retrying will not help until the permission is "
        "granted."
    )
