"""Acceptance means it works: a spec `failwell validate` accepts generates a project that imports, passes its
own tests, ruff and mypy --strict; what could not is refused at FILE:LINE:COL (FW150-FW159)."""

from __future__ import annotations

import ast
import importlib.metadata
import os
import re
import subprocess
import sys
import textwrap
from pathlib import Path

import pydantic
import pytest

from conftest import REPO
from failwell.render.model import Project, build
from failwell.render.pipeline import diagnose
from failwell.render.render import render
from failwell.spec import naming
from failwell.spec.lint import _PEP440

BASE = """\
failwell: 1
server:
  name: shop
  version: 0.1.0
  description: A shop.
tools:
  orders_get:
    description: Read one order.
    effect: read
    input:
      order_id: {type: string, example: O-1}
    failures:
      order_missing:
        class: not_found
        message: "No order {order_id}. Call orders_get with another id."
"""


def spec(*, server: str = "", tools: str = "", inputs: str = "", failures: str = "") -> str:
    """BASE with lines added under `server:`, `tools:`, orders_get's `input:` and its `failures:`."""
    text = BASE
    if server:
        text = text.replace("  description: A shop.\n", "  description: A shop.\n" + server)
    if inputs:
        text = text.replace(
            "      order_id: {type: string, example: O-1}\n", "      order_id: {type: string, example: O-1}\n" + inputs
        )
    if failures:
        text += failures
    if tools:
        text += tools
    return text


def found(text: str) -> list[str]:
    """Every diagnostic, as `FILE:LINE:COL: CODE ...` lines."""
    return [str(d) for d in diagnose(text, "spec.yaml") if d.severity == "error"]


def resource(name: str, kind: str = "string", example: str = "a") -> str:
    """BASE with a resource whose one param is `name`: a field that is not published, so named as its attribute
    (a tool's argument so named is published as written, its attribute `name_`: tests/test_published_as_written.py)."""
    return (
        f'{BASE}resources:\n  thing:\n    uri: "shop://things/{{{name}}}"\n    description: One thing.\n'
        f"    params:\n      {name}: {{type: {kind}, example: {example}}}\n"
    )


def tool(name: str) -> str:
    return f"  {name}:\n    description: Another tool.\n    effect: read\n"


def test_the_base_spec_is_clean() -> None:
    assert found(BASE) == []


FAILURE = "      {name}:\n        class: conflict\n        message: No.\n"


# (a) each new code, where it points --------------------------------------------------------------

LINTS = [
    ("FW150", spec(tools=tool("serve")), "spec.yaml:16:3", "`_generated/server.py` imports each tool module"),
    ("FW150", spec(tools=tool("main")), "spec.yaml:16:3", "already uses `main`"),
    ("FW150", spec(tools=tool("http")), "spec.yaml:16:3", "tests/generated/test_http.py"),
    ("FW150", spec(tools=tool("dict")), "spec.yaml:16:3", "Python builtin"),
    (
        "FW151",
        spec(failures="      context:\n        class: conflict\n        message: No.\n"),
        "spec.yaml:16:7",
        "class Context",
    ),
    (
        "FW151",
        spec(failures="      none:\n        class: conflict\n        message: No.\n"),
        "spec.yaml:16:7",
        "keyword",
    ),
    ("FW152", resource("parse_obj"), "spec.yaml:21:7", "BaseModel"),
    ("FW152", resource("str"), "spec.yaml:21:7", "annotations use"),
    ("FW153", spec(server="  package: json\n"), "spec.yaml:6:12", "standard library"),
    ("FW153", spec(server="  package: anyio\n"), "spec.yaml:6:12", "imports"),
    (
        "FW154",
        spec(tools=tool("x") + tool("x_handler")),
        "spec.yaml:19:3",
        "spec.yaml:16:3 both become the name `x_handler`",
    ),
    ("FW154", spec(tools=tool("x") + tool("x_errors")), "spec.yaml:19:3", "test_x_errors.py"),
    (
        "FW154",
        spec(failures=FAILURE.format(name="x1") + FAILURE.format(name="x_1")),
        "spec.yaml:19:7",
        "spec.yaml:16:7 both become the class X1",
    ),
    (
        "FW154",
        spec(
            inputs="      tag: {type: array, items: {type: object, properties: {a: {type: string}}}, required: false}\n"
            "      tag_item: {type: object, properties: {b: {type: string}}, required: false}\n"
        ),
        "spec.yaml:13:7",
        "spec.yaml:12:26 both become the model class InputTagItem",
    ),
    (
        "FW155",
        spec(inputs="      n: {type: number, exclusiveMinimum: 1, exclusiveMaximum: 1}\n"),
        "spec.yaml:12:43",
        "no value",
    ),
    ("FW155", spec(inputs="      n: {type: number, minimum: 2, exclusiveMaximum: 2}\n"), "spec.yaml:12:34", "no value"),
    ("FW156", spec(inputs="      n: {type: integer, minimum: 0.5, maximum: 0.7}\n"), "spec.yaml:12:35", "no integer"),
    ("FW157", spec(inputs="      s: {type: string, pattern: ^a$, minLength: 5}\n"), "spec.yaml:12:34", "length limits"),
    ("FW158", BASE[: BASE.index("tools:")] + "tools: {}\n", "spec.yaml:6:1", "no tools"),
    ("FW159", spec().replace("version: 0.1.0", "version: 1.0foo"), "spec.yaml:4:12", "PEP 440"),
    (
        "FW103",
        spec(failures="      x:\n        class: conflict\n        fields: [changed]\n        message: '{changed}'\n"),
        "spec.yaml:18:17",
        "reserved",
    ),
]


