"""The failure classes, message composition, scrubbing, the wording lint and `failwell messages`."""

from __future__ import annotations

import json
import re
import textwrap
import typing

import pytest

from conftest import REPO, failwell
from failwell.render.pipeline import diagnose
from failwell.spec import messages

EFFECTS = ("read", "write", "destructive")
# AIP-194: retry UNAVAILABLE, RESOURCE_EXHAUSTED after its delay, DEADLINE_EXCEEDED on an idempotent read.
RETRYABLE = {
    "invalid_input": set(),
    "not_found": set(),
    "permission_denied": set(),
    "conflict": set(),
    "rate_limited": set(EFFECTS),
    "upstream_unavailable": set(EFFECTS),
    "timeout": {"read"},
    "internal": set(),
}


@pytest.mark.parametrize("failure_class", messages.failure_classes())
@pytest.mark.parametrize("effect", EFFECTS)
def test_retryable_follows_aip_194(failure_class: str, effect: str) -> None:
    assert messages.is_retryable(failure_class, effect) == (effect in RETRYABLE[failure_class])


@pytest.mark.parametrize("failure_class", messages.failure_classes())
@pytest.mark.parametrize("effect", EFFECTS)
def test_every_composed_message_says_whether_to_retry_and_what_changed(failure_class: str, effect: str) -> None:
    values = {"retry_after_s": "30", "reference": "ERR-00000000", "permission": "tasks:close", "role": "viewer"}
    text = messages.compose("Order O-1 was not found. Call orders_search.", failure_class, effect, values)
    changed = messages.default_changed(failure_class, effect)
    assert messages.runtime("classes").CHANGED_SENTENCES[changed] in text
    assert re.search(r"(?i)retry|call it again", text), text
    assert "{" not in text
    if failure_class == "rate_limited":
        assert "Retry after 30 s" in text
    if failure_class == "permission_denied":
        assert "It needs the tasks:close permission, and the caller's role is viewer." in text
    if effect != "read" and failure_class in ("timeout", "internal", "upstream_unavailable"):
        assert "The change may have been applied." in text
    else:
        assert "Nothing was changed." in text


def test_a_spec_can_say_a_failure_changed_part_of_the_work() -> None:
    text = messages.compose("Imported 3 of 5 rows.", "conflict", "write", {}, "partial")
    assert "Part of the change was applied." in text and "Nothing was changed" not in text


@pytest.mark.parametrize("effect", ["write", "destructive"])
def test_a_write_without_a_key_whose_change_may_have_been_applied_is_never_invited_to_retry(effect: str) -> None:
    """Issue 41 point 5: after a failing service, a write without a key (its `idempotency_reason`: never repeated,
    check first) is told to check whether the change took effect, as after a timeout, and is not retryable; an
    `idempotent` write, a keyed one and one whose change surely was not sent keep their own retry."""
    body = "The API failed to answer POST /orders."
    text = messages.compose(body, "upstream_unavailable", effect, {}, "possible")
    assert text == (
        f"{body} The change may have been applied. Do not call it again blindly: first check whether the change "
        "took effect."
    )
    assert messages.compose(body, "upstream_unavailable", effect, {"retry_after_s": "5"}, "possible") == text
    assert messages.is_retryable("upstream_unavailable", effect, changed="possible") is False
    same = messages.compose(body, "upstream_unavailable", effect, {}, "possible", idempotent=True)
    assert same.endswith("Retrying in a few seconds may succeed.")
    assert messages.is_retryable("upstream_unavailable", effect, changed="possible", idempotent=True) is True
    assert messages.compose(body, "upstream_unavailable", effect, {}, "none").endswith("may succeed.")
    keyed = messages.compose(body, "upstream_unavailable", effect, {}, "possible", keyed=True)
    assert "idempotency_key" in keyed


def test_the_readme_class_table_is_the_code_table() -> None:
    readme = (REPO / "docs" / "explanation" / "taxonomy.md").read_text()
    for name, policy in messages.policies().items():
        retry = {"yes": "yes", "no": "no", "read": "on reads"}[policy.retryable]
        breaker = "yes" if policy.counts_for_breaker else "no"
        row = (
            f"| `{name}` | {policy.description} | {retry} | {policy.log_level} | {breaker} | {policy.retry_sentence} |"
        )
        assert row in readme, row


