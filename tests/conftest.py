"""Shared helpers for failwell's own tests."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
EXAMPLES = REPO / "examples"
GOLDEN = REPO / "tests" / "golden"
REGEN = "python tests/regen.py"
BIN = Path(sys.executable).parent


def failwell(
    *args: str | Path, cwd: Path | None = None, env: dict[str, str] | None = None
) -> subprocess.CompletedProcess[str]:
    """Run the installed `failwell` command."""
    return subprocess.run(
        [str(BIN / "failwell"), *map(str, args)],
        cwd=cwd,
        env={**os.environ, **(env or {})},
        capture_output=True,
        text=True,
        timeout=300,
    )


def tree(root: Path) -> dict[str, bytes]:
    """Every file under `root` (caches skipped), by POSIX relative path."""
    skip = {"__pycache__", ".mypy_cache", ".pytest_cache", ".ruff_cache", ".venv", ".failwell"}
    return {
        path.relative_to(root).as_posix(): path.read_bytes()
        for path in sorted(root.rglob("*"))
        if path.is_file() and not skip.intersection(path.relative_to(root).parts) and path.suffix != ".pyc"
    }


def copy_project(source: Path, dest: Path) -> Path:
    """A copy of a generated project without caches or virtualenvs."""
    shutil.copytree(source, dest, ignore=shutil.ignore_patterns("__pycache__", ".venv", "*.egg-info", ".*_cache"))
    return dest


@pytest.fixture
def write(tmp_path: Path):  # type: ignore[no-untyped-def]
    """Write a spec file and return its path."""

    def _write(text: str, name: str = "failwell.yaml") -> Path:
        path = tmp_path / name
        path.write_text(text, encoding="utf-8")
        return path

    return _write


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


def only_stubs(checked: subprocess.CompletedProcess[str]) -> bool:
    """Whether a `failwell generate --check` found nothing stale, only handlers still on failwell's stub (which
    fail it: exit 1, one `stub:` line each), as on a fresh project whose handlers nobody has written yet."""
    lines = checked.stdout.splitlines()
    return checked.returncode == 1 and bool(lines) and all(line.startswith("stub: ") for line in lines)
