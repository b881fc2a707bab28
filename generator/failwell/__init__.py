"""failwell: generate Python MCP servers that fail well, from one YAML spec.

The pipeline runs one way: load -> validate -> lint -> model -> render -> sync. This module is the
small public API the CLI is a thin layer over.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

from .errors import Diagnostic, FailwellError, spec_error
from .version import VERSION

if TYPE_CHECKING:
    from .render import sync
    from .spec import wording

# Each function imports its stages when it runs: `failwell --version`, `failwell call` and the client commands
# need none of the generator, and its imports are most of what a small generation costs.

__all__ = ["Diagnostic", "FailwellError", "Result", "generate", "new", "review", "schema", "validate"]
__version__ = VERSION


@dataclass(frozen=True)
class Result:
    """What `new` or `generate` did (or, with `check`, would do)."""

    plan: sync.Plan
    diff: str = ""
    warnings: tuple[str, ...] = ()
    skipped: bool = False
    """True when nothing the render depends on had changed, so nothing was rendered."""
    diagnostics: tuple[Diagnostic, ...] = ()
    """The spec's warnings (wording, unused fields), as `failwell validate` prints them."""
    edited: tuple[str, ...] = ()
    """Generated files changed by hand since the last generate (with `check`, or `force`)."""
    stubs: tuple[tuple[str, str, str], ...] = ()
    """(kind, name, handler path) of each tool, resource and prompt whose handler is still failwell's stub."""
    errors: tuple[str, ...] = ()
    """FILE:LINE lines for the person's imports of what `_generated/` does not have: the server cannot start."""
    orphan_notes: tuple[str, ...] = ()
    """One line per kept orphan (plan.orphans): what it is, and the `--rename` that moves it when one fits."""


def schema() -> dict[str, Any]:
    """The spec's JSON Schema (2020-12), the truth about the spec's shape."""
    from .spec.validate import schema as loaded

    return loaded()


def validate(spec: Path, *, strict: bool = False) -> list[Diagnostic]:
    """Every problem in `spec`; raises FailwellError when there is an error (or a warning, if strict)."""
    from .render.pipeline import diagnose, read_spec

    diagnostics = diagnose(read_spec(spec), str(spec))
    if any(d.severity == "error" or strict for d in diagnostics):
        raise spec_error(diagnostics)
    return sorted(diagnostics, key=lambda d: (d.line, d.col, d.code))


def review(spec: Path) -> list[wording.Row]:
    """Every message `spec`'s server can send, rendered with example values and checked for its six parts."""
    from .render.pipeline import diagnose, read_spec
    from .spec import wording
    from .spec.load import load_text

    text = read_spec(spec)
    project_errors = [d for d in diagnose(text, str(spec)) if d.severity == "error"]
    if project_errors:
        raise spec_error(project_errors)
    return wording.rows(load_text(text, str(spec)).data)


def new(dest: Path, spec: Path | None = None, name: str | None = None) -> Result:
    """Render a complete project into `dest`, which must be empty or absent. Without `spec`, the starter spec,
    its server called `name` (default: made from the folder's name, `my-server` for `./my-server`)."""
    from .render import sync
    from .render.pipeline import server_name
    from .render.render import render

    if dest.exists() and (not dest.is_dir() or any(dest.iterdir())):
        raise FailwellError(f"{dest} is not empty; pick a new folder, or run `failwell generate` inside a project")
    if spec is not None and name is not None:
        raise FailwellError("--name names a starter project; with --spec, the name is the spec's server.name")
    rendered = render(spec, None if spec is not None else server_name(name or dest.resolve().name))
    dest.mkdir(parents=True, exist_ok=True)
    plan = sync.Plan(create=list(rendered.files))
    sync.apply(plan, rendered.files, dest)
    return Result(plan, diagnostics=rendered.warnings)


