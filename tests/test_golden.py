"""Whole generated trees against the committed golden records, and the checks the output must pass."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from conftest import GOLDEN, REGEN, REPO, tree
from failwell import generate, new
from failwell.render.pipeline import STARTER_NAME
from regen import GOLDEN_SPECS, invalid_output


@pytest.mark.parametrize("case", sorted(GOLDEN_SPECS))
def test_tree_matches_golden_record(case: str, tmp_path: Path) -> None:
    new(tmp_path / case, GOLDEN_SPECS[case], STARTER_NAME if GOLDEN_SPECS[case] is None else None)
    rendered = tree(tmp_path / case)
    golden = tree(GOLDEN / case)
    assert sorted(rendered) == sorted(golden), f"the set of files changed; run `{REGEN}` and review the diff"
    changed = [name for name in golden if rendered[name] != golden[name]]
    assert not changed, f"{changed} differ from the golden record; run `{REGEN}` and review the diff"


@pytest.mark.parametrize("spec", sorted((REPO / "tests" / "invalid").glob("*.yaml")), ids=lambda p: p.stem)
def test_diagnostics_match_snapshot(spec: Path) -> None:
    expected = spec.with_suffix(".out").read_text(encoding="utf-8")
    assert invalid_output(spec) == expected, f"diagnostics changed; run `{REGEN}` and review the diff"


@pytest.mark.parametrize("example", sorted(p.parent.name for p in (REPO / "examples").glob("*/failwell.yaml")))
def test_examples_are_fresh(example: str) -> None:
    result = generate(REPO / "examples" / example, check=True)
    assert result.plan.stale == [], f"examples/{example} is stale; run `{REGEN}`"


def _run(args: list[str], cwd: Path) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "MYPYPATH": "src", "PYTHONPATH": "src"}
    return subprocess.run(args, cwd=cwd, env=env, capture_output=True, text=True, timeout=600)


QUALITY_TARGETS = [
    GOLDEN / "starter",
    GOLDEN / "tasks",
    GOLDEN / "refunds",
    GOLDEN / "git_port",
    GOLDEN / "memory",
    GOLDEN / "notes",
    *sorted(path.parent for path in (REPO / "examples").glob("*/failwell.yaml")),
]


@pytest.mark.parametrize("project", QUALITY_TARGETS, ids=lambda p: p.relative_to(REPO).as_posix())
def test_generated_code_is_ruff_clean_and_formatted(project: Path) -> None:
    ruff = [sys.executable, "-m", "ruff"]
    check = _run([*ruff, "check", "--no-cache", "."], project)
    assert check.returncode == 0, check.stdout
    formatted = _run([*ruff, "format", "--check", "--no-cache", "."], project)
    assert formatted.returncode == 0, formatted.stdout


@pytest.mark.slow
@pytest.mark.parametrize("project", QUALITY_TARGETS, ids=lambda p: p.relative_to(REPO).as_posix())
def test_generated_code_passes_mypy_strict(project: Path) -> None:
    result = _run([sys.executable, "-m", "mypy", "--no-incremental", "--cache-dir", os.devnull], project)
    assert result.returncode == 0, result.stdout


@pytest.mark.slow
@pytest.mark.parametrize("project", QUALITY_TARGETS, ids=lambda p: p.relative_to(REPO).as_posix())
def test_generated_tests_pass(project: Path) -> None:
    result = _run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider"], project)
    assert result.returncode == 0, result.stdout[-4000:]
    assert " passed" in result.stdout
