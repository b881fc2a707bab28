"""`server.settings` and the environment variables the generated server reads."""

from __future__ import annotations

import dataclasses
import re
import urllib.parse
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ...pyliteral import (
    LINE_LENGTH,
    Call,
    call_lines,
    inline,
    literal,
    markdown_code,
    markdown_text,
    string,
)
from ...spec import fields as f
from ...spec import setting_kinds
from ...spec.naming import DEFAULT_TOKENS_ENV, setting_env, setting_flag

REDIS_URL_EXAMPLE = "redis://127.0.0.1:6379/0"
"""A Redis URL the generated server accepts: the README's example and the start-up error's."""


@dataclass(frozen=True)
class Variable:
    """An environment variable the generated server reads."""

    name: str
    meaning: str
    needed: bool = False
    """Whether the server needs it set to start on stdio (an upstream's base URL, the Redis URL)."""
    example: str = ""
    """A value the server accepts, for the README's commands and client entries (empty: none shown)."""
    secret: bool = False
    """Whether its value is a credential (the bearer tokens): never written into a file made to be shared."""
    meaning_markdown: str = ""
    """`meaning` as the README prints it, where it holds text from the spec (each piece through `markdown_text` or
    `markdown_code`); empty: `meaning` is failwell's own words, printed as they are."""
    check: str = ""
    """The runtime's check of its value (`base_url`, `redis_url`, `tokens`; empty: none), which
    `failwell install` runs on a value before writing it (`launch.preflight`)."""


@dataclass(frozen=True)
class Setting:
    """One of `server.settings`: where it is read from, and the runtime's declaration of it."""

    name: str
    flag: str
    env: str
    accepts: str
    description: str
    required: bool
    secret: bool
    boolean: bool
    example: str
    """A value it accepts, as a flag's text (for the README and client entries)."""
    declaration: str
    """The `Setting(...)` expression of the generated settings module, laid out as `ruff format` does."""
    field: dict[str, Any] = dataclasses.field(default_factory=dict)
    """Its type and constraints as a field's, which `failwell install` checks a value against."""
    given: str = ""
    """Where the README's table says it is given: its flag, or its place among the arguments."""
    words: tuple[str, ...] = ()
    """Its example on a command line: its flag and the example, or the example alone for a positional one."""
    positional: int = 0
    """Its place among the arguments (-1: the remaining ones; 0: none), as `failwell install` reads `--arg`s."""
    inverted: bool = False
    """`flag_value: false`: its flag stands alone and sets it false."""


def _setting_value_text(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value)


def _settings(server: str, specs: dict[str, Any]) -> dict[str, Any]:
    """The Project fields of `server.settings` (none without it, so other projects render as before)."""
    conflicts = setting_kinds.conflicts(specs)
    specs = setting_kinds.declared(specs)
    if not specs:
        return {}
    found = []
    fields: dict[str, dict[str, Any]] = {}
    example: dict[str, Any] = {}
    for name, spec in specs.items():
        required = bool(spec.get("required", False))
        field_spec = setting_kinds.field(spec)
        fields[name] = {**field_spec, "required": required}
        flag, env = setting_flag(name, spec), setting_env(server, name, spec)
        accepts = f.accepts(field_spec, with_example=not spec.get("secret")) + setting_kinds.accepts_note(spec)
        boolean = f.json_type(spec) == "boolean" and "enum" not in spec and spec.get("flag_value") is not False
        value = f.make_example(field_spec)
        if required:
            example[name] = value
        arguments: list[str | Call] = [string(name), string(flag), string(env), string(accepts)]
        arguments += ["required=True"] if required else []
        arguments += ["secret=True"] if spec.get("secret") else []
        arguments += ["boolean=True"] if boolean else []
        described = " ".join(str(spec.get("description", "")).split())
        arguments += [f"description={string(described)}"] if described else []
        arguments += setting_kinds.runtime_arguments(spec)
        declaration = "\n".join(call_lines(("Setting", arguments), 8, ","))
        found.append(
            Setting(
                name=name,
                flag=flag,
                env=env,
                accepts=accepts,
                description=described,
                required=required,
                secret=bool(spec.get("secret")),
                boolean=boolean,
                example=_setting_value_text(value),
                declaration=declaration,
                field=field_spec,
                given=setting_kinds.given(flag, spec, name),
                words=(flag, _setting_value_text(value)) if flag else (_setting_value_text(value),),
                positional=setting_kinds.positional(spec),
                inverted=spec.get("flag_value") is False,
            )
        )
    models = tuple(f.models("Settings", fields))
    annotations = f.annotation_code(models)
    return {
        "settings": tuple(found),
        "settings_models": models,
        "settings_uses_annotated": "Annotated[" in annotations,
        "settings_uses_literal": "Literal[" in annotations,
        "settings_example": _settings_example(example),
        "settings_apart": tuple(_apart_lines(specs, example)),
        "settings_rest": any(setting_kinds.positional(spec) == -1 for spec in specs.values()),
        "settings_conflicts": setting_kinds.conflicts_code(conflicts),
        "settings_uses_any": re.search(r"\bAny\b", annotations) is not None,
    }


