"""Living with a generated project: hand edits are caught, nothing unchanged is re-rendered, handlers
that no longer fit are named, and YAML key order changes nothing."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from conftest import REPO, copy_project, failwell, only_stubs, tree

pytestmark = pytest.mark.slow

TASKS = REPO / "examples" / "tasks"


def test_a_hand_edit_in_an_owned_file_is_refused_unless_forced(tmp_path: Path) -> None:
    project = tmp_path / "proj"
    assert failwell("new", project, "--name", "notes").returncode == 0
    owned = project / "src" / "notes_mcp" / "_generated" / "server.py"
    owned.write_text(owned.read_text() + "\n# a quick fix\n")
    spec = project / "failwell.yaml"
    spec.write_text(spec.read_text().replace("Keeps short notes", "Keeps notes"))

    refused = failwell("generate", project)
    assert refused.returncode == 1
    assert "changed by hand since the last generate: src/notes_mcp/_generated/server.py" in refused.stderr
    assert owned.read_text().endswith("# a quick fix\n"), "nothing was written"
    assert "edited by hand: src/notes_mcp/_generated/server.py" in failwell("generate", "--check", project).stdout

    forced = failwell("generate", "--force", project)
    assert forced.returncode == 0, forced.stderr
    assert "# a quick fix" not in owned.read_text()
    assert 'INSTRUCTIONS = "Keeps notes for an assistant."' in owned.read_text()


def test_an_unchanged_project_is_not_rendered_again(tmp_path: Path) -> None:
    project = tmp_path / "proj"
    assert failwell("new", project, "--name", "notes").returncode == 0
    again = failwell("generate", project)
    assert again.returncode == 0
    assert "nothing changed since the last generate" in again.stderr
    spec = project / "failwell.yaml"
    spec.write_text(spec.read_text().replace("Ids look like N-1.", "Ids look like N-1 or N-22."))
    changed = failwell("generate", project)
    assert "wrote: src/notes_mcp/_generated/tools/notes_get.py" in changed.stdout
    assert "nothing changed" not in changed.stderr


def test_a_deleted_handler_is_created_again_and_other_deleted_seeds_stay_deleted(tmp_path: Path) -> None:
    project = tmp_path / "proj"
    assert failwell("new", project, "--name", "notes").returncode == 0
    handler = project / "src" / "notes_mcp" / "handlers" / "notes_get.py"
    first = handler.read_bytes()
    handler.unlink()
    (project / "README.md").unlink()
    (project / "tests" / "test_notes_add.py").unlink()
    assert failwell("generate", "--check", project).stdout == (
        "stale: src/notes_mcp/handlers/notes_get.py\nstub: src/notes_mcp/handlers/notes_add.py (tool notes_add)\n"
    )
    again = failwell("generate", project)
    assert again.returncode == 0, again.stderr
    assert "created: src/notes_mcp/handlers/notes_get.py" in again.stdout
    assert handler.read_bytes() == first
    assert not (project / "README.md").exists() and not (project / "tests" / "test_notes_add.py").exists()
    assert "nothing changed since the last generate" in failwell("generate", project).stderr
    assert only_stubs(failwell("generate", "--check", project))


def test_a_handler_that_reads_a_dropped_field_is_named(tmp_path: Path) -> None:
    project = copy_project(TASKS, tmp_path / "tasks")
    spec = project / "failwell.yaml"
    text = spec.read_text()
    start = text.index("  tasks_get:")
    end = text.index("  tasks_search:")
    spec.write_text(
        text[:start]
        + text[start:end].replace("      ref:", "      task_ref:").replace("{ref}", "{task_ref}")
        + text[end:]
    )
    result = failwell("generate", project)
    assert result.returncode == 0, result.stderr
    assert "src/tasks_mcp/handlers/tasks_get.py:9: tasks_get has no input field `ref`" in result.stderr
    assert "its fields are: task_ref" in result.stderr
    mypy = subprocess.run(
        [sys.executable, "-m", "mypy", "--no-incremental", "--cache-dir", os.devnull],
        cwd=project,
        env={**os.environ, "MYPYPATH": "src"},
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert mypy.returncode == 1
    assert 'handlers/tasks_get.py:9: error: "Input" has no attribute "ref"' in mypy.stdout


def test_key_order_in_the_yaml_changes_nothing(tmp_path: Path) -> None:
    spec = (TASKS / "failwell.yaml").read_text()
    field_keys = [
        "        type: string\n",
        '        pattern: "^T-[0-9]+$"\n',
        "        description: The task's reference.\n",
    ]
    reordered = spec.replace("".join(field_keys), "".join(reversed(field_keys)))
    head, _, tools = reordered.partition("\ntools:\n")
    tools, _, readers = tools.partition("\n\n# Resources and prompts")
    blocks = tools.split("\n\n  tasks_")
    reordered = head + "\ntools:\n" + "\n\n  tasks_".join([blocks[0], *reversed(blocks[1:])])
    reordered += "\n\n# Resources and prompts" + readers
    assert reordered != spec
    (tmp_path / "a.yaml").write_text(spec)
    (tmp_path / "b.yaml").write_text(reordered)
    for name in ("a", "b"):
        assert failwell("new", tmp_path / name, "--spec", tmp_path / f"{name}.yaml").returncode == 0
    ignore = {"failwell.yaml", "failwell.manifest.json"}
    first = {k: v for k, v in tree(tmp_path / "a").items() if k not in ignore}
    second = {k: v for k, v in tree(tmp_path / "b").items() if k not in ignore}
    assert first == second


def test_generated_projects_check_themselves_in_ci_and_pre_commit(tmp_path: Path) -> None:
    project = tmp_path / "proj"
    assert failwell("new", project, "--name", "notes").returncode == 0
    assert "entry: failwell generate --check" in (project / ".pre-commit-config.yaml").read_text()
    assert "failwell generate --check --diff" in (project / ".github" / "workflows" / "failwell.yml").read_text()
    shutil.rmtree(project / "src" / "notes_mcp" / "_generated" / "tools")
    assert failwell("generate", "--check", project).returncode == 1


def test_a_spec_that_is_not_yaml_is_reported_not_a_crash(tmp_path: Path) -> None:
    project = tmp_path / "proj"
    assert failwell("new", project, "--name", "notes").returncode == 0
    (project / "failwell.yaml").write_text("failwell: 1\nserver: {name: notes\n")
    result = failwell("generate", project)
    assert result.returncode == 1
    assert "failwell.yaml:2:9: FW001 not valid YAML: this { is never closed" in result.stdout
    assert "Traceback" not in result.stderr


def test_a_format_0_spec_is_migrated_keeping_comments_and_order(tmp_path: Path) -> None:
    project = tmp_path / "proj"
    assert failwell("new", project, "--name", "notes").returncode == 0
    spec = project / "failwell.yaml"
    old = spec.read_text().replace("failwell: 1\n", "spec_version: 1   # the draft format\n")
    old = old.replace("    idempotency: required\n", "")
    spec.write_text(old)
    assert "FW004" in failwell("validate", spec).stdout

    result = failwell("generate", project)
    assert result.returncode == 0, result.stderr
    assert "migrated failwell.yaml: format 0 -> 1" in result.stderr
    assert "migrated failwell.yaml: tools.notes_add: added `idempotency: optional`" in result.stderr
    text = spec.read_text()
    assert re.search(r"^failwell: 1 +# the draft format\n\nserver:", text, re.M), "the comment and blank line stay"
    assert text.index("\nfailwell: 1") < text.index("\nserver:") < text.index("\ntools:")
    assert "# A failwell spec: the tools of one MCP server" in text, "comments are kept"
    assert "    effect: write\n    idempotency: optional  # added by the format 1 migration" in text
    assert failwell("validate", spec).returncode == 0
    assert only_stubs(failwell("generate", "--check", project))


def test_an_import_from_where_the_runtime_used_to_be_is_named_with_its_new_home(tmp_path: Path) -> None:
    project = tmp_path / "proj"
    assert failwell("new", project, "--name", "notes").returncode == 0
    handler = project / "src" / "notes_mcp" / "handlers" / "notes_get.py"
    handler.write_text("from .._generated.runtime import ToolContext\n" + handler.read_text())
    (project / "tests" / "test_store.py").write_text("from notes_mcp._generated.store import MemoryStore, other\n")
    spec = project / "failwell.yaml"
    spec.write_text(spec.read_text().replace("Ids look like N-1.", "Ids look like N-1 or N-22."))
    result = failwell("generate", project)
    assert result.returncode == 0, result.stderr
    assert (
        "src/notes_mcp/handlers/notes_get.py:1: `ToolContext` moved from `_generated.runtime` to "
        "`_generated.runtime.calls.contracts`; import it from there"
    ) in result.stderr
    moved = (
        "tests/test_store.py:1: `MemoryStore` moved from `_generated.store` to `_generated.runtime.stores.store_memory`"
    )
    assert moved in result.stderr
    assert "`other`" not in result.stderr, "only names the runtime had are named"
