"""Resources and prompts in the spec (issue 17): each rule the schema or lint keeps, at its FILE:LINE:COL."""

from __future__ import annotations

import time
from pathlib import Path

import pytest

import failwell
from failwell.render.pipeline import diagnose
from failwell.spec import uri
from failwell.spec.wording import render_rows

GOOD = """\
failwell: 1
server:
  name: tasks
tools:
  tasks_search:
    description: Find tasks by their title.
    effect: read
    input:
      title: {type: string, example: milk}
resources:
  task:
    title: Task
    uri: "tasks://{ref}"
    description: Read one task.
    mime_type: application/json
    deadline_s: 10
    params:
      ref: {type: string, pattern: "^T-[0-9]+$", example: T-1, description: A task reference}
    failures:
      task_missing:
        class: not_found
        message: "No task {ref}. Refs look like T-1; call tasks_search to find one."
  board:
    uri: board://all
    description: The whole board.
  comment:
    uri: "tasks://{ref}/comments/{number}"
    description: One comment of a task.
    params:
      ref: {type: string, pattern: "^T-[0-9]+$", example: T-1}
      number: {type: integer, minimum: 1}
prompts:
  triage:
    title: Triage a task
    description: Decide what to do with a task.
    arguments:
      ref: {type: string, pattern: "^T-[0-9]+$", example: T-1}
      tone: {type: string, enum: [short, long], required: false}
    failures:
      task_missing: {class: not_found, message: "No task {ref}. Refs look like T-1; call tasks_search to find one."}
"""


def replace(old: str, new: str) -> str:
    assert GOOD.count(old) == 1, old
    return GOOD.replace(old, new)


def printed(text: str) -> list[str]:
    return [str(d) for d in sorted(diagnose(text, "spec.yaml"), key=lambda d: (d.line, d.col, d.code))]


def test_a_spec_with_resources_and_prompts_validates_clean(tmp_path: Path) -> None:
    spec = tmp_path / "failwell.yaml"
    spec.write_text(GOOD, encoding="utf-8")
    assert failwell.validate(spec, strict=True) == []


@pytest.mark.parametrize(
    "text",
    [
        "failwell: 1\nserver: {name: x}\nresources:\n  a: {uri: 'a://b', description: All of it.}\n",
        "failwell: 1\nserver: {name: x}\nprompts:\n  a: {description: Plan the day.}\n",
        "failwell: 1\nserver: {name: x}\ntools: {}\nprompts:\n  a: {description: Plan the day.}\n",
    ],
    ids=["only resources", "only prompts", "no tools"],
)
def test_a_spec_needs_no_tools(text: str) -> None:
    assert printed(text) == []


LEVEL_1 = "failwell supports RFC 6570 level 1 only: one plain {name} per pair of braces, such as tasks://{ref}"

