"""What a generated project shows its user holds up: numbered names (`t1` ... `t12`) keep the generated
imports in the order ruff sorts them (so the project's own `ruff check` and `mypy --strict` pass), and the
README's example Redis URL is one the server's own check accepts."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from failwell.spec.naming import import_order

NUMBERED = range(1, 13)


def numbered_spec() -> str:
    lines = ["failwell: 1", "server:", "  name: nums", "  store: memory", "  rate_limit: {calls: 60, per_s: 60}"]
    lines.append("tools:")
    for i in NUMBERED:
        lines += [f"  t{i}:", f"    description: Tool number {i}.", "    effect: read"]
        lines += ["    input:", "      q: {type: string, example: a}"]
    lines.append("resources:")
    for i in NUMBERED:
        lines += [f"  t{i}:", f'    uri: "nums://t{i}/{{ref}}"', f"    description: Resource number {i}."]
        lines += [
            "    mime_type: application/json",
            "    params:",
            '      ref: {type: string, pattern: "^[a-z]+$", example: a}',
        ]
    lines.append("prompts:")
    for i in NUMBERED:
        lines += [
            f"  t{i}:",
            f"    description: Prompt number {i}.",
            "    arguments:",
            "      q: {type: string, example: a}",
        ]
    return "\n".join(lines) + "\n"


@pytest.fixture(scope="module")
def numbered(tmp_path_factory: pytest.TempPathFactory) -> Path:
    from failwell import new

    root = tmp_path_factory.mktemp("numbered")
    (root / "nums.yaml").write_text(numbered_spec())
    new(root / "nums", root / "nums.yaml")
    return root / "nums"


def run(args: list[str], cwd: Path) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "MYPYPATH": "src", "PYTHONPATH": "src"}
    return subprocess.run(args, cwd=cwd, env=env, capture_output=True, text=True, timeout=600)


def test_names_sort_as_ruff_sorts_them() -> None:
    names = ["t10", "t2", "t1", "t1_b", "t1a", "t_a", "t9", "tasks_close", "tasks_create", "a10b2", "a10b10"]
    assert sorted(names, key=import_order) == [
        "a10b2", "a10b10", "t1", "t1_b", "t1a", "t2", "t9", "t10", "t_a", "tasks_close", "tasks_create",
    ]  # fmt: skip


def test_numbered_tools_resources_and_prompts_pass_the_generated_projects_ruff(numbered: Path) -> None:
    server = (numbered / "src" / "nums_mcp" / "_generated" / "server.py").read_text()
    assert server.index("import t9 as t9_handler") < server.index("import t10 as t10_handler")
    check = run([sys.executable, "-m", "ruff", "check", "--no-cache", "."], numbered)
    assert check.returncode == 0, check.stdout
    formatted = run([sys.executable, "-m", "ruff", "format", "--check", "--no-cache", "."], numbered)
    assert formatted.returncode == 0, formatted.stdout


@pytest.mark.slow
def test_numbered_tools_resources_and_prompts_pass_the_generated_projects_mypy(numbered: Path) -> None:
    result = run([sys.executable, "-m", "mypy", "--no-incremental", "--cache-dir", os.devnull], numbered)
    assert result.returncode == 0, result.stdout


def test_the_readmes_redis_url_is_one_the_server_accepts(tmp_path: Path) -> None:
    """The README's client entry sets REDIS_URL to an example; the generated RedisStore (the check the server
    runs at start-up) must accept it, and say so about a URL it refuses."""
    from ledger import importable

    from conftest import EXAMPLES
    from failwell import new

    spec = (EXAMPLES / "tasks" / "failwell.yaml").read_text().replace("store: sqlite", "store: redis")
    assert "store: redis" in spec
    (tmp_path / "spec.yaml").write_text(spec)
    new(tmp_path / "tasks", tmp_path / "spec.yaml")
    readme = (tmp_path / "tasks" / "README.md").read_text()
    entry = json.loads(re.search(r"```json\n(\{.*?\})\n```", readme, re.DOTALL).group(1))  # type: ignore[union-attr]
    url = entry["mcpServers"]["tasks"]["env"]["REDIS_URL"]
    with importable(tmp_path / "tasks" / "src", "tasks_mcp"):
        from tasks_mcp._generated.runtime.setup.config import ConfigurationError
        from tasks_mcp._generated.runtime.stores.store_redis import RedisStore

        RedisStore(url)  # raises ConfigurationError on a URL the server refuses
        with pytest.raises(ConfigurationError):
            RedisStore("https://redis.example.com")


@pytest.mark.slow
@pytest.mark.parametrize("store", ["memory", "sqlite", "redis"])
def test_a_project_on_each_store_passes_its_own_ruff_format_and_mypy(tmp_path: Path, store: str) -> None:
    """The store's opener is printed into `_generated/server.py` (a Redis URL's message once made that line too long
    for `ruff format`, and the Redis store's Lua arguments failed `mypy --strict`)."""
    from conftest import EXAMPLES
    from failwell import new

    spec = (EXAMPLES / "tasks" / "failwell.yaml").read_text().replace("store: sqlite", f"store: {store}")
    assert f"store: {store}" in spec
    (tmp_path / "spec.yaml").write_text(spec)
    new(tmp_path / "tasks", tmp_path / "spec.yaml")
    project = tmp_path / "tasks"
    for args in (["ruff", "check", "--no-cache", "."], ["ruff", "format", "--check", "--no-cache", "."]):
        result = run([sys.executable, "-m", *args], project)
        assert result.returncode == 0, result.stdout
    result = run([sys.executable, "-m", "mypy", "--no-incremental", "--cache-dir", os.devnull], project)
    assert result.returncode == 0, result.stdout