def test_the_readme_code_table_is_the_code_table() -> None:
    """Each class's JSON-RPC code where a failure has no isError channel, as the documentation lists it."""
    readme = (REPO / "docs" / "explanation" / "taxonomy.md").read_text()
    codes = messages.runtime("classes").JSONRPC_CODES
    assert set(codes) == set(messages.failure_classes())
    for name, code in codes.items():
        assert f"| `{name}` | {code} |" in readme, name
        assert not -32099 <= code <= -32000, "no code of the block JSON-RPC reserves for implementations"


SAFE = ["T-1", "release notes", "@ada", "tasks:create", "2024/01/02", "and/or", "10:30", "a list of 3 items", "3.5"]
UNSAFE = {
    "postgres://admin:hunter2@db.internal:5432/app": ["hunter2", "db.internal"],
    "Bearer abc.def.ghi": ["abc.def.ghi"],
    "token=sk_live_4eC39HqLyjWDarjtT1zdp7dc": ["sk_live_4eC39"],
    "connect to 10.20.30.40:5432 failed": ["10.20.30.40"],
    "fe80::1ff:fe23:4567:890a": ["fe80::"],
    "cache-3.prod.internal timed out": ["cache-3.prod.internal"],
    "open /var/lib/app/secret.db": ["/var/lib/app"],
    "C:\\Users\\ada\\key.pem": ["key.pem"],
    "SELECT * FROM users WHERE id = 1": ["SELECT", "users"],
    "ghp_abcdefghijklmnopqrstuvwxyz0123456789": ["ghp_"],
    "AKIAIOSFODNN7EXAMPLE": ["AKIAIOSFODNN7EXAMPLE"],
    "Authorization: Basic dXNlcjpwYXNz": ["dXNlcjpwYXNz"],
}


@pytest.mark.parametrize("value", SAFE)
def test_scrub_keeps_ordinary_values(value: str) -> None:
    assert messages.scrub(value) == value


@pytest.mark.parametrize(("value", "secrets"), UNSAFE.items())
def test_scrub_removes_internals(value: str, secrets: list[str]) -> None:
    cleaned = messages.scrub(value)
    assert [secret for secret in secrets if secret in cleaned] == []
    assert "[redacted" in cleaned


def test_logs_keep_paths_but_not_credentials() -> None:
    line = messages.runtime("scrub").redact_secrets(
        "open /var/lib/app.db as postgres://u:hunter2@10.0.0.5/x with Bearer tok123"
    )
    assert "/var/lib/app.db" in line and "10.0.0.5" in line
    assert "hunter2" not in line and "tok123" not in line


BASE = """\
failwell: 1
server: {name: shop}
messages:
  rate_limited: "Too many calls to {tool}; the limit is 60 a minute."
tools:
  orders_get:
    description: Read one order.
    effect: read
    input:
      order_id: {type: string, example: O-1}
    failures:
      order_missing:
        class: not_found
        message: "No order {order_id}. Ids look like O-1. Call orders_search to find one."
      slow_down:
        class: rate_limited
  orders_search:
    description: Find orders.
    effect: read
"""


def warnings(text: str) -> list[tuple[str, int]]:
    return [(d.code, d.line) for d in diagnose(textwrap.dedent(text), "spec.yaml") if d.severity == "warning"]


def test_good_messages_earn_no_warning() -> None:
    assert warnings(BASE) == []


@pytest.mark.parametrize(
    ("message", "code"),
    [
        ("No order {order_id}. Ids look like O-1.", "FW201"),
        ("No such order. Ids look like O-1. Call orders_search.", "FW202"),
        ("Error. Order {order_id}: call orders_search.", "FW203"),
        ("No order {order_id} in https://db.internal/orders. Ids look like O-1. Call orders_search.", "FW204"),
        ("No order {order_id}. Ids look like O-1. Call orders_search. " + "Really. " * 40, "FW205"),
        ("No order {order_id}. Try again later with another.", "FW206"),
        ("No order {order_id}. Ids look like O-1. Call orders_serch to find one.", "FW207"),
        ("No order {order_id}. Ids look like O-1. Use order_lookup to find one.", "FW207"),
    ],
)
def test_wording_lint(message: str, code: str) -> None:
    text = BASE.replace("No order {order_id}. Ids look like O-1. Call orders_search to find one.", message)
    assert (code, 14) in warnings(text)


def test_fw207_names_the_closest_tool_and_spares_real_tools_and_fields() -> None:
    text = BASE.replace("Call orders_search to find one.", "Call orders_serch, or check {order_id} and order_id.")
    found = [d.message for d in diagnose(text, "spec.yaml") if d.code == "FW207"]
    assert found == [
        "orders_get.order_missing: names `orders_serch`, which is not a tool of this server; "
        "did you mean orders_search?"
    ]
    assert not [d for d in diagnose(BASE, "spec.yaml") if d.code == "FW207"]


