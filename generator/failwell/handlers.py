"""Handlers are the person's code: failwell never rewrites them, but it says when one no longer fits
the spec (it reads an input field the spec dropped or renamed), naming the tool and the field, and
when the person's code imports a runtime name from a module it has moved out of."""

from __future__ import annotations

import ast
from pathlib import Path

from .model import Project


def misfits(project_dir: Path, project: Project) -> list[str]:
    """One line per handler that reads an argument its tool no longer has, or imports what has moved."""
    problems = moved_imports(project_dir, project.package)
    for tool in project.tools:
        if tool.batch_policy:
            continue
        relative = f"src/{project.package}/handlers/{tool.name}.py"
        try:
            tree = ast.parse((project_dir / relative).read_text(encoding="utf-8"))
        except (OSError, SyntaxError, UnicodeDecodeError):
            continue
        functions = (ast.AsyncFunctionDef, ast.FunctionDef)  # a plain `def` runs in a worker thread
        handle = next((node for node in tree.body if isinstance(node, functions) and node.name == "handle"), None)
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


MOVED: dict[str, str] = {
    **dict.fromkeys(("ToolContext", "ToolFailure", "ToolDefinition", "Handler", "Store", "Begin"), "contracts"),
    **dict.fromkeys(("Batch", "RateLimit", "UpstreamBinder"), "contracts"),
    **dict.fromkeys(("FailureClass", "Effect", "Changed", "CLASSES", "DEFAULT_MESSAGES"), "classes"),
    **dict.fromkeys(("compose", "display", "seconds"), "wording"),
    **dict.fromkeys(("scrub", "redact_secrets"), "scrub"),
    **dict.fromkeys(("ConfigurationError", "required_env"), "config"),
    **dict.fromkeys(("StaticTokens", "TokenVerifier", "AccessToken"), "tokens"),
    **dict.fromkeys(("HttpOptions", "http_app", "serve_http"), "http"),
    **dict.fromkeys(("JsonLines", "configure_logging"), "logs"),
    **dict.fromkeys(("UpstreamError", "UpstreamConfig", "UpstreamPool", "Upstream"), "upstream"),
    "CircuitBreaker": "breaker",
    "MemoryStore": "store_memory",
    "SQLiteStore": "store_sqlite",
    "RedisStore": "store_redis",
    "FailwellServer": "server",
    "serve": "cli",
    "ENVELOPE_KEY": "results",
    "resource_url": "oauth",
}
"""Where each name the person's code may import from the runtime lives now, by module of `_generated/runtime/`."""
_OLD_MODULES = frozenset({"runtime", "http", "messages", "store", "store_redis", "upstream"})
"""The modules of `_generated/` that held the runtime before it was split into `_generated/runtime/`."""


def moved_imports(project_dir: Path, package: str) -> list[str]:
    """One line per import, in the person's own modules and tests, of a runtime name from where it used to be."""
    problems = []
    owned = (project_dir / "src" / package / "_generated", project_dir / "tests" / "generated")
    files = [*(project_dir / "src" / package).rglob("*.py"), *(project_dir / "tests").rglob("*.py")]
    for path in sorted(files):
        if any(path.is_relative_to(folder) for folder in owned):
            continue
        try:
            tree = ast.parse(path.read_text(encoding="utf-8"))
        except (OSError, SyntaxError, UnicodeDecodeError):
            continue
        relative = path.relative_to(project_dir).as_posix()
        imports = [node for node in ast.walk(tree) if isinstance(node, ast.ImportFrom)]
        for node in imports:
            old = _old_module(node, package)
            for alias in node.names if old is not None else ():
                new = MOVED.get(alias.name)
                if new is not None:
                    problems.append(
                        f"{relative}:{node.lineno}: `{alias.name}` moved from `_generated.{old}` to "
                        f"`_generated.runtime.{new}`; import it from there"
                    )
    return problems


def _old_module(node: ast.ImportFrom, package: str) -> str | None:
    """The old runtime module `node` imports from (`runtime`, `http`, ...), or None."""
    if node.module is None:
        return None
    module = node.module if node.level else node.module.removeprefix(f"{package}.")
    head, _, rest = module.partition(".")
    return rest if head == "_generated" and rest in _OLD_MODULES else None
