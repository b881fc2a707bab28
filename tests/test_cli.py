"""The `failwell` command as a person uses it: exit codes, messages, and what it writes."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from conftest import REPO, failwell, only_stubs, tree

pytestmark = pytest.mark.slow

TASKS_SPEC = REPO / "examples" / "tasks" / "failwell.yaml"


def test_validate_accepts_a_good_spec() -> None:
    result = failwell("validate", TASKS_SPEC)
    assert result.returncode == 0, result.stdout + result.stderr
    assert "is valid" in result.stderr


def test_validate_prints_every_problem_and_exits_1() -> None:
    result = failwell("validate", REPO / "tests" / "invalid" / "many_problems.yaml")
    assert result.returncode == 1
    lines = result.stdout.splitlines()
    snapshot = (REPO / "tests" / "invalid" / "many_problems.out").read_text().splitlines()
    assert [line.split("/")[-1] for line in lines] == snapshot
    assert f"{len(snapshot)} error(s)" in result.stderr
    assert "Traceback" not in result.stderr


def test_validate_strict_turns_warnings_into_errors() -> None:
    spec = REPO / "tests" / "invalid" / "placeholders.yaml"
    assert "warning:" in failwell("validate", spec).stdout
    text = spec.read_text().replace("class: permision_denied", "class: permission_denied")
    text = text.replace('"Order {order} is locked {"', '"Order {order_id} is locked."').replace(
        "shiped_at", "shipped_at"
    )
    warn_only = spec.parent / "warn_only.yaml.tmp"
    try:
        warn_only.write_text(text)
        warned = failwell("validate", warn_only)
        assert warned.returncode == 0
        count = warned.stdout.count("warning:")
        assert count >= 1 and f"is valid, with {count} warning{'s' if count > 1 else ''}\n" in warned.stderr
        assert failwell("validate", "--strict", warn_only).returncode == 1
    finally:
        warn_only.unlink()


def test_validate_missing_file(tmp_path: Path) -> None:
    result = failwell("validate", tmp_path / "nope.yaml")
    assert result.returncode == 1
    assert "no such file" in result.stderr and "Traceback" not in result.stderr


def test_schema_prints_the_json_schema() -> None:
    result = failwell("schema")
    assert result.returncode == 0
    schema = json.loads(result.stdout)
    assert schema["$schema"] == "https://json-schema.org/draft/2020-12/schema"
    assert schema == json.loads((REPO / "generator" / "failwell" / "spec.schema.json").read_text())


def test_new_refuses_a_non_empty_folder(tmp_path: Path) -> None:
    (tmp_path / "keep.txt").write_text("mine")
    result = failwell("new", tmp_path)
    assert result.returncode == 1
    assert "not empty" in result.stderr
    assert tree(tmp_path) == {"keep.txt": b"mine"}


def test_new_with_a_bad_spec_writes_nothing(tmp_path: Path) -> None:
    result = failwell("new", tmp_path / "out", "--spec", REPO / "tests" / "invalid" / "many_problems.yaml")
    assert result.returncode == 1
    assert "FW121" in result.stdout
    assert not (tmp_path / "out").exists()


def test_generate_keeps_handlers_and_follows_the_spec(tmp_path: Path) -> None:
    project = tmp_path / "proj"
    assert failwell("new", project, "--spec", TASKS_SPEC).returncode == 0
    handler = project / "src" / "tasks_mcp" / "handlers" / "tasks_get.py"
    handler.write_text(handler.read_text() + "\n# my own change\n")
    spec = project / "failwell.yaml"
    text = spec.read_text()
    text = text.replace("Refs look like T-1. Call tasks_search", "References look like T-1. Use tasks_search")
    text = text.replace(
        "\n  tasks_close:",
        "\n  tasks_archive:\n    description: Archive a closed task.\n    effect: write\n    idempotency: optional\n"
        "    scopes: [tasks:write]\n"
        "    input:\n      ref: {type: string, example: T-1}\n\n  tasks_close:",
    )
    spec.write_text(text)

    check = failwell("generate", "--check", project)
    assert check.returncode == 1
    assert "stale: src/tasks_mcp/_generated/tools/tasks_get.py" in check.stdout
    assert "stale: src/tasks_mcp/handlers/tasks_archive.py" in check.stdout
    assert not (project / "src" / "tasks_mcp" / "handlers" / "tasks_archive.py").exists()

    diff = failwell("generate", "--check", "--diff", project)
    assert '+    template = "No task {ref}. References look like T-1.' in diff.stdout

    result = failwell("generate", project)
    assert result.returncode == 0, result.stderr
    assert "created: src/tasks_mcp/handlers/tasks_archive.py" in result.stdout
    assert handler.read_text().endswith("# my own change\n")
    assert "References look like T-1" in (project / "src/tasks_mcp/_generated/tools/tasks_get.py").read_text()
    assert only_stubs(failwell("generate", "--check", project)), "up to date; the handlers are still stubs"


def test_generate_removes_stale_owned_files_and_reports_orphan_handlers(tmp_path: Path) -> None:
    project = tmp_path / "proj"
    assert failwell("new", project, "--spec", TASKS_SPEC).returncode == 0
    spec = project / "failwell.yaml"
    text = spec.read_text()
    spec.write_text(text[: text.index("\n  tasks_close:")] + "\n")
    result = failwell("generate", project)
    assert result.returncode == 0
    assert "removed: src/tasks_mcp/_generated/tools/tasks_close.py" in result.stdout
    assert not (project / "src/tasks_mcp/_generated/tools/tasks_close.py").exists()
    assert (project / "src/tasks_mcp/handlers/tasks_close.py").exists()
    assert "kept src/tasks_mcp/handlers/tasks_close.py" in result.stderr


def test_generate_with_a_broken_spec_writes_nothing(tmp_path: Path) -> None:
    project = tmp_path / "proj"
    assert failwell("new", project, "--name", "notes").returncode == 0
    before = tree(project)
    spec = project / "failwell.yaml"
    spec.write_text(spec.read_text().replace("effect: read", "effect: reed"))
    result = failwell("generate", project)
    assert result.returncode == 1
    assert "FW121" in result.stdout
    assert {k: v for k, v in tree(project).items() if k != "failwell.yaml"} == {
        k: v for k, v in before.items() if k != "failwell.yaml"
    }


def test_generate_outside_a_project(tmp_path: Path) -> None:
    result = failwell("generate", tmp_path)
    assert result.returncode == 1
    assert f"no failwell.yaml in {tmp_path} or any folder above it" in result.stderr