def generate(
    project: Path,
    *,
    check: bool = False,
    show_diff: bool = False,
    force: bool = False,
    renames: tuple[tuple[str, str], ...] = (),
) -> Result:
    """Re-render `project` from its failwell.yaml: owned files rewritten, handlers created only when missing.

    With `check`, nothing is written and the result lists the stale files. An owned file edited by
    hand since the last generate is refused (FailwellError naming it) unless `force`. Each (old, new) of
    `renames` first moves a renamed tool's (resource's, prompt's) handler and test to the new name.
    """
    from .render import handlers, manifest, pin, rename, sync
    from .render.locate import find_project
    from .render.migrate import migrate
    from .render.model import SPEC_FILE
    from .render.pipeline import read_spec
    from .render.render import render

    project = find_project(project)
    spec = project / SPEC_FILE
    done: list[str] = []
    if renames:
        if check:
            raise FailwellError("--rename moves files; run it without --check")
        moved = render(spec)
        for old, new in renames:
            changes, origins = rename.plan(project, moved.project, old, new, moved.files)
            rename.apply(changes, origins)
            done += [
                f"moved {source.relative_to(project).as_posix()} to {target.relative_to(project).as_posix()}"
                for target, source in origins.items()
            ]
            done += [
                f"rewrote the imports of {path.relative_to(project).as_posix()}"
                for path, content in changes.items()
                if content is not None and path not in origins
            ]
    migrated = () if check else tuple(f"migrated {SPEC_FILE}: {change}" for change in migrate(spec))
    migrated += tuple(done)
    recorded = manifest.read(project)
    pin.refuse_newer(recorded, project)
    if not renames and recorded is not None and manifest.unchanged(project, recorded, read_spec(spec)):
        package = str(recorded.get("package", ""))
        named = [
            (kind, name.rsplit("/", 1)[-1][:-3])
            for kind in ("tool", "resource", "prompt")
            for name in recorded["files"]
            if f"/_generated/{kind}s/" in name and not name.endswith("/__init__.py")
        ]
        names = {kind: [name for k, name in named if k == kind] for kind in ("tool", "resource", "prompt")}
        orphans = sync.orphans(project, package, names["tool"], names["resource"], names["prompt"])
        on_disk = {
            relative: path.read_bytes()
            for relative, path in sync.files(project).items()
            if relative.startswith(f"src/{package}/_generated/")
        }
        unchanged = Result(sync.Plan(orphans=orphans), warnings=_pin_notes(project), skipped=True)
        return _checked(project, package, named, unchanged.plan, on_disk, result=unchanged)
    edited = manifest.hand_edited(project, recorded) if recorded is not None else []
    if edited and not check and not force:
        raise FailwellError(
            f"{len(edited)} generated file(s) changed by hand since the last generate: {', '.join(edited)}. "
            "Move the change into failwell.yaml or a handler and run `failwell generate`, "
            "or overwrite them with `failwell generate --force`; nothing was written."
        )
    rendered = render(spec)
    model = rendered.project
    given = manifest.handed_over(recorded)
    plan = sync.plan(rendered.files, project, model.package, [tool.name for tool in model.tools], given)
    plan.orphans = sync.orphans(
        project,
        model.package,
        [tool.name for tool in model.tools],
        [reader.name for reader in model.resources],
        [reader.name for reader in model.prompts],
    )
    if manifest.MANIFEST in plan.write and manifest.version_only(
        project / manifest.MANIFEST, rendered.files[manifest.MANIFEST]
    ):
        plan.write.remove(manifest.MANIFEST)
    text = sync.diff(plan, rendered.files, project) if show_diff else ""
    if not check:
        sync.apply(plan, rendered.files, project)
    notes = migrated + tuple(handlers.misfits(project, model)) + _pin_notes(project)
    result = Result(plan, text, notes, diagnostics=rendered.warnings, edited=tuple(edited))
    return _checked(project, model.package, handlers.entries(model), plan, rendered.files, result=result)


def _checked(
    project: Path,
    package: str,
    named: list[tuple[str, str]],
    plan: sync.Plan,
    generated: dict[str, bytes],
    *,
    result: Result,
) -> Result:
    """`result` with what no render shows: handlers still on their stub, imports of what `_generated/` (its
    files, `generated`) does not have, and for each kept orphan what to do with it."""
    from .render import handlers

    stubs = handlers.stubs(project, package, named)
    missing = [(kind, name, handlers.handler_path(package, kind, name)) for kind, name in named]
    fresh = [entry for entry in missing if entry[2] in plan.create or not (project / entry[2]).exists()]
    candidates = fresh or stubs  # a rename's new name is most likely the one just created
    return replace(
        result,
        stubs=tuple(stubs),
        errors=tuple(handlers.broken_imports(project, package, generated, plan.orphans)),
        orphan_notes=tuple(handlers.orphan_notes(plan.orphans, package, candidates)),
    )


def _pin_notes(project: Path) -> tuple[str, ...]:
    """What the project's pyproject.toml should pin and does not: this failwell, and the `mcp` range its runtime
    was checked against. Said on every generate, the ones with nothing to render too."""
    from .render import pin

    return tuple(filter(None, [pin.pin_warning(project), pin.sdk_pin_warning(project)]))
