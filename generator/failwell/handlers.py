"""Handlers are the person's code: failwell never rewrites them, but it says when one no longer fits
the spec (it reads an input field the spec dropped or renamed), naming the tool and the field."""

from __future__ import annotations

import ast
from pathlib import Path

from .model import Project


def misfits(project_dir: Path, project: Project) -> list[str]:
    """One line per handler that reads an argument its tool no longer has."""
    problems = []
    for tool in project.tools:
        if tool.batch_policy:
            continue
        relative = f"src/{project.package}/handlers/{tool.name}.py"
        try:
            tree = ast.parse((project_dir / relative).read_text(encoding="utf-8"))
        except (OSError, SyntaxError, UnicodeDecodeError):
            continue
        handle = next(
            (node for node in tree.body if isinstance(node, ast.AsyncFunctionDef) and node.name == "handle"), None
        )
        if handle is None or not handle.args.args:
            problems.append(f"{relative}: {tool.name} needs `async def handle(params: Input, ctx: Context)`")
            continue
        params = handle.args.args[0].arg
        fields = [member.name for member in tool.input_models[-1].fields]
        for node in ast.walk(handle):
            if (
                isinstance(node, ast.Attribute)
                and isinstance(node.value, ast.Name)
                and node.value.id == params
                and node.attr not in fields
                and not node.attr.startswith("model_")
            ):
                known = ", ".join(fields) or "none"
                problems.append(
                    f"{relative}:{node.lineno}: {tool.name} has no input field `{node.attr}` "
                    f"(read as {params}.{node.attr}); its fields are: {known}. Update the handler."
                )
    return problems
