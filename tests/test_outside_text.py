"""Outside text is data (issue 39.1, DESIGN rule 19): hostile text from each front end that writes a project (a
spec, an OpenAPI document through `failwell import openapi`, a server's tools/list through `failwell audit
--write-spec`) is either refused cleanly (exit 1, no traceback) or rendered as data. The property: every generated
module has the same AST as the project made with plain text at the same positions (string constants blanked, the
digest of a name cut to 64 characters too), every file the project parses (TOML, YAML, JSON) has the same shape,
and (slow) importing every generated module and running the generated tests leaves no marker file, though the text
tries to write one.

The fast part renders in process (a few payloads per front end); the slow part takes every payload, text made up
by Hypothesis from the hostile pieces, a real hostile server over stdio, and runs the generated projects."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import tempfile
import tomllib
from pathlib import Path
from typing import Any

import pytest
import yaml
from hypothesis import HealthCheck, Phase, example, given, settings
from hypothesis import strategies as st
from outside_text import (
    ATOMS,
    MARKDOWN_PAYLOADS,
    MARKER,
    PAYLOADS,
    accepting,
    markdown_shape,
    openapi_with,
    plain,
    shape,
    spec_text,
    top_level,
)
from outside_text import with_text as spec_with
from typer.testing import CliRunner

from conftest import EXAMPLES, GOLDEN, REPO
from failwell.audit.draft import draft
from failwell.audit.findings import Report
from failwell.cli import app
from failwell.errors import INTERNAL_ERROR
from failwell.spec.load import load_text

SPECS = {
    "tasks": EXAMPLES / "tasks" / "failwell.yaml",  # auth, messages, resources, prompts, tasks, titles
    "records": EXAMPLES / "records" / "failwell.yaml",  # batches
    "git_port": GOLDEN / "git_port" / "failwell.yaml",  # settings, dependencies
    "fixtures": REPO / "tests" / "conformance" / "fixtures" / "failwell.yaml",  # asks, confirm, content
    "asking": REPO / "tests" / "asking" / "failwell.yaml",  # forms, confirm, scopes
    "starter": REPO / "generator" / "failwell" / "starter.yaml",  # text
}
TREES = {name: load_text(path.read_text(encoding="utf-8"), name).data for name, path in SPECS.items()}
PARSED = (".toml", ".yaml", ".yml", ".json")
"""Files the generated project (or its tools) parse: their shape is compared too."""

Files = dict[str, bytes]


# What a project is made of, and the comparison ------------------------------------------------------------------


def project_files(root: Path) -> Files:
    """Every file failwell wrote that holds text from outside: the generated Python (not the vendored runtime,
    which is copied as it is), the files the project parses, and the README (its Markdown structure)."""
    out = {}
    for path in sorted(root.rglob("*")):
        relative = path.relative_to(root).as_posix()
        skipped = "/_generated/runtime/" in relative or "__pycache__" in relative or "manifest" in path.name
        if path.is_file() and (path.suffix in (".py", *PARSED) or relative == "README.md") and not skipped:
            out[relative] = path.read_bytes()
    return out


DIGEST = re.compile(rb"(?<=[a-z0-9])_[0-9a-f]{6}(?![A-Za-z0-9])")
"""The digest a front end puts at the end of a name it cut to 64 characters (a tool's, a field's)."""


def positional(files: Files) -> dict[str, list[bytes]]:
    """`files` with the digest of each cut name made `_digest`, in paths and text, grouped by path: a name a front
    end derives from text ends in a digest of the whole text when cut, which differs between the twins (so two
    tools may share a path here); what is done with them may not."""
    out: dict[str, list[bytes]] = {}
    for path, content in files.items():
        out.setdefault(DIGEST.sub(b"_digest", path.encode()).decode(), []).append(DIGEST.sub(b"_digest", content))
    return out


def _blank(value: Any) -> Any:
    """A parsed file's shape: its structure and value types, every string blank. A key is blank too (its place is
    kept): a key may be outside text as well, as a `schema:` field's own keywords are data published as written."""
    if isinstance(value, dict):
        return [("", _blank(v)) for v in value.values()]
    if isinstance(value, list):
        return [_blank(v) for v in value]
    return "" if isinstance(value, str) else value


def parsed_shape(content: bytes, name: str) -> Any:
    text = content.decode("utf-8")
    if name.endswith(".toml"):
        return _blank(tomllib.loads(text))
    if name.endswith(".json"):
        return _blank(json.loads(text))
    return _blank(yaml.safe_load(text))


def _shape(content: bytes, name: str, ordered: bool) -> Any:
    if name.endswith(".md"):
        return markdown_shape(content)
    if not name.endswith(".py"):
        return parsed_shape(content, name)
    try:
        return shape(content, name, ordered)
    except SyntaxError as error:
        raise AssertionError(f"{name} does not parse: {error}") from None