@pytest.mark.parametrize(("code", "text", "where", "words"), LINTS, ids=[f"{c}-{i}" for i, (c, *_) in enumerate(LINTS)])
def test_each_new_code_points_at_its_place(code: str, text: str, where: str, words: str) -> None:
    lines = found(text)
    assert any(line.startswith(f"{where}: {code} ") and words in line for line in lines), lines


@pytest.mark.parametrize(
    "text",
    [
        spec(tools=tool("servers") + tool("main_menu") + tool("https") + tool("dicts")),
        spec(failures="      contexts:\n        class: conflict\n        message: No.\n"),
        spec(inputs="      parse: {type: string, example: a}\n      string: {type: string, default: a}\n"),
        spec(inputs="      id: {type: string, example: a}\n      type: {type: string, example: a}\n"),
        spec(server="  package: json_tools\n"),
        spec(inputs="      n: {type: number, exclusiveMinimum: 1, maximum: 1.5}\n"),
        spec(inputs="      n: {type: integer, minimum: 0.5, maximum: 1}\n"),
        spec(inputs="      s: {type: string, pattern: ^a+$, minLength: 5, example: aaaaa}\n"),
        spec().replace("version: 0.1.0", "version: 1.0.post2.dev3+local.7"),
    ],
)
def test_names_and_constraints_close_to_refused_ones_are_accepted(text: str) -> None:
    assert found(text) == []


def test_the_version_pattern_agrees_with_packaging() -> None:
    from packaging.version import InvalidVersion, Version

    for version in ["1", "1.0", "v1.0", "1!2.0", "1.0a1", "1.0-rc.2", "1.0.post1", "1.0-1", "1.0.dev0", "1.0+abc.1",
                    "1.0foo", "1.0+", "1..0", "a1", "1.0-", "1.0+a..b", "1.0 ", "", "1.0rc1.post2.dev3"]:  # fmt: skip
        try:
            Version(version)
            valid = version == version.strip()
        except InvalidVersion:
            valid = False
        assert bool(_PEP440.fullmatch(version)) == valid, version


# (c) the measured specs that were accepted and generated a broken project ---------------------------


REFUSED = {
    **{f"tool {name}": spec(tools=tool(name)) for name in ("build_server", "main", "serve", "server", "http", "stdio")},
    "tools x and x_handler": spec(tools=tool("x") + tool("x_handler")),
    **{
        f"failure {name}": spec(failures=f"      {name}:\n        class: conflict\n        message: No.\n")
        for name in ("callable", "context", "any", "base_model", "tool_definition")
    },
    "failures x1 and x_1": spec(failures=FAILURE.format(name="x1") + FAILURE.format(name="x_1")),
    "inputs tag and tag_item": spec(
        inputs="      tag: {type: array, items: {type: object, properties: {a: {type: string}}}, required: false}\n"
        "      tag_item: {type: object, properties: {b: {type: string}}, required: false}\n"
    ),
    "param str": resource("str"),
    "param int": resource("int", "integer", "1"),
    "param parse_obj": resource("parse_obj"),
    "param schema_json": resource("schema_json"),
    **{
        f"package {name}": spec(server=f"  package: {name}\n")
        for name in ("json", "mcp", "pydantic", "typing", "anyio")
    },
    "version 1.0foo": spec().replace("version: 0.1.0", "version: 1.0foo"),
    "exclusiveMinimum == exclusiveMaximum": spec(
        inputs="      n: {type: number, exclusiveMinimum: 3, exclusiveMaximum: 3}\n"
    ),
    "integer between 0.5 and 0.7": spec(inputs="      n: {type: integer, minimum: 0.5, maximum: 0.7}\n"),
    "pattern ^a$ with minLength 5": spec(inputs="      s: {type: string, pattern: ^a$, minLength: 5}\n"),
    "tools: {}": BASE[: BASE.index("tools:")] + "tools: {}\n",
    "failure field changed": spec(
        failures="      x:\n        class: conflict\n        fields: [changed]\n        message: '{changed}'\n"
    ),
}


