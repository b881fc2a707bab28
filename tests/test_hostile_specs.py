"""Any file at all: `failwell validate`, `new` and `generate` end with exit 0 or 1 and diagnostics, in bounded
time and memory, never a traceback (issue 15). Each hostile spec in tests/invalid/ is run through the CLI in
process; the largest ones are made here; a child process with 1 GiB of address space runs them all."""

from __future__ import annotations

import shutil
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest
from typer.testing import CliRunner

from conftest import REPO
from failwell.cli import app
from failwell.errors import INTERNAL_ERROR
from failwell.render.pipeline import diagnose
from failwell.spec import quickyaml
from failwell.spec.bounds import MAX_BYTES
from failwell.spec.load import _load_with_ruamel

INVALID = REPO / "tests" / "invalid"
SPECS = sorted(INVALID.glob("*.yaml"))
EXAMPLE = REPO / "examples" / "tasks" / "failwell.yaml"


def run(*args: str) -> tuple[int, str, float]:
    """The CLI in this process: exit code, everything printed, seconds taken."""
    started = time.perf_counter()
    result = CliRunner().invoke(app, list(args))
    elapsed = time.perf_counter() - started
    assert result.exception is None or isinstance(result.exception, SystemExit), result.exc_info
    return result.exit_code, result.output, elapsed


def assert_refused(code: int, output: str) -> None:
    assert code == 1, output
    assert "Traceback" not in output and INTERNAL_ERROR not in output, output