def assert_same_shape(hostile: Files, twin: Files, what: str) -> None:
    """Every generated file of the hostile project has the shape of the plain twin's."""
    theirs, ours = positional(hostile), positional(twin)
    assert set(theirs) <= set(ours), (what, sorted(set(theirs) - set(ours)))
    assert any(name.endswith(".py") for name in theirs), what
    for name, contents in theirs.items():
        shapes = [[_shape(content, name, ordered) for content in group] for group in (contents, ours[name])
                  for ordered in (False, True)]  # fmt: skip
        if shapes[0] == shapes[2] or sorted(map(str, shapes[1])) == sorted(map(str, shapes[3])):
            continue
        first, second = str(shapes[1][0]), str(shapes[3][0])
        at = next((i for i, (a, b) in enumerate(zip(first, second, strict=False)) if a != b), 0)
        shown = (top_level(contents[0], name) if name.endswith(".py") else "", first[at - 150 : at + 150])
        raise AssertionError(f"{what}: {name} is not shaped as with plain text, near {shown}")


LINE = re.compile(r"(failwell: |  |\S+:\d+:\d+: FW\d{3} |\S+\.json: ).*")
"""What the CLI prints: its own lines, next steps (indented), a spec's diagnostics, the imported document's findings."""


def cli(*args: str) -> tuple[int, str]:
    """The CLI in this process: exit 0, or 1 with its reason; never a traceback, every line one of its own (outside
    text never starts a line, nor holds a character that does not print)."""
    result = CliRunner().invoke(app, list(args))
    assert result.exception is None or isinstance(result.exception, SystemExit), result.exc_info
    assert "Traceback" not in result.output and INTERNAL_ERROR not in result.output, result.output
    assert result.exit_code in (0, 1), result.output
    for line in result.output.split("\n"):
        assert not line or (LINE.fullmatch(line) and line.isprintable()), (line, result.output)
    return result.exit_code, result.output


# (a) a spec -------------------------------------------------------------------------------------------------------


def spec_projects(source: str, text: str, folder: Path) -> tuple[Files, Files] | None:
    """The project of `source` with `text` at every position that takes it, and its plain twin's (None when no
    position takes it: the reader refuses it everywhere, as each spec's checks say)."""
    tree = TREES[source]
    chosen = accepting(tree, [text, plain(text)])
    if not chosen:
        return None
    out = []
    for label, words in (("hostile", text), ("plain", plain(text))):
        spec = folder / f"{label}.yaml"
        spec.write_text(spec_text(spec_with(tree, chosen, words)), encoding="utf-8")
        code, output = cli("new", str(folder / label), "--spec", str(spec))
        assert code == 0, output
        out.append(project_files(folder / label))
    return out[0], out[1]


FAST_SPEC_CASES = [(PAYLOADS[0], "tasks"), (PAYLOADS[3], "asking"), (PAYLOADS[12], "fixtures")]


@pytest.mark.parametrize(("payload", "source"), FAST_SPEC_CASES)
def test_hostile_text_in_a_spec_is_rendered_as_data(payload: str, source: str, tmp_path: Path) -> None:
    made = spec_projects(source, payload, tmp_path)
    assert made is not None, "some position takes this text"
    assert_same_shape(*made, f"{source} with {payload!r}")


@pytest.mark.parametrize("source", ["git_port", "tasks"])
@pytest.mark.parametrize("payload", MARKDOWN_PAYLOADS)
def test_markdown_in_a_spec_leaves_the_readme_as_it_is_shaped(payload: str, source: str, tmp_path: Path) -> None:
    """Markdown in every text of a spec the README prints (the server's description, a setting's description and
    example, an upstream's default URL, a resource's URI and MIME type, the names): the README has the headings,
    code blocks, tables, code spans, links and HTML of the plain twin's, no more (before the fix a description's
    `# heading` or fence, a setting's example in the serve command, a `|` in a table changed it)."""
    made = spec_projects(source, payload, tmp_path)
    assert made is not None, "some position takes this text"
    hostile, twin = made
    assert markdown_shape(hostile["README.md"]) == markdown_shape(twin["README.md"]), (source, payload)


# (b) an OpenAPI document --------------------------------------------------------------------------------------------


def openapi_projects(text: str, folder: Path) -> tuple[Files, Files] | None:
    """The project `failwell import openapi` makes of `OPENAPI` with `text` before every string, and its plain
    twin's (None when the document is refused, in one line)."""
    out = []
    for label, words in (("hostile", text), ("plain", plain(text))):
        document = folder / f"{label}.json"
        document.write_text(json.dumps(openapi_with(words)), encoding="utf-8")
        project = folder / label / "shop"  # the server is named after the folder
        code, output = cli("import", "openapi", str(document), str(project))
        if label == "hostile" and code == 1:
            assert not project.exists(), "a refused document writes nothing"
            return None
        assert code == 0, output
        out.append(project_files(project))
    return out[0], out[1]


