"""Your tests for `git_add`: failwell created this file once and never overwrites it."""

from pathlib import Path
from typing import Any

import pytest

from git_mcp._generated.testing import call_tool, settings_in

pytestmark = pytest.mark.anyio


@pytest.mark.xfail(reason="replace with a real test once the handler is implemented", strict=False)
async def test_git_add_answers(tmp_path: Path) -> None:
    arguments: dict[str, Any] = {
        "files": [
            "example",
        ],
        "repo_path": "my-project",
    }
    # The spec's example settings, each file or folder a setting names moved into this test's own tmp_path (and
    # each URL onto 127.0.0.1 port 9): the test writes nothing outside it, and no other test sees its files.
    outcome = await call_tool("git_add", arguments, settings=settings_in(tmp_path))
    assert not outcome.is_error, outcome.text
