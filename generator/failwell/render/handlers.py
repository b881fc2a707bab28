"""Handlers are the person's code: failwell never rewrites them, but it says when one no longer fits
the spec (it reads an input field the spec dropped or renamed), naming the tool and the field, and
when the person's code imports a runtime name from a module it has moved out of."""

from __future__ import annotations

import ast
from collections.abc import Collection, Mapping
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
    **dict.fromkeys(("ToolContext", "ToolFailure", "ToolDefinition", "Handler", "Store"), "contracts"),
    "Begin": "store_contracts",
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


KINDS = (("tool", ""), ("resource", "resources/"), ("prompt", "prompts/"))
"""Each kind of spec entry with a handler, and its handlers' folder under `handlers/`."""


def handler_path(package: str, kind: str, name: str) -> str:
    """The project-relative handler module of a tool, resource or prompt."""
    folder = dict(KINDS)[kind]
    return f"src/{package}/handlers/{folder}{name}.py"


def entries(project: Project) -> list[tuple[str, str]]:
    """(kind, name) of every tool, resource and prompt of the spec, in that order."""
    return [
        *(("tool", tool.name) for tool in project.tools),
        *(("resource", reader.name) for reader in project.resources),
        *(("prompt", reader.name) for reader in project.prompts),
    ]


def is_stub(source: str) -> bool:
    """Whether a handler module is still the stub failwell wrote: its `handle` does nothing but raise
    NotImplementedError (a docstring and comments aside), so the server answers `internal` for it."""
    try:
        tree = ast.parse(source)
    except SyntaxError:
        return False
    handle = next(
        (n for n in tree.body if isinstance(n, ast.AsyncFunctionDef | ast.FunctionDef) and n.name == "handle"), None
    )
    if handle is None:
        return False
    body = list(handle.body)
    if body and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant):
        body = body[1:]
    if len(body) != 1 or not isinstance(body[0], ast.Raise) or body[0].exc is None:
        return False
    raised = body[0].exc.func if isinstance(body[0].exc, ast.Call) else body[0].exc
    return isinstance(raised, ast.Name) and raised.id == "NotImplementedError"


def stubs(project_dir: Path, package: str, named: list[tuple[str, str]]) -> list[tuple[str, str, str]]:
    """(kind, name, handler path) of each of `named` (kind, name) whose handler is still failwell's stub."""
    found = []
    for kind, name in named:
        relative = handler_path(package, kind, name)
        try:
            source = (project_dir / relative).read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError):
            continue
        if is_stub(source):
            found.append((kind, name, relative))
    return found


def orphan_kind(relative: str, package: str) -> tuple[str, str] | None:
    """(kind, name) of an orphaned handler module, or None for another file (a test)."""
    prefix = f"src/{package}/handlers/"
    if not relative.startswith(prefix) or not relative.endswith(".py"):
        return None
    rest = relative[len(prefix) : -3]
    for kind, folder in reversed(KINDS):
        if folder and rest.startswith(folder):
            return kind, rest[len(folder) :]
    return ("tool", rest) if "/" not in rest else None


def orphan_notes(orphans: list[str], package: str, candidates: list[tuple[str, str, str]]) -> list[str]:
    """One line per kept orphan: what it is and what to do; for a handler module whose kind has an entry still
    on its stub (or not yet written), the exact `--rename` that moves it there."""
    notes = []
    kinds = [orphan_kind(orphan, package) for orphan in orphans]
    tools = {found[1] for found in kinds if found is not None and found[0] == "tool"}
    new_tools = [name for kind, name, _ in candidates if kind == "tool"]
    for orphan in orphans:
        found = orphan_kind(orphan, package)
        if found is None:
            tool = orphan.removeprefix("tests/test_").removesuffix(".py")
            moved = (
                f"; `failwell generate --rename {tool}={new_tools[0]}` moves it with its handler"
                if tool in tools and len(new_tools) == 1
                else ""
            )
            notes.append(f"kept {orphan}: its tool is no longer in the spec{moved}; delete it, or add the tool back")
            continue
        kind, old = found
        news = [name for k, name, _ in candidates if k == kind]
        if news:
            moves = " or ".join(f"`failwell generate --rename {old}={new}`" for new in news)
            notes.append(
                f"kept {orphan}: its {kind} `{old}` is no longer in the spec, and {', '.join(news)} "
                f"{'has' if len(news) == 1 else 'have'} only the stub. If `{old}` was renamed, run {moves}, "
                "which moves its handler, its test and their imports; otherwise delete it, or add it back"
            )
        else:
            notes.append(f"kept {orphan}: its {kind} `{old}` is no longer in the spec; delete it, or add it back")
    return notes


