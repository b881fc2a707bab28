"""Every sentence a keyed write's answer ends with is true in every state its key can reach.

Each keyed outcome is walked over a real stdio subprocess with the real `mcp` client and a real SQLite
file: an upstream that times out after the change was sent (a real HTTP server on 127.0.0.1 that applies
the change and answers too late), a handler past its deadline that finishes within its grace period or
outlives it, a client's cancel, a SIGKILL of the server mid-run, and a store that cannot record the
outcome; each for a tool that refuses a key whose outcome is unknown, one that is `rerun_safe`, and one
whose handler module has `reconcile`. The first answer's promise (its last sentence, and the envelope's
`retryable`, `retry_after_s` and `changed`) is read, the retry with the same key is sent when the answer
says, and what the retry really gets must be what was promised."""

from __future__ import annotations

import asyncio
import contextlib
import os
import signal
import sqlite3
import subprocess
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import anyio
import pytest
from ledger import Ledger, importable
from mcp import Client, StdioServerParameters

pytestmark = [pytest.mark.slow, pytest.mark.anyio]

POLICIES = ("refuse", "rerun", "reconcile")

SPEC = """\
failwell: 1
server:
  name: promises
  store: sqlite
upstreams:
  hub: {base_url_env: HUB_URL, timeout_s: 0.5, retries: 0}
tools:
  promises_count:
    description: Count the changes the keyed writes applied.
    effect: read
    output:
      done: {type: integer}
"""
TOOL = """\
  promises_{policy}:
    description: Apply one change, once per idempotency key; `how` says what goes wrong on its first run.
    effect: write
    idempotency: required
    check_with: promises_count{rerun}
    deadline_s: 2
    upstreams: [hub]
    input:
      how: {{enum: [grace, past, upstream, hang, crash, declared, locked], example: grace}}
    output:
      run: {{type: integer}}
"""
HANDLER = """\
import asyncio
import contextlib
import logging
import os
import sqlite3
import threading
from pathlib import Path

from .._generated.tools.promises_{policy} import Context, Input, Output


def _lines() -> list[str]:
    journal = Path(os.environ["PROMISES_JOURNAL"])
    return journal.read_text().splitlines() if journal.exists() else []


def _note(line: str) -> None:
    with open(os.environ["PROMISES_JOURNAL"], "a") as journal:
        journal.write(line + "\\n")


class _GaveUp(logging.Handler):  # sees the runtime's own log line saying it gave up recording an outcome

    def __init__(self) -> None:
        super().__init__()
        self.seen = threading.Event()

    def emit(self, record: logging.LogRecord) -> None:
        if record.getMessage().startswith("the outcome could not be recorded"):
            self.seen.set()


def _lock_the_store_until_recording_fails() -> None:
    # Another connection holds the store's SQLite file with an exclusive lock from now until the runtime has
    # given up recording this run (every attempt waited out its busy timeout), then lets go.
    gave_up = _GaveUp()
    logging.getLogger("failwell").addHandler(gave_up)
    locked = threading.Event()

    def hold() -> None:
        db = sqlite3.connect(os.environ["FAILWELL_SQLITE_PATH"], isolation_level=None, check_same_thread=False)
        db.execute("BEGIN EXCLUSIVE")
        locked.set()
        gave_up.seen.wait(300)
        db.execute("ROLLBACK")
        db.close()
        _note("released")

    threading.Thread(target=hold, daemon=True).start()
    locked.wait(60)


async def handle(params: Input, ctx: Context) -> Output:
    key = params.idempotency_key
    earlier = _lines().count(f"start {{key}}")
    _note(f"start {{key}}")
    Path(os.environ["PROMISES_PID"]).write_text(str(os.getpid()))
    if earlier == 0:  # what goes wrong, on the first run only (a second run is a rerun or follows a reconcile)
        if params.how == "grace":
            await asyncio.sleep(3)  # past the 2 s deadline, within the 2 s grace
        elif params.how in ("past", "hang"):
            await asyncio.sleep(60)
        elif params.how == "upstream":
            await ctx.upstreams.hub.post("/entries", json={{"amount": 1}})  # applied there, answered too late
        elif params.how == "locked":  # the store cannot record what this run did
            _lock_the_store_until_recording_fails()
        elif params.how == "crash":
            raise RuntimeError("the handler broke mid-way")  # a fault it did not declare: internal
        elif params.how == "declared":  # its declared failure that may have changed something (promises_reconcile)
            from .._generated.tools.promises_{policy} import HubDown  # type: ignore[attr-defined]

            raise HubDown()
    _note(f"done {{key}}")
    return Output(run=earlier + 1)
"""
HUB_DOWN = """\
    failures:
      hub_down:
        class: upstream_unavailable
        message: The hub refused the change for now. Call promises_count to see what was applied, then try again.
"""
"""A declared failure that may have changed something, on the tool whose handler module has `reconcile`."""
RECONCILE = """\


async def reconcile(params: Input, ctx: Context) -> Output | None:
    lines = _lines()
    if f"done {params.idempotency_key}" in lines:
        return Output(run=lines.count(f"start {params.idempotency_key}"))
    return None
"""
COUNT = """\
import os
from pathlib import Path

from .._generated.tools.promises_count import Context, Input, Output


async def handle(params: Input, ctx: Context) -> Output:
    journal = Path(os.environ["PROMISES_JOURNAL"])
    lines = journal.read_text().splitlines() if journal.exists() else []
    return Output(done=sum(line.startswith("done ") for line in lines))
"""

