"""How a client starts a project's server on stdio: the command, its arguments and the environment.

A client (Claude Desktop, an IDE, the Inspector) starts the server from its own folder with its own short
PATH, so everything is absolute: the console script the project installs (`<name>-mcp` in the project's
`.venv`), or `uv run --directory <project> <name>-mcp` for a project that uses uv (it has a `uv.lock`).
The environment holds the variables the server needs to start (an upstream's base URL, the Redis URL) and,
with the SQLite store, an absolute store path: `FAILWELL_SQLITE_PATH`, by default under the project's
`.failwell/` folder (which the generated .gitignore ignores), so the client, `failwell dev` and
`failwell call` share one store.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import sys
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from functools import cache
from pathlib import Path
from typing import Any

from ..errors import FailwellError
from ..render.locate import find_project
from ..render.model import SPEC_FILE, Project, Setting
from ..render.pipeline import load_project, read_spec
from ..spec import fields as f
from ..spec import schemas
from ..spec.messages import runtime

STORE_ENV = "FAILWELL_SQLITE_PATH"


@dataclass(frozen=True)
class Launch:
    """What starts one project's server on stdio."""

    name: str
    """The server's name: the key of its entry in a client's configuration."""
    command: str
    args: tuple[str, ...]
    env: dict[str, str] = field(default_factory=dict)
    project: Path = Path(".")
    secrets: frozenset[str] = frozenset()
    """The names in `env` whose values are secrets (`is_secret`)."""


SECRET_NAME = re.compile(
    r"(?i)(?:^|[_.-])(?:TOKENS?|SECRETS?|KEYS?|PASSWORDS?|PASSWD|PWD|PASS|CREDENTIALS?|AUTH)(?:$|[_.-])"
)
"""Names that say a variable holds a credential, as shell and CI conventions write them (`API_KEY`,
`GITHUB_TOKEN`, `DB_PASSWORD`, `CLIENT_SECRET`)."""


@cache
def _scrubber() -> Callable[[str], str]:
    """The runtime's own `redact_secrets` (the vendored `scrub.py`, pure Python), so failwell calls a value
    secret exactly when the generated server would mask it in a log."""
    redact: Callable[[str], str] = runtime("scrub").redact_secrets  # within the runtime's package (`.patterns`)
    return redact


def is_secret(name: str, value: str, declared: frozenset[str] = frozenset()) -> bool:
    """Whether variable `name` set to `value` holds a secret: the spec declares it one (the bearer tokens),
    its name says so (`*TOKEN*`, `*SECRET*`, `*KEY*`, `*PASSWORD*`), or the runtime's scrubber would mask
    its value (a URL with a password, a token's shape, a long random string)."""
    return name in declared or bool(SECRET_NAME.search(name)) or _scrubber()(value) != value


def console_script(project: Project) -> str:
    """The command `pip install` puts on the venv's PATH (pyproject's `[project.scripts]`)."""
    return f"{project.name}-mcp"


