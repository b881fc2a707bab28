"""Names the generated code uses, computed once in Python so templates only print them."""

from __future__ import annotations

import builtins
import keyword
import re
import sys
from typing import Any

IDENTIFIER = re.compile(r"^[a-z][a-z0-9_]*\Z")

RESERVED_FIELD_NAMES = frozenset(
    {"ctx", "params", "self", "cls", "idempotency_key", "copy", "dict", "json", "schema", "validate", "construct"}
    | {"tool", "reference", "retry_after_s", "deadline_s"}
)
"""Input and output field names the generated models or handlers already use."""

RESERVED_FAILURE_FIELD_NAMES = RESERVED_FIELD_NAMES | {"self", "changed", "super"}
"""Failure field names: the keyword arguments of a failure's generated `__init__(self, *, <fields>, changed)`,
which calls `super()`."""

DEFAULT_TOKENS_ENV = "MCP_TOKENS"
"""Where the default verifier finds bearer tokens when `server.auth.tokens_env` does not say."""

RESERVED_FAILURE_NAMES = frozenset({"input", "output", "handler", "tool_context", "tool_failure", "definition"})
"""Failure names whose class names would collide with the per-tool module's own names."""


def import_order(name: str) -> tuple[str | int, ...]:
    """The key ruff's isort sorts imported names by: natural order, so `t2` comes before `t10` (each run of
    digits compares as a number, the text between runs by character, ignoring case)."""
    parts = re.split(r"(\d+)", name)  # text, digits, text, ...: the same kind at the same place in any two names
    return tuple(int(part) if index % 2 else part.lower() for index, part in enumerate(parts))


def pascal(name: str) -> str:
    """`task_missing` -> `TaskMissing`."""
    return "".join(part[:1].upper() + part[1:] for part in name.split("_") if part)


MCP_NAME = re.compile(r"^[A-Za-z0-9_.-]{1,64}\Z")
"""A name MCP clients accept for a tool, prompt, resource or argument: ASCII letters, digits, `_`, `-`, `.`, at
most 64 characters (the conformance suite fails longer)."""


def python_name(name: str) -> str:
    """The Python name of a published name: `resolve-library-id` -> `resolve_library_id`, `libraryName` ->
    `library_name`, `HTTPCode` -> `http_code`, `v1.get` -> `v1_get`."""
    words = re.sub(r"(?<=[a-z0-9])(?=[A-Z])|(?<=[A-Z])(?=[A-Z][a-z])", "_", name)
    return re.sub(r"_+", "_", re.sub(r"[^a-z0-9]+", "_", words.lower())).strip("_")


ALIASED_FIELD_NAMES = RESERVED_FIELD_NAMES - {"idempotency_key", "tool", "reference", "retry_after_s", "deadline_s"}
"""Reserved field names a published field may still have (`schema`, `json`, `params`): its Python attribute
takes a `_` after it (`field_attribute`), and the alias keeps the name as written."""


def _aliased(derived: str) -> bool:
    if derived.startswith("model_"):
        return False  # pydantic's own namespace, with or without a `_` after it
    reserved = derived in ALIASED_FIELD_NAMES or reserved_model_field_name(derived) is not None
    return keyword.iskeyword(derived) or reserved  # a soft keyword (`match`) is an attribute as it is


def field_attribute(name: str) -> str:
    """The Python attribute of a published field (a tool's argument or output field, a prompt's argument, at any
    depth): its Python name, with a `_` after it when that is a keyword or a name the generated models use, so the
    field is published as written (`schema`, `from`, `json`) and the handler reads `params.schema_`."""
    derived = python_name(name)
    return f"{derived}_" if _aliased(derived) else derived


def problem_with_published_name(
    name: str, kind: str, reserved: frozenset[str] = frozenset(), *, aliased: bool = False
) -> tuple[str, str] | None:
    """(code, message) when `name` cannot be published as MCP allows, or its derived Python name cannot be a
    generated identifier, else None. With `aliased` (a published field), a keyword or a name the generated models
    use is taken: its attribute is `field_attribute`'s."""
    if not re.fullmatch(r"[A-Za-z0-9_.-]+", name):
        suggestion = re.sub(r"[^A-Za-z0-9_.-]+", "_", name).strip("_.-")
        hint = f"; try `{suggestion}`" if suggestion and MCP_NAME.match(suggestion) else ""
        return "FW101", (
            f"{kind} name `{name}` may use only ASCII letters, digits, `_`, `-` and `.`, at most 64 characters "
            f"(what MCP clients accept){hint}"
        )
    if len(name) > 64:
        return None  # the schema says so (`maxLength: 64`)
    derived = python_name(name)
    if not IDENTIFIER.match(derived):
        return "FW101", (
            f"{kind} name `{name}` becomes the Python name `{derived or '_'}`, which must start with a letter; "
            "start the name with a letter"
        )
    if aliased and _aliased(derived):
        return None
    if derived == name:
        return problem_with_name(name, kind, reserved)
    problem = problem_with_name(derived, kind, reserved)
    if problem:
        return problem[0], problem[1].replace(f"`{derived}`", f"`{name}` (Python name `{derived}`)", 1)
    return None


