"""The generated runtime's shape: one concern per module, no import cycles, short functions, and every
use of the SDK's internals in one module, checked against the installed `mcp`."""

from __future__ import annotations

import ast
import importlib.util
import re
import tomllib
from importlib.metadata import version
from pathlib import Path
from types import ModuleType

import pytest
from mcp.server.mcpserver import MCPServer

from conftest import GOLDEN, REPO

RUNTIME = REPO / "template" / "src" / "{{ package }}" / "_generated" / "runtime"
SDK_INTERNALS = ("_lowlevel_server", "_tool_input_schema", "auth_context_var", "last_context")
"""The SDK internals the runtime uses; only sdk.py may name them."""


def sources() -> list[Path]:
    """The runtime's module files (not the bytecode the generator's own imports of it may leave beside them)."""
    return sorted(path for path in RUNTIME.iterdir() if path.is_file())


def modules() -> dict[str, ast.Module]:
    """Every runtime module of the template by name, parsed (conditional file names unwrapped)."""
    found = {}
    for path in sources():
        name = re.sub(r"\{%.*?%\}", "", path.name).removesuffix(".jinja")
        text = path.read_text(encoding="utf-8")
        if path.name.endswith(".jinja"):
            assert "{{" not in text and "{%" not in text, f"{path.name}: the runtime is the same in every project"
        found[name.removesuffix(".py")] = ast.parse(text, path.name)
    return found


def imported(tree: ast.Module) -> set[str]:
    """The sibling modules a runtime module imports, at the top or inside a function."""
    names = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.level == 1:
            names |= {node.module} if node.module else {alias.name for alias in node.names}
        if isinstance(node, ast.ImportFrom):
            assert node.level <= 1, "the runtime imports nothing spec-derived (server.py, tools/)"
    return names


def test_no_runtime_module_imports_one_that_imports_it_back() -> None:
    graph = {name: imported(tree) for name, tree in modules().items()}
    assert {name for deps in graph.values() for name in deps} <= set(graph), "every import is a runtime module"

    def cycle_from(start: str, path: tuple[str, ...]) -> tuple[str, ...] | None:
        for following in sorted(graph[start]):
            if following in path:
                return (*path[path.index(following) :], following)
            found = cycle_from(following, (*path, following))
            if found:
                return found
        return None

    for name in graph:
        cycle = cycle_from(name, (name,))
        assert cycle is None, " -> ".join(cycle or ())
    assert graph["call"] >= {"results", "idempotency", "limits", "batches", "callers"}, "the graph is read"


def test_every_runtime_module_says_its_one_job_and_no_function_runs_over_60_lines() -> None:
    for name, tree in modules().items():
        assert ast.get_docstring(tree), f"{name}.py has no docstring saying what it is for"
        for node in ast.walk(tree):
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
                length = (node.end_lineno or node.lineno) - node.lineno + 1
                assert length <= 60, f"{name}.py: {node.name} is {length} lines"


def test_the_packages_map_names_every_runtime_module() -> None:
    """runtime/__init__.py maps the modules by what each is for: none is left out of it."""
    mapped = ast.get_docstring(modules()["__init__"]) or ""
    named = set(re.findall(r"\b([a-z_]+)\.py\b", mapped))
    assert set(modules()) - {"__init__"} - named == set()


def test_the_sdk_internals_are_named_in_sdk_py_only() -> None:
    for path in sources():
        if path.name == "sdk.py":
            continue
        text = path.read_text(encoding="utf-8")
        for internal in SDK_INTERNALS:
            assert internal not in text, f"{path.name} uses the SDK's {internal}; only sdk.py may"
        private = re.findall(r"from mcp[\w.]* import [^\n]*\b_\w+", text)
        assert not private, f"{path.name} imports a private SDK name: {private}"
    sdk = (RUNTIME / "sdk.py").read_text(encoding="utf-8")
    assert all(internal in sdk for internal in SDK_INTERNALS)


def load_sdk() -> ModuleType:
    """The generated sdk.py (it imports only `mcp`), as a module of its own."""
    spec = importlib.util.spec_from_file_location("failwell_generated_sdk", RUNTIME / "sdk.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_every_sdk_internal_the_runtime_uses_is_in_the_installed_mcp() -> None:
    missing = load_sdk().missing_internals()
    assert missing == [], "\n".join(missing)


def test_an_internal_a_newer_mcp_moved_is_named(monkeypatch: pytest.MonkeyPatch) -> None:
    sdk = load_sdk()
    monkeypatch.delattr(MCPServer, "_tool_input_schema")
    missing = sdk.missing_internals()
    assert missing[0] == (
        f"mcp {version('mcp')} has no MCPServer._tool_input_schema, which failwell's runtime uses (checked against "
        f"mcp {sdk.CHECKED_AGAINST}): keep mcp below the next minor release, or update runtime/sdk.py"
    )
    assert "Server.run" not in " ".join(missing), "only what is missing is named"


def test_projects_require_the_mcp_minor_the_internals_were_checked_against() -> None:
    checked = load_sdk().CHECKED_AGAINST
    major, minor = checked.split(".")
    pin = f"mcp>={checked},<{major}.{int(minor) + 1}"
    generated = tomllib.loads((GOLDEN / "tasks" / "pyproject.toml").read_text(encoding="utf-8"))
    assert pin in generated["project"]["dependencies"]
    failwell = tomllib.loads((REPO / "pyproject.toml").read_text(encoding="utf-8"))
    assert pin in failwell["project"]["optional-dependencies"]["test"], "failwell tests the SDK projects get"
    assert version("mcp").startswith(f"{checked}.")
