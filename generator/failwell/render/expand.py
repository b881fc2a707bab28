"""Write the one-module-per-tool (and per resource, per prompt) files, which Copier cannot loop over.

Copier renders the project's fixed files; this step renders `template/_per_tool/` once per tool, resource
and prompt.
`failwell` renders them in memory with the rest (render.py); a plain `copier copy --trust` writes them
through a task (`python -m failwell expand DEST`). Both produce the same files.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

from jinja2 import Environment, FileSystemLoader, StrictUndefined

from .. import safewrite
from ..errors import FailwellError
from ..templates import compiled_cache, template_root
from . import manifest
from .model import SPEC_FILE, Project
from .pipeline import load_project

PER_READER = {
    "resource": (
        ("resource.py.jinja", "src/{package}/_generated/resources/{name}.py"),
        ("resource_handler.py.jinja", "src/{package}/handlers/resources/{name}.py"),
        ("test_resource_errors.py.jinja", "tests/generated/test_{name}_resource_errors.py"),
    ),
    "prompt": (
        ("prompt.py.jinja", "src/{package}/_generated/prompts/{name}.py"),
        ("prompt_handler.py.jinja", "src/{package}/handlers/prompts/{name}.py"),
        ("test_prompt_errors.py.jinja", "tests/generated/test_{name}_prompt_errors.py"),
    ),
}
"""The files of each resource and each prompt: its module, its handler (created once) and its error tests."""
PACKAGES = (
    ("package.py.jinja", "src/{package}/_generated/{kinds}/__init__.py"),
    ("handlers_package.py.jinja", "src/{package}/handlers/{kinds}/__init__.py"),
)
"""The package of each kind's modules, when the spec has one of that kind."""
PER_DEPENDENCY = (("dependency_handler.py.jinja", "src/{package}/handlers/dependencies/{name}.py"),)
"""The module of each dependency, created once: its `open` and `close`."""
PER_TOOL = (
    ("tool.py.jinja", "src/{package}/_generated/tools/{tool}.py"),
    ("handler.py.jinja", "src/{package}/handlers/{tool}.py"),
    ("test_errors.py.jinja", "tests/generated/test_{tool}_errors.py"),
    ("test_tool.py.jinja", "tests/test_{tool}.py"),
)
PER_ASKING_TOOL = (("test_asking.py.jinja", "tests/generated/test_{tool}_asking.py"),)
"""The tests of what a tool asks: its confirmation, its questions (for a tool that has either)."""
PER_TASK_TOOL = (("test_task.py.jinja", "tests/generated/test_{tool}_task.py"),)
"""The tests of a tool that runs as a task (the spec's `task:`)."""


def tool_files(project: Project) -> dict[str, str]:
    """Every per-tool file of `project`, by project-relative POSIX path."""
    options: dict[str, Any] = {
        "undefined": StrictUndefined,
        "keep_trailing_newline": True,
        "trim_blocks": True,
        "lstrip_blocks": True,
        "autoescape": False,
    }
    env = Environment(
        loader=FileSystemLoader(template_root() / "template" / "_per_tool"),
        bytecode_cache=compiled_cache(options),
        **options,
    )
    files = {}
    for template_name, pattern in PER_TOOL:
        template = env.get_template(template_name)
        for tool in project.tools:
            files[pattern.format(package=project.package, tool=tool.name)] = template.render(project=project, tool=tool)
    for template_name, pattern in PER_ASKING_TOOL:
        template = env.get_template(template_name)
        for tool in (t for t in project.tools if t.confirm_lines or t.asking.asks):
            files[pattern.format(package=project.package, tool=tool.name)] = template.render(project=project, tool=tool)
    for template_name, pattern in PER_TASK_TOOL:
        template = env.get_template(template_name)
        for tool in (t for t in project.tools if t.task):
            files[pattern.format(package=project.package, tool=tool.name)] = template.render(project=project, tool=tool)
    template = env.get_template("test_read_asking.py.jinja")
    for reader in (r for r in (*project.resources, *project.prompts) if r.asking.asks):
        path = f"tests/generated/test_{reader.name}_{reader.kind}_asking.py"
        files[path] = template.render(project=project, reader=reader)
    for kind, readers in (("resource", project.resources), ("prompt", project.prompts)):
        for template_name, pattern in PER_READER[kind] if readers else ():
            template = env.get_template(template_name)
            for reader in readers:
                files[pattern.format(package=project.package, name=reader.name)] = template.render(
                    project=project, reader=reader
                )
        for template_name, pattern in PACKAGES if readers else ():
            text = env.get_template(template_name).render(kind=kind)
            files[pattern.format(package=project.package, kinds=f"{kind}s")] = text
    for template_name, pattern in PER_DEPENDENCY if project.dependencies else ():
        template = env.get_template(template_name)
        for dependency in project.dependencies:
            files[pattern.format(package=project.package, name=dependency.name)] = template.render(
                project=project, dependency=dependency
            )
    if project.dependencies:
        text = env.get_template("handlers_package.py.jinja").render(kind="dependency")
        files[f"src/{project.package}/handlers/dependencies/__init__.py"] = text
    return files


def expand(dest: Path, project: Project) -> None:
    """Write every per-tool file of `project` into `dest`, then the manifest of the whole folder."""
    for relative, text in tool_files(project).items():
        path = dest / relative
        safewrite.make_folders(dest, path.parent)
        safewrite.write(path, text.encode(), root=dest)
    manifest.write(dest, project.package, project.spec_text)


def main(argv: list[str]) -> int:
    """`failwell expand DEST`: the Copier task for a plain `copier copy --trust`."""
    dest = Path(argv[1] if len(argv) > 1 else ".")
    spec = dest / SPEC_FILE
    try:
        expand(dest, load_project(spec.read_text(encoding="utf-8"), SPEC_FILE))
    except FailwellError as exc:
        print("\n".join([*map(str, exc.diagnostics), exc.message]), file=sys.stderr)
        return 1
    return 0
