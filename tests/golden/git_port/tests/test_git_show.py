"""Your tests for `git_show`: failwell created this file once and never overwrites it."""

from typing import Any

import pytest

from git_mcp._generated.testing import call_tool

pytestmark = pytest.mark.anyio


@pytest.mark.xfail(reason="replace with a real test once the handler is implemented", strict=False)
async def test_git_show_answers() -> None:
    arguments: dict[str, Any] = {
        "repo_path": "my-project",
        "revision": "HEAD",
    }
    outcome = await call_tool("git_show", arguments)
    assert not outcome.is_error, outcome.text