CASES = [
    (
        replace('uri: "tasks://{ref}"', 'uri: "{ref}"'),
        "spec.yaml:13:11: FW170 the URI has no scheme; start it with one, such as tasks:// or file:///, or write it "
        "as an absolute path (/items/{id})",
    ),
    (
        replace('uri: "tasks://{ref}"', 'uri: "Tasks://{ref}"'),
        "spec.yaml:13:11: FW170 the URI's scheme `Tasks` is written lowercase: `tasks`",
    ),
    (
        replace('uri: "tasks://{ref}"', 'uri: "tasks:// {ref}"'),
        "spec.yaml:13:19: FW170 the URI holds whitespace, which a URI cannot; percent-encode it (%20)",
    ),
    (
        replace("uri: board://all", "uri: board://" + "a" * 2041),
        "spec.yaml:24:10: FW170 the URI is 2,049 characters long; a resource URI has at most 2,048",
    ),
    (
        replace('uri: "tasks://{ref}"', 'uri: "tasks://{+ref}"'),
        f"spec.yaml:13:19: FW171 `{{+ref}}` uses the RFC 6570 operator `+`; {LEVEL_1}",
    ),
    (
        replace('uri: "tasks://{ref}"', 'uri: "tasks://{ref*}"'),
        f"spec.yaml:13:19: FW171 `{{ref*}}` has the RFC 6570 modifier `*`; {LEVEL_1}",
    ),
    (
        replace('uri: "tasks://{ref}"', 'uri: "tasks://{ref:3}"'),
        f"spec.yaml:13:19: FW171 `{{ref:3}}` has the RFC 6570 modifier `:3`; {LEVEL_1}",
    ),
    (
        replace('uri: "tasks://{ref}"', 'uri: "tasks://{ref,rev}"'),
        f"spec.yaml:13:19: FW171 `{{ref,rev}}` lists several variables; {LEVEL_1}",
    ),
    (
        replace('uri: "tasks://{ref}"', 'uri: "tasks://{ref"'),
        f"spec.yaml:13:19: FW171 a `{{` that is never closed; {LEVEL_1}",
    ),
    (
        replace('uri: "tasks://{ref}"', 'uri: "tasks://ref}"'),
        f"spec.yaml:13:22: FW171 a `}}` that closes no `{{`; {LEVEL_1}",
    ),
    (
        replace('uri: "tasks://{ref}"', 'uri: "tasks://{Ref}"'),
        f"spec.yaml:13:19: FW171 `{{Ref}}` is not a name of a lowercase letter, then letters, digits or `_`; {LEVEL_1}",
    ),
    (
        replace('uri: "tasks://{ref}/comments/{number}"', 'uri: "tasks://{ref}/comments/{num}"'),
        "spec.yaml:27:34: FW172 URI variable {num} is not a declared param (did you mean {number}?); declare it "
        "under `params:`, such as `num: {type: string}`",
    ),
    (
        replace('uri: "tasks://{ref}/comments/{number}"', 'uri: "tasks://{ref}/comments/{num}"'),
        "spec.yaml:31:7: FW173 param `number` is not in the URI; put {number} in it or remove the param",
    ),
    (
        replace("uri: board://all", "uri: board://all\n    params: {ref: {type: string}}"),
        "spec.yaml:25:14: FW173 param `ref` is not in the URI, which has no variables: a static URI takes no params; "
        "put {ref} in the URI or remove the param",
    ),
    (
        replace('uri: "tasks://{ref}/comments/{number}"', 'uri: "tasks://{ref}/comments/{number}/{ref}"'),
        "spec.yaml:27:43: FW174 {ref} is in the URI twice; a param fills one part of it, so use it once",
    ),
    (
        replace('uri: "tasks://{ref}/comments/{number}"', 'uri: "tasks://{ref}/comments/{ref}{number}"'),
        "spec.yaml:27:39: FW175 {number} follows another variable with nothing between them, so a URI cannot be "
        "split into the two; put a literal part between them that the first cannot hold, such as `/`",
    ),
    (
        replace("number: {type: integer, minimum: 1}", "number: {type: array, items: {type: integer}}"),
        "spec.yaml:31:22: FW176 param `number` is of type array, and a URI template's params are parsed from the "
        "URI: use string, integer, number or boolean",
    ),
    (
        replace("number: {type: integer, minimum: 1}", "number: {type: integer, minimum: 1, default: 1}"),
        "spec.yaml:31:43: FW177 param `number` has `default`, but a URI always has every part, so no param is "
        "optional; remove `default` (a URI without this part is another resource)",
    ),
    (
        replace("number: {type: integer, minimum: 1}", "number: {type: integer, required: false}"),
        "spec.yaml:31:31: FW177 param `number` has `required`, but a URI always has every part, so no param is "
        "optional; remove `required` (a URI without this part is another resource)",
    ),
    (
        replace("uri: board://all", "uri: tasks://board"),
        "spec.yaml:24:10: FW178 resources `board` and `task` (at spec.yaml:13:10) can both match the URI "
        "tasks://board, so a read of it could not tell which is meant; make a literal part of their URIs differ",
    ),
    (
        replace("uri: board://all", 'uri: "tasks://{id}"\n    params: {id: {type: string}}'),
        "spec.yaml:24:10: FW178 resources `board` and `task` (at spec.yaml:13:10) can both match the URI "
        "tasks://x, so a read of it could not tell which is meant; make a literal part of their URIs differ",
    ),
    (
        replace("tone: {type: string, enum: [short, long], required: false}", "tone: {type: integer}"),
        "spec.yaml:38:20: FW179 argument `tone` is of type integer, and MCP prompt arguments are strings; make it a "
        "string and say what it accepts with pattern, enum, minLength or maxLength",
    ),
    (
        replace("tone: {type: string, enum: [short, long], required: false}", "tone: {enum: [1, 2]}"),
        "spec.yaml:38:20: FW179 argument `tone` is of type integer, and MCP prompt arguments are strings; make it a "
        "string and say what it accepts with pattern, enum, minLength or maxLength",
    ),
    # the rules tools have, on resources and prompts
    (
        "failwell: 1\nserver: {name: x}\n",
        "spec.yaml:1:1: FW010 the spec is missing required key `tools` (or `resources` or `prompts`): a server "
        "serves at least one tool, resource or prompt",
    ),
    (
        "failwell: 1\nserver: {name: x}\ntools: {}\nresources: {}\n",
        "spec.yaml:3:1: FW158 the server has no tools, resources or prompts; declare at least one, such as under "
        "`tools:`",
    ),
    (
        replace("    mime_type: application/json\n", "    mime_type: application/json\n    effect: read\n"),
        "spec.yaml:16:5: FW015 unknown key `effect` in `resources.task`; allowed keys: asks, deadline_s, "
        "description, failures, mime_type, name, params, scopes, subscribe, title, unlisted, upstreams, uri, uses, "
        "when",
    ),
    (
        replace("    title: Triage a task\n", "    title: Triage a task\n    idempotency: none\n"),
        "spec.yaml:35:5: FW015 unknown key `idempotency` in `prompts.triage`; allowed keys: arguments, asks, "
        "deadline_s, description, failures, scopes, title, unlisted, upstreams, uses, when",
    ),
    (
        replace("{class: not_found, message", "{class: not_found, changed: possible, message"),
        'spec.yaml:40:49: FW012 value not allowed "possible" for `prompts.triage.failures.task_missing.changed`; '
        "use one of: none",
    ),
    (
        replace("mime_type: application/json", "mime_type: json"),
        'spec.yaml:15:16: FW013 `resources.task.mime_type` is "json", which is not a MIME type: write type/subtype '
        "with optional ; name=value parameters, such as application/json or text/plain; charset=utf-8",
    ),
    (
        replace("deadline_s: 10", "deadline_s: 60"),
        "spec.yaml:16:17: FW120 deadline_s 60 is not shorter than the client's timeout (60 s), so the client would "
        "give up first; use at most 50.0",
    ),
    (
        replace(
            'message: "No task {ref}. Refs look like T-1; call tasks_search to find one."\n  board',
            'message: "No task {reff}. Refs look like T-1; call tasks_search to find one."\n  board',
        ),
        "spec.yaml:22:18: FW110 placeholder {reff} is neither a param nor a declared field (did you mean "
        "{ref}?); add `fields: [reff]` to the failure or use one of: ref, reference, tool",
    ),
    (
        replace(
            'message: "No task {ref}. Refs look like T-1; call tasks_search to find one."\n  board',
            'message: "No task {ref}. Refs look like T-1."\n  board',
        ),
        "spec.yaml:22:18: FW201 warning: resource task.task_missing: no next step: name a tool to call or an action "
        "to take",
    ),
    (
        replace(
            'task_missing: {class: not_found, message: "No task {ref}.',
            'task_missing: {class: not_found, message: "No task {refs}.',
        ),
        "spec.yaml:40:49: FW110 placeholder {refs} is neither an argument nor a declared field (did you mean {ref}?); "
        "add `fields: [refs]` to the failure or use one of: ref, tone, reference, tool",
    ),
    (
        replace(
            'task_missing: {class: not_found, message: "No task {ref}.',
            'task_missing: {class: not_found, fields: [ref], message: "No task {ref}.',
        ),
        "spec.yaml:40:48: FW104 failure field `ref` has the name of an argument, whose value fills {ref} already",
    ),
    (
        replace("  board:", "  Board/1:"),
        "spec.yaml:23:3: FW101 resource name `Board/1` may use only ASCII letters, digits, `_`, `-` and `.`, "
        "at most 64 characters (what MCP clients accept); try `Board_1`",
    ),
    (
        replace("  triage:", "  " + "t" * 65 + ":"),
        'spec.yaml:33:3: FW029 name "tttttttttttttttttttt..." is 65 characters long; names have at most 64, since '
        "each becomes a file, class or function name",
    ),
    (
        replace(
            '      ref: {type: string, pattern: "^T-[0-9]+$", example: T-1}\n      tone',
            "      model_dump: {type: string}\n      tone",
        ),
        "spec.yaml:37:7: FW103 field name `model_dump` is reserved by the generated code; pick another name",
    ),
    (
        replace("tools:\n", "tools:\n  board_resource:\n    description: Read the board.\n    effect: read\n"),
        "spec.yaml:26:3: FW154 resource `board` and the name at spec.yaml:5:3 both become the name `board_resource` "
        "in _generated/server.py; rename one of them",
    ),
    (
        replace("tools:\n", "tools:\n  triage_prompt_errors:\n    description: Triage.\n    effect: read\n"),
        "spec.yaml:36:3: FW154 prompt `triage` and the name at spec.yaml:5:3 both become a test file named "
        "test_triage_prompt_errors.py; rename one of them",
    ),
    (
        replace("  task_missing: {class", "  exception: {class"),
        "spec.yaml:40:7: FW151 failure `exception` becomes class Exception: Exception is a Python builtin, which the "
        "prompt module would shadow",
    ),
]


