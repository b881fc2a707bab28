"""The `failwell` command: a thin layer over the API in `failwell/__init__.py`."""

from __future__ import annotations

import gc
import json
from collections.abc import Callable
from enum import StrEnum
from pathlib import Path
from typing import Annotated

import typer

from . import FailwellError, Result, generate, new, review, schema, validate
from .errors import INTERNAL_ERROR, INTERNAL_EXIT_CODE
from .expand import main as expand_main
from .wording import render_rows


class OutputFormat(StrEnum):
    """How `failwell messages` prints."""

    table = "table"
    markdown = "markdown"
    json = "json"


app = typer.Typer(
    help="Generate Python MCP servers that fail well, from one YAML spec.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
)


def _run(action: Callable[[], int | None]) -> None:
    try:
        code = action() or 0
    except FailwellError as exc:
        for diagnostic in exc.diagnostics:
            typer.echo(str(diagnostic))
        typer.echo(f"failwell: {exc.message}", err=True)
        raise typer.Exit(exc.exit_code) from None
    except Exception as exc:  # a bug in failwell, whatever the spec: one line to report, never a traceback
        typer.echo(f"failwell: {INTERNAL_ERROR} ({exc.__class__.__name__})", err=True)
        raise typer.Exit(INTERNAL_EXIT_CODE) from None
    raise typer.Exit(code)


@app.command("validate")
def validate_command(
    spec: Annotated[Path, typer.Argument(help="The spec to check.")] = Path("failwell.yaml"),
    strict: Annotated[bool, typer.Option(help="Treat warnings as errors.")] = False,
) -> None:
    """Check a spec: every problem at once, as FILE:LINE:COL: CODE message."""

    def action() -> None:
        for diagnostic in validate(spec, strict=strict):
            typer.echo(str(diagnostic))
        typer.echo(f"failwell: {spec} is valid", err=True)

    _run(action)


@app.command("new")
def new_command(
    dest: Annotated[Path, typer.Argument(help="An empty or new folder for the project.")],
    spec: Annotated[Path | None, typer.Option(help="The spec to start from (default: a small starter spec).")] = None,
) -> None:
    """Create a complete MCP server project from a spec."""

    def action() -> None:
        result = new(dest, spec)
        typer.echo(f"failwell: created {len(result.plan.create)} files in {dest}", err=True)

    _run(action)


@app.command("generate")
def generate_command(
    project: Annotated[Path, typer.Argument(help="The project folder (holding failwell.yaml).")] = Path("."),
    check: Annotated[bool, typer.Option(help="Write nothing; exit 1 when generated files are stale.")] = False,
    diff: Annotated[bool, typer.Option(help="With --check, print a unified diff of what would change.")] = False,
    force: Annotated[bool, typer.Option(help="Overwrite generated files that were edited by hand.")] = False,
) -> None:
    """Re-render a project from its failwell.yaml; your handlers and tests are never overwritten."""

    def action() -> int:
        result = generate(project, check=check, show_diff=diff, force=force)
        return _report(result, check)

    _run(action)


def _report(result: Result, check: bool) -> int:
    plan = result.plan
    for warning in result.warnings:
        typer.echo(f"failwell: {warning}", err=True)
    for orphan in plan.orphans:
        typer.echo(
            f"failwell: kept {orphan}: its tool is no longer in the spec; delete it, or add the tool back",
            err=True,
        )
    if check:
        if result.diff:
            typer.echo(result.diff, nl=False)
        for relative in plan.stale:
            typer.echo(f"stale: {relative}")
        if plan.stale:
            typer.echo(f"failwell: {len(plan.stale)} file(s) are stale; run `failwell generate`", err=True)
            return 1
        typer.echo("failwell: generated files are up to date", err=True)
        return 0
    for label, group in (("wrote", plan.write), ("created", plan.create), ("removed", plan.delete)):
        for relative in group:
            typer.echo(f"{label}: {relative}")
    if not plan.stale:
        typer.echo(
            "failwell: already up to date" + (" (nothing changed since the last generate)" if result.skipped else ""),
            err=True,
        )
    return 0


@app.command("expand", hidden=True)
def expand_command(dest: Annotated[Path, typer.Argument()] = Path(".")) -> None:
    """Write the per-tool files into a project Copier just rendered (the copier.yml task)."""
    raise typer.Exit(expand_main(["expand", str(dest)]))


@app.command("messages")
def messages_command(
    spec: Annotated[Path, typer.Argument(help="The spec whose messages to show.")] = Path("failwell.yaml"),
    format: Annotated[OutputFormat, typer.Option("--format", help="table, markdown or json.")] = OutputFormat.table,
    strict: Annotated[bool, typer.Option(help="Exit 1 when a message misses a part or has a wording problem.")] = False,
) -> None:
    """Every message the server can send, with example values, its class, and a six-part check."""

    def action() -> int:
        rows = review(spec)
        typer.echo(render_rows(rows, format.value), nl=False)
        problems = [row for row in rows if row.problems]
        return 1 if strict and problems else 0

    _run(action)


@app.command("schema")
def schema_command() -> None:
    """Print the spec's JSON Schema (2020-12)."""
    typer.echo(json.dumps(schema(), indent=2))


def main() -> None:
    """Console-script entry point."""
    # One short command: the cycle collector frees next to nothing here, and its passes over a large
    # model grow with it (about 0.2 s of 1,000 tools' render).
    gc.disable()
    app(prog_name="failwell")


if __name__ == "__main__":
    main()