PROMISES: dict[str, frozenset[str]] = {
    # What each retry sentence lets the retry with the same key get: its `result` (a success, the first run's or
    # a rerun's), `unknown` (refused: the outcome is unknown), or `waiting` (refused: still running, come back).
    "to get its result, or to be told its outcome is unknown if it did not finish": frozenset({"result", "unknown"}),
    "that retry checks whether the change took effect and applies it only if not": frozenset({"result"}),
    "that retry runs it again": frozenset({"result"}),
    "A retry with the same idempotency_key will not run it again": frozenset({"unknown"}),
    "Retry with the same idempotency_key: it checks whether the change took effect": frozenset({"result"}),
    "Retry with the same idempotency_key: the change is deduplicated downstream": frozenset({"result"}),
    "The same idempotency_key gets this answer again.": frozenset({"unknown"}),
    "it then answers with that call's result, or says what became of it": frozenset({"result", "unknown"}),
    # The wording this test replaced: it promised the result whatever had become of the run.
    "It may still finish in the next few seconds: retry with the same idempotency_key to get its result": frozenset(
        {"result", "waiting"}
    ),
    "Retry with the same idempotency_key in": frozenset({"result", "waiting"}),
}


@dataclass(frozen=True)
class Answer:
    is_error: bool
    text: str
    envelope: dict[str, Any]
    structured: Any

    @property
    def kind(self) -> str:
        if not self.is_error:
            return "result"
        return {"idempotency_key_outcome_unknown": "unknown", "idempotency_key_in_progress": "waiting"}.get(
            self.envelope.get("failure", ""), f"other:{self.envelope.get('failure')}"
        )

    def promise(self) -> frozenset[str]:
        """What this answer's last sentence lets the retry get: exactly one promise sentence, or none for a success."""
        found = [kinds for sentence, kinds in PROMISES.items() if sentence in self.text]
        assert found, f"no promise about the retry with the same key in: {self.text}"
        return found[0]


def answer_of(result: Any) -> Answer:
    text = "\n".join(block.text for block in result.content if getattr(block, "text", None) is not None)
    envelope = dict((result.meta or {}).get("dev.failwell/error") or {})
    return Answer(bool(result.is_error), text, envelope, result.structured_content)


