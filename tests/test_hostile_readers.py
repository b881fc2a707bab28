"""Resources and prompts a hostile tester would write, and hostile requests to a server that has them.

Each spec piece below is accepted by `failwell validate` on its own (warnings allowed, no errors); together they
make one project whose generated code passes ruff check, ruff format --check, mypy strict and its own tests, as
do a resources-only and a prompts-only project. Over stdio, the tasks example answers every malformed
resources/read, prompts/get, completion/complete and list request with -32602 naming what was wrong: never a
crash, -32603, code 0, pydantic's text or a traceback."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path
from typing import Any

import pytest
from test_readers import raw

from conftest import EXAMPLES
from failwell import new
from failwell.render.pipeline import diagnose

pytestmark = pytest.mark.slow

HEAD = """\
failwell: 1
server:
  name: hostile
"""
TOOLS = """\
tools:
  thing:
    description: "Find a thing by \\"name\\" \\\\ with a backslash and unicode é ✓ 𝄞."
    effect: read
    input:
      title: {type: string, example: milk}
  a_very_long_tool_name_that_is_close_to_the_limit_of_sixty_four_c:
    description: A tool whose name is 64 characters long.
    effect: read
    input:
      q: {type: string, example: x}
"""
LONG = "a_very_long_resource_name_that_is_close_to_the_limit_of_sixty_4"
RESOURCES: dict[str, str] = {
    "thing": """
    uri: "thing://all"
    description: "The thing, \\"quoted\\" and \\\\back\\\\slashed, 'single', é ✓ 𝄞 {braces} and a {placeholder}."
    mime_type: "text/plain; charset=utf-8"
""",
    LONG: """
    uri: "odd://host/path;x=1,y=2/~user/a-b_c.d!$&'()*+=@:/q?x=1&y=2#frag"
    description: Odd but legal characters in a static URI.
    mime_type: application/vnd.x+json
""",
    "blob": """
    uri: "file:///var/data/blob.bin"
    description: Binary data.
    mime_type: application/octet-stream
""",
    "quoted_param": """
    uri: "q://quoted"
    description: A MIME parameter in quotes.
    mime_type: 'text/csv; charset="utf-8"; header=present'
""",
    "image": """
    uri: "img://{id}.png"
    description: An image by its integer id.
    mime_type: image/png
    params:
      id: {type: integer, minimum: 0, maximum: 9007199254740991, example: 0, examples: [0, 1, 42]}
""",
    "ratio": """
    uri: "ratio://{value}/x"
    description: A number in exponent form.
    params:
      value: {type: number, example: 1.5e+16, examples: [-0.0, 1e-7, 3.14]}
""",
    "flag": """
    uri: "flag://{on}"
    description: A boolean only, so a refused value cannot be null.
    params:
      on: {type: boolean, example: false}
""",
    "level": """
    uri: "level://{n}"
    description: An enum of integers.
    params:
      n: {type: integer, enum: [1, 2, 3], example: 2}