def problem_with_name(name: str, kind: str, reserved: frozenset[str] = frozenset()) -> tuple[str, str] | None:
    """(code, message) when `name` cannot be a generated identifier, else None."""
    if not IDENTIFIER.match(name) or "__" in name or name.endswith("_"):
        words = re.sub(r"(?<=[a-z0-9])(?=[A-Z])|(?<=[A-Z])(?=[A-Z][a-z])", "_", name)  # libraryId, HTTPCode
        suggestion = re.sub(r"_+", "_", re.sub(r"[^a-z0-9]+", "_", words.lower())).strip("_")
        hint = f"; try `{suggestion}`" if suggestion and IDENTIFIER.match(suggestion) else ""
        return "FW101", f"{kind} name `{name}` must be snake_case: a lowercase letter, then a-z, 0-9, _{hint}"
    if keyword.iskeyword(name) or keyword.issoftkeyword(name):
        return "FW102", f"{kind} name `{name}` is a Python keyword; pick another name"
    if name in reserved or name.startswith("model_"):
        return "FW103", f"{kind} name `{name}` is reserved by the generated code; pick another name"
    return None


# What each kind of spec name becomes, and so what it must not be (FW150-FW154). tests/test_acceptance.py
# renders projects and holds every name the generated modules bind or read to these lists.

BUILTINS = frozenset(name for name in dir(builtins) if not name.startswith("_"))
"""Python's builtins: a generated module-level name that is one of them shadows it."""

SERVER_NAMES = frozenset(
    {"serve", "required_env", "redis_url_env", "sqlite_path", "build_server", "main"}
    | {"handlers", "deadlines", "store", "chosen", "argv", "verifier"}
)
"""A tool `t` is the module `_generated/tools/t.py` and `handlers/t.py`, and `_generated/server.py` imports
both, as `t` and `t_handler`, next to these names (its imports, functions, parameters and locals; its
constants are upper case, which a tool name cannot be) and the builtins it calls."""

GENERATED_TESTS = frozenset({"http", "stdio", "server"})
"""`tests/generated/test_<t>.py` files every project has: a tool's own `tests/test_<t>.py` may not share a
file name with one (pytest imports test files by their base name)."""

RESERVED_TOOL_NAMES = SERVER_NAMES | GENERATED_TESTS | BUILTINS
"""Tool names that collide with a name of the generated server module, a generated test, or a builtin."""

TOOL_MODULE_NAMES = frozenset(
    {"Awaitable", "Callable", "Annotated", "Any", "Literal", "AliasChoices", "BaseModel", "ConfigDict", "Field"}
    | {"Changed", "Batch", "RateLimit", "ToolContext", "ToolDefinition", "ToolFailure", "Upstream"}
    | {"NAME", "ACCEPTS", "Input", "Output", "Item", "Upstreams", "Context", "Handler", "Reconcile"}
    | {"Audio", "Blocks", "ContentPolicy", "EmbeddedResource", "Image", "ResourceLink", "WithContent", "CONTENT"}
    | {"WithText", "Checks"}
)
"""The names of a per-tool module `_generated/tools/<t>.py` that a failure's class name (`pascal(name)`)
could be: its imports, models, aliases and constants (its nested models, `Input...` and `Output...`, are
checked per tool)."""

READER_MODULE_NAMES = frozenset(
    {"Awaitable", "Callable", "Sequence", "Annotated", "Any", "Literal", "BaseModel", "ConfigDict", "Field"}
    | {"Changed", "ToolContext", "ToolDefinition", "ToolFailure", "ResourceDefinition", "PromptDefinition"}
    | {"PromptArgument", "Message", "Described", "NAME", "URI", "MIME_TYPE", "ARGUMENTS", "PARAMS_SCHEMA", "ACCEPTS"}
    | {"COMPLETIONS", "Params", "Output", "Context", "Handler", "Listing"}
    | {"Audio", "EmbeddedResource", "Image", "ResourceLink"}
)
"""The names of a resource's or prompt's module (`_generated/resources/<r>.py`, `_generated/prompts/<p>.py`)
that a failure's class name could be."""

