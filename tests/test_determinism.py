"""One spec renders byte-identical trees across runs, folders and hash seeds."""

from __future__ import annotations

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