FAST_OPENAPI_PAYLOADS = [PAYLOADS[0], PAYLOADS[9]]


@pytest.mark.parametrize("payload", FAST_OPENAPI_PAYLOADS)
def test_hostile_text_in_an_openapi_document_is_rendered_as_data(payload: str, tmp_path: Path) -> None:
    made = openapi_projects(payload, tmp_path)
    assert made is not None, "the document is imported"
    assert_same_shape(*made, f"openapi with {payload!r}")


@pytest.mark.parametrize("payload", MARKDOWN_PAYLOADS)
def test_markdown_in_an_openapi_document_leaves_the_readme_as_it_is_shaped(payload: str, tmp_path: Path) -> None:
    """Markdown before every string of an imported document (its title and description, the server URL, every
    operation's id, summary and description, parameter and property names): the README's structure is the plain
    twin's."""
    made = openapi_projects(payload, tmp_path)
    assert made is not None, "the document is imported"
    hostile, twin = made
    assert markdown_shape(hostile["README.md"]) == markdown_shape(twin["README.md"]), payload


# (c) a server's tools/list, through `audit --write-spec` --------------------------------------------------------------


def listing(text: str) -> dict[str, Any]:
    """What a hostile server says in `initialize` and `tools/list`: `text` in its name, its tools' names, titles and
    descriptions, and their arguments' names, descriptions, enums, defaults, examples and patterns."""
    properties = {
        f"{text}query": {"type": "string", "description": f"{text} what to look for", "examples": [f"{text}x"]},
        f"{text}kind": {"type": "string", "enum": [f"{text}a", f"{text}b"], "default": f"{text}a", "title": text},
        "limit": {"type": "integer", "description": text, "default": 5},
        "when": {"anyOf": [{"type": "string", "description": text}, {"type": "null"}]},
        "tags": {"type": "array", "items": {"type": "string", "description": text}},
        "filter": {"type": "object", "properties": {f"{text}field": {"type": "string", "description": text}}},
    }
    tools = [
        {
            "name": f"{text}search",
            "title": text,
            "description": f"{text} Search the notes.",
            "inputSchema": {"type": "object", "properties": properties, "required": [f"{text}query"]},
            "annotations": {"title": text, "readOnlyHint": True},
        },
        {
            "name": "delete",
            "description": text,
            "inputSchema": {"type": "object", "properties": {"id": {"type": "string", "pattern": text}}},
            "annotations": {"destructiveHint": True},
        },
    ]
    return {"server": {"name": f"{text}notes", "version": f"1.0{text}"}, "tools": tools}


def draft_projects(text: str, folder: Path) -> tuple[Files, Files] | None:
    """The project `failwell new` makes from the draft `audit --write-spec` writes for the listing, and its plain
    twin's (in process: the draft of what the server listed)."""
    out = []
    for label, words in (("hostile", text), ("plain", plain(text))):
        listed = listing(words)
        report = Report(target="python hostile.py", transport="stdio", server=listed["server"])
        report.tools = listed["tools"]
        spec = folder / f"{label}.yaml"
        spec.write_text(draft(report), encoding="utf-8")
        code, output = cli("new", str(folder / label), "--spec", str(spec))
        if label == "hostile" and code == 1:
            return None
        assert code == 0, output
        out.append(project_files(folder / label))
    return out[0], out[1]


FAST_AUDIT_PAYLOADS = [PAYLOADS[0], PAYLOADS[8]]


@pytest.mark.parametrize("payload", FAST_AUDIT_PAYLOADS)
def test_hostile_text_in_a_listing_is_rendered_as_data(payload: str, tmp_path: Path) -> None:
    made = draft_projects(payload, tmp_path)
    assert made is not None, "the draft is accepted"
    assert_same_shape(*made, f"draft with {payload!r}")


# The slow part: every payload and made-up text, a real hostile server, and the projects run ------------------------

MADE_UP = st.lists(st.sampled_from(ATOMS), min_size=1, max_size=8).map("".join)
TEXTS = st.one_of(
    st.sampled_from(PAYLOADS),
    MADE_UP.filter(lambda text: re.search("[A-Za-z0-9]", text) is not None),
)
SLOW = settings(
    deadline=None,
    derandomize=True,
    database=None,
    print_blob=True,
    phases=[Phase.explicit, Phase.generate],  # each try renders projects; a failure prints its text
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture],
)


