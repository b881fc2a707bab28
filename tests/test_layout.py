"""The generator is laid out by stage (issue 27): `failwell/spec/` reads and checks a spec, `failwell/render/` turns
it into a project, `failwell/client/` runs what was built; shared helpers sit at the package root, and the CLI and
the public API on top. This test reads every module's imports (those inside functions and under TYPE_CHECKING
too) and fails on a cycle, or on a stage importing a later one."""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

import failwell
from conftest import REPO

PACKAGE = REPO / "generator" / "failwell"
ORDER = {"base": 0, "spec": 1, "importers": 1.5, "render": 2, "client": 3, "audit": 4, "front": 5}
"""An importer (`failwell import openapi`) is a front end that writes a spec: it may use `spec/` and the shared
base, never `render/` or `client/` (the CLI hands its result to the public API). `audit/` talks to a server as a
client and judges its answers: it may use `spec/` (the wording lint) and `client/` (the SEP-3313 reader), and
nothing imports it but the CLI."""
FRONT = {"failwell", "failwell.__main__", "failwell.cli"}


def module_name(path: Path) -> str:
    parts = path.relative_to(PACKAGE.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def stage(module: str) -> str:
    if module in FRONT:
        return "front"
    parts = module.split(".")
    if len(parts) > 2 and parts[1] in ORDER:
        return parts[1]
    if len(parts) == 2 and parts[1] in ORDER:  # a stage's own __init__
        return parts[1]
    return "base"


def imports(path: Path, modules: set[str]) -> set[str]:
    """The failwell modules `path` imports, wherever the import statement is."""
    name = module_name(path)
    package = name if path.name == "__init__.py" else name.rsplit(".", 1)[0]
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")
                base = base[: len(base) - (node.level - 1)]
                source = ".".join(base + ([node.module] if node.module else []))
            else:
                source = node.module or ""
            for alias in node.names:
                candidate = f"{source}.{alias.name}"
                found.add(candidate if candidate in modules else source)
        elif isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
    return {module for module in found if module in modules and module != name}


def graph() -> dict[str, set[str]]:
    paths = sorted(PACKAGE.rglob("*.py"))
    modules = {module_name(path) for path in paths}
    return {module_name(path): imports(path, modules) for path in paths}


def test_every_module_belongs_to_a_stage_folder_or_the_shared_base() -> None:
    base = sorted(name for name in graph() if stage(name) == "base")
    assert base == [
        "failwell.errors",
        "failwell.pyliteral",
        "failwell.safewrite",
        "failwell.templates",
        "failwell.version",
    ], "a new module at the package root: put it in the stage it serves"
    for folder in ("spec", "importers", "render", "client", "audit"):
        assert (PACKAGE / folder / "__init__.py").read_text().startswith('"""Stage')


def backward(imported: dict[str, set[str]]) -> list[str]:
    """Each import of a later stage by an earlier one."""
    return [
        f"{module} ({stage(module)}) imports {target} ({stage(target)})"
        for module, targets in imported.items()
        for target in targets
        if ORDER[stage(target)] > ORDER[stage(module)] and not target.startswith(module + ".")
    ]


def test_no_stage_imports_a_later_one() -> None:
    assert backward(graph()) == []


def test_the_import_graph_has_no_cycle() -> None:
    assert cycles(graph()) == []


def cycles(imported: dict[str, set[str]]) -> list[list[str]]:
    """The cycles of the import graph (a package and its own modules aside), each as the modules round it."""
    edges = {
        module: {t for t in targets if not t.startswith(module + ".") and not module.startswith(t + ".")}
        for module, targets in imported.items()
    }
    state: dict[str, int] = {}
    found: list[list[str]] = []

    def visit(node: str, trail: list[str]) -> None:
        state[node] = 1
        for target in sorted(edges[node]):
            if state.get(target) == 1:
                found.append([*trail[trail.index(target) :], target] if target in trail else [node, target])
            elif target not in state:
                visit(target, [*trail, target])
        state[node] = 2

    for module in sorted(edges):
        if module not in state:
            visit(module, [module])
    return found


@pytest.mark.parametrize(
    "name", ["generate", "new", "validate", "review", "schema", "Diagnostic", "FailwellError", "Result"]
)
def test_the_public_api_is_where_it_was(name: str) -> None:
    assert name in failwell.__all__ and hasattr(failwell, name)


def test_a_cycle_or_a_backward_import_would_be_seen(tmp_path: Path) -> None:
    """The checks read real import statements: a relative import inside a function, two levels up, counts."""
    modules = {"failwell.spec.lint", "failwell.render.model", "failwell.errors"}
    module = PACKAGE / "spec" / "probe_for_layout_test.py"
    module.write_text(
        "def f() -> None:\n    from ..render.model import build\n    from ..errors import FailwellError\n"
    )
    try:
        found = imports(module, modules | {"failwell.spec.probe_for_layout_test"})
    finally:
        module.unlink()
    assert found == {"failwell.render.model", "failwell.errors"}


def test_the_docs_name_each_stage_folder_and_its_modules() -> None:
    """The contributor's map (docs/contributing.md) names every stage folder and every module in it, and the
    architecture page draws each stage as a box of the pipeline and says what it is, so a stage added or a module
    moved shows in the docs or fails here."""
    folders = sorted(p.name for p in PACKAGE.iterdir() if (p / "__init__.py").is_file())
    assert folders == sorted(name for name in ORDER if name not in ("base", "front"))
    contributing = (REPO / "docs" / "contributing.md").read_text(encoding="utf-8")
    tree = contributing.split("generator/failwell/", 1)[1].split("\ntests/", 1)[0]
    architecture = (REPO / "docs" / "explanation" / "architecture.md").read_text(encoding="utf-8")
    missing = []
    for folder in folders:
        if f"\n  {folder}/ " not in tree:
            missing.append(f"docs/contributing.md: the folder {folder}/")
        for path in sorted((PACKAGE / folder).rglob("*.py")):
            if path.name != "__init__.py" and not re.search(rf"\b{path.stem}\b", tree):
                missing.append(f"docs/contributing.md: {path.relative_to(PACKAGE).as_posix()}")
        if f"subgraph {folder} [failwell.{folder}" not in architecture:
            missing.append(f"docs/explanation/architecture.md: no box for failwell.{folder} in the pipeline")
        if f"- `failwell.{folder}` " not in architecture:
            missing.append(f"docs/explanation/architecture.md: no line saying what failwell.{folder} does")
    assert missing == []


def test_the_checks_see_a_cycle_and_a_backward_import() -> None:
    """The two checks, on graphs that break the rules: a cycle of three spec modules, and the spec stage
    importing the render stage (itself a cycle once it imports the spec back)."""
    assert cycles(
        {
            "failwell.spec.a": {"failwell.spec.b"},
            "failwell.spec.b": {"failwell.spec.c"},
            "failwell.spec.c": {"failwell.spec.a"},
        }
    ) == [["failwell.spec.a", "failwell.spec.b", "failwell.spec.c", "failwell.spec.a"]]
    broken = {**graph()}
    broken["failwell.spec.naming"] = broken["failwell.spec.naming"] | {"failwell.render.model.project"}
    assert backward(broken) == ["failwell.spec.naming (spec) imports failwell.render.model.project (render)"]
    assert cycles(broken) != []
    assert cycles({"failwell.spec": {"failwell.spec.load"}, "failwell.spec.load": {"failwell.spec"}}) == []


def test_every_line_the_cli_prints_goes_through_its_one_escape() -> None:
    """Issue 39, point 3: outside text reaches a terminal only through `visible`, in one place: cli.py's `echo`.
    A `typer.echo`, `click.echo`, `print` or write to sys.stdout/stderr elsewhere in cli.py (a command added later,
    a merge) would bypass it; so would a write to sys.stderr in client/session.py but the server's stderr relay."""
    source = (PACKAGE / "cli.py").read_text(encoding="utf-8")
    tree = ast.parse(source)
    bypasses = []
    for function in ast.walk(tree):
        if not isinstance(function, ast.FunctionDef) or function.name == "echo":
            continue
        for node in ast.walk(function):
            if isinstance(node, ast.Call):
                called = ast.unparse(node.func)
                if called in ("typer.echo", "click.echo", "typer.secho", "print") or called.startswith("sys.std"):
                    bypasses.append(f"cli.py:{node.lineno}: {called}")
    assert bypasses == []
    session = (PACKAGE / "client" / "session.py").read_text(encoding="utf-8")
    writes = re.findall(r"sys\.std\w+\.write\((.*)\)", session)
    assert len(writes) == 1, writes  # the relay of the server's stderr, and nothing else
    assert all(write.startswith("visible(") for write in writes), writes


MODULE_BOUND = 600
"""The most lines a module of the generator holds (issue 40, "Where it goes"): a concept that grows gets a room."""
OVER_BOUND = {
    "cli.py": 1023,
    "importers/openapi/mapping.py": 827,
    "importers/openapi/schemas.py": 629,
    "spec/patterns.py": 691,
    "spec/wording.py": 601,
}
"""The modules past the bound when it was set, each at most as long as it was then: they may shrink, never grow."""


def test_no_generator_module_is_past_its_bound_and_no_folder_is_named_build() -> None:
    """Issue 40: render/model.py (1,526 lines) and spec/lint.py (1,276) became packages by concept; every module
    stays within the bound (the few past it when it was set, within their size then), and the render stage is not
    a `build/` folder, which tools, IDE indexers and Python's .gitignore treat as output."""
    sizes = {
        path.relative_to(PACKAGE).as_posix(): len(path.read_text(encoding="utf-8").splitlines())
        for path in sorted(PACKAGE.rglob("*.py"))
        if "__pycache__" not in path.parts
    }
    past = {name: lines for name, lines in sizes.items() if lines > OVER_BOUND.get(name, MODULE_BOUND)}
    assert past == {}, f"split these by concept (bound {MODULE_BOUND} lines): {past}"
    assert not (PACKAGE / "build").exists()
    assert (PACKAGE / "render" / "model" / "__init__.py").is_file() and not (PACKAGE / "render" / "model.py").exists()
    assert (PACKAGE / "spec" / "lint" / "__init__.py").is_file() and not (PACKAGE / "spec" / "lint.py").exists()
    assert max(size for name, size in sizes.items() if name.startswith(("render/model/", "spec/lint/"))) <= 450
