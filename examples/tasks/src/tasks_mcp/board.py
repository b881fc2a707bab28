"""The task board the handlers work on: in memory, seeded with a few tasks.

The caller's role comes from the TASKS_ROLE environment variable (viewer, member or admin; default
member), the way a real board would take it from the caller's credentials.
"""

from __future__ import annotations

import math
import os
import time
from collections import deque
from dataclasses import dataclass, field
from typing import Literal

Role = Literal["viewer", "member", "admin"]
Status = Literal["open", "closed"]

PERMISSIONS: dict[Role, frozenset[str]] = {
    "viewer": frozenset({"tasks:read"}),
    "member": frozenset({"tasks:read", "tasks:create"}),
    "admin": frozenset({"tasks:read", "tasks:create", "tasks:close"}),
}
MEMBERS = ("@ada", "@grace", "@linus")
OPEN_LIMIT = 25
CREATES_PER_MINUTE = 10


@dataclass
class Task:
    """One task on the board."""

    ref: str
    title: str
    status: Status = "open"
    assignee: str | None = None
    closed_by: str | None = None
    reason: str | None = None


@dataclass
class Board:
    """All tasks, by reference, and the references of tasks closed long ago and archived (they expired)."""

    tasks: dict[str, Task] = field(default_factory=dict)
    archived: set[str] = field(default_factory=set)
    recent_creates: deque[float] = field(default_factory=deque)

    def next_ref(self) -> str:
        return f"T-{len(self.tasks) + 1}"

    def open_count(self) -> int:
        return sum(1 for task in self.tasks.values() if task.status == "open")

    def seconds_until_create_allowed(self, now: float | None = None) -> int:
        """0 when another task may be created now, else how long to wait (a sliding minute)."""
        now = time.monotonic() if now is None else now
        while self.recent_creates and now - self.recent_creates[0] >= 60:
            self.recent_creates.popleft()
        if len(self.recent_creates) < CREATES_PER_MINUTE:
            return 0
        return max(1, math.ceil(60 - (now - self.recent_creates[0])))


def seeded() -> Board:
    """A board with the tasks a demo expects."""
    board = Board(archived={"T-0"})
    for title, assignee in (
        ("Draft the release notes", "@ada"),
        ("Fix the login redirect", "@grace"),
        ("Review the onboarding checklist", None),
    ):
        ref = board.next_ref()
        board.tasks[ref] = Task(ref=ref, title=title, assignee=assignee)
    board.tasks["T-2"].status = "closed"
    board.tasks["T-2"].closed_by = "@grace"
    return board


BOARD = seeded()


def search_index_ready() -> bool:
    """False while the search index is rebuilding (TASKS_SEARCH_INDEX=rebuilding)."""
    return os.environ.get("TASKS_SEARCH_INDEX", "ready") != "rebuilding"


def caller_role() -> Role:
    """The role of whoever is calling, from TASKS_ROLE."""
    role = os.environ.get("TASKS_ROLE", "member")
    return role if role in ("viewer", "member", "admin") else "viewer"  # type: ignore[return-value]