@pytest.mark.slow  # about 1 s a try
@settings(SLOW, max_examples=40)
@given(text=TEXTS, source=st.sampled_from(sorted(SPECS)))
@example(text=PAYLOADS[0], source="tasks")
def test_any_hostile_text_in_any_front_end_is_refused_or_rendered_as_data(text: str, source: str) -> None:
    with tempfile.TemporaryDirectory() as folder:
        root = Path(folder)
        for front, make in (
            ("spec", lambda where: spec_projects(source, text, where)),
            ("openapi", lambda where: openapi_projects(text, where)),
            ("audit", lambda where: draft_projects(text, where)),
        ):
            (root / front).mkdir()
            made = make(root / front)
            if made is not None:
                assert_same_shape(*made, f"{front} ({source}) with {text!r}")
        assert not (Path.cwd() / MARKER).exists()


HOSTILE_SERVER = """\
import json, sys

listed = json.loads(open(sys.argv[1], encoding="utf-8").read())
for line in sys.stdin:
    request = json.loads(line)
    if "id" not in request:
        continue
    method, result = request.get("method"), None
    if method == "initialize":
        result = {"protocolVersion": request["params"]["protocolVersion"], "capabilities": {"tools": {}},
                  "serverInfo": listed["server"]}
    elif method == "tools/list":
        result = {"tools": listed["tools"]}
    elif method == "tools/call":
        result = {"content": [{"type": "text", "text": "no"}], "isError": True}
    elif method == "ping":
        result = {}
    answer = {"jsonrpc": "2.0", "id": request["id"]}
    if result is None:
        answer["error"] = {"code": -32601, "message": "Method not found"}
    else:
        answer["result"] = result
    print(json.dumps(answer), flush=True)
"""
"""A server that lists what it is given (hostile names, descriptions and schemas), written by hand so no SDK
checks or cleans what it says."""


def run_project(project: Path) -> None:
    """Import every module of the generated project, then run its generated tests (in its folder): neither leaves
    the marker there."""
    marker = project / MARKER
    package = next(path.name for path in (project / "src").iterdir() if (path / "__init__.py").is_file())
    env = {**os.environ, "PYTHONPATH": "src"}
    importer = (
        "import importlib, pkgutil\n"
        f"package = importlib.import_module({package!r})\n"
        "for found in pkgutil.walk_packages(package.__path__, package.__name__ + '.'):\n"
        "    if not found.name.endswith('__main__'):\n"
        "        importlib.import_module(found.name)\n"
    )
    for command in (
        ["-c", importer],
        ["-m", "pytest", "-q", "-x", "-p", "no:cacheprovider", "tests/generated"],
    ):
        ran = subprocess.run(
            [sys.executable, *command], cwd=project, env=env, capture_output=True, text=True, timeout=600
        )
        assert ran.returncode == 0, (command, ran.stdout[-3000:], ran.stderr[-3000:])
        assert not marker.exists(), f"{command} ran text from outside as code"


@pytest.mark.slow  # about 60 s a payload: up to three projects made, imported and tested
@pytest.mark.parametrize("payload", [PAYLOADS[0], PAYLOADS[2], PAYLOADS[9]])
def test_no_generated_project_runs_outside_text(payload: str, tmp_path: Path) -> None:
    for front in ("spec", "openapi", "draft_twin"):
        (tmp_path / front).mkdir()
    projects = []
    if spec_projects("tasks", payload, tmp_path / "spec") is not None:
        projects.append(tmp_path / "spec" / "hostile")
    if openapi_projects(payload, tmp_path / "openapi") is not None:
        projects.append(tmp_path / "openapi" / "hostile" / "shop")

    # a real server over stdio, audited: its draft (when the spec language takes what it listed) made a project
    (tmp_path / "listing.json").write_text(json.dumps(listing(payload)), encoding="utf-8")
    (tmp_path / "hostile.py").write_text(HOSTILE_SERVER, encoding="utf-8")
    draft_file = tmp_path / "draft.yaml"
    result = CliRunner().invoke(
        app,
        ["audit", "--write-spec", str(draft_file), "--", sys.executable, str(tmp_path / "hostile.py"),
         str(tmp_path / "listing.json")],
    )  # fmt: skip
    assert "Traceback" not in result.output and INTERNAL_ERROR not in result.output, result.output
    twin = draft_projects(payload, tmp_path / "draft_twin")
    if not draft_file.is_file():
        assert twin is None and "nothing was written" in result.output, result.output
    else:
        audited = tmp_path / "audited"
        code, output = cli("new", str(audited), "--spec", str(draft_file))
        assert code == 0 and twin is not None, output
        assert_same_shape(project_files(audited), twin[1], "the audited server's draft")
        projects.append(audited)

    assert len(projects) >= 2, "each payload is taken by most front ends"
    for project in projects:
        run_project(project)


def test_the_payloads_would_run_if_they_were_code(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The marker is what the payloads write when they run: the check above can fail."""
    monkeypatch.chdir(tmp_path)
    exec(PAYLOADS[0].split('"""')[1], {})  # the issue's operationId, past its docstring
    assert (tmp_path / MARKER).exists()