@pytest.mark.parametrize("spec", SPECS, ids=lambda p: p.stem)
def test_validate_prints_the_expected_diagnostics(spec: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(INVALID)
    code, output, elapsed = run("validate", spec.name)
    assert_refused(code, output)
    expected = spec.with_suffix(".out").read_text(encoding="utf-8").splitlines()
    assert [line for line in output.splitlines() if not line.startswith("failwell: ")] == expected
    assert expected, "each hostile spec earns at least one diagnostic"
    assert elapsed < 20, f"{spec.name} took {elapsed:.1f} s (a reader that blew up would take minutes)"


@pytest.mark.parametrize("spec", SPECS, ids=lambda p: p.stem)
def test_new_and_generate_refuse_it_and_write_nothing(spec: Path, tmp_path: Path) -> None:
    code, output, _ = run("new", str(tmp_path / "out"), "--spec", str(spec))
    assert_refused(code, output)
    assert not (tmp_path / "out").exists()
    project = tmp_path / "project"
    project.mkdir()
    shutil.copyfile(spec, project / "failwell.yaml")
    code, output, _ = run("generate", str(project))
    assert_refused(code, output)
    assert sorted(p.name for p in project.iterdir()) == ["failwell.yaml"]


def test_fifty_thousand_brackets_are_refused_before_any_reader_recurses(tmp_path: Path) -> None:
    spec = tmp_path / "deep.yaml"
    spec.write_text("failwell: 1\ntools: " + "[" * 50_000 + "]" * 50_000 + "\n", encoding="utf-8")
    code, output, _ = run("validate", str(spec))
    assert_refused(code, output)
    # the prescan's own code at the 65th bracket: no reader got as far as recursing (no timed bound: CI is loaded)
    assert f"{spec}:2:71: FW023 nested more than 64 levels deep" in output
    spec.write_text("failwell: 1\ntools: " + "{a: " * 50_000 + "}" * 50_000 + "\n", encoding="utf-8")
    assert "FW023" in run("validate", str(spec))[1]


def test_a_file_over_the_size_bound_is_refused_unread(tmp_path: Path) -> None:
    spec = tmp_path / "large.yaml"
    spec.write_bytes(b"failwell: 1\n" + b"# padding\n" * (MAX_BYTES // 10))
    code, output, _ = run("validate", str(spec))
    assert_refused(code, output)
    assert f"{spec}:1:1: FW022 the spec is over 5,000,000 bytes" in output
    assert [d.code for d in diagnose("x" * (MAX_BYTES + 1), "spec.yaml")] == ["FW022"]


def test_merge_keys_read_the_same_in_both_readers_with_positions() -> None:
    text = textwrap.dedent("""\
        failwell: 1
        server: {name: shop}
        tools:
          orders_get: &read
            description: Read one order by its id, such as O-1.
            effect: read
            input: {id: {type: string, example: O-1}}
          orders_list:
            <<: *read
            description: List the orders.
          orders_find:
            <<: [{deadline_s: 90}, *read]
    """)
    found = diagnose(text, "spec.yaml")
    assert [(d.line, d.col, d.code) for d in found] == [(12, 23, "FW120")], found
    quick = quickyaml.load(text)
    assert quick is not None
    slow = _load_with_ruamel(text, "spec.yaml")
    assert quick == (slow.data, slow._positions, slow._key_positions)
    assert list(quick[0]["tools"]["orders_list"]) == ["description", "effect", "input"]
    assert slow.position(("tools", "orders_list", "effect")) == (6, 13)  # where the anchored mapping has it
    assert slow.position(("tools", "orders_list", "description")) == (10, 18)


# Parts of a spec replaced, one at a time, by a value of the wrong shape: lint walks only what validated.
WRONG = (5, "a", [1], {"x": 5}, None, -1.5, True)


@pytest.mark.slow  # about 10 s: every part of the tasks example, seven ways
def test_no_part_of_the_wrong_shape_makes_lint_fail() -> None:
    from failwell.spec.load import load_text

    doc = load_text(EXAMPLE.read_text(encoding="utf-8"), "spec.yaml")
    paths = list(doc._positions)
    assert len(paths) > 100
    for path in paths:
        for wrong in WRONG:
            data = _replaced(doc.data, path, wrong)
            text = _dump(data)
            diagnose(text, "spec.yaml")  # raises on a lint crash


def _replaced(value: object, path: tuple[str | int, ...], wrong: object) -> object:
    if not path:
        return wrong
    if isinstance(value, dict):
        return {k: _replaced(v, path[1:], wrong) if k == path[0] else v for k, v in value.items()}
    if isinstance(value, list):
        return [_replaced(v, path[1:], wrong) if i == path[0] else v for i, v in enumerate(value)]
    return value


def _dump(data: object) -> str:
    import json

    return json.dumps(data)  # JSON is YAML


BOUNDED = """
import resource, sys
resource.setrlimit(resource.RLIMIT_AS, (1 << 30, 1 << 30))
sys.path.insert(0, {generator!r})
from pathlib import Path
from failwell.render.pipeline import diagnose, read_spec
for spec in sorted(Path({invalid!r}).glob("*.yaml")):
    assert diagnose(spec.read_bytes(), spec.name), spec
assert diagnose("failwell: 1\\ntools: " + "[" * 50000 + "]" * 50000, "deep.yaml")
print("bounded")
"""


def test_every_hostile_spec_runs_in_one_gib_and_a_minute() -> None:
    script = BOUNDED.format(generator=str(REPO / "generator"), invalid=str(INVALID))
    result = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=60)
    assert result.returncode == 0 and result.stdout == "bounded\n", result.stderr


def test_an_internal_error_is_one_line_and_exit_2(monkeypatch: pytest.MonkeyPatch) -> None:
    import failwell.render.pipeline

    def broken(*_args: object) -> list[object]:
        raise KeyError("a bug")

    monkeypatch.setattr(failwell.render.pipeline, "lint", broken)
    code, output, _ = run("validate", str(EXAMPLE))
    assert code == 2
    assert output.strip() == f"failwell: {INTERNAL_ERROR} (KeyError)"


def test_values_written_out_count_against_the_size_bound_not_the_alias_bound() -> None:
    """A big spec with no aliases (2,000 tasks-shaped tools are about 200,000 values) is not an alias bomb; the
    same number of values added by aliases is."""
    from failwell.spec.bounds import MAX_NODES, scan

    written = "items:\n" + "".join(f"  - v{number}\n" for number in range(MAX_NODES + 10))
    assert [d.code for d in scan(written, "big.yaml")] == []
    aliased = "base: &b [" + ", ".join(["x"] * 1000) + "]\nitems:\n" + "".join("  - *b\n" for _ in range(101))
    assert [d.code for d in scan(aliased, "bomb.yaml")] == ["FW021"]
