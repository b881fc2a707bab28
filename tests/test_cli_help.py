"""The command line as a newcomer meets it, in-process: help, version, names, next steps, where the spec is
found, diffs while writing, hand edits, warnings, handed-over files and tools a message names."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from conftest import EXAMPLES
from failwell.cli import app
from failwell.version import VERSION

COMMANDS = ["validate", "new", "generate", "messages", "schema", "install", "dev", "tools", "call", "audit"]


def run(*args: str | Path) -> tuple[int, str, str]:
    result = CliRunner().invoke(app, [str(arg) for arg in args], prog_name="failwell")
    return result.exit_code, result.stdout, result.stderr


def test_version_and_short_help() -> None:
    assert run("--version")[:2] == (0, f"failwell {VERSION}\n")
    code, out, _ = run("-h")
    assert code == 0 and all(command in out for command in COMMANDS)


def every_command() -> list[str]:
    """Every command a person can ask help of, sub-commands too (`import openapi`), hidden ones aside."""
    import typer.main

    found = []

    def walk(group: Any, path: str) -> None:
        for name, command in sorted(group.commands.items()):
            if command.hidden:
                continue
            found.append(f"{path} {name}".strip())
            if hasattr(command, "commands"):
                walk(command, f"{path} {name}")

    walk(typer.main.get_command(app), "")
    return found


def test_every_command_is_listed() -> None:
    assert set(COMMANDS) | {"read", "prompt", "import", "import openapi"} <= set(every_command())


@pytest.mark.parametrize("command", every_command())
def test_each_command_has_clean_help_that_ends_with_an_example(command: str) -> None:
    """docs/how-to/commands.md: every command's help (-h or --help) ends with an example."""
    code, out, _ = run(*command.split(), "-h")
    assert code == 0
    last = out.rstrip().split("\n\n")[-1].splitlines()
    assert last[0] == "  Example:", out
    assert all(line.startswith(f"    failwell {command}") for line in last[1:]) and len(last) > 1, out
    assert not re.search(r"<\w+>|\{\w+\}|--no-(?!uv)", out), out


def test_new_names_the_starter_after_dest_and_prints_the_next_steps(tmp_path: Path) -> None:
    code, _, err = run("new", tmp_path / "My Server")
    assert code == 0, err
    assert (tmp_path / "My Server" / "src" / "my_server_mcp" / "handlers" / "notes_get.py").is_file()
    assert "  name: my-server\n" in (tmp_path / "My Server" / "failwell.yaml").read_text()
    steps = err.split("Next:\n", 1)[1].splitlines()
    assert len(steps) == 3 and steps[0].startswith(f"  cd {tmp_path / 'My Server'} && ")
    assert run("new", tmp_path / "other", "--name", "notes")[0] == 0
    assert (tmp_path / "other" / "src" / "notes_mcp").is_dir()
    code, _, err = run("new", tmp_path / "x", "--name", "x", "--spec", EXAMPLES / "tasks" / "failwell.yaml")
    assert code == 1 and "--name names a starter project" in err
    code, _, err = run("new", tmp_path / "123")
    assert code == 1 and "pass one with --name" in err


def test_the_spec_is_found_from_a_subfolder(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    assert run("new", tmp_path / "proj", "--name", "notes")[0] == 0
    monkeypatch.chdir(tmp_path / "proj" / "src" / "notes_mcp")
    code, _, err = run("generate")
    assert code == 0 and "up to date" in err, err
    code, _, err = run("validate")
    assert code == 0 and f"{tmp_path / 'proj' / 'failwell.yaml'} is valid" in err
    assert run("messages")[0] == 0
    monkeypatch.chdir(tmp_path)
    code, _, err = run("generate")
    assert code == 1 and "no failwell.yaml in . or any folder above it" in err


def test_diff_while_writing_and_edited_by_hand_in_check(tmp_path: Path) -> None:
    project = tmp_path / "proj"
    assert run("new", project, "--name", "notes")[0] == 0
    spec = project / "failwell.yaml"
    spec.write_text(spec.read_text().replace("Ids look like N-1.", "Ids look like N-12."))
    code, out, _ = run("generate", "--diff", project)
    assert code == 0
    assert "+++ b/src/notes_mcp/_generated/tools/notes_get.py" in out and "Ids look like N-12." in out
    assert "wrote: src/notes_mcp/_generated/tools/notes_get.py" in out
    server = project / "src" / "notes_mcp" / "_generated" / "server.py"
    server.write_text(server.read_text() + "# mine\n")
    code, out, _ = run("generate", "--check", project)
    assert code == 1 and "edited by hand: src/notes_mcp/_generated/server.py" in out.splitlines()


def test_new_and_generate_print_wording_warnings_and_unknown_tools(tmp_path: Path) -> None:
    spec = tmp_path / "spec.yaml"
    starter = (EXAMPLES.parent / "generator" / "failwell" / "starter.yaml").read_text()
    spec.write_text(starter.replace("Call notes_add to create one.", "Call notes_ad to create one."))
    code, out, _ = run("new", tmp_path / "proj", "--spec", spec)
    assert code == 0
    assert "FW207 warning: notes_get.note_missing: names `notes_ad`, which is not a tool of this server; " in out
    assert "did you mean notes_add?" in out
    project_spec = tmp_path / "proj" / "failwell.yaml"
    project_spec.write_text(project_spec.read_text().replace("Buy milk", "Buy bread"))
    code, out, _ = run("generate", tmp_path / "proj")
    assert code == 0 and "FW207" in out
    assert run("validate", "--strict", project_spec)[0] == 1


def test_a_renamed_tools_test_file_is_reported_like_its_handler(tmp_path: Path) -> None:
    project = tmp_path / "proj"
    assert run("new", project, "--name", "notes")[0] == 0
    spec = project / "failwell.yaml"
    spec.write_text(spec.read_text().replace("notes_add", "notes_create"))
    code, _, err = run("generate", project)
    assert code == 0
    assert "kept src/notes_mcp/handlers/notes_add.py: its tool `notes_add` is no longer in the spec" in err
    assert "run `failwell generate --rename notes_add=notes_create`, which moves its handler" in err
    assert "kept tests/test_notes_add.py: its tool is no longer in the spec" in err
    (project / "src" / "notes_mcp" / "handlers" / "notes_add.py").unlink()
    _, _, err = run("generate", project)
    assert "kept tests/test_notes_add.py" in err
