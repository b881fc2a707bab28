"""The task board's own tests for `tasks_close`."""

import pytest

from tasks_mcp._generated.testing import call_tool

pytestmark = pytest.mark.anyio


async def test_a_member_cannot_close(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("TASKS_ROLE", "member")
    outcome = await call_tool("tasks_close", {"ref": "T-3"})
    assert outcome.is_error
    assert "needs the tasks:close permission, and your role on this board is member" in outcome.text


async def test_an_admin_closes_once(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("TASKS_ROLE", "admin")
    closed = await call_tool("tasks_close", {"ref": "T-3", "reason": "done"})
    assert not closed.is_error, closed.text
    assert closed.structured["status"] == "closed"
    again = await call_tool("tasks_close", {"ref": "T-3"})
    assert again.is_error
    assert again.text.startswith("T-3 was already closed by the assistant (admin)")
    assert again.envelope["class"] == "conflict"