def _defined(source: str) -> tuple[set[str], set[str]] | None:
    """The names a module binds at its top level: (those it defines, those it imports); None when it
    star-imports, so any name may exist."""
    try:
        tree = ast.parse(source)
    except SyntaxError:
        return None
    names: set[str] = set()
    imported: set[str] = set()
    pending: list[ast.stmt] = list(tree.body)
    while pending:
        node = pending.pop()
        if isinstance(node, ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef):
            names.add(node.name)
        elif isinstance(node, ast.Assign | ast.AnnAssign | ast.AugAssign):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            for target in targets:
                names.update(n.id for n in ast.walk(target) if isinstance(n, ast.Name))
        elif isinstance(node, ast.Import | ast.ImportFrom):
            for alias in node.names:
                if alias.name == "*":
                    return None
                imported.add(alias.asname or alias.name.partition(".")[0])
        elif isinstance(node, ast.If | ast.Try | ast.With):
            pending.extend(node.body)
            pending.extend(getattr(node, "orelse", []))
            pending.extend(getattr(node, "finalbody", []))
            for handler in getattr(node, "handlers", []):
                pending.extend(handler.body)
    return names, imported


def broken_imports(
    project_dir: Path, package: str, generated: Mapping[str, bytes], orphans: Collection[str] = ()
) -> list[str]:
    """One line per import, in the person's modules under `src/<package>/` (handlers and their helpers), of a
    module or name that `_generated/` (its rendered files, project-relative path -> content) does not have:
    FILE:LINE, the name, and the names that module does have. Read with `ast`: no user code is imported.
    `orphans` (handlers of what the spec no longer has, which the server does not import) are left out."""
    problems = []
    source_root = project_dir / "src"
    owned = source_root / package / "_generated"
    for path in sorted((source_root / package).rglob("*.py")):
        relative = path.relative_to(project_dir).as_posix()
        if path.is_relative_to(owned) or "__pycache__" in path.parts or relative in orphans:
            continue
        try:
            tree = ast.parse(path.read_text(encoding="utf-8"))
        except (OSError, SyntaxError, UnicodeDecodeError):
            continue
        here = list(path.relative_to(source_root).with_suffix("").parts)[:-1]  # the module's package
        for node in ast.walk(tree):
            if isinstance(node, ast.Import):  # `import pkg._generated.tools.x`: the module must exist
                for alias in node.names:
                    parts = alias.name.split(".")
                    if parts[:2] == [package, "_generated"] and len(parts) > 2:
                        whole = ast.ImportFrom(module=".".join(parts[:-1]), names=[ast.alias(parts[-1])], level=0)
                        whole.lineno = node.lineno
                        problems.extend(_check_names(relative, whole, parts[:-1], generated))
                continue
            if not isinstance(node, ast.ImportFrom) or (node.module is None and not node.level):
                continue
            if node.level:
                if node.level - 1 > len(here):
                    continue
                base = here[: len(here) - (node.level - 1)]
                parts = base + (node.module.split(".") if node.module else [])
            else:
                parts = (node.module or "").split(".")
            if parts[:2] != [package, "_generated"]:
                continue
            problems.extend(_check_names(relative, node, parts, generated))
    return problems


def _check_names(relative: str, node: ast.ImportFrom, parts: list[str], generated: Mapping[str, bytes]) -> list[str]:
    module = ".".join(parts)
    stem = "src/" + "/".join(parts)
    if len(parts) == 3 and parts[2] in _OLD_MODULES:  # moved_imports names where a moved name lives now
        names = [alias for alias in node.names if alias.name not in MOVED]
        if not names:
            return []
        node = ast.ImportFrom(module=node.module, names=names, level=node.level, lineno=node.lineno)
    source = generated.get(f"{stem}.py", generated.get(f"{stem}/__init__.py"))
    if source is None:
        folder = "src/" + "/".join(parts[:-1]) + "/"
        siblings = sorted(
            {p[len(folder) :].partition("/")[0].removesuffix(".py") for p in generated if p.startswith(folder)}
            - {"__init__"}
        )
        known = ", ".join(siblings) or "none"
        return [
            f"{relative}:{node.lineno}: imports from `{module}`, which failwell does not generate (is its tool, "
            f"resource or prompt still in failwell.yaml?); `{'.'.join(parts[:-1])}` has: {known}"
        ]
    found = _defined(source.decode("utf-8", "replace"))
    if found is None:
        return []
    own, imported = found
    defined = own | imported
    is_package = f"{stem}/__init__.py" in generated and f"{stem}.py" not in generated
    problems = []
    for alias in node.names:
        if alias.name == "*" or alias.name in defined:
            continue
        if is_package and any(p.startswith((f"{stem}/{alias.name}.py", f"{stem}/{alias.name}/")) for p in generated):
            continue
        public = sorted(name for name in own if not name.startswith("_") and not name.isupper())
        if is_package:  # its modules: a tool's, a resource's, a prompt's
            inside = {
                p[len(stem) + 1 :].partition("/")[0].removesuffix(".py") for p in generated if p.startswith(f"{stem}/")
            }
            public = sorted(set(public) | (inside - {"__init__"}))
        problems.append(
            f"{relative}:{node.lineno}: `{alias.name}` is not in `{module}`; it has: {', '.join(public) or 'nothing'}. "
            "Import one of those (a failure a handler raises is declared under its own tool in failwell.yaml)"
        )
    return problems
