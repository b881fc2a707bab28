"""`failwell import openapi` on three real documents no one here wrote (issue 29; ../shared/openapi/README.md):
Twilio v2010 (form bodies, HTTP basic), DigitalOcean v2 (2,907 files joined by relative `$ref`), GitHub REST
(`@octokit/openapi` 23.0.2 from npm: 1,223 operations, operationIds past 64 characters). Each whole document
imports with no traceback and every operation is mapped or said not to be, with why; a selection of a tag
or two of each generates a project that passes its own ruff, mypy --strict and generated tests."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

from conftest import BIN, REPO, failwell
from failwell import validate
from failwell.importers.openapi import Selection, import_openapi

pytestmark = pytest.mark.slow

SHARED = next(
    (path for path in (REPO.parent / "shared" / "openapi", REPO.parent.parent / "shared" / "openapi") if path.is_dir()),
    REPO.parent / "shared" / "openapi",
)
OCTOKIT = Path(
    os.environ.get(
        "FAILWELL_GITHUB_OPENAPI",
        Path.home() / ".cache" / "failwell-ci" / "octokit-openapi-23.0.2" / "api.github.com.json",
    )
)
"""GitHub's document, from npm @octokit/openapi 23.0.2 (bash .ci/test fetches it once into this cache)."""
DOCS = {
    "twilio": (SHARED / "twilio_api_v2010.json", ["--tag", "Api20100401Message", "--tag", "Api20100401Call"]),
    "digitalocean": (
        SHARED / "digitalocean" / "specification" / "DigitalOcean-public.v2.yaml",
        ["--tag", "SSH Keys", "--tag", "Snapshots"],
    ),
    "github": (OCTOKIT, ["--tag", "licenses", "--tag", "gitignore", "--tag", "markdown"]),
}
COUNTS = {"twilio": 197, "digitalocean": 659, "github": 1223}


def document(name: str) -> Path:
    path = DOCS[name][0]
    if not path.is_file():
        pytest.fail(f"{path} is not here (../shared/openapi/README.md; GitHub's: bash .ci/test fetches it)")
    return path


@pytest.mark.parametrize("name", sorted(DOCS))
def test_the_whole_document_imports_and_every_operation_is_accounted_for(name: str, tmp_path: Path) -> None:
    path = document(name)
    started = time.perf_counter()
    result = import_openapi(str(path), tmp_path / name, Selection(all=True))
    seconds = time.perf_counter() - started
    assert result.operations == COUNTS[name]
    assert len(result.tools) + len(result.skipped) == result.operations
    assert all(len(tool) <= 64 for tool in result.tools) and len(set(result.tools)) == len(result.tools)
    spec = tmp_path / "failwell.yaml"
    spec.write_text(result.spec_text)
    assert not [d for d in validate(spec) if d.severity == "error"]  # raises on an error, with its diagnostics
    print(
        f"\n{name}: {result.operations} operations, {len(result.tools)} tools, {len(result.skipped)} not mapped, "
        f"{len(result.notes)} notes, about {result.tokens:,} tokens, import {seconds:.2f} s"
    )
    for line in result.skipped:
        print(f"  not mapped: {line}")


@pytest.fixture(scope="module", params=sorted(DOCS))
def selected(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> tuple[str, Path]:
    name: str = request.param
    path = document(name)
    dest = tmp_path_factory.mktemp("real") / name
    started = time.perf_counter()
    done = failwell("import", "openapi", path, dest, *DOCS[name][1])
    print(f"\n{name}: import and generate {time.perf_counter() - started:.2f} s")
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    assert "Traceback" not in done.stderr + done.stdout
    return name, dest


def run(dest: Path, *command: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONPATH": str(dest / "src"), "MYPYPATH": str(dest / "src")}
    return subprocess.run(command, cwd=dest, env=env, capture_output=True, text=True, timeout=600)


def test_a_selection_generates_a_project_that_passes_its_own_checks(selected: tuple[str, Path]) -> None:
    name, dest = selected
    ruff = run(dest, str(BIN / "ruff"), "check", ".")
    assert ruff.returncode == 0, ruff.stdout[-3000:]
    mypy = run(dest, str(BIN / "mypy"), "--strict", "src")
    assert mypy.returncode == 0, mypy.stdout[-3000:]
    tests = run(dest, sys.executable, "-m", "pytest", "-q", "-x", "-p", "no:cacheprovider", "tests")
    assert tests.returncode == 0, tests.stdout[-3000:]
    check = failwell("import", "openapi", DOCS[name][0], dest, "--check")
    assert check.returncode == 0, check.stdout[-2000:] + check.stderr[-2000:]
