"""`copier copy --trust` straight from the failwell source gives the same tree as `failwell new`.

failwell renders the template without Copier (render.py), so these cases between them switch on every
templated file name: the store, the redis store, upstreams and the per-tool files.
"""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from conftest import BIN, EXAMPLES, REPO, failwell, tree

pytestmark = pytest.mark.slow

REDIS_REFUNDS = (
    (EXAMPLES / "refunds" / "failwell.yaml")
    .read_text(encoding="utf-8")
    .replace("  client_timeout_s: 60\n", "  client_timeout_s: 60\n  store: redis\n", 1)
)


def copier_copy(dest: Path, *extra: str) -> None:
    command = [str(BIN / "copier"), "copy", "--trust", "--defaults", "--quiet", *extra, str(REPO), str(dest)]
    result = subprocess.run(command, capture_output=True, text=True, timeout=300)
    assert result.returncode == 0, result.stderr


def executable(root: Path) -> set[str]:
    return {
        path.relative_to(root).as_posix() for path in root.rglob("*") if path.is_file() and path.stat().st_mode & 0o111
    }


@pytest.mark.parametrize("spec", [None, "tasks", "redis_refunds"])
def test_copier_copy_equals_failwell_new(tmp_path: Path, spec: str | None) -> None:
    path = None
    if spec == "redis_refunds":
        path = tmp_path / "failwell.yaml"
        path.write_text(REDIS_REFUNDS, encoding="utf-8")
    elif spec is not None:
        path = EXAMPLES / spec / "failwell.yaml"
    copier, failwell_new = tmp_path / "copier" / "my-server", tmp_path / "failwell" / "my-server"
    copier_copy(copier, *(["-d", f"spec={path}"] if path else []))
    assert failwell("new", failwell_new, *(["--spec", path] if path else [])).returncode == 0
    copied, rendered = tree(copier), tree(failwell_new)
    assert copied == rendered
    assert executable(copier) == executable(failwell_new)
    if spec is None:
        assert "src/my_server_mcp/handlers/notes_get.py" in copied, "both name the starter after DEST"
    if spec == "redis_refunds":
        assert {
            "src/refunds_mcp/_generated/runtime/store_redis.py",
            "src/refunds_mcp/_generated/runtime/upstream.py",
        } <= set(copied)


def test_a_copier_project_regenerates_with_failwell(tmp_path: Path) -> None:
    copier_copy(tmp_path / "proj")
    assert failwell("generate", "--check", tmp_path / "proj").returncode == 0
