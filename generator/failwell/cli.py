"""The `failwell` command: a thin layer over the API in `failwell/__init__.py`."""

from __future__ import annotations

import gc
import json
import os
import sys
from collections import Counter
from collections.abc import Callable
from enum import StrEnum
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer
from typer.core import TyperArgument, TyperCommand

from .client.terminal import escape_logs, visible
from .errors import INTERNAL_ERROR, INTERNAL_EXIT_CODE, FailwellError, spec_error
from .version import VERSION

if TYPE_CHECKING:
    from . import Result
    from .client.clients import Platform
    from .client.launch import Launch

# Each command imports what it runs when it runs: `--version`, `--help` and the client commands need none of the
# generator (and `new` none of the client side).


class OutputFormat(StrEnum):
    """How `failwell messages` prints."""

    table = "table"
    markdown = "markdown"
    json = "json"


class _Argument(TyperArgument):
    """An argument shown by its metavar alone: `DEST`, `[PROJECT]` (not `{dest}` or `<path>`)."""

    def get_usage_pieces(self, ctx: Any) -> list[str]:
        name = self.metavar or (self.name or "").upper()
        return [name if self.required else f"[{name}]"]

    def display_type(self, ctx: Any) -> str:
        return ""


class _Command(TyperCommand):
    """A command whose arguments are shown as `_Argument` shows them, and whose help ends with its example: the
    docstring's `Example:` paragraph is shown after the options, as the help's last lines."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        for param in self.params:
            if isinstance(param, TyperArgument):
                param.__class__ = _Argument
        if self.help and self.epilog is None:
            self.help, self.epilog = _example_last(self.help)


def _example_last(text: str) -> tuple[str, str | None]:
    """(the help without its `Example:` paragraph, that paragraph), or (the help, None) when it has none."""
    head, marker, example = text.partition("\n\b\nExample:")
    if not marker:
        return text, None
    return head.rstrip(), "\b\nExample:" + example


def echo(message: str = "", *, err: bool = False, nl: bool = True) -> None:
    """Print one message. Every line the CLI prints goes through here, so no control character from outside text
    (a server's names, answers, errors; a spec's or a document's words) reaches the terminal raw (`visible`)."""
    typer.echo(visible(message), err=err, nl=nl)


def _version(value: bool) -> None:
    if value:
        echo(f"failwell {VERSION}")
        raise typer.Exit()


app = typer.Typer(
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
    rich_markup_mode=None,
    context_settings={"help_option_names": ["-h", "--help"]},
)


@app.callback()
def _main(
    version: Annotated[
        bool,
        typer.Option("--version", "-V", help="Print failwell's version and exit.", callback=_version, is_eager=True),
    ] = False,
) -> None:
    """Generate Python MCP servers that fail well, from one YAML spec.

    \b
    failwell new my-server            a project from a starter spec
    failwell generate                 after editing failwell.yaml
    """


def _run(action: Callable[[], int | None]) -> None:
    escape_logs()  # the mcp SDK's log lines (a server's stray stdout, an unknown notification) escaped too
    try:
        code = action() or 0
    except FailwellError as exc:
        for diagnostic in exc.diagnostics:
            echo(str(diagnostic))
        echo(f"failwell: {exc.message}", err=True)
        raise typer.Exit(exc.exit_code) from None
    except Exception as exc:  # a bug in failwell, whatever the spec: one line to report, never a traceback
        echo(f"failwell: {INTERNAL_ERROR} ({exc.__class__.__name__})", err=True)
        raise typer.Exit(INTERNAL_EXIT_CODE) from None
    raise typer.Exit(code)


SPEC_ARGUMENT = typer.Argument(
    metavar="SPEC", help="The spec (default: failwell.yaml here or in a folder above).", show_default=False
)


@app.command("validate", cls=_Command)
def validate_command(
    spec: Annotated[Path, SPEC_ARGUMENT] = Path("failwell.yaml"),
    strict: Annotated[bool, typer.Option("--strict", help="Treat warnings as errors.")] = False,
) -> None:
    """Check a spec: every problem at once, as FILE:LINE:COL: CODE message.

    \b
    Example:
      failwell validate failwell.yaml --strict
    """

    def action() -> None:
        from . import validate
        from .render.locate import find_spec

        found = find_spec(spec)
        warnings = validate(found, strict=strict)  # an error raises: what is left are warnings
        for diagnostic in warnings:
            echo(str(diagnostic))
        counted = f", with {len(warnings)} warning{'' if len(warnings) == 1 else 's'}" if warnings else ""
        echo(f"failwell: {found} is valid{counted}", err=True)

    _run(action)


@app.command("new", cls=_Command)
def new_command(
    dest: Annotated[Path, typer.Argument(metavar="DEST", help="An empty or new folder for the project.")],
    spec: Annotated[
        Path | None,
        typer.Option(
            metavar="SPEC", help="The spec to start from (default: a small starter spec).", show_default=False
        ),
    ] = None,
    name: Annotated[
        str | None,
        typer.Option(metavar="NAME", help="The starter server's name (default: made from DEST).", show_default=False),
    ] = None,
) -> None:
    """Create a complete MCP server project from a spec, and print the next steps.

    \b
    Example:
      failwell new my-server                   # server my-server, package my_server_mcp
      failwell new my-server --spec spec.yaml  # from your own spec
    """

    def action() -> None:
        from . import new

        result = new(dest, spec, name)
        _print_diagnostics(result)
        echo(f"failwell: created {len(result.plan.create)} files in {dest}. Next:", err=True)
        for step in next_steps(dest):
            echo(f"  {step}", err=True)

    _run(action)


def next_steps(dest: Path) -> list[str]:
    """The three steps that take a new project to a tested server in a client."""
    return [
        f"cd {dest} && python3 -m venv .venv && .venv/bin/pip install -e '.[test]'",
        "write each handler's `handle` in src/*/handlers/ (each is a stub that raises NotImplementedError, "
        "which the server answers as `internal`; `failwell generate --check`, run by CI and pre-commit, "
        "fails until they are written), then .venv/bin/python -m pytest",
        "failwell install claude-desktop   # or claude-code, cursor, vscode; `failwell dev` opens the Inspector",
    ]


@app.command("generate", cls=_Command)
def generate_command(
    project: Annotated[
        Path,
        typer.Argument(
            metavar="PROJECT", help="The project folder (default: the one holding this folder).", show_default=False
        ),
    ] = Path("."),
    check: Annotated[
        bool, typer.Option("--check", help="Write nothing; exit 1 when generated files are stale.")
    ] = False,
    diff: Annotated[
        bool, typer.Option("--diff", help="Print a unified diff of what changes (or, with --check, would).")
    ] = False,
    force: Annotated[bool, typer.Option("--force", help="Overwrite generated files that were edited by hand.")] = False,
    rename: Annotated[
        list[str] | None,
        typer.Option(
            "--rename",
            metavar="OLD=NEW",
            help="A tool, resource or prompt renamed in the spec: move its handler, test and imports (repeat).",
            show_default=False,
        ),
    ] = None,
) -> None:
    """Re-render a project from its failwell.yaml; your handlers and tests are never overwritten.

    Exits 1 with --check while a generated file is stale, a handler is still the stub failwell wrote,
    or a handler imports a name _generated/ does not have.

    \b
    Example:
      failwell generate --check --diff   # in CI: exit 1 when the generated code is stale
      failwell generate --rename issues_delete=issues_remove
    """

    def action() -> int:
        from . import generate
        from .render.rename import parse as parse_rename

        renames = tuple(parse_rename(pair) for pair in rename or [])
        result = generate(project, check=check, show_diff=diff, force=force, renames=renames)
        return _report(result, check)

    _run(action)


def _print_diagnostics(result: Result) -> None:
    for diagnostic in result.diagnostics:
        echo(str(diagnostic))


def _report(result: Result, check: bool) -> int:
    plan = result.plan
    _print_diagnostics(result)
    for warning in result.warnings:
        echo(f"failwell: {warning}", err=True)
    for note in result.orphan_notes:
        echo(f"failwell: {note}", err=True)
    for line in result.errors:
        echo(line)
    if result.errors:
        echo(
            f"failwell: {len(result.errors)} import(s) of what _generated/ does not have: the server cannot start "
            "until each is fixed",
            err=True,
        )
    if result.diff:
        echo(result.diff, nl=False)
    if check:
        edited = set(result.edited)
        for relative in plan.stale:
            echo(f"{'edited by hand' if relative in edited else 'stale'}: {relative}")
        for kind, name, relative in result.stubs:
            echo(f"stub: {relative} ({kind} {name})")
        if plan.stale:
            echo(f"failwell: {len(plan.stale)} file(s) are stale; run `failwell generate`", err=True)
        if result.stubs:
            echo(f"failwell: {stub_advice(result.stubs)}", err=True)
        if plan.stale or result.stubs or result.errors:
            return 1
        echo("failwell: generated files are up to date", err=True)
        return 0
    if result.stubs:
        echo(f"failwell: {stub_advice(result.stubs)}", err=True)
    for label, group in (("wrote", plan.write), ("created", plan.create), ("removed", plan.delete)):
        for relative in group:
            echo(f"{label}: {relative}")
    if not plan.stale:
        echo(
            "failwell: already up to date" + (" (nothing changed since the last generate)" if result.skipped else ""),
            err=True,
        )
    return 1 if result.errors else 0


def stub_advice(stubs: tuple[tuple[str, str, str], ...]) -> str:
    """What to do about handlers that are still the stub failwell wrote."""
    names = ", ".join(name for _, name, _ in stubs)
    return (
        f"{len(stubs)} handler(s) still only raise NotImplementedError, as the stub failwell wrote ({names}): "
        "the server answers `internal` for each. Implement `handle` in each file named `stub:`; "
        "`failwell generate --check` (CI, pre-commit) fails until then"
    )


PROJECT_OPTION = typer.Option(
    "--project",
    metavar="PROJECT",
    help="The project folder (default: the one holding this folder).",
    show_default=False,
)
ENV_OPTION = typer.Option(
    "--env",
    metavar="KEY=VALUE",
    help="A variable for the server (repeat; default: from this shell).",
    show_default=False,
)
ARG_OPTION = typer.Option(
    "--arg",
    metavar="ARG",
    help="A flag for the server's command line, such as --arg --repository=PATH (repeat); secret settings go in --env.",
    show_default=False,
)
UV_OPTION = typer.Option(
    "--uv/--no-uv",
    help="Start it with `uv run --directory` (default: when the project has a uv.lock).",
    show_default=False,
)


VERBOSE_OPTION = typer.Option("--verbose", help="Show the server's own log lines (its stderr) too.")
QUIET_OPTION = typer.Option("--quiet", help="Print the result alone: no labels, notes or server log lines.")
JSON_OPTION = typer.Option("--json", help="Print the raw result as JSON, for scripts.")


def _launch(
    project: Path,
    env: list[str] | None,
    uv: bool | None,
    *,
    recorded: bool = False,
    args: list[str] | None = None,
    writes: bool = False,
) -> Launch:
    """How to start the project's server, with `--env` pairs and `args` (`--arg`, the settings' flags);
    `recorded`: below them and the shell's environment, the env `install` or `dev` recorded in
    `.failwell/mcp.json` (`inspector.recorded`), and its settings' flags, each replaced by one `args` gives.
    `writes`: the command writes a file once the server is known (a refusal then says nothing was written)."""
    from .client.inspector import recorded as recorded_entry
    from .client.launch import launch, merged_flags
    from .render.locate import find_project

    try:
        pairs = {}
        for item in env or []:
            key, sep, value = item.partition("=")
            if not sep or not key:
                raise FailwellError(f"--env {item!r}: write it as KEY=VALUE")
            pairs[key] = value
        flags = list(args or [])
        if recorded:
            saved, saved_flags = recorded_entry(find_project(project).resolve())
            for key, value in saved.items():
                pairs.setdefault(key, os.environ.get(key) or value)
            flags = merged_flags(saved_flags, flags)
        return launch(project, pairs, uv=uv, args=flags)
    except FailwellError as exc:
        if writes:
            raise FailwellError(f"{exc.message}; nothing was written", exc.diagnostics) from None
        raise


def _platform() -> Platform:
    return "darwin" if sys.platform == "darwin" else "win32" if sys.platform == "win32" else "linux"


@app.command("install", cls=_Command)
def install_command(
    client_name: Annotated[
        str,
        typer.Argument(metavar="CLIENT", help="claude-desktop, claude-code, cursor, vscode, or mcp-json (print it)."),
    ],
    project: Annotated[Path, PROJECT_OPTION] = Path("."),
    env: Annotated[list[str] | None, ENV_OPTION] = None,
    arg: Annotated[list[str] | None, ARG_OPTION] = None,
    name: Annotated[
        str | None, typer.Option(metavar="NAME", help="The entry's name (default: the server's).", show_default=False)
    ] = None,
    scope: Annotated[
        str | None,
        typer.Option(metavar="SCOPE", help="user or project (default: user; project for vscode).", show_default=False),
    ] = None,
    uv: Annotated[bool | None, UV_OPTION] = None,
    force: Annotated[bool, typer.Option("--force", help="Replace an entry of the same name.")] = False,
    dry_run: Annotated[bool, typer.Option("--dry-run", help="Write nothing; print the change as a diff.")] = False,
) -> None:
    """Add this project's server to a client's configuration, as installed, with the environment it needs.

    \b
    Example:
      failwell install claude-desktop --env LEDGER_API_URL=https://ledger.example.com
      failwell install claude-code --arg --repository=/home/me/project   # a setting's flag
      failwell install vscode --dry-run        # .vscode/mcp.json, shown as a diff
      failwell install mcp-json > mcp.json     # for the Inspector's --config, or any client
    """

    def action() -> None:
        from dataclasses import replace

        from . import safewrite
        from .client.clients import client, config_path, portability_notes, reference
        from .client.inspector import write_config
        from .client.install import document, install

        chosen = client(client_name)
        server = _launch(project, env, uv, args=arg, writes=client_name != "mcp-json")
        if name:
            server = replace(server, name=name)
        if client_name == "mcp-json":
            echo(document(client_name, server), nl=False)
            return
        path = config_path(client_name, _platform(), Path.home(), os.environ, server.project, scope)
        shared = (scope or chosen.scopes[0]) == "project"
        recording = server.project / ".failwell" / "mcp.json"
        safewrite.refuse_links(server.project, recording)  # before the client's file: all or nothing
        change = install(
            client_name, server, path, force=force, dry_run=dry_run, project=server.project if shared else None
        )
        if change.diff:
            echo(change.diff, nl=False)
        if not dry_run:
            write_config(server)  # what `failwell call`, `tools`, `read` and `prompt` start the server with
        label = chosen.name
        if change.status == "unchanged":
            echo(f"failwell: {path} already starts {server.name} this way; nothing to do", err=True)
        elif dry_run:
            echo(f"failwell: would have {change.status} {path}; nothing was written", err=True)
        else:
            kept = f" (the previous file is {change.backup})" if change.backup else ""
            echo(f"failwell: {change.status} {path}{kept}; restart {label} to load {server.name}", err=True)
        if shared:
            for note in portability_notes(client_name, server):
                echo(f"failwell: {path.name} is made to be shared: {note}", err=True)
        if change.secrets and shared:
            names = ", ".join(change.secrets)
            holds, them = ("holds a secret", "it") if len(change.secrets) == 1 else ("hold secrets", "them")
            echo(
                f"failwell: {names} {holds}, and {path.name} is made to be committed: it reads {them} from "
                f"{label}'s environment instead ({', '.join(reference(client_name, n) for n in change.secrets)}); "
                f"export {' '.join(f'{n}=...' for n in change.secrets)} in the shell or profile that starts {label}",
                err=True,
            )
        if change.tightened:
            echo(
                f"failwell: {change.path} now holds a secret, so it is readable by you alone now (mode 0600; "
                "it was readable by others)",
                err=True,
            )

    _run(action)


@app.command("dev", cls=_Command)
def dev_command(
    project: Annotated[Path, PROJECT_OPTION] = Path("."),
    env: Annotated[list[str] | None, ENV_OPTION] = None,
    arg: Annotated[list[str] | None, ARG_OPTION] = None,
    uv: Annotated[bool | None, UV_OPTION] = None,
    show: Annotated[bool, typer.Option("--print", help="Print the Inspector's command instead of running it.")] = False,
) -> None:
    """Open the project's server in the official MCP Inspector (through npx, with the env and flags `install` wrote).

    Starts it as `install` (or an earlier `dev`) recorded in .failwell/mcp.json, each --env and --arg given
    replacing the recorded one of its name; that record is rewritten with the result.

    \b
    Example:
      failwell dev --env FORECAST_API_URL=http://127.0.0.1:8080
    """

    def action() -> int:
        import shlex
        import subprocess

        from .client.inspector import command as inspector_command
        from .client.inspector import node_problem, write_config

        server = _launch(project, env, uv, recorded=True, args=arg, writes=True)
        problem = node_problem()
        if problem and not show:
            raise FailwellError(f"{problem}; nothing was written")
        config = write_config(server)
        argv = inspector_command(server, config)
        if show:
            echo(shlex.join(argv))
            if problem:
                echo(f"failwell: warning: {problem}", err=True)
            return 0
        echo(f"failwell: {shlex.join(argv)}", err=True)
        return subprocess.run(argv, check=False).returncode

    _run(action)


@app.command("tools", cls=_Command)
def tools_command(
    project: Annotated[Path, PROJECT_OPTION] = Path("."),
    env: Annotated[list[str] | None, ENV_OPTION] = None,
    arg: Annotated[list[str] | None, ARG_OPTION] = None,
    uv: Annotated[bool | None, UV_OPTION] = None,
    as_json: Annotated[bool, JSON_OPTION] = False,
    quiet: Annotated[bool, QUIET_OPTION] = False,
    verbose: Annotated[bool, VERBOSE_OPTION] = False,
) -> None:
    """List the tools the project's server serves, asked over stdio with the mcp client.

    \b
    Example:
      failwell tools --json
    """

    def action() -> None:
        from .client.session import list_tools

        tools = list_tools(_client_launch(project, env, uv, arg, quiet, verbose), verbose=verbose)
        if as_json:
            echo(json.dumps(tools, indent=2, ensure_ascii=False))
            return
        for tool in tools:
            arguments = ", ".join(tool.get("inputSchema", {}).get("properties", {})) or "no arguments"
            echo(tool["name"] if quiet else f"{tool['name']}({arguments}): {tool.get('description', '')}")

    _run(action)


def _client_launch(
    project: Path, env: list[str] | None, uv: bool | None, arg: list[str] | None, quiet: bool, verbose: bool
) -> Launch:
    """The server `tools`, `call`, `read` and `prompt` start: as recorded, with --env and --arg over it."""
    if quiet and verbose:
        raise FailwellError("--quiet and --verbose contradict each other; pass one")
    return _launch(project, env, uv, recorded=True, args=arg)


@app.command("call", cls=_Command)
def call_command(
    tool: Annotated[str, typer.Argument(metavar="TOOL", help="The tool to call.")],
    arguments: Annotated[
        list[str] | None,
        typer.Argument(
            metavar="KEY=VALUE...",
            help="Its arguments, each read as the tool's input schema types it (query=2024 is text for a string).",
        ),
    ] = None,
    project: Annotated[Path, PROJECT_OPTION] = Path("."),
    env: Annotated[list[str] | None, ENV_OPTION] = None,
    arg: Annotated[list[str] | None, ARG_OPTION] = None,
    uv: Annotated[bool | None, UV_OPTION] = None,
    as_json: Annotated[bool, JSON_OPTION] = False,
    quiet: Annotated[bool, QUIET_OPTION] = False,
    verbose: Annotated[bool, VERBOSE_OPTION] = False,
) -> None:
    """Call one tool over stdio with the mcp client; print its text, isError, structured content and envelope.

    Each value is read by the tool's input schema (from tools/list): text for a string, JSON for a number,
    boolean, array or object; where the schema takes a string or something else, JSON when it reads as JSON,
    with a note on stderr. Exits 1 when the result is an error (isError), as a script can check.

    \b
    Example:
      failwell call notes_get note_id=N-1
    """

    def action() -> int:
        from .client.session import call_tool, split_pairs

        texts = split_pairs(arguments or [])
        server = _client_launch(project, env, uv, arg, quiet, verbose)
        note = (lambda line: None) if quiet else (lambda line: echo(f"failwell: note: {line}", err=True))
        result = call_tool(server, tool, texts, verbose=verbose, note=note)
        failed = bool(result.get("isError"))
        if as_json:
            echo(json.dumps(result, indent=2, ensure_ascii=False))
            return 1 if failed else 0
        if not quiet:
            echo(f"isError: {str(failed).lower()}")
        for block in result.get("content", []):
            echo(block["text"] if block.get("type") == "text" else json.dumps(block))
        if quiet:
            return 1 if failed else 0
        if "structuredContent" in result:
            echo("structuredContent: " + json.dumps(result["structuredContent"], ensure_ascii=False))
        if "_meta" in result:
            echo("_meta: " + json.dumps(result["_meta"], ensure_ascii=False))
        return 1 if failed else 0

    _run(action)


@app.command("read", cls=_Command)
def read_command(
    uri: Annotated[str, typer.Argument(metavar="URI", help="The resource's URI, such as tasks://T-1.")],
    project: Annotated[Path, PROJECT_OPTION] = Path("."),
    env: Annotated[list[str] | None, ENV_OPTION] = None,
    arg: Annotated[list[str] | None, ARG_OPTION] = None,
    uv: Annotated[bool | None, UV_OPTION] = None,
    as_json: Annotated[bool, JSON_OPTION] = False,
    quiet: Annotated[bool, QUIET_OPTION] = False,
    verbose: Annotated[bool, VERBOSE_OPTION] = False,
) -> None:
    """Read one resource over stdio with the mcp client; print each content's MIME type and text.

    A failed read is a JSON-RPC error (resources have no isError channel): its code, message and data (the
    envelope) are printed and the exit status is 1, as a script can check.

    \b
    Example:
      failwell read tasks://T-1
    """

    def action() -> int:
        from .client.session import read_resource

        answer = read_resource(_client_launch(project, env, uv, arg, quiet, verbose), uri, verbose=verbose)
        if as_json:
            echo(json.dumps(answer, indent=2, ensure_ascii=False))
            return 1 if "error" in answer else 0
        if "error" in answer:
            return _print_error(answer["error"])
        for content in answer.get("contents", []):
            if quiet:
                echo(content.get("text", content.get("blob", "")))
                continue
            echo(f"{content.get('uri', uri)} ({content.get('mimeType', 'no MIME type')})")
            if "text" in content:
                echo(content["text"])
            else:
                echo(f"[{len(content.get('blob', ''))} characters of base64]")
        return 0

    _run(action)


@app.command("prompt", cls=_Command)
def prompt_command(
    name: Annotated[str, typer.Argument(metavar="NAME", help="The prompt to get.")],
    arguments: Annotated[
        list[str] | None,
        typer.Argument(metavar="KEY=VALUE...", help="Its arguments, each sent as the text given (prompts take text)."),
    ] = None,
    project: Annotated[Path, PROJECT_OPTION] = Path("."),
    env: Annotated[list[str] | None, ENV_OPTION] = None,
    arg: Annotated[list[str] | None, ARG_OPTION] = None,
    uv: Annotated[bool | None, UV_OPTION] = None,
    as_json: Annotated[bool, JSON_OPTION] = False,
    quiet: Annotated[bool, QUIET_OPTION] = False,
    verbose: Annotated[bool, VERBOSE_OPTION] = False,
) -> None:
    """Get one prompt over stdio with the mcp client; print each message with its role.

    A failure is a JSON-RPC error (prompts have no isError channel): its code, message and data (the envelope)
    are printed and the exit status is 1.

    \b
    Example:
      failwell prompt triage ref=T-1
    """

    def action() -> int:
        from .client.session import get_prompt, split_pairs

        texts = split_pairs(arguments or [])
        server = _client_launch(project, env, uv, arg, quiet, verbose)
        answer = get_prompt(server, name, texts, verbose=verbose)
        if as_json:
            echo(json.dumps(answer, indent=2, ensure_ascii=False))
            return 1 if "error" in answer else 0
        if "error" in answer:
            return _print_error(answer["error"])
        for message in answer.get("messages", []):
            content = message.get("content", {})
            text = content["text"] if content.get("type") == "text" else json.dumps(content, ensure_ascii=False)
            echo(text if quiet else f"{message.get('role', '?')}: {text}")
        return 0

    _run(action)


def _print_error(error: dict[str, Any]) -> int:
    echo(f"error: {error.get('code')}")
    echo(str(error.get("message", "")))
    if "data" in error:
        echo("data: " + json.dumps(error["data"], ensure_ascii=False))
    return 1


@app.command("audit", cls=_Command)
def audit_command(
    target: Annotated[
        list[str] | None,
        typer.Argument(
            metavar="URL | -- COMMAND [ARGS]...",
            help="A streamable HTTP server's URL, or `--` and the command that starts a stdio server.",
            show_default=False,
        ),
    ] = None,
    header: Annotated[
        list[str] | None,
        typer.Option("--header", metavar="NAME:VALUE", help="An HTTP header, such as Authorization (repeat)."),
    ] = None,
    env: Annotated[
        list[str] | None,
        typer.Option(
            "--env",
            metavar="KEY=VALUE",
            help="A variable for a stdio server (repeat); it gets only PATH, HOME and LANG from this shell.",
        ),
    ] = None,
    allow_writes: Annotated[
        bool,
        typer.Option("--allow-writes", help="Probe tools not annotated read-only too (a sloppy one may run)."),
    ] = False,
    call_reads: Annotated[
        bool, typer.Option("--call-reads", help="Call each read-only tool once with example values.")
    ] = False,
    as_json: Annotated[bool, typer.Option("--json", help="Print the report as JSON instead of the summary.")] = False,
    html_path: Annotated[
        Path | None, typer.Option("--html", metavar="FILE", help="Write the report as one HTML page.")
    ] = None,
    write_spec: Annotated[
        Path | None,
        typer.Option("--write-spec", metavar="DEST", help="Write a draft failwell.yaml from what was listed."),
    ] = None,
    strict: Annotated[bool, typer.Option("--strict", help="Exit 1 on warnings too.")] = False,
    timeout: Annotated[float, typer.Option("--timeout", metavar="SECONDS", help="Per request.")] = 20.0,
) -> None:
    """Audit any MCP server: list it, probe it without side effects, judge each answer by failwell's rules.

    Exits 0 when nothing is wrong (or only warnings), 1 on errors (or warnings, with --strict), 3 when the server
    could not be reached. Tools not annotated read-only are probed only with --allow-writes.

    \b
    Example:
      failwell audit -- uvx mcp-server-time
      failwell audit https://mcp.example.com/mcp --header "Authorization: Bearer $TOKEN" --html audit.html
    """

    def action() -> int:
        try:
            from . import safewrite
            from .audit.draft import draft
            from .audit.report import as_html, terminal
            from .audit.report import as_json as report_json
            from .audit.run import Options, Target, audit
            from .render.pipeline import diagnose
        except ImportError as missing:
            raise FailwellError(
                f"failwell audit needs the mcp SDK ({missing.name} is missing): pip install 'failwell[client]'"
            ) from None
        words = list(target or [])
        if not words:
            raise FailwellError("give a URL, or `--` and the command that starts a stdio server")
        headers: dict[str, str] = {}
        for item in header or []:
            name, colon, value = item.partition(":")
            if not colon or not name.strip():
                raise FailwellError(f"--header {item!r}: write it as NAME:VALUE, such as 'Authorization: Bearer x'")
            headers[name.strip()] = value.strip()
        variables: dict[str, str] = {}
        for item in env or []:
            key, equals, value = item.partition("=")
            if not equals or not key:
                raise FailwellError(f"--env {item!r}: write it as KEY=VALUE")
            variables[key] = value
        is_url = len(words) == 1 and words[0].startswith(("http://", "https://"))
        where = Target(url=words[0], headers=headers) if is_url else Target(command=words, env=variables)
        report = audit(where, Options(allow_writes=allow_writes, call_reads=call_reads, timeout_s=timeout))
        echo(report_json(report) if as_json else terminal(report), nl=False)
        if html_path is not None:
            safewrite.write(html_path, as_html(report).encode())
            echo(f"wrote {html_path}", err=True)
        if write_spec is not None:
            text = draft(report)
            if any(found.severity == "error" for found in diagnose(text, str(write_spec))):
                raise spec_error(diagnose(text, str(write_spec)))  # checked before writing: nothing was written
            safewrite.write(write_spec, text.encode())
            echo(f"wrote {write_spec}: a draft that validates; declare each tool's failures", err=True)
        return 1 if report.errors or (strict and report.warnings) else 0

    _run(action)


@app.command("expand", hidden=True)
def expand_command(dest: Annotated[Path, typer.Argument()] = Path(".")) -> None:
    """Write the per-tool files into a project Copier just rendered (the copier.yml task)."""
    from .render.expand import main as expand_main

    raise typer.Exit(expand_main(["expand", str(dest)]))


@app.command("messages", cls=_Command)
def messages_command(
    spec: Annotated[Path, SPEC_ARGUMENT] = Path("failwell.yaml"),
    format: Annotated[
        OutputFormat, typer.Option("--format", metavar="FORMAT", help="table, markdown or json.")
    ] = OutputFormat.table,
    strict: Annotated[
        bool, typer.Option("--strict", help="Exit 1 when a message misses a part or has a wording problem.")
    ] = False,
) -> None:
    """Every message the server can send, with example values, its class, and a six-part check.

    \b
    Example:
      failwell messages --format markdown > MESSAGES.md
    """

    def action() -> int:
        from . import review
        from .render.locate import find_spec
        from .spec.wording import render_rows

        rows = review(find_spec(spec))
        echo(render_rows(rows, format.value), nl=False)
        problems = [row for row in rows if row.problems]
        return 1 if strict and problems else 0

    _run(action)


SHOWN_FINDINGS = 40
"""The findings (FW3xx) and notes `failwell import openapi` prints without --verbose; the rest are counted."""

import_app = typer.Typer(
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
    rich_markup_mode=None,
    help="Start a project from a description of an API you already have.",
    epilog="\b\nExample:\n  failwell import openapi petstore.yaml pets --tag pets",
)
app.add_typer(import_app, name="import")


def _many(help_text: str, flag: str, metavar: str) -> Any:
    return typer.Option(flag, metavar=metavar, help=help_text, show_default=False)


def _write_handlers(dest: Path, handlers: dict[str, str]) -> None:
    """The imported tools' new handlers, written inside `dest` (never through a link)."""
    from . import safewrite

    for relative, text in handlers.items():
        safewrite.make_folders(dest, (dest / relative).parent)
        safewrite.write(dest / relative, text.encode(), root=dest)


@import_app.command("openapi", cls=_Command)
def import_openapi_command(
    document_source: Annotated[
        str, typer.Argument(metavar="DOC", help="The OpenAPI 3.0 or 3.1 document: a file, or an http(s) URL.")
    ],
    dest: Annotated[
        Path, typer.Argument(metavar="DEST", help="The project folder: new, or one made by an earlier import.")
    ] = Path("."),
    tag: Annotated[list[str] | None, _many("Operations with this tag (repeat).", "--tag", "TAG")] = None,
    operation: Annotated[
        list[str] | None, _many("The operation with this operationId (repeat).", "--operation", "ID")
    ] = None,
    path: Annotated[
        list[str] | None, _many("Operations whose path matches this glob (repeat).", "--path", "GLOB")
    ] = None,
    method: Annotated[list[str] | None, _many("Operations with this HTTP method (repeat).", "--method", "M")] = None,
    exclude_tag: Annotated[list[str] | None, _many("Leave out this tag (repeat).", "--exclude-tag", "TAG")] = None,
    exclude_operation: Annotated[
        list[str] | None, _many("Leave out this operationId (repeat).", "--exclude-operation", "ID")
    ] = None,
    exclude_path: Annotated[
        list[str] | None, _many("Leave out paths matching this glob (repeat).", "--exclude-path", "GLOB")
    ] = None,
    exclude_method: Annotated[
        list[str] | None, _many("Leave out this HTTP method (repeat).", "--exclude-method", "M")
    ] = None,
    max_tools: Annotated[
        int | None, typer.Option("--max-tools", metavar="N", help="Allow N tools instead of 40.", show_default=False)
    ] = None,
    all_operations: Annotated[bool, typer.Option("--all", help="Allow any number of tools.")] = False,
    name: Annotated[
        str | None,
        typer.Option(metavar="NAME", help="The server's name (default: made from DEST).", show_default=False),
    ] = None,
    check: Annotated[
        bool,
        typer.Option(
            "--check", help="Write nothing; print the diff and exit 1 when a re-import would change something."
        ),
    ] = False,
    verbose: Annotated[
        bool, typer.Option("--verbose", help="Print every finding and note (default: the first 40 of each).")
    ] = False,
) -> None:
    """Write a spec and working handlers from an OpenAPI document; run it again to merge the API's changes.

    Each selected operation becomes a tool whose handler calls the API (retries, breaker, deadlines,
    Idempotency-Key) and turns each documented status into a declared failure. The failures' words are
    drafts (`reviewed: false`) until you have read them. A re-import keeps your wording and your choice.

    \b
    Example:
      failwell import openapi petstore.yaml pets --tag pets
      failwell import openapi https://api.example.com/openapi.json api --exclude-method DELETE
      failwell import openapi petstore.yaml pets --check    # in CI: exit 1 when the API changed
    """

    def action() -> int:
        from . import generate, new, safewrite, validate
        from .importers.openapi import Selection, import_openapi

        selection = Selection(
            tags=list(tag or []),
            operations=list(operation or []),
            paths=list(path or []),
            methods=[m.upper() for m in method or []],
            exclude_tags=list(exclude_tag or []),
            exclude_operations=list(exclude_operation or []),
            exclude_paths=list(exclude_path or []),
            exclude_methods=[m.upper() for m in exclude_method or []],
            max_tools=max_tools,
            all=all_operations,
        )
        spec_path = dest / "failwell.yaml"
        existing = spec_path.read_text(encoding="utf-8") if spec_path.is_file() else None
        if existing is None and dest.exists() and (not dest.is_dir() or any(dest.iterdir())):
            raise FailwellError(f"{dest} is not empty and has no failwell.yaml; import into a new folder")
        result = import_openapi(document_source, dest, selection, name=name, existing=existing)
        for warning in result.warnings:
            echo(f"failwell: warning: {warning}", err=True)
        shown = None if verbose else SHOWN_FINDINGS
        for finding in result.findings[:shown]:
            echo(f"{document_source}: {finding}")
        for note in result.notes[:shown]:
            echo(f"{document_source}: note: {note}")
        hidden = max(0, len(result.findings) - SHOWN_FINDINGS) + max(0, len(result.notes) - SHOWN_FINDINGS)
        if hidden and not verbose:
            counts = Counter(finding.code for finding in result.findings)
            summary_by_code = ", ".join(f"{code} {count}" for code, count in sorted(counts.items()))
            echo(
                f"failwell: {hidden} more finding(s) and note(s) not shown (--verbose shows all): {summary_by_code}, "
                f"notes {len(result.notes)}",
                err=True,
            )
        for skipped in result.skipped:
            echo(f"{document_source}: not mapped: {skipped}")
        summary = (
            f"failwell: {len(result.tools)} tool(s) from {result.operations} operation(s) in {result.seconds:.2f} s; "
            f"the tool list is about {result.tokens:,} tokens (characters / 4)"
        )
        echo(summary, err=True)
        if existing is not None:
            text = result.diff()
            if text:
                echo(text, nl=False)
            for tool in result.added:
                echo(f"failwell: added {tool}", err=True)
            for line in result.moved:
                tool = line.split(":")[0]
                echo(
                    f"failwell: {line}. Your handler src/{result.package}/handlers/{tool}.py was kept: add them to its "
                    "WHERE (or delete it and import again to have it written anew)",
                    err=True,
                )
            for tool in result.removed:
                echo(f"failwell: removed {tool} (its operation is no longer selected; its handler is kept)", err=True)
        if check:
            if existing is None:
                echo(f"failwell: {dest} has no failwell.yaml: the import would create the project", err=True)
                return 1
            if result.changed:
                echo("failwell: a re-import would change the project; run it without --check", err=True)
                return 1
            echo("failwell: the project is up to date with the document", err=True)
            return 0
        if existing is None:
            import tempfile

            with tempfile.TemporaryDirectory() as scratch:
                draft = Path(scratch) / "failwell.yaml"
                draft.write_text(result.spec_text, encoding="utf-8")
                created = new(dest, draft)
            _write_handlers(dest, result.handlers)
            for diagnostic in validate(spec_path):  # its warnings (FW301 drafts), where the file now is
                echo(str(diagnostic))
            echo(f"failwell: created {len(created.plan.create)} files in {dest}; the handlers call the API", err=True)
        else:
            safewrite.write(spec_path, result.spec_text.encode(), root=dest)
            _write_handlers(dest, result.handlers)
            return _report(generate(dest), False)
        return 0

    _run(action)


@app.command("schema", cls=_Command)
def schema_command() -> None:
    """Print the spec's JSON Schema (2020-12).

    \b
    Example:
      failwell schema > failwell.schema.json
    """
    from . import schema

    echo(json.dumps(schema(), indent=2))


def main() -> None:
    """Console-script entry point."""
    # One short command: the cycle collector frees next to nothing here, and its passes over a large
    # model grow with it (about 0.2 s of 1,000 tools' render).
    gc.disable()
    app(prog_name="failwell")


if __name__ == "__main__":
    main()
