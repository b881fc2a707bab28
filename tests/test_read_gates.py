"""Scopes and the server-wide rate limit gate every read, as they gate tool calls (issue 24, findings 1 and 4).

The tasks example in a real subprocess over streamable HTTP on 127.0.0.1, driven by the real `mcp` client with
real bearer tokens. `tasks_get` needs `tasks:read`, and so do the `task` resource and the `triage` prompt: a
token with no scope, or only `tasks:write`, is refused on `resources/read`, `prompts/get` and
`completion/complete` (-31403, the envelope naming the scope in `data`) and is shown nothing by
`resources/list`, `resources/templates/list` and `prompts/list`; a token with `tasks:read` reads. And one
caller's `resources/read`, `prompts/get` and `resources/list` take tokens from the same 120-a-minute bucket as its
`tools/call`: over the limit they are refused -31429 with how long to wait."""

from __future__ import annotations

import json
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from httpserver import Running, client, http_server
from mcp.shared.exceptions import MCPError
from mcp.types import PromptReference, ResourceTemplateReference, TextResourceContents

from conftest import EXAMPLES

pytestmark = [pytest.mark.slow, pytest.mark.anyio]

SRC = EXAMPLES / "tasks" / "src"
NO_SCOPE = "no-scope-token-3c9e1f7a2b"
WRITE_ONLY = "write-only-token-8d2a6b0e4f"
READER = "reader-token-4b7e2d9c1a"
TOKENS = {
    NO_SCOPE: {"subject": "nemo", "scopes": []},
    WRITE_ONLY: {"subject": "wes", "scopes": ["tasks:write"]},
    READER: {"subject": "ada", "scopes": ["tasks:read"]},
}


@pytest.fixture(scope="module")
def tasks(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Running]:
    tmp_path = tmp_path_factory.mktemp("gates")
    env = {"TASKS_TOKENS": json.dumps(TOKENS), "FAILWELL_SQLITE_PATH": str(tmp_path / "tasks.sqlite3")}
    with http_server("tasks_mcp", SRC, tmp_path / "stderr.log", env) as running:
        yield running


async def refused(call: Any) -> MCPError:
    with pytest.raises(MCPError) as error:
        await call
    return error.value


def assert_scope_refusal(error: MCPError, what: str, granted: str) -> None:
    assert error.error.code == -31403, "permission_denied: an application code, with the envelope in data"
    assert error.error.message.startswith(f"{what} needs the tasks:read scope, which this assistant's token does not")
    assert f"(it grants: {granted})" in error.error.message
    data = error.error.data
    assert data["class"] == "permission_denied" and data["scope"] == "tasks:read" and data["changed"] == "none"
    assert data["reference"].startswith("ERR-")


@pytest.mark.parametrize(("token", "granted"), [(NO_SCOPE, "none"), (WRITE_ONLY, "tasks:write")])
async def test_a_token_without_the_read_scope_reads_nothing(tasks: Running, token: str, granted: str) -> None:
    async with client(tasks.url, token) as session:
        assert_scope_refusal(await refused(session.read_resource("tasks://T-1")), "The task resource", granted)
        prompt = await refused(session.get_prompt("triage", {"ref": "T-1"}))
        assert_scope_refusal(prompt, "The triage prompt", granted)
        asked = {"name": "ref", "value": "T-"}
        completed = await refused(session.complete(ResourceTemplateReference(uri="tasks://{ref}"), asked))
        assert_scope_refusal(completed, "The task resource", granted)
        depth = await refused(session.complete(PromptReference(name="triage"), {"name": "depth", "value": "b"}))
        assert_scope_refusal(depth, "The triage prompt", granted)
        assert (await session.list_resources()).resources == []
        assert (await session.list_resource_templates()).resource_templates == []
        assert (await session.list_prompts()).prompts == []
        # The tool that reads the same data refuses the same token, as it did before.
        tool = await session.call_tool("tasks_get", {"ref": "T-1"})
        assert tool.is_error and tool.meta is not None and tool.meta["dev.failwell/error"]["scope"] == "tasks:read"
    assert "Traceback" not in tasks.logged()


async def test_a_token_with_the_read_scope_reads(tasks: Running) -> None:
    async with client(tasks.url, READER) as session:
        (contents,) = (await session.read_resource("tasks://T-1")).contents
        assert isinstance(contents, TextResourceContents) and json.loads(contents.text)["ref"] == "T-1"
        got = await session.get_prompt("triage", {"ref": "T-1"})
        assert "T-1" in got.messages[0].content.text  # type: ignore[union-attr]
        listed = await session.list_resources()
        assert [each.uri for each in listed.resources] == ["tasks://T-1", "tasks://T-3"]
        templates = await session.list_resource_templates()
        assert [each.uri_template for each in templates.resource_templates] == ["tasks://{ref}"]
        assert [each.name for each in (await session.list_prompts()).prompts] == ["triage"]
        refs = await session.complete(ResourceTemplateReference(uri="tasks://{ref}"), {"name": "ref", "value": "T-"})
        assert refs.completion.values == ["T-1", "T-2", "T-3"]


async def test_the_metadata_lists_the_read_scopes(tasks: Running) -> None:
    import httpx

    document = httpx.get(f"http://127.0.0.1:{tasks.port}/.well-known/oauth-protected-resource/mcp").json()
    assert document["scopes_supported"] == ["tasks:read", "tasks:write"]


REQUESTS = 300


@pytest.mark.parametrize("method", ["resources/read", "prompts/get", "resources/list", "tools/call"])
async def test_reads_obey_the_server_wide_rate_limit(tmp_path: Path, method: str) -> None:
    """300 requests of one kind from one caller at 120 a minute: the bucket's 120, then refusals that say how long
    to wait, on the read channel (-31429, retry_after_s in `data`) for every read."""
    env = {"TASKS_TOKENS": json.dumps(TOKENS), "FAILWELL_SQLITE_PATH": str(tmp_path / "tasks.sqlite3")}
    with http_server("tasks_mcp", SRC, tmp_path / "stderr.log", env) as running:
        async with client(running.url, READER) as session:
            calls = {
                "resources/read": lambda: session.read_resource("tasks://T-1"),
                "prompts/get": lambda: session.get_prompt("triage", {"ref": "T-1"}),
                "resources/list": lambda: session.list_resources(),
                "tools/call": lambda: session.call_tool("tasks_get", {"ref": "T-1"}),
            }
            refusals: list[dict[str, Any]] = []
            started = time.monotonic()
            for _ in range(REQUESTS):
                try:
                    answer = await calls[method]()
                except MCPError as error:
                    assert error.error.code == -31429, error.error.message
                    assert "It allows 120 calls every 60 s." in error.error.message
                    refusals.append(error.error.data)
                    continue
                if method == "tools/call" and answer.is_error:
                    refusals.append(answer.meta["dev.failwell/error"])
            elapsed = time.monotonic() - started
        # The bucket's 120, and what refilled while the 300 were sent (2 a second): the rest are refused.
        admitted = REQUESTS - len(refusals)
        print(f"\n{REQUESTS} {method} from one caller at 120/min: {len(refusals)} refused in {elapsed:.1f} s")
        assert 120 <= admitted <= 120 + 2 * elapsed + 2, (admitted, elapsed)
        assert refusals, "no request of this kind was ever refused"
        for envelope in refusals:
            assert envelope["class"] == "rate_limited" and envelope["retryable"] is True
            assert envelope["retry_after_s"] >= 1