""",
    "colour": """
    uri: "colour://{c}"
    description: An enum of strings with a quote and unicode.
    params:
      c: {type: string, enum: ["red", "gr\\"een", "blü"], example: red}
""",
    "pat": """
    uri: "pat://{code}"
    description: A pattern with backslashes, and a failure with a field.
    params:
      code: {type: string, pattern: "^[A-Z]{2}\\\\d+\\\\\\\\x$", example: "AB12\\\\x", description: "A \\"code\\" é"}
    failures:
      code_missing:
        class: not_found
        message: "No code {code} here \\"quoted\\" \\\\ é; codes look like AB12\\\\x; try {hint}."
        fields:
          hint: string
""",
    "free": """
    uri: "free://{s}/{t}"
    description: Params that take any text, so no value is refused.
    params:
      s: {type: string}
      t: {type: string, description: "Ünïcode ✓"}
""",
    "bool_second": """
    uri: "ob://{b}/{s}"
    description: A string that takes anything before a boolean.
    params:
      s: {type: string}
      b: {type: boolean}
""",
    "bounded": """
    uri: "b://{n}/{x}"
    description: Bounds and a length.
    params:
      n: {type: integer, minimum: -5, maximum: 5, example: -5}
      x: {type: string, minLength: 2, maxLength: 3, example: ab}
""",
    "deadline": """
    uri: "d://x"
    description: A short deadline and every failure class.
    deadline_s: 0.5
    failures:
      gone: {class: not_found, message: "Gone; call thing to find another."}
      later: {class: rate_limited, message: "Too many reads; wait and read d://x again."}
""",
    "xml": """
    uri: "x://doc"
    description: XML.
    mime_type: application/atom+xml
""",
}
PROMPTS: dict[str, str] = {
    "thing": """
    description: "A prompt that shares its name with a tool and a resource, \\"quoted\\" \\\\ é ✓."
""",
    "empty_prompt": """
    description: No arguments at all.
""",
    "a_very_long_prompt_name_that_is_close_to_the_limit_of_sixty_four": """
    description: A 64-character name, an enum with examples and a failure with a field.
    arguments:
      mode:
        type: string
        enum: [fast, "sl\\"ow", "ü"]
        examples: [fast]
        required: false
        description: "Mode \\\\ é"
      who:
        type: string
        pattern: "^@\\\\w+$"
        example: "@ada"
    failures:
      nobody:
        class: not_found
        message: "No {who} in mode {mode}; the {detail} says \\"no\\" \\\\ é. Names look like @ada; call thing."
        fields:
          detail: string
""",
    "optional_only": """
    title: "Tïtle with \\"quotes\\""
    description: Only optional arguments.
    arguments:
      a: {type: string, required: false}
      b: {type: string, required: false, enum: ["1", "2"]}
""",
    "long_text": """
    description: >-
      A long description that runs over many words and lines, with "double quotes", 'single quotes', a back\\slash,
      {braces}, $dollars, %percent, `backticks`, triple \"\"\" quotes and unicode: é ñ ✓ 𝄞 中文 — it goes on and on.
    arguments:
      ref: {type: string, minLength: 1, maxLength: 8, example: T-1}
""",
}


def piece(section: str, name: str, body: str) -> str:
    return f"{section}:\n  {name}:{textwrap.indent(body, '')}"


def spec_text(tools: bool, resources: dict[str, str], prompts: dict[str, str]) -> str:
    text = HEAD + (TOOLS if tools else "")
    if resources:
        text += "resources:\n" + "".join(f"  {name}:{body}" for name, body in resources.items())
    if prompts:
        text += "prompts:\n" + "".join(f"  {name}:{body}" for name, body in prompts.items())
    return text


PIECES = [("resources", name) for name in RESOURCES] + [("prompts", name) for name in PROMPTS]


@pytest.mark.parametrize(("section", "name"), PIECES, ids=[f"{s}.{n}" for s, n in PIECES])
def test_each_hostile_piece_validates_without_errors(section: str, name: str) -> None:
    resources = {name: RESOURCES[name]} if section == "resources" else {}
    prompts = {name: PROMPTS[name]} if section == "prompts" else {}
    errors = [str(d) for d in diagnose(spec_text(True, resources, prompts), "spec.yaml") if d.severity == "error"]
    assert errors == []


def _run(args: list[str], cwd: Path) -> subprocess.CompletedProcess[str]:
    variables = {**os.environ, "MYPYPATH": "src", "PYTHONPATH": "src"}
    return subprocess.run(args, cwd=cwd, env=variables, capture_output=True, text=True, timeout=300)


def _checks(project: Path) -> None:
    python = sys.executable
    for args in (
        [python, "-m", "ruff", "check", "--no-cache", "."],
        [python, "-m", "ruff", "format", "--check", "--no-cache", "."],
        [python, "-m", "mypy", "--no-incremental", "--cache-dir", os.devnull],
    ):
        ran = _run(args, project)
        assert ran.returncode == 0, f"{args[2]}: {ran.stdout[-4000:]}{ran.stderr[-2000:]}"
    tests = _run([python, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-x"], project)
    assert tests.returncode == 0 and " passed" in tests.stdout, tests.stdout[-4000:]


@pytest.mark.parametrize(
    "shape",
    [
        (True, RESOURCES, PROMPTS),
        (False, {"blob": RESOURCES["blob"], "flag": RESOURCES["flag"]}, {}),
        (False, {}, PROMPTS),
    ],
    ids=["everything", "resources only", "prompts only"],
)
def test_the_generated_project_passes_its_checks(
    shape: tuple[bool, dict[str, str], dict[str, str]], tmp_path: Path
) -> None:
    spec = tmp_path / "failwell.yaml"
    spec.write_text(spec_text(*shape), encoding="utf-8")
    assert [str(d) for d in diagnose(spec.read_text(encoding="utf-8"), "spec.yaml") if d.severity == "error"] == []
    new(tmp_path / "out", spec)
    _checks(tmp_path / "out")


def test_a_mime_type_with_a_broken_parameter_is_refused() -> None:
    for mime in ("text/plain;", "text/plain; charset", "json"):
        text = spec_text(False, {"x": f'\n    uri: "x://y"\n    description: X.\n    mime_type: "{mime}"\n'}, {})
        assert [d.code for d in diagnose(text, "spec.yaml")] == ["FW013"], mime


SRC = EXAMPLES / "tasks" / "src"


def request(number: int, method: str, params: Any) -> dict[str, Any]:
    return {"jsonrpc": "2.0", "id": number, "method": method, "params": params}


ARGUMENT_CLASH = "Invalid request parameters: "
HOSTILE: list[tuple[str, Any, str]] = [
    ("resources/read", {"uri": "tasks://" + "T" * 1_000_000}, "`ref` received"),
    ("resources/read", {"uri": "tasks://%zz"}, '`ref` received "%zz"'),
    ("resources/read", {"uri": "tasks://%00"}, "`ref` received"),
    ("resources/read", {"uri": "tasks://%ff%fe"}, "`ref` received"),
    ("resources/read", {"uri": "tasks://T-\u0661"}, "`ref` received"),
    ("resources/read", {"uri": "tasks://{ref}"}, '`ref` received "{ref}"'),
    ("resources/read", {"uri": "tasks://T-1\u0000"}, "`ref` received"),
    ("resources/read", {"uri": "tasks://T-1/../T-2"}, "Unknown resource: tasks://T-1/../T-2"),
    ("resources/read", {"uri": "☃://☃"}, "Unknown resource"),
    ("resources/read", {"uri": ""}, "Unknown resource"),
    ("resources/read", {"uri": 5}, ARGUMENT_CLASH + "`params.uri` must be a string, not a number."),
    ("resources/read", {"uri": None}, ARGUMENT_CLASH + "`params.uri` must be a string, not null."),
    ("resources/read", {}, ARGUMENT_CLASH + "`params.uri` is required but was not given."),
    (
        "prompts/get",
        {"name": "triage", "arguments": {"ref": 1}},
        "`params.arguments.ref` must be a string, not a number",
    ),
    (
        "prompts/get",
        {"name": "triage", "arguments": {"ref": None}},
        "`params.arguments.ref` must be a string, not null",
    ),
    ("prompts/get", {"name": "triage", "arguments": {"ref": {"a": 1}}}, "`params.arguments.ref` must be a string"),
    ("prompts/get", {"name": "triage", "arguments": {"ref": "T-1", "depth": True}}, "`params.arguments.depth`"),
    ("prompts/get", {"name": "triage", "arguments": ["T-1"]}, "`params.arguments` must be an object, not an array"),
    ("prompts/get", {"name": "triage", "arguments": "T-1"}, "`params.arguments` must be an object, not a string"),
    ("prompts/get", {"name": "triage", "arguments": None}, "`ref` is required but was not given"),
    ("prompts/get", {"name": 7}, "`params.name` must be a string, not a number"),
    ("prompts/get", {"name": "triage", "arguments": {"ref": "T-1", "x": "y"}}, "`x` is not an argument of the triage"),
    ("prompts/get", {"name": "{ref}", "arguments": {}}, "Unknown prompt"),
    (
        "completion/complete",
        {"ref": {"type": "ref/prompt", "name": "nope"}, "argument": {"name": "a", "value": "t"}},
        "Unknown prompt: nope",
    ),
    (
        "completion/complete",
        {"ref": {"type": "ref/resource", "uri": "tasks://{x}"}, "argument": {"name": "ref", "value": "T"}},
        "Unknown resource template",
    ),
    ("completion/complete", {"ref": {"type": "ref/weird"}, "argument": {"name": "x", "value": "y"}}, "`params.ref"),
    (
        "completion/complete",
        {"ref": {"type": "ref/prompt", "name": "triage"}, "argument": {"name": "depth", "value": 3}},
        "`params.argument.value` must be a string",
    ),
    (
        "completion/complete",
        {"ref": {"type": "ref/prompt", "name": "triage"}, "argument": {"name": "no", "value": "x" * 100_000}},
        "Unknown argument: no",
    ),
    ("completion/complete", {"ref": "x", "argument": {}}, "`params."),
    ("resources/list", {"cursor": 5}, "`params.cursor` must be a string, not a number"),
    ("resources/list", {"cursor": ""}, "Invalid cursor"),
    ("resources/list", {"cursor": "%%%"}, "Invalid cursor"),
    ("resources/list", {"cursor": "eyJvZmZzZXQiOiAtMX0="}, "Invalid cursor"),
    ("resources/list", {"cursor": "bnVsbA=="}, "Invalid cursor"),
    ("resources/list", {"cursor": "eyJvZmZzZXQiOiAxZTk5OX0="}, "Invalid cursor"),
    ("resources/list", {"cursor": "W10="}, "Invalid cursor"),
    ("resources/list", {"cursor": "x" * 100_000}, "Invalid cursor"),
    ("resources/list", {"cursor": {"offset": 0}}, "`params.cursor` must be a string, not an object"),
    ("prompts/list", {"cursor": "x"}, "Invalid cursor"),
    ("resources/templates/list", {"cursor": "☃"}, "Invalid cursor"),
]


def test_every_hostile_request_is_a_named_32602(tmp_path: Path) -> None:
    answers, log = raw([request(n, m, p) for n, (m, p, _) in enumerate(HOSTILE, 1)], "tasks_mcp", SRC, tmp_path)
    for number, (method, params, words) in enumerate(HOSTILE, 1):
        shown = json.dumps(params)[:120]
        assert number in answers, f"no answer to {method} {shown}"
        error = answers[number].get("error")
        assert error is not None, f"{method} {shown} answered {answers[number]}"
        assert error["code"] == -32602, f"{method} {shown}: {error}"
        text = json.dumps(error)
        assert words in error["message"], f"{method} {shown}: {error['message'][:300]}"
        for leak in ("pydantic", "Traceback", "validation error", "Input should", "errors.pydantic.dev"):
            assert leak not in text, f"{method} {shown}: {text[:300]}"
    assert "Traceback" not in log


def test_a_good_request_after_the_hostile_ones_is_served(tmp_path: Path) -> None:
    hostile = [request(n, m, p) for n, (m, p, _) in enumerate(HOSTILE, 1)]
    good = request(999, "resources/read", {"uri": "tasks://T-1"})
    answers, _ = raw([*hostile, good], "tasks_mcp", SRC, tmp_path)
    assert json.loads(answers[999]["result"]["contents"][0]["text"])["ref"] == "T-1"
