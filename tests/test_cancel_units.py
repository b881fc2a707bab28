"""The fast half of issue 24's cancellation and file-limit findings, in process on the tasks example's runtime:
a cancel from a caller without a token stops nothing, hostile notes from the Redis channel are ignored without
raising, cancels that stop nothing make one log line, and the connection budget sheds the oldest incomplete
request. The real-HTTP halves are in test_cancel_owner.py and test_file_limit.py."""

from __future__ import annotations

import json
import logging
import resource
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import anyio
import pytest
from ledger import importable

EXAMPLES = Path(__file__).resolve().parents[1] / "examples"


@pytest.fixture(scope="module")
def runtime() -> Iterator[Any]:
    with importable(EXAMPLES / "tasks" / "src", "tasks_mcp"):
        import tasks_mcp._generated.runtime.calls.inflight
        import tasks_mcp._generated.runtime.setup.config
        import tasks_mcp._generated.runtime.transport.http_limits

        yield tasks_mcp._generated.runtime


def reachable(runtime: Any) -> Any:
    """An InFlight as a server answering stateless HTTP has it: one that a cancel can reach."""
    in_flight = runtime.calls.inflight.InFlight("tasks")
    in_flight.reachable = True
    return in_flight


HOSTILE = [
    "[" * 2_000 + "]" * 2_000,
    "[" * 100_000 + "]" * 100_000,
    '{"caller": {"a": [1]}, "request_id": [], "from": {}}',
    '{"caller": "token:ada", "request_id": "3"}',
    "[1]",
    "null",
    "\ufffd{",
]


@pytest.mark.anyio
async def test_hostile_notes_are_ignored_and_a_real_one_still_applies(runtime: Any) -> None:
    in_flight = reachable(runtime)
    silence = anyio.Event()
    with in_flight.track("token:ada", "3", silence) as scope:
        for note in HOSTILE:
            in_flight._apply(note)  # raises nothing, stops nothing
        assert not scope.cancel_called
        in_flight._apply(json.dumps({"caller": "token:ada", "request_id": "3", "from": "another"}))
        assert scope.cancel_called and silence.is_set()


@pytest.mark.anyio
async def test_a_cancel_without_a_token_stops_nothing(runtime: Any) -> None:
    in_flight = reachable(runtime)
    with in_flight.track(runtime.calls.inflight.ANONYMOUS, "7", anyio.Event()) as scope:
        await in_flight.cancel_anywhere(runtime.calls.inflight.ANONYMOUS, "7", None)
        assert not scope.cancel_called, "nothing proves the cancel came from the call's sender"
    with in_flight.track("token:ada", "7", anyio.Event()) as scope:
        await in_flight.cancel_anywhere("token:bob", "7", None)
        assert not scope.cancel_called
        await in_flight.cancel_anywhere("token:ada", "7", None)
        assert scope.cancel_called


@pytest.mark.anyio
async def test_a_tracked_call_is_forgotten_however_it_ends(runtime: Any) -> None:
    """`InFlight.track` is on every call's path (a small class since issue 32, where it was a generator): a call is
    findable while it runs, two of one key are ambiguous, and one that returned, raised or was cancelled is
    forgotten (a cancel naming it then stops nothing)."""
    in_flight = reachable(runtime)
    with in_flight.track("stdio", "1", anyio.Event()) as first:
        with in_flight.track("stdio", "1", anyio.Event()) as second:
            assert in_flight.cancel("stdio", "1") == "ambiguous"
        assert in_flight.cancel("stdio", "1") == "cancelled"
        await anyio.sleep(0)  # the cancel is delivered here, and the scope swallows it
    assert first.cancelled_caught and not second.cancel_called
    with pytest.raises(KeyError), in_flight.track("stdio", "2", anyio.Event()):
        raise KeyError("the handler's")
    with in_flight.track("stdio", "3", None) as untracked:  # in process: nothing can name it
        assert in_flight.cancel("stdio", "3") == "absent"
    assert not untracked.cancel_called
    assert [in_flight.cancel("stdio", ref) for ref in ("1", "2", "3")] == ["absent"] * 3
    assert not in_flight._calls


def test_cancels_that_stop_nothing_make_one_log_line(runtime: Any, caplog: pytest.LogCaptureFixture) -> None:
    in_flight = reachable(runtime)
    with caplog.at_level(logging.INFO, logger="failwell"):
        for number in range(5_000):
            in_flight.cancel("token:ada", str(number))
    assert [record.getMessage() for record in caplog.records] == ["cancel not applied"]


@pytest.fixture
def soft_limit_256() -> Iterator[None]:
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    resource.setrlimit(resource.RLIMIT_NOFILE, (256, hard))
    try:
        yield
    finally:
        resource.setrlimit(resource.RLIMIT_NOFILE, (soft, hard))


def test_the_connection_budget_is_below_the_open_file_limit(runtime: Any, soft_limit_256: None) -> None:
    limits = runtime.transport.http_limits
    assert limits.connection_budget() == 160
    assert limits.connection_budget(200) == 200
    with pytest.raises(runtime.setup.config.ConfigurationError, match="use a number from 1 to 240"):
        limits.connection_budget(250)


class _Transport:
    def __init__(self) -> None:
        self.closed = False

    def close(self) -> None:
        self.closed = True

    def is_closing(self) -> bool:
        return self.closed


class _Connection:
    def __init__(self, answering: bool) -> None:
        self.answering = answering
        self.transport = _Transport()

    def incomplete(self) -> bool:
        return not self.answering


def test_over_budget_the_oldest_incomplete_request_is_shed(runtime: Any) -> None:
    budget = runtime.transport.http_limits.Connections(3)
    answering, stalled_old, stalled_new, idle = (_Connection(flag) for flag in (True, False, False, False))
    for connection in (answering, stalled_old, stalled_new):
        budget.opened(connection)
    budget.opened(idle)
    assert stalled_old.transport.closed and not answering.transport.closed and not stalled_new.transport.closed
    budget.waiting(stalled_new)  # it answered a request: its next one is the newest waiting
    budget.opened(_Connection(False))
    assert idle.transport.closed and not stalled_new.transport.closed
    assert budget.shed_total == 2


@pytest.mark.anyio
async def test_where_no_cancel_can_come_nothing_is_tracked(runtime: Any) -> None:
    """On stdio and in a stateful session the SDK finds a cancelled call itself: the server's own lookup is off
    (only stateless HTTP turns it on), so a call there registers nothing and no cancel of this lookup finds it."""
    in_flight = runtime.calls.inflight.InFlight("tasks")
    assert not in_flight.reachable
    with in_flight.track("token:ada", "1", anyio.Event()):
        assert not in_flight._calls
        assert in_flight.cancel("token:ada", "1") == "absent"
    in_flight.reachable = True
    with in_flight.track("token:ada", "1", anyio.Event()):
        assert in_flight.cancel("token:ada", "1") == "cancelled"
        await anyio.sleep(0)
    assert not in_flight._calls