def _transport_flags(server: dict[str, Any]) -> dict[str, Any]:
    """`transport_flags_line`: the `TRANSPORT_FLAGS = {...}` of the generated server (empty without them)."""
    spelled = setting_kinds.spellings(server)
    line = f"TRANSPORT_FLAGS = {inline(spelled)}"
    line = line if len(line) <= LINE_LENGTH else f"TRANSPORT_FLAGS = {literal(spelled, 0)}"
    return {"transport_flags_line": line if spelled else ""}


def _settings_example(example: dict[str, Any]) -> str:
    """`EXAMPLE_SETTINGS = Settings.model_validate({...})` as `ruff format` lays it out: the call split at its
    own parentheses (never wrapped in new ones), its dict exploded when even that does not fit."""
    flat = f"EXAMPLE_SETTINGS = Settings.model_validate({inline(example)})"
    if len(flat) <= LINE_LENGTH:
        return flat
    argument = inline(example) if 4 + len(inline(example)) <= LINE_LENGTH else literal(example, 4)
    return f"EXAMPLE_SETTINGS = Settings.model_validate(\n    {argument}\n)"


_URL = re.compile(r"^[A-Za-z][A-Za-z0-9+.-]*://")
_FOLDER_WORDS = ("dir", "directory", "folder", "root", "repo", "repository", "workspace")
_FILE_WORDS = ("file", "db", "database", "sqlite", "log")
_PATH_WORDS = ("path", *_FOLDER_WORDS, *_FILE_WORDS)


def _apart_lines(specs: dict[str, Any], example: dict[str, Any]) -> list[str]:
    """The entries of `settings_in`'s update, indented for it: every string setting that names a file or folder
    (by its name or its example: `db_path`, `exports_dir`, `/srv/repo`, `./data/bm.db`) moves under the test's
    folder, its file's name kept; every other URL keeps its scheme and path on 127.0.0.1 port 9, where nothing
    listens. Secrets, and settings that are unset, stay as they are."""
    lines = []
    for name, spec in specs.items():
        value = example.get(name, spec.get("default"))
        if spec.get("secret") or f.json_type(spec) != "string" or "enum" in spec or not isinstance(value, str):
            continue
        words = set(re.split(r"[^a-z]+", name.lower()))
        url = _URL.match(value)
        if url and not value.lower().startswith(("file:", "sqlite:")):
            moved = urllib.parse.urlsplit(value)._replace(netloc="127.0.0.1:9").geturl()
            lines.append(f"            {string(name)}: {string(moved)},")
            continue
        path = value[url.end() :] if url else value
        looks = path.startswith(("/", "./", "../", "~")) or "/" in path or "\\" in path
        if not (looks or words & set(_PATH_WORDS)):
            continue
        leaf = re.split(r"[/\\]", path.rstrip("/\\"))[-1] or name
        is_file = bool(words & set(_FILE_WORDS)) or ("." in leaf.strip(".") and not words & set(_FOLDER_WORDS))
        arguments = ["folder", string(name)]
        arguments += [string(leaf if len(leaf) <= 40 else name + Path(leaf).suffix[:8])] if is_file else []
        arguments += [f"scheme={string(value[: url.end()])}"] if url else []
        flat = f"            {string(name)}: inside({', '.join(arguments)}),"
        if len(flat) <= LINE_LENGTH:
            lines.append(flat)
        else:  # one argument a line, kept so by the trailing comma
            lines += [
                f"            {string(name)}: inside(",
                *(f"                {a}," for a in arguments),
                "            ),",
            ]
    return lines