@pytest.mark.parametrize("text", list(REFUSED.values()), ids=list(REFUSED))
def test_what_generated_a_broken_project_is_refused(text: str) -> None:
    assert found(text), "accepted, though the project generated from it does not work"


# The lists hold what the generated code binds and imports ---------------------------------------------


def test_basemodel_attributes_are_pydantics() -> None:
    assert {name for name in dir(pydantic.BaseModel) if not name.startswith("_")} == naming.BASEMODEL_ATTRIBUTES


def _imports(source: str) -> set[str]:
    return set(re.findall(r"^\s*(?:from|import) +([A-Za-z_][A-Za-z0-9_]*)", source, re.MULTILINE))


def test_every_import_of_the_template_and_of_mcp_is_a_reserved_package_name() -> None:
    sources = [
        path.read_text(encoding="utf-8")
        for path in (REPO / "template").rglob("*")
        if path.is_file() and "__pycache__" not in path.parts  # bytecode of the runtime the generator imports
    ]
    imported = set().union(*map(_imports, sources)) - {"__future__"}
    assert imported - naming.RESERVED_PACKAGE_NAMES == set()
    top_level = importlib.metadata.packages_distributions()
    names = {
        re.split(r"[ ;<>=!\[~]", requirement)[0].lower().replace("-", "_")
        for requirement in importlib.metadata.requires("mcp") or []
        if "extra ==" not in requirement
    }
    needed = {module for module, dists in top_level.items() if {d.lower().replace("-", "_") for d in dists} & names}
    needed = {module for module in needed if module.isidentifier() and not module.startswith("_")} - {
        "win32",
        "pywin32",
    }
    assert needed - naming.RESERVED_PACKAGE_NAMES == set()


RICH = [REPO / "examples" / name / "failwell.yaml" for name in ("tasks", "refunds", "records", "weather")]


def _rendered(path: Path) -> tuple[dict[str, str], Project]:
    rendered = render(path)
    return {name: content.decode() for name, content in rendered.files.items()}, rendered.project


def _names(tree: ast.AST) -> set[str]:
    """Every name a module binds or reads, anywhere in it."""
    out: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Name):
            out.add(node.id)
        elif isinstance(node, ast.alias):
            out.add((node.asname or node.name).split(".")[0])
        elif isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            out.add(node.name)
        elif isinstance(node, ast.arg):
            out.add(node.arg)
    return out


@pytest.mark.parametrize("path", RICH, ids=lambda p: p.parent.name)
def test_reserved_names_cover_what_the_generated_modules_use(path: Path) -> None:
    files, project = _rendered(path)
    tools = [t.name for t in project.tools]
    package = project.package
    server = _names(ast.parse(files[f"src/{package}/_generated/server.py"]))
    readers = [f"{r.name}_{r.kind}" for r in (*project.resources, *project.prompts)]
    own = {*tools, *(f"{t}_handler" for t in tools), *readers, *(f"{r}_handler" for r in readers)}
    snake = {n for n in server if naming.IDENTIFIER.match(n)} - own
    assert snake - naming.RESERVED_TOOL_NAMES == set()
    for tool_name, tool_model in zip(tools, project.tools, strict=True):
        module = ast.parse(files[f"src/{package}/_generated/tools/{tool_name}.py"])
        pascal = {n for n in _names(module) if re.fullmatch(r"[A-Z][A-Za-z0-9]*", n)}
        own = {f.class_name for f in tool_model.failures} | {
            m.name for m in (*tool_model.input_models, *tool_model.output_models)
        }
        assert pascal - own - naming.TOOL_MODULE_NAMES - naming.BUILTINS == set(), tool_name
        for node in ast.walk(module):
            if isinstance(node, ast.ClassDef) and any(
                isinstance(b, ast.Name) and b.id == "BaseModel" for b in node.bases
            ):
                read = {n.id for n in ast.walk(node) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load)} - {
                    "BaseModel",
                    "ConfigDict",
                }
                snake_read = {n for n in read if naming.IDENTIFIER.match(n)}
                assert snake_read - naming.MODEL_BODY_NAMES == set(), (tool_name, node.name)
    for reader in (*project.resources, *project.prompts):
        module = ast.parse(files[f"src/{package}/_generated/{reader.kind}s/{reader.name}.py"])
        pascal = {n for n in _names(module) if re.fullmatch(r"[A-Z][A-Za-z0-9]*", n)}
        own = {f.class_name for f in reader.failures} | {m.name for m in reader.models}
        assert pascal - own - naming.READER_MODULE_NAMES - naming.BUILTINS == set(), reader.name
    tests = {Path(p).stem for p in files if p.startswith("tests/generated/") and not p.endswith("_errors.py")}
    assert {t.removeprefix("test_") for t in tests if t.startswith("test_")} <= naming.GENERATED_TESTS | {"__init__"}


