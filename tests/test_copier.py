"""`copier copy --trust` straight from the failwell source gives the same tree as `failwell new`.

failwell renders the template without Copier (render.py), so these cases between them switch on every
templated file name: the store, the redis store, upstreams and the per-tool files.
"""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

from conftest import BIN, EXAMPLES, REPO, failwell, only_stubs, tree

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
    answers = copied.pop(".copier-answers.yml").decode()
    assert f"_src_path: {REPO}\n" in answers, "Copier's answers are recorded (only Copier writes that file)"
    assert copied == rendered
    assert executable(copier) == executable(failwell_new)
    if spec is None:
        assert "src/my_server_mcp/handlers/notes_get.py" in copied, "both name the starter after DEST"
    if spec == "redis_refunds":
        assert {
            "src/refunds_mcp/_generated/runtime/stores/store_redis.py",
            "src/refunds_mcp/_generated/runtime/upstreams/upstream.py",
        } <= set(copied)


def test_a_copier_project_regenerates_with_failwell(tmp_path: Path) -> None:
    copier_copy(tmp_path / "proj")
    assert only_stubs(failwell("generate", "--check", tmp_path / "proj")), "up to date; its handlers are stubs"


def git(*args: str | Path, cwd: Path) -> str:
    command = ["git", "-c", "user.name=t", "-c", "user.email=t@example.com", "-c", "init.defaultBranch=main"]
    result = subprocess.run([*command, *map(str, args)], cwd=cwd, capture_output=True, text=True, timeout=60)
    assert result.returncode == 0, result.stderr
    return result.stdout


@pytest.fixture(scope="module")
def template_repo(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A git repository of the template at two tags, v0.1.0 and v0.2.0 (its README template changed)."""
    repo = tmp_path_factory.mktemp("template")
    shutil.copyfile(REPO / "copier.yml", repo / "copier.yml")
    shutil.copytree(REPO / "template", repo / "template", ignore=shutil.ignore_patterns("__pycache__"))
    git("init", "-q", ".", cwd=repo)
    git("add", "-A", cwd=repo)
    git("commit", "-qm", "v0.1.0", cwd=repo)
    git("tag", "v0.1.0", cwd=repo)
    readme = repo / "template" / "README.md.jinja"
    readme.write_text(readme.read_text() + "\nA line of v0.2.0.\n")
    git("commit", "-qam", "v0.2.0", cwd=repo)
    git("tag", "v0.2.0", cwd=repo)
    return repo


def copier(*args: str | Path, cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
    command = [str(BIN / "copier"), *map(str, args)]
    return subprocess.run(command, cwd=cwd, capture_output=True, text=True, timeout=300)


def test_copier_update_and_recopy_stop_at_once_saying_to_run_failwell_generate(
    template_repo: Path, tmp_path: Path
) -> None:
    project = tmp_path / "notes"
    copied = copier("copy", "--trust", "--defaults", "--quiet", "--vcs-ref", "v0.1.0", template_repo, project)
    assert copied.returncode == 0, copied.stderr
    answers = (project / ".copier-answers.yml").read_text()
    assert "_commit: v0.1.0\n" in answers and f"_src_path: {template_repo}\n" in answers
    git("init", "-q", ".", cwd=project)
    git("add", "-A", cwd=project)
    git("commit", "-qm", "start", cwd=project)
    before = tree(project)
    for command in (["update", "--trust", "--defaults"], ["recopy", "--trust", "--defaults", "--overwrite"]):
        stopped = copier(*command, cwd=project)
        assert stopped.returncode == 1, stopped.stdout + stopped.stderr
        lines = [line for line in stopped.stderr.splitlines() if "failwell" in line]
        assert lines == [
            ". is a failwell project already: run `failwell generate` there, which re-renders failwell's files "
            "from its failwell.yaml and keeps yours (copier update and recopy do not apply); nothing was changed"
        ]
        assert "Traceback" not in stopped.stderr
        assert tree(project) == before and git("status", "--porcelain", cwd=project) == ""
    assert only_stubs(failwell("generate", "--check", project))


def test_a_spec_error_through_copier_prints_the_diagnostics(tmp_path: Path) -> None:
    spec = REPO / "tests" / "invalid" / "many_problems.yaml"
    failed = copier("copy", "--trust", "--defaults", "--quiet", "-d", f"spec={spec}", REPO, tmp_path / "out")
    assert failed.returncode == 1
    expected = (REPO / "tests" / "invalid" / "many_problems.out").read_text().splitlines()
    printed = [line.split("/")[-1] for line in failed.stderr.splitlines() if "many_problems.yaml:" in line]
    assert printed == expected
    assert "Traceback" not in failed.stderr and "failwell: " in failed.stderr
    assert not (tmp_path / "out").exists()
