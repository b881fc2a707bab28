"""`copier copy --trust` straight from the failwell source gives the same tree as `failwell new`."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from conftest import BIN, REPO, failwell, tree


def copier_copy(dest: Path, *extra: str) -> None:
    command = [str(BIN / "copier"), "copy", "--trust", "--defaults", "--quiet", *extra, str(REPO), str(dest)]
    result = subprocess.run(command, capture_output=True, text=True, timeout=300)
    assert result.returncode == 0, result.stderr


@pytest.mark.parametrize("spec", [None, REPO / "examples" / "tasks" / "failwell.yaml"], ids=["starter", "tasks"])
def test_copier_copy_equals_failwell_new(tmp_path: Path, spec: Path | None) -> None:
    copier_copy(tmp_path / "copier", *(["-d", f"spec={spec}"] if spec else []))
    assert failwell("new", tmp_path / "failwell", *(["--spec", spec] if spec else [])).returncode == 0
    assert tree(tmp_path / "copier") == tree(tmp_path / "failwell")


def test_a_copier_project_regenerates_with_failwell(tmp_path: Path) -> None:
    copier_copy(tmp_path / "proj")
    assert failwell("generate", "--check", tmp_path / "proj").returncode == 0
