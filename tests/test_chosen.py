"""Definitions chosen by settings (issue 40, point 4): `when:` on a tool, resource, prompt and input field, and
`from_setting` on an input field, decided once at start from the resolved settings; `{settings.<name>}` filled into
every description; a setting's default computed at start by `default_<name>()` in handlers/settings.py. The project
of tests/chosen/files.yaml runs as a subprocess under the real `mcp` client over stdio, started as a client entry
would start it (flags, else defaults)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from mcp import Client, StdioServerParameters
from mcp.shared.exceptions import MCPError

from conftest import REPO, failwell
from failwell.render.pipeline import diagnose

SPEC = REPO / "tests" / "chosen" / "files.yaml"
sys.path.insert(0, str(REPO / "tests" / "chosen"))
from handlers import HANDLERS  # noqa: E402


def _at(text: str, needle: str) -> tuple[int, int]:
    """The line and column (1-based) where `needle` first appears."""
    for number, line in enumerate(text.splitlines(), 1):
        if needle in line:
            return number, line.index(needle) + 1
    raise AssertionError(needle)


def _found(text: str) -> list[str]:
    return [str(d) for d in diagnose(text, "files.yaml")]


def test_the_spec_lints_clean() -> None:
    assert _found(SPEC.read_text()) == []


@pytest.mark.parametrize(
    ("old", "new", "where", "words"),
    [
        (
            "{setting: read_only, equals: false}\n    input:\n      path",
            "{setting: read_onyl, equals: false}\n    input:\n      path",
            "read_onyl",
            "FW187 `when:` names the setting `read_onyl`, which server.settings does not declare; did you mean "
            "`read_only`?",
        ),
        (
            "{setting: read_only, equals: false}\n    input:\n      path",
            '{setting: read_only, equals: "no"}\n    input:\n      path',
            '"no"',
            'FW187 `when:` compares the setting `read_only` with "no", a value it never takes: it takes true or false',
        ),
        (
            "{setting: mode, not_equals: basic}",
            "{setting: mode, not_equals: root}",
            "root}",
            'FW187 `when:` compares the setting `mode` with "root", a value it never takes: it takes one of "basic", '
            '"admin"',
        ),
        (
            "{setting: mode, not_equals: basic}",
            "{setting: mode, equals: admin, not_equals: basic}",
            "{setting: mode, equals: admin, not_equals",
            "FW187 `when:` has both `equals` and `not_equals`; give one: `equals: VALUE` or `not_equals: VALUE`",
        ),
        (
            "{setting: mode, not_equals: basic}",
            "{setting: mode}",
            "{setting: mode}",
            "FW187 `when:` has neither `equals` nor `not_equals`; give one: `equals: VALUE` or `not_equals: VALUE`",
        ),
        (
            "raw: {type: boolean, required: false, when:",
            "raw: {type: boolean, when:",
            "when: {setting: mode, equals: admin}, description: Bytes",
            "FW187 input field `raw` is required, yet `when:` can hide it, so no call could give it then; add "
            "`required: false` (or a `default:`)",
        ),
        (
            "from_setting: folder",
            "from_setting: fodler",
            "fodler",
            "FW187 `from_setting` names `fodler`, which server.settings does not declare; did you mean `folder`?",
        ),
        (
            "from_setting: folder",
            "from_setting: read_only",
            "read_only, maxLength",
            "FW187 `from_setting: read_only` gives this string field the setting's value, which is a boolean",
        ),
        (
            "      raw: {type: boolean}\n",
            "      raw: {type: boolean, when: {setting: mode, equals: admin}}\n",
            "when: {setting: mode, equals: admin}}",
            "FW187 `when` applies to a tool's top-level `input` fields only; remove it",
        ),
        (
            "      by_setting: mode\n",
            "      by_setting: mdoe\n",
            "mdoe",
            "FW187 `by_setting` names the setting `mdoe`, which server.settings does not declare; did you mean `mode`?",
        ),
        (
            "admin: Run any SQL statement.}",
            "root: Run any SQL statement.}\n      default: Run it.",
            "root:",
            'FW187 `values` gives "root", a value the setting `mode` never takes: it takes one of "basic", "admin"',
        ),
        (
            ", admin: Run any SQL statement.}",
            "}",
            "by_setting: mode",
            'FW187 `values` leaves "admin" without one; add `default:` (what the other values, and the setting unset, '
            "choose)",
        ),
        (
            "values: {basic: read, admin: destructive}}",
            "values: {basic: read}, default: destructive}",
            "",
            "",
        ),
        (
            "effect: {by_setting: mode, values: {basic: read, admin: destructive}}\n    idempotency: none\n",
            "effect: {by_setting: mode, values: {basic: read, admin: destructive}}\n",
            "mode, values: {basic: read, admin",
            "FW187 the effect chosen by `mode` is read for some values and destructive for others, so an idempotency "
            "key would come and go with the setting; add `idempotency: none` and an `idempotency_reason:` (the write "
            "variant is then never retried), or give every variant a write effect",
        ),
        (
            "Run a read-only SQL query on {settings.folder}.",
            "Run a read-only SQL query on {settings.fodler}.",
            '"Run a read-only',
            "FW191 {settings.fodler} names no setting; did you mean {settings.folder}?",
        ),
        (
            "The file, inside {settings.folder}.",
            "The file, inside {settings.nope}.",
            '"The file, inside',
            "FW191 {settings.nope} names no setting; the settings are read_only, mode, folder, zone",
        ),
        (
            "A style for {settings.folder}.",
            "A style for {settings.api_key}.",
            '"A style for',
            "FW192 {settings.api_key} would publish a secret setting in a description every client lists; leave it out",
        ),
    ],
)
def test_lint_refuses_a_condition_that_cannot_hold_where_it_is_written(
    old: str, new: str, where: str, words: str
) -> None:
    text = SPEC.read_text()
    assert old in text
    text = text.replace(old, new, 1)
    if "api_key" in new:
        text = text.replace("  settings:\n", "  settings:\n    api_key: {type: string, secret: true}\n")
    if not words:  # accepted: the `default:` covers the values left out
        assert _found(text) == []
        return
    line, col = _at(text, where)
    assert _found(text) == [f"files.yaml:{line}:{col}: {words}"]


@pytest.fixture(scope="module")
def project(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("chosen")
    created = failwell("new", str(root / "files"), "--spec", str(SPEC))
    assert created.returncode == 0, created.stdout + created.stderr
    for path, source in HANDLERS.items():
        (root / "files" / "src" / "files_mcp" / "handlers" / path).write_text(source)
    return root / "files"


async def _served(project: Path, *args: str) -> dict[str, Any]:
    """What a real client sees of the server started with `args`: listings, and the answers to a few calls."""
    params = StdioServerParameters(
        command=sys.executable,
        args=["-m", "files_mcp", *args],
        env={"PYTHONPATH": str(project / "src"), "PATH": os.environ.get("PATH", "")},
    )
    seen: dict[str, Any] = {}
    with (project.parent / "stderr.log").open("w") as errlog:
        from mcp.client.stdio import stdio_client

        async with Client(stdio_client(params, errlog=errlog)) as client:
            seen["tools"] = {tool.name: tool for tool in (await client.list_tools()).tools}
            for name in ("purge", "write_file", "never_declared"):
                try:
                    await client.call_tool(name, {"path": "a.txt", "confirm": True})
                except MCPError as exc:
                    seen[name] = (exc.error.code, exc.error.message)
                else:
                    seen[name] = "answered"
            seen["read"] = await client.call_tool("read_file", {"path": "a.txt"})
            seen["sql"] = await client.call_tool("run_sql", {"sql": "select 1"})
            seen["sql_broken"] = await client.call_tool("run_sql", {"sql": "boom"})
            seen["read_raw"] = await client.call_tool("read_file", {"path": "a.txt", "raw": True})
            seen["read_folder"] = await client.call_tool("read_file", {"path": "a.txt", "folder": "/elsewhere"})
            for method, lister in (("resources", client.list_resources), ("prompts", client.list_prompts)):
                try:
                    seen[method] = await lister()
                except MCPError as exc:
                    seen[method] = exc.error.code
    return seen


def _text(result: Any) -> str:
    return "\n".join(getattr(block, "text", "") for block in result.content)


def _unknown(name: str) -> tuple[int, str]:
    return (-32602, f"Unknown tool: {name}; call tools/list for the tools this server has.")


@pytest.mark.slow
@pytest.mark.anyio
async def test_with_the_defaults_what_a_setting_hides_is_absent_and_answered_as_never_declared(project: Path) -> None:
    seen = await _served(project)
    assert sorted(seen["tools"]) == ["read_file", "run_sql", "write_file"], "purge needs mode admin"
    assert seen["purge"] == _unknown("purge") and seen["never_declared"] == _unknown("never_declared")
    assert seen["write_file"] == "answered"
    assert seen["tools"]["write_file"].description == "Write a file (dates in Europe/Paris).", "default_zone()"
    read = seen["tools"]["read_file"]
    assert sorted(read.input_schema["properties"]) == ["folder", "path"], "raw needs mode admin; folder is unset"
    assert read.description == "Read a file of none."
    assert seen["read"].structured_content == {"path": "a.txt", "folder": "", "raw": False}
    assert seen["read_raw"].is_error
    assert "`raw` is not an argument of read_file; remove it. The accepted arguments are: path, folder." in _text(
        seen["read_raw"]
    )
    assert seen["read_folder"].structured_content["folder"] == "/elsewhere", "published while the setting is unset"
    assert seen["resources"] == -32601, "its only resource needs mode admin: no resources capability"
    prompts = seen["prompts"].prompts
    assert [p.name for p in prompts] == ["tidy"]
    assert prompts[0].arguments[0].description == "A style for none."


@pytest.mark.slow
@pytest.mark.anyio
async def test_settings_given_at_start_choose_other_definitions_and_fill_every_description(project: Path) -> None:
    seen = await _served(project, "--read-only", "--mode", "admin", "--folder", "/srv/files")
    assert sorted(seen["tools"]) == ["purge", "read_file", "run_sql"], "read-only hides write_file; admin shows purge"
    assert seen["write_file"] == _unknown("write_file"), "the same words as a tool never declared"
    assert seen["purge"] == "answered"
    read = seen["tools"]["read_file"]
    assert sorted(read.input_schema["properties"]) == ["path", "raw"], "folder comes from --folder: not published"
    assert read.description == "Read a file of /srv/files."
    assert read.input_schema["properties"]["path"]["description"] == "The file, inside /srv/files."
    assert read.output_schema is not None
    assert read.output_schema["properties"]["path"]["description"] == "The file read (mode admin)."
    assert seen["read"].structured_content == {"path": "a.txt", "folder": "/srv/files", "raw": False}
    assert seen["read_raw"].structured_content == {"path": "a.txt", "folder": "/srv/files", "raw": True}
    assert seen["read_folder"].is_error
    assert "`folder` is not an argument of read_file; remove it. The accepted arguments are: path, raw." in _text(
        seen["read_folder"]
    )
    assert [r.name for r in seen["resources"].resources] == ["status"]
    assert seen["prompts"] == -32601, "its only prompt needs read_only false: no prompts capability"


_READ = {"readOnlyHint": True, "destructiveHint": False, "idempotentHint": True, "openWorldHint": False}
_DESTRUCTIVE = {"readOnlyHint": False, "destructiveHint": True, "idempotentHint": False, "openWorldHint": False}


@pytest.mark.slow
@pytest.mark.anyio
@pytest.mark.parametrize(
    ("args", "description", "annotations"),
    [
        ((), "Run a read-only SQL query on none.", _READ),
        (("--mode", "basic", "--folder", "/srv"), "Run a read-only SQL query on /srv.", _READ),
        (("--mode", "admin"), "Run any SQL statement.", _DESTRUCTIVE),
    ],
)
async def test_a_description_and_an_effect_chosen_by_a_setting_are_published_so_with_their_annotations(
    project: Path, args: tuple[str, ...], description: str, annotations: dict[str, bool]
) -> None:
    seen = await _served(project, *args)
    tool = seen["tools"]["run_sql"]
    assert tool.description == description
    assert tool.annotations is not None
    assert tool.annotations.model_dump(by_alias=True, exclude_none=True) == annotations
    assert _text(seen["sql"]) == "ran select 1", "the chosen effect runs the handler as it is"
    broken = _text(seen["sql_broken"])  # what a failure says follows the chosen effect too
    said = "Nothing was changed." if annotations["readOnlyHint"] else "The change may have been applied."
    assert said in broken, broken


def test_the_hook_file_is_created_once_and_a_failing_hook_stops_the_server_in_one_line(project: Path) -> None:
    """`handlers/settings.py` is the person's (generate keeps it); a hook that raises is a start-up refusal: exit 2,
    one stderr line naming the hook, what it raised, and how to give the setting instead; a given setting is not
    computed at all."""
    hooks = project / "src" / "files_mcp" / "handlers" / "settings.py"
    assert "LookupError" in hooks.read_text()
    regenerated = failwell("generate", str(project))
    assert regenerated.returncode == 0, regenerated.stdout + regenerated.stderr
    assert "LookupError" in hooks.read_text(), "never overwritten"
    env = {"PYTHONPATH": str(project / "src"), "PATH": os.environ.get("PATH", ""), "ZONE_HOOK_FAILS": "1"}

    def start(*args: str) -> subprocess.CompletedProcess[str]:
        command = [sys.executable, "-m", "files_mcp", *args]
        return subprocess.run(command, input="", capture_output=True, text=True, timeout=60, env=env)

    ran = start()
    assert ran.returncode == 2 and ran.stdout == "", ran.stderr
    lines = ran.stderr.splitlines()
    assert len(lines) == 1 and "Traceback" not in ran.stderr, ran.stderr
    assert json.loads(lines[0])["reason"] == (
        "setting zone has no value: default_zone() in handlers/settings.py raised LookupError: 'no zone file at "
        "/etc/localtime'; fix it, or pass --zone or set FILES_ZONE, a string of at least 1 character; a client entry "
        'passes flags in its "args" and variables in its "env"'
    )
    assert start("--zone", "UTC").returncode == 0, "given: the hook is not called"


def test_lint_refuses_a_hook_that_would_never_be_called() -> None:
    text = SPEC.read_text().replace("default_from: hook,", "default_from: hook, default: UTC,")
    line, col = _at(text, "hook, default")
    assert _found(text) == [
        f"files.yaml:{line}:{col}: FW193 setting `zone` has a `default:`, so its `default_from: hook` would never "
        "be called; drop one of them"
    ]


_JSON_HOOK = """failwell: 1
server:
  name: cfg
  version: 0.1.0
  description: A JSON setting computed at start.
  settings:
    limits:
      type: json
      schema: {type: object, properties: {rows: {type: integer}}, additionalProperties: false}
      default_from: hook
      description: The limits.