@pytest.mark.parametrize(("text", "expected"), CASES, ids=[line.split(" ")[1] for _, line in CASES])
def test_each_rule_prints_its_line(text: str, expected: str) -> None:
    assert expected in printed(text), printed(text)


def test_a_failure_whose_class_name_the_module_already_has_is_refused() -> None:
    spec = """\
failwell: 1
server: {name: x}
resources:
  task:
    uri: "t://{ref}"
    description: A task.
    params:
      ref: {type: string, example: T-1}
    failures:
      listing: {class: not_found, message: "No task {ref}. Refs look like T-1; call tasks_search."}
      params: {class: not_found, message: "No task {ref}. Refs look like T-1; call tasks_search."}
prompts:
  triage:
    description: Triage.
    failures:
      message: {class: not_found, message: "No task. Refs look like T-1; call tasks_search."}
"""
    assert printed(spec) == [
        "spec.yaml:10:7: FW151 failure `listing` becomes class Listing: the resource module already defines or "
        "imports Listing",
        "spec.yaml:11:7: FW104 failure `params` becomes class Params, which a generated model already uses; rename it",
        "spec.yaml:16:7: FW151 failure `message` becomes class Message: the prompt module already defines or imports "
        "Message",
    ]


def test_a_resource_and_a_prompt_may_share_a_tools_name() -> None:
    text = (
        replace("  triage:", "  task:").replace("  tasks_search:", "  task:").replace("call tasks_search", "call task")
    )
    assert printed(text) == []