def test_a_failure_without_message_needs_a_server_default() -> None:
    text = BASE.replace(
        '  rate_limited: "Too many calls to {tool}; the limit is 60 a minute."\n', "  timeout: x {tool}\n"
    )
    found = [(d.code, d.line, d.severity) for d in diagnose(text, "spec.yaml")]
    assert ("FW113", 15, "error") in found


def test_server_messages_may_only_use_builtin_placeholders() -> None:
    text = BASE.replace("the limit is 60 a minute.", "the limit is {limit} a minute.")
    assert ("FW110", 4) in [(d.code, d.line) for d in diagnose(text, "spec.yaml")]


@pytest.mark.slow
def test_strict_validate_fails_on_wording(tmp_path: pytest.TempPathFactory) -> None:
    spec = REPO / "tests" / "invalid" / "vague.yaml.tmp"
    spec.write_text(BASE.replace("No order {order_id}. Ids look like O-1. Call orders_search to find one.", "Error."))
    try:
        assert failwell("validate", spec).returncode == 0
        strict = failwell("validate", "--strict", spec)
        assert strict.returncode == 1
        assert "FW203" in strict.stdout
    finally:
        spec.unlink()


@pytest.mark.slow
def test_messages_command_shows_every_message_in_three_formats() -> None:
    spec = REPO / "examples" / "tasks" / "failwell.yaml"
    table = failwell("messages", spec)
    assert table.returncode == 0, table.stderr
    assert "tasks_get.task_missing  [not_found]  retryable: no  changed: none  missing parts: none" in table.stdout
    assert "No task T-1. Refs look like T-1." in table.stdout
    markdown = failwell("messages", spec, "--format", "markdown").stdout
    assert markdown.startswith("| Tool | Failure | Class | Retryable | Changed | Missing | Message |")
    rows = json.loads(failwell("messages", spec, "--format", "json").stdout)
    classes = {row["class"] for row in rows}
    assert classes == set(messages.failure_classes()), "every class appears in the tasks example"
    for row in rows:
        assert row["missing"] == [] and row["problems"] == [], row
        assert len(row["text"]) <= 300 or row["failure"] == "invalid_arguments", row
    create = {row["failure"]: row for row in rows if row["tool"] == "tasks_create"}
    assert create["too_many_new_tasks"]["retryable"] is True
    assert create["deadline"]["changed"] == "possible"
    assert create["scope"]["text"].startswith(
        "tasks_create needs the tasks:write scope, which this assistant's token does not grant (it grants: none)."
    ), "the scope refusal is shown in the spec's words (server.auth.scope_message)"


@pytest.mark.slow
def test_messages_strict_exits_1_when_a_part_is_missing(tmp_path: pytest.TempPathFactory) -> None:
    spec = REPO / "tests" / "invalid" / "vague2.yaml.tmp"
    spec.write_text(
        BASE.replace("No order {order_id}. Ids look like O-1. Call orders_search to find one.", "Not found.")
    )
    try:
        result = failwell("messages", "--strict", spec)
        assert result.returncode == 1
        assert "missing parts: what failed, value, accepted, next step" in result.stdout
    finally:
        spec.unlink()


def test_the_class_table_has_a_row_for_each_failure_class_in_order() -> None:
    classes = messages.runtime("classes")
    assert messages.failure_classes() == typing.get_args(classes.FailureClass)


