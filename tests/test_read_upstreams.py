"""Resources and prompts that read an upstream (issue 26.3), as clients meet them: a generated server in a real
subprocess over stdio, driven by the real `mcp` client, reading a real fake upstream on 127.0.0.1 that answers
200, 503, 429 with Retry-After, or too late. Each failure is a JSON-RPC error with its class's code (-31503,
-31429, -31504, not -32603), the class's retry advice, "Nothing was changed", a reference, and none of the
upstream's words; reads are retried as tools' reads are, and the circuit breaker opens for them too."""

from __future__ import annotations

import sys
from collections.abc import Awaitable, Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from ledger import importable
from mcp import Client, StdioServerParameters
from mcp.shared.exceptions import MCPError
from mcp.types import TextResourceContents

from failwell import new

pytestmark = [pytest.mark.anyio, pytest.mark.slow]

SPEC = """\
failwell: 1
server:
  name: docs
  version: 0.1.0
  description: Documentation of libraries, read from a documentation API.
upstreams:
  docs_api:
    base_url_env: DOCS_API_URL
    timeout_s: 0.5
    retries: 1
    breaker: {failures: 4, reset_s: 60}
resources:
  library:
    uri: "docs://{library}"
    description: The documentation of one library, by its name.
    deadline_s: 3
    upstreams: [docs_api]
    params:
      library: {type: string, pattern: "^[a-z0-9.-]+$", description: The library's name., example: next.js}
prompts:
  explain:
    description: Explain a topic of a library from its documentation.
    deadline_s: 3
    upstreams: [docs_api]
    arguments:
      topic: {type: string, maxLength: 100, description: The topic., example: routing}
"""

RESOURCE = """\
from ..._generated.resources.library import Context, Output, Params


async def handle(params: Params, ctx: Context) -> Output:
    response = await ctx.upstreams.docs_api.get(f"/docs/{params.library}")
    return response.text
"""

PROMPT = """\
from ..._generated.prompts.explain import Context, Output, Params


async def handle(params: Params, ctx: Context) -> Output:
    response = await ctx.upstreams.docs_api.get("/docs/topic", params={"topic": params.topic})
    return f"Explain this: {response.text}"
"""

SECRET_BODY = b'{"error": "pool exhausted at 10.20.30.40, password hunter2"}'


@pytest.fixture(scope="module")
def docs_src(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    root = tmp_path_factory.mktemp("read-upstreams")
    spec = root / "docs.yaml"
    spec.write_text(SPEC)
    project = root / "docs"
    new(project, spec)
    handlers = project / "src" / "docs_mcp" / "handlers"
    (handlers / "resources" / "library.py").write_text(RESOURCE)
    (handlers / "prompts" / "explain.py").write_text(PROMPT)
    with importable(project / "src", "docs_mcp"):
        yield project / "src"


async def failed(call: Awaitable[Any]) -> MCPError:
    with pytest.raises(MCPError) as error:
        await call
    return error.value


def check_failure(error: MCPError, code: int, failure_class: str) -> dict[str, Any]:
    assert error.error.code == code, error.error.message
    data = dict(error.error.data)
    assert data["class"] == failure_class and data["changed"] == "none"
    assert data["reference"].startswith("ERR-")
    assert "Nothing was changed." in error.error.message
    for leak in ("hunter2", "10.20.30.40", "pool exhausted"):
        assert leak not in error.error.message and leak not in repr(data)
    return data


async def exercise(src: Path, read: Callable[[Client], Awaitable[str]]) -> None:
    from docs_mcp._generated.testing import FakeUpstream, Reply

    with FakeUpstream(default=Reply(200, b"The docs.")) as fake:
        env = {"DOCS_API_URL": fake.url, "PYTHONPATH": str(src)}
        params = StdioServerParameters(command=sys.executable, args=["-m", "docs_mcp"], env=env)
        async with Client(params) as session:  # type: ignore[arg-type]
            assert "The docs." in await read(session)

            fake.default = Reply(503, SECRET_BODY)
            sent = len(fake.requests)
            data = check_failure(await failed(read(session)), -31503, "upstream_unavailable")
            assert data["retryable"] is True
            assert len(fake.requests) - sent == 2, "a read is retried once (retries: 1)"

            fake.default = Reply(429, SECRET_BODY, {"retry-after": "30"})
            error = await failed(read(session))
            data = check_failure(error, -31429, "rate_limited")
            assert data["retry_after_s"] == 30
            assert "30 s" in error.error.message

            fake.default = Reply(200, b"The docs again.")
            assert "The docs again." in await read(session)  # a success closes the breaker's count

            fake.default = Reply(200, b"late", delay_s=2.0)
            check_failure(await failed(read(session)), -31504, "timeout")

            fake.default = Reply(503, SECRET_BODY)
            for _ in range(4):  # failures in a row (timeouts and 503s) open the circuit: then nothing is sent
                sent = len(fake.requests)
                data = check_failure(await failed(read(session)), -31503, "upstream_unavailable")
                if len(fake.requests) == sent:
                    break
            else:
                raise AssertionError("the circuit never opened: every read still reached the upstream")
            assert data["retryable"] is True


async def test_a_resource_reads_an_upstream_with_the_classes_of_tools(docs_src: Path) -> None:
    async def read(session: Client) -> str:
        result = await session.read_resource("docs://next.js")
        (contents,) = result.contents
        assert isinstance(contents, TextResourceContents)
        return contents.text

    await exercise(docs_src, read)


async def test_a_prompt_reads_an_upstream_with_the_classes_of_tools(docs_src: Path) -> None:
    async def read(session: Client) -> str:
        result = await session.get_prompt("explain", {"topic": "routing"})
        return str(result.messages[0].content.text)  # type: ignore[union-attr]

    await exercise(docs_src, read)
