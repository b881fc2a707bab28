"""`failwell audit` on servers no one here wrote (issue 30.4), installed by the test from the registries at pinned
versions: `mcp-server-time`, `mcp-server-fetch`, `mcp-server-git` (PyPI, `pip install --target`, run with the
test venv's Python and PYTHONPATH set to the target: no venv), `@modelcontextprotocol/server-everything` and
`@modelcontextprotocol/server-filesystem` (npm, `npm install --prefix`). Installs are cached under
$FAILWELL_TEST_CACHE (default ~/.cache/failwell-tests), so only the first run pays for them.

Each audit's figures are printed (`pytest -s`) and checked against what each server really does today."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest

from failwell import validate
from failwell.audit.draft import draft
from failwell.audit.findings import Report
from failwell.audit.report import terminal
from failwell.audit.run import Options, Target, audit

pytestmark = pytest.mark.slow

CACHE = Path(os.environ.get("FAILWELL_TEST_CACHE") or Path.home() / ".cache" / "failwell-tests")
PYPI = {
    "time": "mcp-server-time==2026.10.19",
    "fetch": "mcp-server-fetch==2026.10.24",
    "git": "mcp-server-git==2026.10.19",
}
NPM = ["@modelcontextprotocol/server-everything@2026.8.31", "@modelcontextprotocol/server-filesystem@2026.8.31"]


def pypi(name: str) -> Path:
    """The folder `pip install --target` filled with the pinned server and its dependencies (once)."""
    target = CACHE / "pypi" / PYPI[name].replace("==", "-")
    if not (target / ".complete").exists():
        shutil.rmtree(target, ignore_errors=True)
        pip = [sys.executable, "-m", "pip", "install", "-q", "--disable-pip-version-check", "--target", str(target)]
        subprocess.run([*pip, PYPI[name]], check=True, timeout=600, capture_output=True)
        (target / ".complete").touch()
    return target


def npm() -> Path:
    """The npm prefix holding the two pinned servers (once)."""
    prefix = CACHE / "npm" / "-".join(package.rsplit("/", 1)[1] for package in NPM)
    if not (prefix / ".complete").exists():
        if shutil.which("npm") is None:
            pytest.fail("npm is not installed: the npm servers cannot be audited")
        prefix.mkdir(parents=True, exist_ok=True)
        command = ["npm", "install", "--silent", "--no-audit", "--no-fund", "--prefix", str(prefix), *NPM]
        subprocess.run(command, check=True, timeout=600, capture_output=True)
        (prefix / ".complete").touch()
    return prefix / "node_modules" / ".bin"


def figures(report: Report) -> str:
    rules = ", ".join(f"{rule} {score}" for rule, score in report.scores("rule").items())
    return (
        f"{report.server.get('name')} {report.server.get('version')}: {len(report.tools)} tools, score {report.score}, "
        f"{report.errors} errors, {report.warnings} warnings, {len(report.checks)} checks, "
        f"{len(report.skipped)} not probed; {rules}"
    )


def audited(target: Target, options: Options | None = None) -> Report:
    """The audit's report, printed; its findings quoted, and the draft spec it writes valid as written."""
    report = audit(target, options or Options(timeout_s=30))
    print("\n" + figures(report) + "\n" + terminal(report, worst=3))
    assert report.tools, "the server listed its tools"
    assert all(finding.answer for finding in report.findings if finding.rule in ("leaks", "refuses")), "quoted"
    with tempfile.TemporaryDirectory() as scratch:
        spec = Path(scratch) / "failwell.yaml"
        spec.write_text(draft(report), encoding="utf-8")
        validate(spec)  # the way out: `failwell new DEST --spec` takes it
    return report


def python_server(name: str, module: str, *args: str) -> Target:
    return Target(command=[sys.executable, "-m", module, *args], env={"PYTHONPATH": str(pypi(name))})


def test_mcp_server_time() -> None:
    report = audited(python_server("time", "mcp_server_time"), Options(call_reads=True, timeout_s=30))
    assert report.server["name"] == "mcp-time" and len(report.tools) == 2
    rules = report.scores("rule")
    assert rules["leaks"] < 100, "the SDK's pydantic dump, with the input and a documentation URL"
    assert rules["envelope"] == 0 and rules["wording"] < 50
    assert any(f.probe.startswith("an unknown prompt at protocol") and "-32603" in f.problem for f in report.findings)
    assert report.errors > 0


def test_mcp_server_fetch() -> None:
    report = audited(python_server("fetch", "mcp_server_fetch"))
    assert [tool["name"] for tool in report.tools] == ["fetch"]
    assert report.scores("rule")["leaks"] < 100 and report.errors > 0


def test_mcp_server_git(tmp_path: Path) -> None:
    subprocess.run(["git", "init", "-q", str(tmp_path / "repo")], check=True, timeout=30)
    report = audited(python_server("git", "mcp_server_git", "--repository", str(tmp_path / "repo")))
    assert len(report.tools) >= 10
    assert len(report.skipped) >= 4, "its writes (commit, add, reset, checkout, ...) are not probed by default"
    head = subprocess.run(["git", "-C", str(tmp_path / "repo"), "rev-parse", "HEAD"], capture_output=True, timeout=30)
    assert head.returncode != 0, "still no commit: nothing was written"
    assert report.errors > 0


def test_server_everything() -> None:
    report = audited(Target(command=[str(npm() / "mcp-server-everything")]), Options(call_reads=True, timeout_s=30))
    assert len(report.tools) >= 10 and report.prompts and (report.resources or report.resource_templates)
    assert report.scores("rule")["refuses"] < 100, "unknown extra arguments are accepted"


def test_server_filesystem(tmp_path: Path) -> None:
    (tmp_path / "allowed").mkdir()
    report = audited(Target(command=[str(npm() / "mcp-server-filesystem"), str(tmp_path / "allowed")]))
    assert len(report.tools) >= 10
    assert list((tmp_path / "allowed").iterdir()) == [], "nothing was written: the writes were not called"
    assert report.errors > 0