def launch(
    folder: Path,
    given: Mapping[str, str] | None = None,
    *,
    uv: bool | None = None,
    environ: Mapping[str, str] | None = None,
    args: Sequence[str] = (),
) -> Launch:
    """How to start the project at (or above) `folder`. Values come from `given` (`--env KEY=VALUE`), then
    `environ` (default: this process's environment); FailwellError naming every needed variable with no
    value. `uv`: None decides by the project's uv.lock. `args` (`--arg`) are flags of the spec's settings,
    passed to the server after its command; a required setting given neither there nor in the environment
    is refused, naming it. The caller says whether anything was written (`failwell install` and `dev`, which
    write, say nothing was)."""
    root = find_project(folder).resolve()
    model = load_project(read_spec(root / SPEC_FILE), str(root / SPEC_FILE))
    values = dict(os.environ if environ is None else environ)
    given = dict(given or {})
    env: dict[str, str] = {}
    missing = []
    for variable in model.environment:
        if not variable.needed:
            continue
        value = given.get(variable.name, values.get(variable.name, ""))
        if value:
            env[variable.name] = value
        else:
            missing.append(f"{variable.name} ({variable.meaning})")
    flagged = _setting_flags(model, args)
    for setting in model.settings:
        if setting.name in flagged:
            continue
        value = given.get(setting.env, values.get(setting.env, ""))
        if value.strip():
            refusal = setting_refusal(setting, value.strip())
            if refusal:
                raise FailwellError(
                    f"{setting.env}={shown(value, setting.secret)} is refused: the server would refuse it: {refusal}"
                )
            env[setting.env] = value
        elif setting.required:
            how = f"--arg {setting.flag}=VALUE or " if setting.flag else "--arg VALUE or " if setting.positional else ""
            how = how if not setting.secret else ""
            missing.append(f"setting {setting.name} ({how}--env {setting.env}=VALUE: {setting.accepts})")
    if missing:
        raise FailwellError(
            f"the server needs {', '.join(missing)} to start, and no value was given; pass --env NAME=VALUE "
            "or set it in this shell"
        )
    if model.sqlite_path:
        store = given.get(STORE_ENV) or values.get(STORE_ENV) or ""
        configured = Path(model.sqlite_path).expanduser()
        default = configured if configured.is_absolute() else root / ".failwell" / configured
        env[STORE_ENV] = str(Path(store).expanduser().absolute() if store else default)
    env.update((key, value) for key, value in given.items() if key not in env)
    declared = frozenset(variable.name for variable in model.environment if variable.secret)
    held = frozenset(key for key, value in env.items() if key != STORE_ENV and is_secret(key, value, declared))
    preflight(model, env, held)
    script = console_script(model)
    if uv if uv is not None else (root / "uv.lock").is_file():
        found = shutil.which("uv")
        if found is None:
            raise FailwellError("uv is not on PATH; install it (https://docs.astral.sh/uv/) or pass --no-uv")
        command = ("run", "--directory", str(root), script, *args)
        return Launch(model.name, str(Path(found).absolute()), command, env, root, held)
    return Launch(model.name, str(installed_script(root, script)), tuple(args), env, root, held)


_TRUE, _FALSE = ("true", "1", "yes", "on", "t", "y"), ("false", "0", "no", "off", "f", "n")


def setting_refusal(setting: Setting, text: str) -> str | None:
    """Why the server would refuse `text` for `setting` (None when it accepts it): the text converted as the
    generated `Settings` model converts a flag's, then checked against the setting's field."""
    value: Any = text
    kind = f.json_type(setting.field)
    if kind == "array" and isinstance(setting.field.get("items"), dict):  # one item of a repeated flag
        item = replace(setting, field=setting.field["items"], accepts=setting.accepts)
        return setting_refusal(item, text)
    if schemas.is_schema(setting.field):  # a JSON setting: its text decoded, then checked by its schema
        try:
            value = json.loads(text)
        except ValueError:
            return f"it is not JSON; it takes {setting.accepts}"
        reason = f.fits(value, setting.field)
        return f"it takes {setting.accepts} ({reason})" if reason else None
    try:
        if kind == "integer":
            value = int(text)
        elif kind == "number":
            value = float(text)
        elif kind == "boolean" and text.lower() in (*_TRUE, *_FALSE):
            value = text.lower() in _TRUE
    except ValueError:
        return f"it takes {setting.accepts}"
    if "enum" in setting.field:
        value = next((option for option in setting.field["enum"] if str(option) == text), value)
    return f"it takes {setting.accepts}" if f.fits(value, setting.field) else None


def _setting_flags(model: Project, args: Sequence[str]) -> set[str]:
    """The settings `args` give as flags (`--flag=VALUE`, `--flag VALUE`, a boolean's lone `--flag`); a
    FailwellError for a flag no setting has, and for a secret one (a client shows its args, and logs them)."""
    by_flag = {setting.flag: setting for setting in model.settings if setting.flag}
    places = sorted((s for s in model.settings if s.positional), key=lambda s: (s.positional < 0, s.positional))
    found: set[str] = set()
    values = set()  # the indexes of the args that are a flag's value
    for index, arg in enumerate(args):
        if not arg.startswith("-"):
            if index not in values:
                _positional(places, arg, found)
            continue
        flag = arg.partition("=")[0]
        setting = by_flag.get(flag)
        if setting is None:
            known = ", ".join(by_flag) or "none"
            raise FailwellError(f"--arg {flag}: the server takes no such flag (its settings' flags: {known})")
        if setting.secret:
            raise FailwellError(
                f"--arg {flag}: {setting.name} is a secret setting, and a client shows its args; pass it as "
                f"--env {setting.env}=VALUE (or set {setting.env} in this shell)"
            )
        if setting.inverted:
            if "=" in arg:
                raise FailwellError(f"--arg {arg}: {flag} stands alone (it sets {setting.name} false)")
            found.add(setting.name)
            continue
        given = arg.partition("=")[2] if "=" in arg else (args[index + 1] if index + 1 < len(args) else "")
        if "=" not in arg and not setting.boolean:
            values.add(index + 1)
        if "=" in arg or not setting.boolean:
            refusal = setting_refusal(setting, given)
            if refusal:
                raise FailwellError(f"--arg {arg}: the server would refuse it: {refusal}")
        found.add(setting.name)
    return found


