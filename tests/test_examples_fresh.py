"""The examples are what today's failwell writes (issue 25.7): each example's created-once files hold what
`failwell new` writes for its spec (pins, extras, README sections, CI and pre-commit), apart from lines its
author added on purpose (fixtures in conftest.py, ignores); no test is still the stub; the README's serve
commands start the server as written; and `generate` warns when a project's `mcp` pin is wider than the
runtime was checked against."""

from __future__ import annotations

import os
import re
import select
import shlex
import socket
import subprocess
import sys
import time
import tomllib
from pathlib import Path

import pytest
from packaging.requirements import Requirement

from conftest import EXAMPLES, REPO, copy_project, failwell
from failwell.render import pin

NAMES = sorted(p.name for p in EXAMPLES.iterdir() if (p / "failwell.yaml").is_file())
IDENTICAL = (".pre-commit-config.yaml", ".github/workflows/failwell.yml", "README.md")


@pytest.fixture(scope="module")
def fresh(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """What `failwell new` writes today for each example's spec."""
    out = {}
    for name in NAMES:
        dest = tmp_path_factory.mktemp("fresh") / name
        result = failwell("new", dest, "--spec", EXAMPLES / name / "failwell.yaml")
        assert result.returncode == 0, result.stdout + result.stderr
        out[name] = dest
    return out


def _toml(path: Path) -> dict[str, object]:
    return tomllib.loads(path.read_text(encoding="utf-8"))


def test_four_examples() -> None:
    assert NAMES == ["records", "refunds", "tasks", "weather"]


@pytest.mark.parametrize("name", NAMES)
def test_pyproject_pins_and_extras_are_todays(name: str, fresh: dict[str, Path]) -> None:
    mine, today = _toml(EXAMPLES / name / "pyproject.toml"), _toml(fresh[name] / "pyproject.toml")
    assert mine["build-system"] == today["build-system"]
    project, new = mine["project"], today["project"]
    assert isinstance(project, dict) and isinstance(new, dict)
    assert set(new["dependencies"]) <= set(project["dependencies"]), "a dependency failwell writes is missing"
    pins = {Requirement(r).name: str(Requirement(r).specifier) for r in project["dependencies"]}
    assert pins["mcp"] == str(Requirement(f"mcp{pin.SDK_RANGE}").specifier)
    for extra, requirements in new["optional-dependencies"].items():
        assert extra in project["optional-dependencies"], f"no `{extra}` extra"
        assert set(requirements) <= set(project["optional-dependencies"][extra]), extra


@pytest.mark.parametrize("name", NAMES)
@pytest.mark.parametrize("path", IDENTICAL)
def test_files_the_author_did_not_change_are_todays(name: str, path: str, fresh: dict[str, Path]) -> None:
    assert (EXAMPLES / name / path).read_text() == (fresh[name] / path).read_text(), (
        f"examples/{name}/{path} is not what `failwell new` writes for its spec today"
    )


@pytest.mark.parametrize("name", NAMES)
@pytest.mark.parametrize("path", [".gitignore", "tests/conftest.py"])
def test_files_the_author_added_to_keep_every_line_failwell_writes(
    name: str, path: str, fresh: dict[str, Path]
) -> None:
    mine = set((EXAMPLES / name / path).read_text().splitlines())
    missing = [line for line in (fresh[name] / path).read_text().splitlines() if line.strip() and line not in mine]
    assert not missing, f"examples/{name}/{path} lacks {missing}"


@pytest.mark.parametrize("name", NAMES)
def test_no_example_test_is_still_the_stub(name: str) -> None:
    for test in sorted((EXAMPLES / name / "tests").glob("test_*.py")):
        assert "replace with a real test" not in test.read_text(), f"{test.relative_to(REPO)} is still the stub"


def test_no_readme_links_a_registry_page_that_does_not_exist() -> None:
    for readme in [REPO / "template" / "README.md.jinja", *sorted(EXAMPLES.glob("*/README.md"))]:
        assert "pypi.org/project/failwell" not in readme.read_text(), readme


def test_the_template_pins_the_sdk_range_the_runtime_was_checked_against() -> None:
    assert f'"mcp{pin.SDK_RANGE}",' in (REPO / "template" / "pyproject.toml.jinja").read_text()
    sdk = (REPO / "template" / "src" / "{{ package }}" / "_generated" / "runtime" / "sdk.py").read_text()
    checked = re.search(r'CHECKED_AGAINST = "([0-9.]+)"', sdk)
    assert checked and f">={checked.group(1)},<2.{int(checked.group(1).split('.')[1]) + 1}" == pin.SDK_RANGE


@pytest.mark.parametrize(
    ("requirement", "warned"),
    [("mcp>=2.3,<3", True), ("mcp>=2.2,<2.4", True), ("mcp", True), ("mcp>=2.3,<2.4", False), ("mcp==2.3.1", False)],
)
def test_generate_warns_when_the_mcp_pin_is_wider_than_the_runtime(
    tmp_path: Path, requirement: str, warned: bool
) -> None:
    project = copy_project(EXAMPLES / "weather", tmp_path / "weather")
    pyproject = project / "pyproject.toml"
    pyproject.write_text(pyproject.read_text().replace(f'"mcp{pin.SDK_RANGE}"', f'"{requirement}"'))
    result = failwell("generate", cwd=project)
    assert result.returncode == 0, result.stdout + result.stderr
    said = f'pyproject.toml requires "{requirement}", which admits mcp' in result.stdout + result.stderr
    assert said == warned, result.stdout + result.stderr
    if warned:
        assert f'set "mcp{pin.SDK_RANGE}" in its dependencies' in result.stdout + result.stderr


def _serve_lines(readme: str) -> list[str]:
    block = readme.split("```sh\n", 1)[1].split("```", 1)[0]
    return [line.split("#", 1)[0].strip() for line in block.splitlines() if "# serve" in line]


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@pytest.mark.slow
@pytest.mark.parametrize("name", NAMES)
def test_the_readme_serve_commands_start_the_server_as_written(name: str, tmp_path: Path) -> None:
    """Each serve line of the example's README, run with what it says (its variables) in a shell with none of
    the server's variables set: the server says it is serving and keeps running, instead of exiting 2."""
    lines = _serve_lines((EXAMPLES / name / "README.md").read_text())
    assert len(lines) == 2
    spec_env = re.findall(r"\b([A-Z][A-Z0-9_]*(?:_URL|_TOKENS))\b", (EXAMPLES / name / "README.md").read_text())
    for line in lines:
        words = shlex.split(line.replace("--port 8000", f"--port {_free_port()}"))
        assigned = dict(w.split("=", 1) for w in words if re.match(r"^[A-Z_][A-Z0-9_]*=", w))
        command = [w for w in words if not re.match(r"^[A-Z_][A-Z0-9_]*=", w)]
        assert command[0] == ".venv/bin/python"
        env = {k: v for k, v in os.environ.items() if k not in spec_env}
        env.update(assigned, PYTHONPATH=str(EXAMPLES / name / "src"), HOME=str(tmp_path), XDG_DATA_HOME=str(tmp_path))
        env.setdefault("FAILWELL_SQLITE_PATH", str(tmp_path / "store.sqlite3"))  # not the example's own .failwell/
        process = subprocess.Popen(
            [sys.executable, *command[1:]],
            cwd=tmp_path,
            env=env,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        try:
            assert process.stderr is not None
            seen, deadline = "", time.monotonic() + 30
            while '"serving"' not in seen and time.monotonic() < deadline and process.poll() is None:
                ready, _, _ = select.select([process.stderr], [], [], 1)
                if ready:
                    seen += process.stderr.readline()
            assert '"serving"' in seen, f"{line!r} did not start: rc={process.poll()} stderr={seen}"
            assert process.poll() is None
        finally:
            process.kill()
            process.communicate(timeout=10)


def test_each_needed_variable_is_in_the_serve_commands(fresh: dict[str, Path]) -> None:
    """The README's commands carry what the server needs to start: upstream URLs and the Redis URL on both, the
    token variable on the HTTP one when the spec has auth."""
    for name in NAMES:
        readme = (EXAMPLES / name / "README.md").read_text()
        stdio, http = _serve_lines(readme)
        spec = (EXAMPLES / name / "failwell.yaml").read_text()
        for variable in re.findall(r"base_url_env:\s*([A-Z_0-9]+)", spec):
            assert f"{variable}=" in stdio and f"{variable}=" in http, (name, variable)
        if re.search(r"^\s+auth:", spec, re.M):
            assert "_TOKENS=" in http and "_TOKENS=" not in stdio, name
