"""One spec renders byte-identical trees across runs, folders and hash seeds."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest

from conftest import REPO, failwell, tree

pytestmark = pytest.mark.slow

SPEC = REPO / "examples" / "tasks" / "failwell.yaml"


def test_same_bytes_across_runs_folders_and_hash_seeds(tmp_path: Path) -> None:
    trees = []
    for seed, folder in (("0", "a"), ("1", "deeper/b"), ("12345", "c")):
        dest = tmp_path / folder
        result = failwell("new", dest, "--spec", SPEC, env={"PYTHONHASHSEED": seed})
        assert result.returncode == 0, result.stderr
        trees.append(tree(dest))
    assert trees[0] == trees[1] == trees[2]
    assert not any(str(tmp_path).encode() in content for content in trees[0].values())


def test_the_compiled_template_cache_never_changes_what_is_generated(tmp_path: Path) -> None:
    """failwell keeps compiled templates in Jinja's per-user cache folder (under TMPDIR) between runs. A cold cache,
    a warm one, one whose every entry is garbage, and a link planted where the folder goes (refused, so nothing is
    cached through it) all give the same bytes."""
    temporary = tmp_path / "tmp"
    temporary.mkdir()
    cache = temporary / f"_jinja2-cache-{os.getuid()}"

    def generated(name: str) -> dict[str, bytes]:
        result = failwell("new", tmp_path / name, "--spec", SPEC, env={"TMPDIR": str(temporary)})
        assert result.returncode == 0, result.stderr
        return tree(tmp_path / name)

    cold = generated("cold")
    entries = sorted(cache.glob("__failwell_*.cache"))
    assert len(entries) >= 20, "the templates were cached"
    assert generated("warm") == cold
    for entry in entries:
        entry.write_bytes(b"\x00garbage, not a compiled template")
    assert generated("corrupt") == cold
    shutil.rmtree(cache)
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    cache.symlink_to(elsewhere)  # a link planted where the folder goes: Jinja refuses it, and nothing is cached
    assert generated("linked") == cold
    assert list(elsewhere.iterdir()) == []