def _positional(places: list[Setting], arg: str, found: set[str]) -> None:
    """`arg`, an argument that is no flag's value, given to the next positional setting (the `rest` one takes every
    remaining argument); a FailwellError when no setting takes it or the server would refuse it."""
    setting = next((s for s in places if s.name not in found or s.positional < 0), None)
    if setting is None:
        raise FailwellError(f"--arg {arg}: the server takes no more arguments (see its --help)")
    if setting.secret:
        raise FailwellError(
            f"--arg <the argument {setting.name}, not shown>: {setting.name} is a secret setting, and a client shows "
            f"its args; pass it as --env {setting.env}=VALUE (or set {setting.env} in this shell)"
        )
    refusal = setting_refusal(setting, arg)
    if refusal:
        raise FailwellError(f"--arg {arg}: the server would refuse it as {setting.name}: {refusal}")
    found.add(setting.name)


def merged_flags(recorded: Sequence[str], given: Sequence[str]) -> list[str]:
    """The settings' flags `recorded` (by `install` or `dev`) with each flag `given` replacing the recorded
    one of the same name (`--flag=VALUE`, `--flag VALUE` or a lone `--flag`), the rest kept in their order."""

    def groups(args: Sequence[str]) -> list[list[str]]:
        found: list[list[str]] = []
        for arg in args:
            if arg.startswith("-") or not found:
                found.append([arg])
            else:
                found[-1].append(arg)
        return found

    told = groups(given)
    names = {group[0].partition("=")[0] for group in told}
    kept = [group for group in groups(recorded) if group[0].partition("=")[0] not in names]
    return [arg for group in (*kept, *told) for arg in group]


def preflight(model: Project, env: Mapping[str, str], secrets: frozenset[str] = frozenset()) -> None:
    """Check each value in `env` as the generated server's preflight will, with the runtime's own checks
    (`runtime/config.py`, loaded as `messages` loads the pure runtime modules), so failwell never writes an
    entry the server would refuse to start with; FailwellError naming the variable, what it got (masked when
    a secret) and what it accepts."""
    config = runtime("config")
    kinds = {variable.name: (variable.check, variable.meaning) for variable in model.environment if variable.check}

    def check(name: str, value: str) -> None:
        kind, meaning = kinds.get(name, ("", ""))
        if name == "MCP_PORT":
            config.check_port(name, value)
        elif name == "LOG_LEVEL":
            config.check_log_level(value)
        elif name == "MCP_RESOURCE_URL" and value:
            runtime("oauth").resource_url(value, "127.0.0.1", 8000, "/mcp")
        elif kind == "base_url":
            config.check_base_url(name, value, f"{meaning}, such as https://api.example.com")
        elif kind == "redis_url":
            config.check_redis_url(name, value)
        elif kind == "tokens":
            config.check_tokens(name, value)

    for name, value in env.items():
        try:
            check(name, value.strip())
        except config.ConfigurationError as exc:
            reason = str(exc).removesuffix(f"; {config.WHERE}")
            value_shown = shown(value, name in secrets)
            raise FailwellError(f"{name}={value_shown} is refused: {reason}") from None


def shown(value: str, secret: bool) -> str:
    """`value` as a message quotes it: a secret only as its length, anything else quoted (a long one cut)."""
    if secret:
        return f"<a secret of {len(value)} characters, not shown>"
    return repr(value if len(value) <= 60 else value[:57] + "...")


def installed_script(root: Path, script: str) -> Path:
    """The console script in the project's .venv (or, failing that, on PATH); FailwellError saying how to
    install the project when there is none."""
    bin_dir = root / ".venv" / ("Scripts" if sys.platform == "win32" else "bin")
    for candidate in (bin_dir / f"{script}.exe", bin_dir / script):
        if candidate.is_file():
            return candidate
    found = shutil.which(script)
    if found is not None:
        return Path(found).absolute()
    raise FailwellError(
        f"{script} is not installed: run `python3 -m venv .venv && .venv/bin/pip install -e .` in {root} "
        "(or use uv: `uv sync`, then pass --uv)"
    )
