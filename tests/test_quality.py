"""failwell's own code is held to what it asks of generated code: ruff-clean, formatted, mypy --strict."""

from __future__ import annotations

import subprocess
import sys

import pytest

from conftest import REPO

RUNTIME = REPO / "template" / "src" / "{{ package }}" / "_generated" / "runtime"


def run(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", *args], cwd=REPO, capture_output=True, text=True, timeout=600)


def test_ruff_check() -> None:
    result = run("ruff", "check", "--no-cache", "generator", "tests", "examples/demo.py")
    assert result.returncode == 0, result.stdout


def test_ruff_format() -> None:
    result = run("ruff", "format", "--check", "--no-cache", "generator", "tests", "examples/demo.py")
    assert result.returncode == 0, result.stdout


@pytest.mark.slow
def test_mypy_strict() -> None:
    result = run("mypy", "--no-incremental")
    assert result.returncode == 0, result.stdout


def test_runtime_source_is_formatted_as_generated_projects_expect() -> None:
    static = sorted(str(path.relative_to(REPO)) for path in RUNTIME.rglob("*.py"))
    assert len(static) > 10, static
    result = run("ruff", "format", "--check", "--no-cache", "--line-length", "120", *static)
    assert result.returncode == 0, result.stdout
