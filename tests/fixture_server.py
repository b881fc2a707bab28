"""The conformance suite's fixture server: a project generated from tests/conformance/fixtures/failwell.yaml
with the CLI, and the fixture handlers (tools, resources and prompts) copied into it."""

from __future__ import annotations

import shutil
from pathlib import Path

from conftest import REPO, failwell

FIXTURES = REPO / "tests" / "conformance" / "fixtures"


def generate_fixture_server(dest: Path) -> Path:
    """The fixture spec's project in `dest`, with the fixture handlers copied in; returns its `src` folder."""
    created = failwell("new", dest, "--spec", FIXTURES / "failwell.yaml")
    assert created.returncode == 0, created.stdout + created.stderr
    for handler in sorted((FIXTURES / "handlers").rglob("*.py")):
        relative = handler.relative_to(FIXTURES / "handlers")
        shutil.copy(handler, dest / "src" / "conformance_mcp" / "handlers" / relative)
    return dest / "src"
