"""Refresh every recorded expectation in one go: `python tests/regen.py`.

- tests/golden/<case>/: the whole tree `failwell new` renders for each golden spec;
- tests/invalid/<case>.out: the diagnostics `failwell validate` prints for each bad spec;
- examples/*/: the generated files of each example (`failwell generate`), and the created-once files their
  authors never change (README.md, the CI workflow, the pre-commit config) as `failwell new` writes them today.

Review the resulting `git diff` as you would code.
"""

from __future__ import annotations

import shutil
import sys
import tempfile
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "generator"))

from failwell import generate, new  # noqa: E402
from failwell.render.pipeline import STARTER_NAME, diagnose  # noqa: E402

UNCHANGED_BY_AUTHORS = ("README.md", ".pre-commit-config.yaml", ".github/workflows/failwell.yml")
"""The examples' created-once files that hold exactly what `failwell new` writes (tests/test_examples_fresh.py)."""

GOLDEN_SPECS: dict[str, Path | None] = {
    "starter": None,
    "tasks": REPO / "examples" / "tasks" / "failwell.yaml",
    "refunds": REPO / "examples" / "refunds" / "failwell.yaml",
    "git_port": REPO / "tests" / "ports" / "git.yaml",  # server.settings: the original's `--repository PATH`
    "memory": REPO / "tests" / "any_depth" / "memory.yaml",  # names as written at every depth, `schema:` fields
    "notes": REPO / "tests" / "subscriptions" / "notes.yaml",  # resources that take subscriptions (`subscribe: true`)
}


def invalid_output(spec: Path) -> str:
    """What `failwell validate` prints for a bad spec, with the file named relative to tests/invalid."""
    raw = spec.read_bytes()  # some are not UTF-8 on purpose
    lines = [str(d) for d in sorted(diagnose(raw, spec.name), key=lambda d: (d.line, d.col, d.code, d.message))]
    return "\n".join(lines) + "\n"


def main() -> None:
    for name, spec in GOLDEN_SPECS.items():
        target = REPO / "tests" / "golden" / name
        shutil.rmtree(target, ignore_errors=True)
        new(target, spec, STARTER_NAME if spec is None else None)
        print(f"golden: {target.relative_to(REPO)}")
    for spec in sorted((REPO / "tests" / "invalid").glob("*.yaml")):
        spec.with_suffix(".out").write_text(invalid_output(spec), encoding="utf-8")
        print(f"diagnostics: {spec.relative_to(REPO)}")
    for example in sorted((REPO / "examples").glob("*/failwell.yaml")):
        generate(example.parent)
        with tempfile.TemporaryDirectory() as scratch:
            fresh = Path(scratch) / example.parent.name
            new(fresh, example)
            for name in UNCHANGED_BY_AUTHORS:
                (example.parent / name).write_bytes((fresh / name).read_bytes())
        print(f"example: {example.parent.relative_to(REPO)}")


if __name__ == "__main__":
    main()