@pytest.fixture(scope="module")
def src(tmp_path_factory: pytest.TempPathFactory) -> Path:
    from failwell import new

    root = tmp_path_factory.mktemp("promises")
    spec = root / "promises.yaml"
    tools = "".join(TOOL.format(policy=p, rerun="\n    rerun_safe: true" if p == "rerun" else "") for p in POLICIES)
    optional = TOOL.format(policy="maybe", rerun="").replace("idempotency: required", "idempotency: optional")
    tools = tools.replace(
        TOOL.format(policy="reconcile", rerun=""), TOOL.format(policy="reconcile", rerun="") + HUB_DOWN
    )
    spec.write_text(SPEC + tools + optional)
    new(root / "promises", spec)
    handlers = root / "promises" / "src" / "promises_mcp" / "handlers"
    for policy in (*POLICIES, "maybe"):
        source = HANDLER.format(policy=policy) + (RECONCILE if policy == "reconcile" else "")
        (handlers / f"promises_{policy}.py").write_text(source)
    (handlers / "promises_count.py").write_text(COUNT)
    return root / "promises" / "src"


@pytest.fixture
def hub() -> Iterator[Ledger]:
    with Ledger(dedup=False, delay_s=2).running() as ledger:  # applies each POST, then answers after 2 s
        yield ledger


class Project:
    """The generated server's environment for one test: its SQLite file, the handlers' journal, the upstream."""

    def __init__(self, src: Path, folder: Path, hub: Ledger) -> None:
        self.src = src
        self.client: Client | None = None
        """The session the calls go through, one server process, as a real client keeps it."""
        self.journal = folder / "journal.txt"
        self.pid = folder / "pid"
        self.env = {
            **os.environ,
            "PYTHONPATH": str(src),
            "FAILWELL_SQLITE_PATH": str(folder / "records.sqlite3"),
            "PROMISES_JOURNAL": str(self.journal),
            "PROMISES_PID": str(self.pid),
            "HUB_URL": hub.url,
        }

    def params(self) -> StdioServerParameters:
        return StdioServerParameters(command=sys.executable, args=["-m", "promises_mcp"], env=self.env)

    def lines(self) -> list[str]:
        return self.journal.read_text().splitlines() if self.journal.exists() else []

    async def started(self, key: str) -> None:
        with anyio.fail_after(20):
            while f"start {key}" not in self.lines():
                await anyio.sleep(0.02)

    async def call(self, tool: str, arguments: dict[str, Any]) -> Answer:
        assert self.client is not None
        with anyio.fail_after(30):
            return answer_of(await self.client.call_tool(tool, arguments))


async def follow(project: Project, tool: str, arguments: dict[str, Any], first: Answer) -> list[tuple[Answer, Answer]]:
    """Retry with the same key as each answer says (after its `retry_after_s`), checking each promise against what
    the retry gets, until a result or an unknown outcome said twice; returns the (answer, its retry) pairs."""
    pairs: list[tuple[Answer, Answer]] = []
    answer = first
    for _ in range(5):
        if answer.kind == "result":
            break
        promise = answer.promise()
        envelope = answer.envelope
        assert envelope["retryable"] == (promise != {"unknown"}), (
            f"`retryable` says {envelope['retryable']} but the text promises {sorted(promise)}: {answer.text}"
        )
        if not envelope["retryable"]:
            assert envelope["retry_after_s"] is None, "no wait is given for a retry that does not help"
        assert envelope["changed"] == "possible", answer.text
        await anyio.sleep(envelope["retry_after_s"] or 0.3)
        retry = await project.call(tool, arguments)
        assert retry.kind in promise, f"promised {sorted(promise)}:\n{answer.text}\nbut the retry got:\n{retry.text}"
        pairs.append((answer, retry))
        if answer.kind == retry.kind == "unknown":
            break
        answer = retry
    assert answer.kind in ("result", "unknown"), "the key reached an end"
    return pairs


def applied(project: Project, key: str) -> tuple[int, int]:
    """(runs of the handler, changes it finished) for `key`."""
    lines = project.lines()
    return lines.count(f"start {key}"), lines.count(f"done {key}")


def arguments(how: str, policy: str) -> dict[str, Any]:
    return {"how": how, "idempotency_key": f"promise-{policy}-{how}-0001"}