# (b) one spec holding every tricky case that is accepted, built and checked -------------------------

TRICKY = r"""failwell: 1
server:
  name: odd
  package: odd_json
  version: 1.0.0rc1
  description: "Ends in quotes \"\"\" and a backslash \\ with \x85 NEL, \x9f APC,
    \u2028 LS, \u200b ZWSP, \ufeff BOM, é 漢 😀 {braces} \"\"\""
tools:
  servers:
    description: "\"Starts with a quote, holds '''triple singles''' and \"\"\"triple doubles\"\"\",
      ends with a backslash \\"
    effect: read
    input:
      id: {type: string, description: "tab\tand {{reference}}", example: "quote \" and apostrophe ' and \\ \x85"}
      type: {type: string, enum: ["a\"b", "c'd", "{x}"], default: "{x}"}
      big: {type: integer, minimum: -9007199254740991, maximum: 9007199254740991, default: 9007199254740991}
      tiny: {type: number, exclusiveMinimum: 0, exclusiveMaximum: 1.0e-300}
      huge: {type: number, minimum: 1.0e300, required: false}
      third: {type: number, minimum: 0.1, maximum: 0.30000000000000004, default: 0.30000000000000004}
      count: {type: integer, minimum: 0.5, maximum: 1.5}
      code: {type: string, pattern: "^[a-z]+$", minLength: 3, maxLength: 8}
      parse: {type: string, required: false}
      strings: {type: array, items: {type: string}, required: false}
    output:
      schema_name: {type: string}
    failures:
      contexts:
        class: not_found
        fields: [detail]
        message: "No {id} (literal {{reference}} and {{id}}); detail: {detail}. Ends with a backslash \\"
      quote_end:
        class: conflict
        message: "It says \"\"\""
  main_menu:
    description: "Line one\u2028line two\u2029line three \x85 and \x9f"
    effect: read
"""


@pytest.mark.slow
def test_a_spec_of_every_tricky_accepted_case_builds_a_project_that_passes_its_checks(tmp_path: Path) -> None:
    spec_path = tmp_path / "failwell.yaml"
    spec_path.write_text(TRICKY, encoding="utf-8")
    assert found(TRICKY) == []
    dest = tmp_path / "odd"
    created = subprocess.run(
        [str(Path(sys.executable).parent / "failwell"), "new", str(dest), "--spec", str(spec_path)],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert created.returncode == 0, created.stdout + created.stderr
    env = {**os.environ, "MYPYPATH": "src", "PYTHONPATH": "src"}
    for command in (
        ["ruff", "check", "--no-cache", "."],
        ["ruff", "format", "--check", "--no-cache", "."],
        ["mypy", "--no-incremental", "--cache-dir", os.devnull, "."],
        ["pytest", "-q", "-p", "no:cacheprovider"],
    ):
        result = subprocess.run(
            [sys.executable, "-m", *command], cwd=dest, env=env, capture_output=True, text=True, timeout=600
        )
        assert result.returncode == 0, (command, result.stdout[-4000:], result.stderr[-2000:])
    # the texts reach the code unchanged
    sys.path.insert(0, str(dest / "src"))
    try:
        import odd_json._generated.server as server

        assert build(load_yaml(TRICKY), TRICKY).description == server.INSTRUCTIONS
    finally:
        sys.path.remove(str(dest / "src"))
        for name in [m for m in sys.modules if m == "odd_json" or m.startswith("odd_json.")]:
            del sys.modules[name]


def load_yaml(text: str) -> dict[str, object]:
    from failwell.spec.load import load_text

    return load_text(textwrap.dedent(text), "failwell.yaml").data