COMBO = """\
failwell: 1
server:
  name: combo
  description: Notes in a SQLite file, with the file's path a setting.
  settings:
    db_path: {type: string, description: The SQLite file., example: notes.db, required: true}
dependencies:
  db:
    description: The notes database.
    timeout_s: 2
    errors: {sqlite3.OperationalError: upstream_unavailable}
tools:
  get-note:
    description: Read one note from {settings.db_path}.
    effect: read
    deadline_s: 5
    uses: [db]
    input:
      noteId: {type: string, description: The note's id., example: N-1, nullable: true}
    output:
      text: {type: string}
    text: "{text}"
    failures:
      note_missing:
        class: not_found
        message: "No note {noteId}. Ids look like N-1; call get-note with another id."
  delete-note:
    description: Delete one note, once its person confirms it and says why.
    effect: destructive
    idempotency: required
    deadline_s: 5
    uses: [db]
    input:
      noteId: {type: string, description: The note's id., example: N-1}
    confirm:
      message: "Delete note {noteId}? It cannot be brought back."
    asks:
      reason:
        kind: form
        message: Why delete {noteId}?
        fields:
          why: {type: string, description: Why it goes., example: a duplicate}
          keep_copy: {type: boolean, description: Whether to keep a copy., default: false}
      wording: {kind: sampling, max_tokens: 50}
      folders: {kind: roots}
  purge-trash:
    description: Empty the trash, confirmed when the client can ask its person (run unconfirmed otherwise).
    effect: write
    idempotency: none
    idempotency_reason: Emptying the trash twice leaves it as empty as once.
    deadline_s: 5
    confirm:
      message: Empty the trash?
      without_elicitation: run
    asks:
      age:
        kind: form
        message: Empty notes older than how many days?
        fields:
          days: {type: integer, minimum: 0, default: 30, description: The age in days.}
resources:
  note:
    uri: "notes://{ref}"
    description: One note, after asking why it is read.
    params:
      ref: {type: string, pattern: "^N-[0-9]+$", description: The note., example: N-1}
    asks:
      purpose:
        kind: form
        message: Why read {ref}?
        fields:
          reason: {type: string, description: The reason., example: an audit}
prompts:
  summarise:
    description: Summarise the notes, after asking what to focus on.
    asks:
      focus:
        kind: form
        message: What should the summary focus on?
        fields:
          topic: {type: string, description: The topic., example: work}
"""


@pytest.mark.slow
def test_a_fresh_project_with_settings_a_dependency_and_published_names_passes_its_own_checks(tmp_path: Path) -> None:
    """Settings, a dependency whose `open` is still the stub, a kebab-case tool with a camelCase nullable argument
    and a text template, a destructive tool that confirms and asks (a form, sampling, roots), a write that runs
    unconfirmed on a client that cannot ask (`without_elicitation: run`: its generated test once failed ruff's
    F841) and asks a form whose every field has a default (its tests once used an ANSWERS never written), a
    resource and a prompt that ask, together: the project's ruff, format check, mypy --strict and its own
    generated tests (whose stdio server must not open the dependency its fault handlers never use, nor call the
    tool that needs confirmation) all pass; each that asks has its test of a question left unanswered."""
    from failwell import new

    (tmp_path / "spec.yaml").write_text(COMBO)
    new(tmp_path / "combo", tmp_path / "spec.yaml")
    project = tmp_path / "combo"
    for args in (["ruff", "check", "--no-cache", "."], ["ruff", "format", "--check", "--no-cache", "."]):
        result = run([sys.executable, "-m", *args], project)
        assert result.returncode == 0, result.stdout
    result = run([sys.executable, "-m", "mypy", "--no-incremental", "--cache-dir", os.devnull], project)
    assert result.returncode == 0, result.stdout
    result = run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "tests/generated"], project)
    assert result.returncode == 0, result.stdout[-3000:]
    generated = project / "tests" / "generated"
    for name in ("delete_note", "purge_trash", "note_resource", "summarise_prompt"):
        asking = (generated / f"test_{name}_asking.py").read_text()
        assert "async def test_a_question_left_unanswered_is_asked_again" in asking, name
    assert "`without_elicitation: run`: it runs unconfirmed" in (generated / "test_purge_trash_asking.py").read_text()


PORTS = sorted((Path(__file__).parent / "ports").glob("*.yaml"))


@pytest.mark.slow
@pytest.mark.parametrize("port", PORTS, ids=lambda path: path.stem)
def test_each_port_of_a_real_server_generates_a_project_its_ruff_accepts(tmp_path: Path, port: Path) -> None:
    """The seven ports (fetch, git, time, sqlite, postgres, context7, filesystem): long failure signatures and calls
    are laid out as `ruff format` lays them out (sqlite's `constraint_failed` once printed a 121-character
    `def __init__`)."""
    from failwell import new

    new(tmp_path / port.stem, port)
    for args in (["ruff", "check", "--no-cache", "."], ["ruff", "format", "--check", "--no-cache", "."]):
        result = run([sys.executable, "-m", *args], tmp_path / port.stem)
        assert result.returncode == 0, result.stdout