def check_effects(project: Project, policy: str, key: str, last: Answer, hub: Ledger | None = None) -> None:
    runs, done = applied(project, key)
    if policy == "refuse":
        assert runs == 1, "this key's change is never applied twice: the handler ran once"
    else:
        assert runs <= 2 and done <= 1, "a rerun or a reconcile applies the change at most once"
    if last.kind == "result":
        assert last.structured["run"] >= 1


@pytest.mark.parametrize("policy", POLICIES)
async def test_an_upstream_timeout_after_the_change_promises_only_what_the_retry_gets(
    src: Path, tmp_path: Path, hub: Ledger, policy: str
) -> None:
    """The handler has ended (its upstream timed out after the POST was applied there): no grace-period promise."""
    project = Project(src, tmp_path, hub)
    tool, args = f"promises_{policy}", arguments("upstream", policy)
    async with Client(project.params()) as project.client:
        first = await project.call(tool, args)
        assert first.envelope["class"] == "timeout" and first.envelope["failure"] == "upstream", first.text
        assert "It may still finish" not in first.text and "goes on for up to" not in first.text, first.text
        pairs = await follow(project, tool, args, first)
    expected = "unknown" if policy == "refuse" else "result"
    assert pairs[0][1].kind == expected
    assert first.envelope["retryable"] == (policy != "refuse")
    check_effects(project, policy, args["idempotency_key"], pairs[-1][1])
    assert len(hub.applied) == 1, "the upstream saw the change once"


@pytest.mark.parametrize("policy", POLICIES)
@pytest.mark.parametrize("how", ["grace", "past"])
async def test_a_handler_past_its_deadline_promises_only_what_the_retry_gets(
    src: Path, tmp_path: Path, hub: Ledger, policy: str, how: str
) -> None:
    """Still running at its deadline: answered then, with its grace and when to retry; it finishes within the
    grace (the retry gets its result) or is stopped at its end (the retry is told so, reconciles, or reruns)."""
    project = Project(src, tmp_path, hub)
    tool, args = f"promises_{policy}", arguments(how, policy)
    async with Client(project.params()) as project.client:
        first = await project.call(tool, args)
        assert first.envelope["failure"] == "deadline" and first.envelope["retryable"] is True, first.text
        assert first.envelope["retry_after_s"] == 3 and "goes on for up to 2 s more" in first.text, first.text
        waiting = await project.call(tool, args)  # at once: the run goes on
        assert waiting.kind == "waiting" and waiting.promise() == {"result", "unknown"}, waiting.text
        pairs = await follow(project, tool, args, first)
    final = pairs[-1][1]
    if how == "grace":
        assert final.kind == "result" and final.structured == {"run": 1}, "its real result, recorded in its grace"
    else:
        assert final.kind == ("unknown" if policy == "refuse" else "result"), final.text
    check_effects(project, policy, args["idempotency_key"], final)


async def test_a_call_without_its_optional_key_promises_nothing_about_a_key(
    src: Path, tmp_path: Path, hub: Ledger
) -> None:
    """A tool whose key is optional, called without one: its upstream timed out after the change was sent, and the
    answer says to check before calling again (a retry without a key would run it again), not what a key does."""
    project = Project(src, tmp_path, hub)
    async with Client(project.params()) as project.client:
        first = await project.call("promises_maybe", {"how": "upstream"})
    assert first.envelope["class"] == "timeout" and first.envelope["changed"] == "possible", first.text
    assert "idempotency_key" not in first.text, first.text
    assert "Do not call it again blindly: first check whether the change took effect." in first.text
    assert first.envelope["retryable"] is False and first.envelope["retry_after_s"] is None


async def _cancelled(project: Project, tool: str, args: dict[str, Any]) -> None:
    assert project.client is not None
    with anyio.fail_after(30):
        async with anyio.create_task_group() as group:
            group.start_soon(project.client.call_tool, tool, args)
            await project.started(args["idempotency_key"])
            group.cancel_scope.cancel()  # the client sends notifications/cancelled
        await anyio.sleep(0.5)