def test_messages_previews_the_upstream_failures_and_keyed_promises(tmp_path: pytest.TempPathFactory) -> None:
    """`failwell messages` shows what a tool with upstreams answers when its service is down or slow, and for a keyed
    write what the retry with the same key then does: only a handler past its deadline is said to go on."""
    spec = tmp_path / "failwell.yaml"  # type: ignore[operator]
    spec.write_text(
        textwrap.dedent(
            """\
            failwell: 1
            server: {name: hub}
            upstreams:
              hub_api: {base_url_env: HUB_API_URL, timeout_s: 4}
            tools:
              hub_push:
                description: Push one change to the hub, once per idempotency key.
                effect: write
                idempotency: required
                deadline_s: 8
                upstreams: [hub_api]
                input:
                  note: {type: string, example: hello}
              hub_read:
                description: Read the hub's latest note.
                effect: read
                upstreams: [hub_api]
            """
        )
    )
    ran = failwell("messages", spec, "--format", "json")
    assert ran.returncode == 0, ran.stderr
    rows = {(row["tool"], row["failure"]): row for row in json.loads(ran.stdout)}
    slow = rows[("hub_push", "upstream_timeout")]
    assert slow["text"].startswith("The hub_api service did not answer in time (no answer within 4 s).")
    assert "A retry with the same idempotency_key will not run it again" in slow["text"]
    assert "It goes on" not in slow["text"] and slow["retryable"] is False, "its handler has ended: no grace promise"
    down = rows[("hub_push", "upstream_unavailable")]
    assert down["retryable"] is False and "will not run it again" in down["text"]
    deadline = rows[("hub_push", "deadline")]
    assert "It goes on for up to 5 s more: retry with the same idempotency_key after 6 s" in deadline["text"]
    assert deadline["retryable"] is True
    read = rows[("hub_read", "upstream_timeout")]
    assert read["retryable"] is True and read["changed"] == "none"


def test_messages_show_what_a_dependency_and_a_read_upstream_say() -> None:
    """`failwell messages` previews a dependency's outage and timeout for each tool, resource and prompt that uses
    one, and an upstream's for a resource or prompt that reads one, in the runtime's words."""
    import yaml

    from failwell.spec.wording import rows

    spec = yaml.safe_load(
        textwrap.dedent(
            """\
            failwell: 1
            server: {name: notes}
            upstreams:
              docs_api: {base_url_env: DOCS_API_URL, timeout_s: 2}
            dependencies:
              db: {timeout_s: 1}
            tools:
              notes_get:
                description: Read a note.
                effect: read
                uses: [db]
            resources:
              doc:
                uri: docs://x
                description: One doc.
                upstreams: [docs_api]
                uses: [db]
            """
        )
    )
    found = {(row.tool, row.failure): row for row in rows(spec)}
    tool = found[("notes_get", "dependency_unavailable")]
    assert tool.text.startswith("The db service is unavailable: it failed. Nothing was changed.")
    assert (tool.failure_class, tool.retryable, tool.changed) == ("upstream_unavailable", True, "none")
    assert "within 1 s" in found[("notes_get", "dependency_timeout")].text
    assert found[("doc", "upstream_unavailable")].text.startswith("The docs_api service is unavailable")
    assert found[("doc", "dependency_timeout")].failure_class == "timeout"


@pytest.mark.slow
def test_messages_shows_what_a_person_is_asked_and_what_the_model_reads_after() -> None:
    """`failwell messages` on tests/asking/failwell.yaml: each confirmation and each form question as the person reads
    it (example values in), and what the model reads when the person declines or the client cannot ask, in the
    runtime's words (tests/test_confirm.py asserts the same texts from a running server, with N-7)."""
    ran = failwell("messages", REPO / "tests" / "asking" / "failwell.yaml", "--format", "json")
    assert ran.returncode == 0, ran.stderr
    rows = json.loads(ran.stdout)
    shown = {(row["tool"], row["failure"]): row for row in rows}
    assert shown[("notes_delete", "confirm")]["text"] == "Delete note N-1 from inbox? This cannot be undone."
    assert shown[("notes_delete", "declined")]["text"] == (
        "notes_delete did not run: its person chose not to delete note N-1. Nothing was changed. "
        "Do not call it again unless your person asks you to."
    )
    assert shown[("notes_delete", "confirmation_unavailable")]["text"] == (
        "notes_delete did not run: deleting note N-1 needs its person's confirmation, which this client cannot ask "
        "for. Nothing was changed. Retrying from this client will not help: tell your person, who can use a client "
        "that can ask them."
    )
    assert ("notes_purge", "confirmation_unavailable") not in shown, "`without_elicitation: run` refuses nothing"
    assert shown[("notes_purge", "declined")]["text"].startswith("notes_purge did not run: its person declined to")
    assert shown[("notes_label", "ask label")]["text"] == "Which label for note N-1?"
    assert shown[("notes_label", "declined")]["text"].startswith(
        "notes_label stopped: its person declined to answer what it asked (label). Nothing was changed."
    )
    assert shown[("note_review", "ask focus")]["text"] == "What should the review of N-1 focus on?"
    for row in rows:
        if row["failure"] in ("confirm", "declined", "confirmation_unavailable") or row["failure"].startswith("ask "):
            assert row["retryable"] is False and row["changed"] == "none" and row["problems"] == [], row