def test_a_template_matches_one_or_more_characters_other_than_a_slash() -> None:
    parsed = uri.parse("tasks://{ref}/comments/{number}")
    assert parsed.literals == ("tasks://", "/comments/", "")
    assert parsed.variables == ("ref", "number")
    assert parsed.offsets == (8, 23)
    assert uri.overlap(uri.parse("a://{x}/b"), uri.parse("a://c/{y}")) == "a://c/b"
    assert uri.overlap(uri.parse("a://{x}"), uri.parse("a://b/c")) is None
    assert uri.overlap(uri.parse("a://{x}"), uri.parse("a://")) is None
    assert uri.overlap(uri.parse("a://x{y}z"), uri.parse("a://{w}y")) is None
    assert uri.overlap(uri.parse("a://b"), uri.parse("a://b")) == "a://b"


def test_messages_lists_resource_and_prompt_failures_by_kind(tmp_path: Path) -> None:
    spec = tmp_path / "failwell.yaml"
    spec.write_text(GOOD, encoding="utf-8")
    rows = failwell.review(spec)
    kinds = {(row.kind, row.tool, row.failure) for row in rows}
    assert ("resource", "task", "task_missing") in kinds
    assert ("prompt", "triage", "task_missing") in kinds
    assert ("resource", "board", "internal") in kinds and ("prompt", "triage", "deadline") in kinds
    assert all(not row.problems for row in rows), [row for row in rows if row.problems]
    table = render_rows(rows, "table")
    assert "resource task.task_missing  [not_found]  retryable: no  changed: none  missing parts: none" in table
    assert "No task T-1. Refs look like T-1; call tasks_search to find one. Nothing was changed." in table
    assert "| prompt triage | task_missing | not_found | no | none | - |" in render_rows(rows, "markdown")
    assert '"kind": "resource"' in render_rows(rows, "json")


def test_clashes_compare_only_segments_that_can_meet() -> None:
    uris = ["a://{x}/b", "a://c/{y}", "a://c/d/e", "a://{z}/d/{w}", "b://{x}", "a://{q}"]
    found = uri.clashes([uri.parse(text) for text in uris])
    assert found == [(0, 1, "a://c/b"), (2, 3, "a://c/d/e")]


def test_two_thousand_resources_are_checked_in_bounded_time() -> None:
    lines = ["failwell: 1", "server: {name: x}", "resources:"]
    for i in range(1000):
        params = "{x: {type: string}}"
        lines.append(f"  t{i}: {{uri: 'tasks://{{x}}/k{i}', description: One., params: {params}}}")
        lines.append(f"  s{i}: {{uri: 'tasks://s{i}/m{i}', description: One.}}")
    lines.append("  clash: {uri: 'tasks://s7/k7', description: One.}")
    started = time.perf_counter()
    found = printed("\n".join(lines) + "\n")
    assert time.perf_counter() - started < 5
    assert [line.split(" FW178 ")[1][:44] for line in found] == ["resources `clash` and `t7` (at spec.yaml:18:"]