async def _killed(project: Project, tool: str, args: dict[str, Any]) -> None:
    async def call(client: Client) -> None:
        with contextlib.suppress(Exception):  # the server died under the call: the connection closed
            await client.call_tool(tool, args)

    with anyio.fail_after(30):
        with contextlib.suppress(Exception):  # the client's own streams may end with the process
            async with Client(project.params()) as client, anyio.create_task_group() as group:
                group.start_soon(call, client)
                await project.started(args["idempotency_key"])
                os.kill(int(project.pid.read_text()), signal.SIGKILL)


@pytest.mark.parametrize("policy", POLICIES)
@pytest.mark.parametrize("end", ["cancel", "sigkill"])
async def test_a_run_with_no_answer_then_the_retry_keeps_its_promise(
    src: Path, tmp_path: Path, hub: Ledger, policy: str, end: str
) -> None:
    """No first answer (cancelled, or its server SIGKILLed mid-run): the retry's own answer is the first promise."""
    project = Project(src, tmp_path, hub)
    tool, args = f"promises_{policy}", arguments("hang", policy)
    if end == "sigkill":
        await _killed(project, tool, args)
    async with Client(project.params()) as project.client:
        if end == "cancel":
            await _cancelled(project, tool, args)
        first = await project.call(tool, args)
        if policy == "refuse":
            assert first.kind == "unknown", first.text
            pairs = await follow(project, tool, args, first)
            assert [retry.kind for _, retry in pairs] == ["unknown"]
        else:
            assert first.kind == "result" and first.structured == {"run": 2}, "reconciled (not there) or rerun, once"
    check_effects(project, policy, args["idempotency_key"], first)


@pytest.mark.parametrize("policy", POLICIES)
async def test_a_handler_that_raises_promises_only_what_the_retry_gets(
    src: Path, tmp_path: Path, hub: Ledger, policy: str
) -> None:
    """A crash inside the handler (an exception it did not declare) is `internal`: the answer says the change may
    have been applied and that retrying is unlikely to help, with a reference; the retry with the same key gets that
    same answer, reference and all, and the handler is not run again, whatever the tool's retry policy."""
    project = Project(src, tmp_path, hub)
    tool, args = f"promises_{policy}", arguments("crash", policy)
    async with Client(project.params()) as project.client:
        first = await project.call(tool, args)
        assert first.envelope["class"] == "internal" and first.envelope["changed"] == "possible", first.text
        assert first.envelope["retryable"] is False and first.envelope["retry_after_s"] is None, first.envelope
        assert "Retrying is unlikely to help" in first.text and first.envelope["reference"] in first.text
        assert not [sentence for sentence in PROMISES if sentence in first.text], "no promise about a keyed retry"
        assert "the handler broke" not in first.text, "nothing of the exception leaks"
        retry = await project.call(tool, args)
    assert (retry.is_error, retry.text, retry.envelope) == (True, first.text, first.envelope), retry.text
    assert applied(project, args["idempotency_key"]) == (1, 0), "the handler ran once"


async def test_a_declared_failure_that_may_have_changed_something_is_reconciled_as_promised(
    src: Path, tmp_path: Path, hub: Ledger
) -> None:
    """The reconcile tool's handler raises its declared `hub_down` (upstream_unavailable, may have changed
    something): the answer promises that the retry checks whether the change took effect, and it does (the
    journal shows it did not, so the change is applied then, once)."""
    project = Project(src, tmp_path, hub)
    tool, args = "promises_reconcile", arguments("declared", "reconcile")
    async with Client(project.params()) as project.client:
        first = await project.call(tool, args)
        assert first.envelope["class"] == "upstream_unavailable" and first.envelope["failure"] == "hub_down"
        assert first.text.startswith("The hub refused the change for now."), first.text
        assert first.promise() == {"result"}, first.text
        pairs = await follow(project, tool, args, first)
    assert [retry.kind for _, retry in pairs] == ["result"] and pairs[0][1].structured == {"run": 2}
    assert applied(project, args["idempotency_key"]) == (2, 1), "reconciled (not applied), then applied once"