tools:
  ping:
    description: Answer.
    effect: read
"""


@pytest.mark.slow
def test_a_json_setting_computed_by_a_hook_is_taken_as_its_value_not_decoded_as_text(tmp_path: Path) -> None:
    """`default_limits()` returns the JSON value itself: it is checked against the setting's `schema:`, and never
    read as JSON text (a string the hook returns is a string, refused here since the schema wants an object)."""
    spec = tmp_path / "failwell.yaml"
    spec.write_text(_JSON_HOOK)
    created = failwell("new", str(tmp_path / "cfg"), "--spec", str(spec))
    assert created.returncode == 0, created.stdout + created.stderr
    hooks = tmp_path / "cfg" / "src" / "cfg_mcp" / "handlers" / "settings.py"
    env = {"PYTHONPATH": str(tmp_path / "cfg" / "src"), "PATH": os.environ.get("PATH", "")}

    def start(returned: str) -> subprocess.CompletedProcess[str]:
        hooks.write_text(f"from typing import Any\n\n\ndef default_limits() -> Any:\n    return {returned}\n")
        command = [sys.executable, "-m", "cfg_mcp"]
        return subprocess.run(command, input="", capture_output=True, text=True, timeout=60, env=env)

    ran = start('{"rows": 5}')
    assert ran.returncode == 0, ran.stderr
    ran = start('{"rows": "many"}')
    assert ran.returncode == 2 and "Traceback" not in ran.stderr, ran.stderr
    assert "setting limits from default_limits() is not accepted: limits.rows takes" in ran.stderr
    ran = start("""'{"rows": 5}'""")
    assert ran.returncode == 2 and "Traceback" not in ran.stderr, "text from a hook is not decoded: " + ran.stderr


_HIDDEN_NOTIFIER = """failwell: 1
server:
  name: notes
  version: 0.1.0
  description: Notes, one of whose writers a setting hides.
  settings:
    admin: {type: boolean, default: false, description: Allow the admin tools.}
