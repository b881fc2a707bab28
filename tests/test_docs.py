"""The documentation site cannot rot: it builds with `mkdocs build --strict` (broken links and anchors fail), its
generated pages cover every key of the spec's schema and every diagnostic code, and every block in it is run or
checked: whole specs validate, Python compiles, JSON parses, each `failwell` command line names a real command
and real options, each Mermaid diagram is well formed; the tutorial runs as written."""

from __future__ import annotations

import ast
import importlib.util
import json
import os
import re
import shlex
import subprocess
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest
import typer

from conftest import BIN, REPO
from failwell import cli
from failwell.build.pipeline import diagnose
from failwell.spec.codes import CODES

DOCS = REPO / "docs"
PAGES = sorted(DOCS.rglob("*.md"))
BLOCK = re.compile(r"^(?P<indent>[ \t]*)```(?P<lang>[a-z]*)[^\n]*\n(?P<body>.*?)^(?P=indent)```", re.S | re.M)


def hooks() -> ModuleType:
    spec = importlib.util.spec_from_file_location("failwell_docs_hooks", DOCS / "hooks.py")
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def blocks(lang: str, pages: list[Path] = PAGES) -> list[tuple[Path, str]]:
    found = []
    for page in pages:
        for match in BLOCK.finditer(page.read_text(encoding="utf-8")):
            if match.group("lang") == lang:
                body = "\n".join(line[len(match.group("indent")) :] for line in match.group("body").splitlines())
                found.append((page, body))
    return found


@pytest.mark.slow
def test_the_site_builds_strict(tmp_path: Path) -> None:
    built = subprocess.run(
        [str(BIN / "mkdocs"), "build", "--strict", "--site-dir", str(tmp_path / "site")],
        cwd=REPO,
        capture_output=True,
        text=True,
        timeout=300,
        env={**os.environ, "NO_MKDOCS_2_WARNING": "1"},
    )
    assert built.returncode == 0, built.stdout + built.stderr
    reference = (tmp_path / "site" / "reference" / "spec" / "index.html").read_text()
    assert "client_timeout_s" in reference and "idempotency_reason" in reference
    assert "FW180" in (tmp_path / "site" / "reference" / "diagnostics" / "index.html").read_text()


def test_every_page_is_in_the_navigation() -> None:
    nav = (REPO / "mkdocs.yml").read_text()
    for page in PAGES:
        assert page.relative_to(DOCS).as_posix() in nav, f"{page} is not in mkdocs.yml's nav"


def test_every_schema_key_has_a_description_and_an_example() -> None:
    docs = hooks()
    values = docs.examples()
    undocumented, no_example = [], []
    for section, node in docs.objects().items():
        for key, child in node["properties"].items():
            where = f"{section}.{key}" if section else key
            if not child.get("description") and "$ref" not in child:
                undocumented.append(where)
            if docs.example_of(section, key, child, values) is None:
                no_example.append(where)
    assert undocumented == [], f"keys of spec.schema.json with no description: {undocumented}"
    assert no_example == [], f"keys with no example in the schema or in any example spec: {no_example}"


def test_the_spec_reference_names_every_key() -> None:
    docs = hooks()
    page = docs.spec_reference()
    for node in docs.objects().values():
        for key in node["properties"]:
            assert f"| `{key}`" in page, key


def test_every_code_used_is_registered_and_every_registered_code_is_used() -> None:
    source = "".join(p.read_text() for p in (REPO / "generator" / "failwell").rglob("*.py") if p.name != "codes.py")
    used = set(re.findall(r"\bFW\d{3}\b", source))
    assert sorted(used - set(CODES)) == [], "codes used in the source with no line in failwell/codes.py"
    assert sorted(set(CODES) - used) == [], "codes in failwell/codes.py the source never emits"


def test_every_code_has_a_row_and_its_severity() -> None:
    table = hooks().diagnostics()
    for code, (severity, meaning) in CODES.items():
        assert f"| {code} | {severity} | " in table and meaning.strip()
    source = "".join(p.read_text() for p in (REPO / "generator" / "failwell").rglob("*.py"))
    warned = set(re.findall(r'"(FW\d{3})", [^\n]*warning=True', source))
    assert warned <= {code for code, (severity, _) in CODES.items() if severity == "warning"}
    assert all(severity == "warning" for code, (severity, _) in CODES.items() if code.startswith("FW2"))


@pytest.mark.parametrize(("page", "body"), blocks("yaml"), ids=lambda v: v.name if isinstance(v, Path) else "")
def test_whole_specs_in_the_docs_validate(page: Path, body: str) -> None:
    if not body.lstrip().startswith(("failwell: 1", "# yaml-language-server")):
        yaml_loads = __import__("yaml").safe_load(body)  # a fragment: it must at least be YAML
        assert yaml_loads is not None
        return
    errors = [str(d) for d in diagnose(body, page.name) if d.severity == "error"]
    assert errors == [], f"{page.relative_to(REPO)}: {errors}"