def _environment(data: dict[str, Any], store: str, name: str) -> tuple[Variable, ...]:
    """Every environment variable the server reads, with what it is for."""
    server = data["server"]
    found = [
        Variable(
            spec["base_url_env"],
            f"the base URL of the `{upstream}` upstream"
            + (f" (default {spec['base_url']})" if spec.get("base_url") else ""),
            meaning_markdown=f"the base URL of the {markdown_code(upstream, table=True)} upstream"
            + (f" (default {markdown_code(spec['base_url'], table=True)})" if spec.get("base_url") else ""),
            needed=not spec.get("base_url"),
            check="base_url",
            example=spec.get("base_url")
            or f"https://{spec['base_url_env'].lower().removesuffix('_url').replace('_', '-')}.example.com",
        )
        for upstream, spec in sorted((data.get("upstreams") or {}).items())
    ]
    for setting, spec in setting_kinds.declared(server.get("settings")).items():
        flag, env = setting_flag(setting, spec), setting_env(name, setting, spec)
        what = " ".join(str(spec.get("description", "")).split()) or f"the `{setting}` setting"
        shown = markdown_text(what) if spec.get("description") else f"the {markdown_code(setting, table=True)} setting"
        found.append(
            Variable(
                env,
                f"{what} (or `{flag}`)",
                secret=bool(spec.get("secret")),
                meaning_markdown=f"{shown} (or {markdown_code(flag, table=True)})",
            )
        )
    if store == "sqlite":
        path = server.get("sqlite_path", f"{name}.sqlite3")
        where = path if path.startswith("/") else f"`.failwell/{path}` in the project"
        shown = (
            markdown_code(path, table=True)
            if path.startswith("/")
            else f"{markdown_code(f'.failwell/{path}', table=True)} in the project"
        )
        found.append(
            Variable(
                "FAILWELL_SQLITE_PATH",
                f"the SQLite file for idempotency records and rate limits ({where})",
                meaning_markdown=f"the SQLite file for idempotency records and rate limits ({shown})",
            )
        )
    if store == "redis":
        found.append(
            Variable(
                server.get("redis_url_env", "REDIS_URL"),
                "the Redis URL every replica shares",
                needed=True,
                check="redis_url",
                example=REDIS_URL_EXAMPLE,
            )
        )
    auth = server.get("auth")
    if auth is not None:
        tokens = auth.get("tokens_env", DEFAULT_TOKENS_ENV)
        found.append(
            Variable(
                tokens,
                "with `--http`: the bearer tokens the default verifier accepts (`auth.py`)",
                example="change-me-to-a-long-random-token",
                secret=True,
                check="tokens",
            )
        )
        if auth.get("authorization_servers"):
            found.append(
                Variable(
                    "MCP_RESOURCE_URL",
                    "with `--http`: this server's public URL, such as https://mcp.example.com/mcp (the resource "
                    "its tokens are issued for; derived from the bind on loopback)",
                )
            )
    found += [
        Variable("LOG_LEVEL", "INFO by default; logs are JSON lines on stderr"),
        Variable("MCP_HOST, MCP_PORT, MCP_PATH", "with `--http`: where to listen (127.0.0.1, 8000, /mcp)"),
        Variable(
            "MCP_ALLOWED_HOSTS, MCP_ALLOWED_ORIGINS",
            "with `--http`: the Host names (and extra browser Origins) DNS-rebinding protection accepts",
        ),
        Variable(
            "MCP_MAX_CONNECTIONS",
            "with `--http`: the most connections open at once (by default derived from the open-file limit)",
        ),
    ]
    return tuple(found)