def test_the_generated_tests_of_a_keyed_write_with_reconcile_pass(src: Path) -> None:
    """The generated tests expect what `failwell messages` shows; a test's injected handler stands alone (without its
    module's `reconcile`), so a declared failure's retry sentence (`hub_down`, which may have changed something)
    is the same in both."""
    ran = subprocess.run(
        [
            sys.executable,
            "-m",
            "pytest",
            "-q",
            "-p",
            "no:cacheprovider",
            "-k",
            "promises_reconcile and declared_failure",
        ],
        cwd=src.parent,
        capture_output=True,
        text=True,
        timeout=600,
        env={**os.environ, "PYTHONPATH": str(src)},
    )
    assert ran.returncode == 0, ran.stdout[-4000:]
    assert " passed" in ran.stdout


async def test_a_result_that_could_not_be_recorded_is_never_promised_again(src: Path, tmp_path: Path) -> None:
    """The change happened and the caller is told so; the store is locked while the runtime records it, so the key
    stays claimed until its lease ends: the retry meanwhile is told to come back, and then gets what it was told."""
    with importable(src, "promises_mcp"):
        from promises_mcp._generated.runtime.stores.store_sqlite import SQLiteStore
        from promises_mcp._generated.server import build_server
        from promises_mcp._generated.testing import call_tool
        from promises_mcp._generated.tools import promises_refuse

        path = tmp_path / "records.sqlite3"
        locker = sqlite3.connect(path, isolation_level=None, check_same_thread=False)

        async def handle(params: Any, ctx: Any) -> Any:
            locker.execute("BEGIN EXCLUSIVE")  # the store's file is locked from here until the test lets go
            return promises_refuse.Output(run=1)

        server = build_server({"promises_refuse": handle}, {"promises_refuse": 0.5}, SQLiteStore(path, 0.1))
        args = arguments("grace", "refuse")
        first = await call_tool("promises_refuse", args, server=server)
        assert not first.is_error and first.structured == {"run": 1}, first.text
        await asyncio.sleep(1.0)  # longer than every attempt to record it
        locker.execute("ROLLBACK")
        locker.close()
        retry = answer_of_outcome(await call_tool("promises_refuse", args, server=server))
        assert retry.kind == "waiting", retry.text  # the key is still claimed: its lease has not ended
        promise, wait = retry.promise(), retry.envelope["retry_after_s"]
        assert retry.envelope["retryable"] is True and wait >= 1
        await anyio.sleep(wait)
        later = answer_of_outcome(await call_tool("promises_refuse", args, server=server))
        assert later.kind in promise, f"promised {sorted(promise)}:\n{retry.text}\nbut the retry got:\n{later.text}"
        assert later.kind == "unknown", later.text
        await server.aclose()


async def test_a_result_that_could_not_be_recorded_over_stdio_is_never_promised_again(
    src: Path, tmp_path: Path, hub: Ledger
) -> None:
    """The same over a real stdio subprocess: the handler's change happens and the caller is told so, while the
    store's file is locked by another connection until the server logs that it gave up recording the outcome
    (three attempts, each waiting out the store's 10 s busy timeout, past the key's lease). The retry with the same
    key is then told its outcome is unknown, as that answer promises, and the handler is not run again."""
    project = Project(src, tmp_path, hub)
    tool, args = "promises_refuse", arguments("locked", "refuse")
    async with Client(project.params()) as project.client:
        first = await project.call(tool, args)
        assert first.kind == "result" and first.structured == {"run": 1}, first.text
        with anyio.fail_after(180):
            while "released" not in project.lines():
                await anyio.sleep(0.2)
        retry = await project.call(tool, args)
        assert retry.kind == "unknown", retry.text
        pairs = await follow(project, tool, args, retry)
    assert [again.kind for _, again in pairs] == ["unknown"]
    assert applied(project, args["idempotency_key"]) == (1, 1), "the change happened once and never again"


def answer_of_outcome(outcome: Any) -> Answer:
    return Answer(outcome.is_error, outcome.text, outcome.envelope, outcome.structured)