@pytest.mark.parametrize(("page", "body"), blocks("python"), ids=lambda v: v.name if isinstance(v, Path) else "")
def test_python_in_the_docs_compiles(page: Path, body: str) -> None:
    ast.parse(body, filename=str(page))


@pytest.mark.parametrize(("page", "body"), blocks("json"), ids=lambda v: v.name if isinstance(v, Path) else "")
def test_json_in_the_docs_parses(page: Path, body: str) -> None:
    try:
        json.loads(body)
    except ValueError:
        json.loads("{" + body + "}")  # a member shown on its own: `"key": {...}`


def _failwell_lines(body: str) -> list[list[str]]:
    out = []
    for line in body.splitlines():
        if line.lstrip().startswith("#"):
            continue
        for part in re.split(r"\s*(?:&&|;)\s*", line.split("  #", 1)[0].strip()):
            words = shlex.split(part) if part.startswith(("failwell ", ".venv/bin/failwell ")) else []
            if words:
                out.append(words[1:])
    return out


def shell_blocks() -> list[tuple[Path, str]]:
    """Every shell block of the site and of the README: `sh` and `bash` as written; of a `console` block, its
    `$ ` lines (the rest is what they print)."""
    found = [(page, body) for lang in ("sh", "bash") for page, body in blocks(lang, [*PAGES, REPO / "README.md"])]
    for page, body in blocks("console"):
        commands = [line[2:] for line in body.splitlines() if line.startswith("$ ")]
        assert commands, f"{page.relative_to(REPO)}: a console block with no `$ ` command"
        found.append((page, "\n".join(commands)))
    return found


FAILWELL_COMMANDS = [
    (page, words) for page, body in shell_blocks() for words in _failwell_lines(body) if words and words[0] != "-h"
]


@pytest.mark.parametrize(("page", "body"), shell_blocks(), ids=lambda v: v.name if isinstance(v, Path) else "")
def test_shell_blocks_are_valid_shell(page: Path, body: str) -> None:
    """bash reads each block without running it (`bash -n`): no unclosed quote, no stray operator."""
    checked = subprocess.run(["bash", "-n"], input=body, capture_output=True, text=True, timeout=30)
    assert checked.returncode == 0, f"{page.relative_to(REPO)}: {checked.stderr}"


@pytest.mark.parametrize(("page", "words"), FAILWELL_COMMANDS, ids=lambda v: " ".join(v) if isinstance(v, list) else "")
def test_each_failwell_command_in_the_docs_is_a_real_one(page: Path, words: list[str]) -> None:
    """The command exists and its options parse (`[--diff]`-style optional parts are read as written)."""
    group = typer.main.get_command(cli.app)
    assert hasattr(group, "get_command")
    words = [w.strip("[]") for w in words if w not in ("...", "|")]
    if words[0].startswith("--"):
        assert words[0] in ("--version", "--help")
        return
    command: Any = group
    while hasattr(command, "get_command") and words:  # `failwell import openapi ...`: down to the command
        name, words = words[0], words[1:]
        found = command.get_command(command.context_class(command), name)
        assert found is not None, f"{page.relative_to(REPO)}: no command `{name}` in `failwell ... {name}`"
        command = found
    placeholders = [w for w in words if re.fullmatch(r"[A-Z][A-Z_]*(=[A-Z.]+)?|DEST|DIR|URI|NAME|TOOL", w)]
    args = [w for w in words if w not in placeholders and "|" not in w]
    if "-h" in args or "--help" in args:
        return
    command.make_context(command.name or "", args, resilient_parsing=False)


MERMAID_LINE = re.compile(
    r"^(flowchart (LR|TD|TB|RL|BT)|graph (LR|TD|TB|RL|BT)|subgraph \w+( \[[^\]]+\])?|end|direction (LR|TD)"
    r"|\w+(\[[^\]\n]+\]|\{[^}\n]+\}|\([^)\n]+\))?"
    r"(\s*(--+>|-- .+? -->|-->\|[^|]+\|)\s*\w+(\[[^\]\n]+\]|\{[^}\n]+\})?)*)$"
)


@pytest.mark.parametrize(("page", "body"), blocks("mermaid"), ids=lambda v: v.name if isinstance(v, Path) else "")
def test_mermaid_diagrams_are_well_formed(page: Path, body: str) -> None:
    lines = [line.strip() for line in body.splitlines() if line.strip()]
    assert lines and re.match(r"^(flowchart|graph) ", lines[0])
    bad = [line for line in lines if not MERMAID_LINE.match(line)]
    assert bad == [], f"{page.relative_to(REPO)}: lines Mermaid's flowchart grammar does not read: {bad}"
    opened = sum(line.startswith("subgraph ") for line in lines)
    assert opened == sum(line == "end" for line in lines), "every subgraph is closed"


def test_the_readme_links_into_the_site() -> None:
    readme = (REPO / "README.md").read_text()
    links = re.findall(r"\]\((docs/[^)#]+)", readme)
    assert len(links) >= 5
    for link in links:
        assert (REPO / link).is_file(), link