tools:
  clear:
    description: Clear every note.
    effect: destructive
    idempotent: true
    idempotency_reason: Clearing what is gone changes nothing.
    when: {setting: admin, equals: true}
  touch:
    description: Touch a note.
    effect: write
    idempotent: true
    input:
      name: {type: string, minLength: 1, maxLength: 40, description: The note., example: a}
resources:
  note:
    uri: "notes://note/{name}"
    description: A note.
    subscribe: true
    params:
      name: {type: string, minLength: 1, maxLength: 40, description: The note., example: a}
"""


@pytest.mark.slow
def test_the_generated_subscriptions_test_uses_a_tool_served_with_the_default_settings(tmp_path: Path) -> None:
    """The first tool (`clear`) is hidden by default, so the generated subscriptions test, which calls its notifier
    tool with EXAMPLE_ARGUMENTS (the tools served by default), takes `touch`; and it passes."""
    spec = tmp_path / "failwell.yaml"
    spec.write_text(_HIDDEN_NOTIFIER)
    project = tmp_path / "notes"
    created = failwell("new", str(project), "--spec", str(spec))
    assert created.returncode == 0, created.stdout + created.stderr
    test = project / "tests" / "generated" / "test_subscriptions.py"
    assert 'TOOL = "touch"' in test.read_text()
    ran = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", str(test.relative_to(project))],
        cwd=project,
        env={**os.environ, "PYTHONPATH": "src"},
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert ran.returncode == 0, ran.stdout[-4000:] + ran.stderr[-2000:]