BASEMODEL_ATTRIBUTES = frozenset(
    {"construct", "copy", "dict", "from_orm", "json", "parse_file", "parse_obj", "parse_raw", "schema"}
    | {"schema_json", "update_forward_refs", "validate", "model_computed_fields", "model_config"}
    | {"model_construct", "model_copy", "model_dump", "model_dump_json", "model_extra", "model_fields"}
    | {"model_fields_set", "model_json_schema", "model_parametrized_name", "model_post_init", "model_rebuild"}
    | {"model_validate", "model_validate_json", "model_validate_strings"}
)
"""The public attributes of pydantic's `BaseModel` (a test holds this to `dir(pydantic.BaseModel)`): the
generated Input and Output models are BaseModels, so a field of that name would shadow one."""

MODEL_BODY_NAMES = frozenset({"str", "int", "float", "bool", "list", "dict"})
"""Builtins the annotations in a generated model's class body read: a field of that name with a default
would rebind it for the fields after it."""

RESERVED_MODEL_FIELD_NAMES = BASEMODEL_ATTRIBUTES | MODEL_BODY_NAMES
"""Input and output field names a generated pydantic model cannot have."""

DEPENDENCY_IMPORTS = frozenset(
    {"mcp", "mcp_types", "pydantic", "pydantic_core", "anyio", "httpx", "httpx2", "starlette", "uvicorn"}
    | {"redis", "sse_starlette", "jsonschema", "typing_extensions", "typing_inspection", "annotated_types"}
    | {"jwt", "multipart", "python_multipart", "opentelemetry", "sniffio", "idna", "h11", "httpcore", "certifi"}
    | {"pytest", "_pytest", "pluggy", "iniconfig", "packaging", "mypy", "ruff", "hatchling"}
)
"""What the generated project imports, and what its dependencies (mcp's own) and test tools import (a test
holds the template's imports and mcp's requirements to this)."""

RESERVED_PACKAGE_NAMES = frozenset(sys.stdlib_module_names) | DEPENDENCY_IMPORTS
"""Package names that would shadow a standard library module or a dependency on `sys.path`."""


def reserved_tool_name(name: str) -> str | None:
    """Why a tool name collides with a generated name, or None."""
    if name in BUILTINS:
        return f"`{name}` is a Python builtin, which the generated server module would shadow"
    if name in GENERATED_TESTS:
        return f"its tests would be tests/test_{name}.py, the name of the generated tests/generated/test_{name}.py"
    if name in SERVER_NAMES:
        return f"`_generated/server.py` imports each tool module by its name, and already uses `{name}`"
    return None


def reserved_class_name(name: str, module: frozenset[str] = TOOL_MODULE_NAMES, kind: str = "tool") -> str | None:
    """Why a failure's class name collides with a name of its tool's (resource's, prompt's) module, or None."""
    if keyword.iskeyword(name):
        return f"{name} is a Python keyword"
    if name in BUILTINS:
        return f"{name} is a Python builtin, which the {kind} module would shadow"
    if name in module:
        return f"the {kind} module already defines or imports {name}"
    return None


def reserved_model_field_name(name: str) -> str | None:
    """Why an input or output field name cannot be an attribute of a generated pydantic model, or None."""
    if name in BASEMODEL_ATTRIBUTES:
        return f"`{name}` is an attribute of pydantic's BaseModel, which the generated models derive from"
    if name in MODEL_BODY_NAMES:
        return f"`{name}` is a type the generated model's annotations use"
    return None


def reserved_package_name(name: str) -> str | None:
    """Why a package name would shadow a module the generated project imports, or None."""
    if name in sys.stdlib_module_names:
        return f"`{name}` is a Python standard library module, which the package would shadow"
    if name in DEPENDENCY_IMPORTS:
        return f"`{name}` is what the generated project (or a dependency of it) imports"
    return None


def setting_flag(name: str, spec: dict[str, Any]) -> str:
    """A setting's flag: its `flag`, else `--<name-with-dashes>` (`--no-<name-with-dashes>` for an inverted boolean,
    `flag_value: false`); a positional setting has one only when its `flag` is written (empty otherwise)."""
    if "positional" in spec and not spec.get("flag"):
        return ""
    dashed = name.replace("_", "-")
    return str(spec.get("flag") or ("--no-" + dashed if spec.get("flag_value") is False else "--" + dashed))


def setting_env(server: str, name: str, spec: dict[str, Any]) -> str:
    """A setting's environment variable: its `env`, else `<SERVER>_<NAME>` upper-cased."""
    return str(spec.get("env") or f"{server}_{name}".upper().replace("-", "_"))
