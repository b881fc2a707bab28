"""DESIGN rule 17, attacked (issue 24): nothing failwell writes follows a link it did not create; writes
are atomic and keep the file's mode; secrets go only into files their owner alone can read.

The link attacks are a real git repository with committed symbolic links, `git clone`d, then the real
`failwell` command run in the clone as the README says, with a fresh HOME per test: every link target is
afterwards byte-identical with the same mode, and the next `git commit` runs no hook.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import shutil
import stat
import subprocess
import sys
import zipfile
from collections.abc import Iterator
from pathlib import Path

import pytest
from typer.testing import CliRunner

from conftest import BIN, failwell
from failwell import new
from failwell.cli import app
from failwell.client.launch import Launch

GIT_ENV = {
    "GIT_AUTHOR_NAME": "t",
    "GIT_AUTHOR_EMAIL": "t@example.com",
    "GIT_COMMITTER_NAME": "t",
    "GIT_COMMITTER_EMAIL": "t@example.com",
    "GIT_CONFIG_NOSYSTEM": "1",
}


def git(*args: str, cwd: Path, home: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        ["git", *args],
        cwd=cwd,
        env={**os.environ, **GIT_ENV, "HOME": str(home)},
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )


def snapshot(path: Path) -> tuple[bytes, int] | None:
    """A file's bytes and mode (a folder's mode; None: absent)."""
    try:
        if path.is_dir():
            return b"", stat.S_IMODE(path.stat().st_mode)
        return path.read_bytes(), stat.S_IMODE(path.stat().st_mode)
    except FileNotFoundError:
        return None


def cloned(tmp_path: Path, plant: dict[str, str], files: dict[str, str] | None = None) -> tuple[Path, Path]:
    """A project committed with the links `plant` (project-relative path -> link text) and `files`, cloned;
    the clone (with the console script `pip install -e .` would put in .venv) and a fresh HOME."""
    home = tmp_path / "home"
    home.mkdir()
    origin = tmp_path / "origin"
    new(origin, name="notes")
    for relative, text in (files or {}).items():
        (origin / relative).parent.mkdir(parents=True, exist_ok=True)
        (origin / relative).write_text(text)
    for relative, target in plant.items():
        path = origin / relative
        if path.is_dir() and not path.is_symlink():
            shutil.rmtree(path)
        elif path.exists():
            path.unlink()
        path.parent.mkdir(parents=True, exist_ok=True)
        path.symlink_to(target)
    for args in (["init", "-q", "-b", "main"], ["add", "-A", "-f", "."], ["commit", "-q", "-m", "hostile"]):
        assert git(*args, cwd=origin, home=home).returncode == 0
    clone = tmp_path / "clone"
    assert git("clone", "-q", str(origin), str(clone), cwd=tmp_path, home=home).returncode == 0
    for relative in plant:
        assert (clone / relative).is_symlink(), relative
    script = clone / ".venv" / "bin" / "notes-mcp"
    script.parent.mkdir(parents=True)
    script.write_text("#!/bin/sh\n")
    script.chmod(0o755)
    return clone, home


def run(clone: Path, home: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return failwell(*args, cwd=clone, env={"HOME": str(home), "XDG_CONFIG_HOME": str(home / ".config")})


def commit_runs_no_hook(clone: Path, home: Path) -> None:
    assert not (clone / ".git" / "hooks" / "pre-commit").exists()
    done = git("commit", "-q", "--allow-empty", "-m", "after", cwd=clone, home=home)
    assert done.returncode == 0, done.stderr


@pytest.mark.slow
def test_install_never_writes_its_backup_through_a_committed_link_into_git_hooks(tmp_path: Path) -> None:
    """Finding 2: `.vscode/mcp.json.bak` committed as a link to `../.git/hooks/pre-commit`."""
    config = json.dumps({"servers": {}}) + "\n"
    clone, home = cloned(tmp_path, {".vscode/mcp.json.bak": "../.git/hooks/pre-commit"}, {".vscode/mcp.json": config})
    (clone / ".vscode" / "mcp.json").chmod(0o755)
    before = snapshot(clone / ".vscode" / "mcp.json")
    done = run(clone, home, "install", "vscode")
    assert done.returncode == 1, done.stderr
    assert ".vscode/mcp.json.bak is a symbolic link" in done.stderr and "Remove it" in done.stderr
    assert "nothing was written" in done.stderr
    assert snapshot(clone / ".vscode" / "mcp.json") == before
    assert (clone / ".vscode" / "mcp.json.bak").is_symlink()
    commit_runs_no_hook(clone, home)


@pytest.mark.slow
@pytest.mark.parametrize(
    ("client", "link"),
    [
        ("vscode", ".vscode/mcp.json.bak"),
        ("vscode", ".vscode/mcp.json"),
        ("vscode", ".vscode"),
        ("claude-code", ".mcp.json"),
        ("claude-code", ".mcp.json.bak"),
        ("cursor", ".cursor"),
    ],
)
def test_install_never_writes_through_a_committed_link_outside_the_project(
    tmp_path: Path, client: str, link: str
) -> None:
    """Finding 2, pointed elsewhere: the config file, its backup or its folder links outside the project."""
    outside = tmp_path / "outside"
    outside.mkdir()
    victim = outside / Path(link).name.lstrip(".")
    if link in (".vscode", ".cursor"):
        victim = outside
        (outside / "mcp.json").write_text('{"mcpServers": {}, "servers": {}}\n')
        (outside / "mcp.json").chmod(0o640)
    else:
        victim.write_text('{"mcpServers": {}, "servers": {}}\n')
        victim.chmod(0o640)
    files = {}
    if link.endswith(".bak"):
        files[link.removesuffix(".bak")] = '{"mcpServers": {}, "servers": {}}\n'
    clone, home = cloned(tmp_path, {link: str(victim)}, files)
    watched = sorted(p for p in outside.rglob("*"))
    before = {p: snapshot(p) for p in watched}
    done = run(clone, home, "install", client, "--scope", "project")
    assert done.returncode == 1, done.stderr
    assert f"{link} is a symbolic link" in done.stderr and "nothing was written" in done.stderr
    assert {p: snapshot(p) for p in sorted(outside.rglob("*"))} == before
    commit_runs_no_hook(clone, home)


@pytest.mark.slow
@pytest.mark.parametrize(
    ("link", "args"),
    [
        ("failwell.manifest.json", ["generate"]),
        ("src/notes_mcp/_generated/server.py", ["generate", "--force"]),
        ("src/notes_mcp/_generated", ["generate", "--force"]),
        ("tests/generated/conftest.py", ["generate", "--force"]),
        (".failwell", ["dev", "--print"]),
        (".failwell/mcp.json", ["dev", "--print"]),
    ],
)
def test_generate_and_dev_refuse_a_committed_link_and_write_nothing(tmp_path: Path, link: str, args: list[str]) -> None:
    """Finding 7: generated files, the manifest and `.failwell/mcp.json` written through links."""
    outside = tmp_path / "outside"
    outside.mkdir()
    target = outside / "victim"
    if link in (".failwell", "src/notes_mcp/_generated"):
        target.mkdir()
        (target / "keep.txt").write_text("mine\n")
    else:
        target.write_text("mine\n")
        target.chmod(0o640)
    again, home = cloned(tmp_path, {link: str(target)})
    watched = sorted(outside.rglob("*"))
    before = {p: snapshot(p) for p in watched}
    files_before = {p: snapshot(p) for p in sorted(again.rglob("*")) if ".git" not in p.parts and p.is_file()}
    done = run(again, home, *args)
    assert done.returncode == 1, (done.stdout, done.stderr)
    assert " is a symbolic link" in done.stderr and "nothing was written" in done.stderr, done.stderr
    assert link in done.stderr or ".failwell" in done.stderr
    assert {p: snapshot(p) for p in sorted(outside.rglob("*"))} == before
    after = {p: snapshot(p) for p in sorted(again.rglob("*")) if ".git" not in p.parts and p.is_file()}
    assert after == files_before
    commit_runs_no_hook(again, home)


@pytest.mark.slow
def test_24_concurrent_installs_into_one_file_keep_every_entry(tmp_path: Path) -> None:
    """Low finding: 24 processes installing 24 names into one `~/.cursor/mcp.json` at once."""
    clone, home = cloned(tmp_path, {}, {})
    environ = {**os.environ, "HOME": str(home), "XDG_CONFIG_HOME": str(home / ".config")}
    processes = [
        subprocess.Popen(
            [str(BIN / "failwell"), "install", "cursor", "--name", f"s{i}"],
            cwd=clone,
            env=environ,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        for i in range(24)
    ]
    codes = []
    for process in processes:
        try:
            _, err = process.communicate(timeout=240)
        finally:
            if process.poll() is None:
                process.kill()
                process.wait()
        codes.append((process.returncode, err))
    assert all(code == 0 for code, _ in codes), codes
    written = json.loads((home / ".cursor" / "mcp.json").read_text())
    assert sorted(written["mcpServers"]) == sorted(f"s{i}" for i in range(24))
    assert not [p.name for p in (home / ".cursor").iterdir() if p.name.endswith(".tmp")]


# In-process: secrets, user links, numbers, unreadable files.


@pytest.fixture
def notes(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    project = tmp_path / "notes"
    new(project, name="notes")
    (project / ".venv" / "bin").mkdir(parents=True)
    (project / ".venv" / "bin" / "notes-mcp").write_text("")
    home = tmp_path / "home"
    home.mkdir()
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.setenv("XDG_CONFIG_HOME", str(home / ".config"))
    monkeypatch.delenv("NOTES_TOKEN", raising=False)
    yield project


SECRET = "s3cr3t-Value-91f0c2ab77"


def invoke(*args: str) -> tuple[int, str, str]:
    result = CliRunner().invoke(app, list(args))
    return result.exit_code, result.stdout, result.stderr


@pytest.mark.parametrize(
    ("client", "where", "reference"),
    [
        ("claude-code", ".mcp.json", "${NOTES_TOKEN}"),
        ("vscode", ".vscode/mcp.json", "${env:NOTES_TOKEN}"),
        ("cursor", ".cursor/mcp.json", "${env:NOTES_TOKEN}"),
    ],
)
def test_a_secret_never_goes_into_a_project_file_made_to_be_committed(
    notes: Path, client: str, where: str, reference: str
) -> None:
    """Finding 9: the value stays out; the client's documented variable reference goes in; the user is told."""
    code, _, err = invoke(
        "install",
        client,
        "--scope",
        "project",
        "--project",
        str(notes),
        "--env",
        f"NOTES_TOKEN={SECRET}",
        "--env",
        "NOTES_URL=https://notes.example.com",
    )
    assert code == 0, err
    text = (notes / where).read_text()
    assert SECRET not in text
    env = json.loads(text)["mcpServers" if client != "vscode" else "servers"]["notes"]["env"]
    assert env["NOTES_TOKEN"] == reference and env["NOTES_URL"] == "https://notes.example.com"
    assert "NOTES_TOKEN" in err and "export NOTES_TOKEN=" in err and reference in err
    assert "NOTES_TOKEN holds a secret, and " in err and "it reads it from" in err  # one secret: singular


def test_two_secrets_are_told_in_the_plural(notes: Path) -> None:
    code, _, err = invoke(
        "install", "claude-code", "--scope", "project", "--project", str(notes),
        "--env", f"NOTES_TOKEN={SECRET}", "--env", f"NOTES_API_KEY={SECRET}x",
    )  # fmt: skip
    assert code == 0, err
    assert "NOTES_API_KEY, NOTES_TOKEN hold secrets, and " in err or "NOTES_TOKEN, NOTES_API_KEY hold secrets" in err
    assert "it reads them from" in err


@pytest.mark.parametrize(
    ("name", "value"),
    [("SERVICE_API_KEY", "abc"), ("DB_PASSWORD", "x"), ("UPSTREAM_URL", "postgres://app:hunter2hunter2@db:5432/x")],
)
def test_secrets_are_told_by_name_or_by_value(notes: Path, name: str, value: str) -> None:
    code, _, err = invoke(
        "install", "claude-code", "--scope", "project", "--project", str(notes), "--env", f"{name}={value}"
    )
    assert code == 0, err
    assert json.loads((notes / ".mcp.json").read_text())["mcpServers"]["notes"]["env"][name] == "${" + name + "}"


def test_a_user_file_holding_a_secret_is_tightened_to_0600_and_says_so(notes: Path) -> None:
    """Finding 9: an existing 0644 `~/.claude.json`."""
    path = Path(os.environ["HOME"]) / ".claude.json"
    path.write_text('{"theme": "dark"}\n')
    path.chmod(0o644)
    code, _, err = invoke("install", "claude-code", "--project", str(notes), "--env", f"NOTES_TOKEN={SECRET}")
    assert code == 0, err
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    assert stat.S_IMODE((path.parent / ".claude.json.bak").stat().st_mode) == 0o600
    assert json.loads(path.read_text())["mcpServers"]["notes"]["env"]["NOTES_TOKEN"] == SECRET
    assert "readable by you alone" in err and "0600" in err
    # A file without secrets keeps its mode.
    plain = Path(os.environ["HOME"]) / ".cursor" / "mcp.json"
    plain.parent.mkdir()
    plain.write_text("{}\n")
    plain.chmod(0o644)
    code, _, err = invoke("install", "cursor", "--project", str(notes))
    assert code == 0, err
    assert stat.S_IMODE(plain.stat().st_mode) == 0o644 and "0600" not in err


def test_dev_print_writes_its_config_readable_by_the_owner_alone(notes: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Finding 9: `dev --print` wrote the server's environment, secrets too, to a 0644 file."""
    fake = notes.parent / "bin"
    fake.mkdir()
    (fake / "npx").write_text("#!/bin/sh\n")
    (fake / "npx").chmod(0o755)
    monkeypatch.setenv("PATH", f"{fake}{os.pathsep}{os.environ['PATH']}")
    code, out, err = invoke("dev", "--print", "--project", str(notes), "--env", f"NOTES_TOKEN={SECRET}")
    assert code == 0, err
    config = notes / ".failwell" / "mcp.json"
    assert stat.S_IMODE(config.stat().st_mode) == 0o600
    assert str(config) in out


def test_a_users_own_link_to_a_dotfiles_repository_is_kept(notes: Path, tmp_path: Path) -> None:
    """Low finding: a symlinked `~/.claude.json` was replaced by a plain file. failwell writes the file the
    user's link points to (atomically, in its own folder, mode kept) and leaves the link."""
    dotfiles = tmp_path / "dotfiles"
    dotfiles.mkdir()
    real = dotfiles / "claude.json"
    real.write_text('{"theme": "dark"}\n')
    real.chmod(0o640)
    link = Path(os.environ["HOME"]) / ".claude.json"
    link.symlink_to(real)
    code, _, err = invoke("install", "claude-code", "--project", str(notes))
    assert code == 0, err
    assert link.is_symlink() and os.readlink(link) == str(real)
    data = json.loads(real.read_text())
    assert data["theme"] == "dark" and list(data["mcpServers"]) == ["notes"]
    assert stat.S_IMODE(real.stat().st_mode) == 0o640
    assert (dotfiles / "claude.json.bak").read_text() == '{"theme": "dark"}\n'


def test_a_users_link_to_nothing_is_refused(notes: Path, tmp_path: Path) -> None:
    link = Path(os.environ["HOME"]) / ".claude.json"
    link.symlink_to(tmp_path / "gone.json")
    code, _, err = invoke("install", "claude-code", "--project", str(notes))
    assert code == 1 and "does not exist" in err and "nothing was written" in err
    assert link.is_symlink() and not (tmp_path / "gone.json").exists()


def test_untouched_values_are_written_back_exactly(notes: Path) -> None:
    """Low finding: `1e400` came back as `Infinity` (and `1.50` as `1.5`, an escaped lone surrogate as an
    internal error)."""
    path = Path(os.environ["HOME"]) / ".cursor" / "mcp.json"
    path.parent.mkdir()
    path.write_text(
        '{\n  "huge": 1e400,\n  "price": 1.50,\n  "tiny": -2.5E-3,\n  "big": 123456789012345678901234567890,\n'
        '  "odd": "\\ud800",\n  "name": "café",\n  "list": [1.0, {"a": []}],\n  "mcpServers": {}\n}\n'
    )
    code, _, err = invoke("install", "cursor", "--project", str(notes))
    assert code == 0, err
    text = path.read_text()
    for kept in (
        '"huge": 1e400',
        '"price": 1.50',
        '"tiny": -2.5E-3',
        "123456789012345678901234567890",
        '"odd": "\\ud800"',
        '"name": "café"',
        "1.0,",
    ):
        assert kept in text, text
    assert "Infinity" not in text


def test_an_unreadable_client_file_is_a_clear_user_error(notes: Path) -> None:
    """Low finding: a permission or encoding error was 'an internal error on this spec' (exit 2)."""
    path = Path(os.environ["HOME"]) / ".cursor" / "mcp.json"
    path.parent.mkdir()
    path.write_bytes(b'{"mcpServers": {}, "x": "\xff\xfe"}\n')
    code, _, err = invoke("install", "cursor", "--project", str(notes))
    assert code == 1, err
    assert str(path) in err and "not UTF-8" in err and "internal error" not in err
    path.unlink()
    os.mkfifo(path)  # a read would block forever
    code, _, err = invoke("install", "cursor", "--project", str(notes))
    assert code == 1 and "not a regular file" in err, err
    path.unlink()
    path.write_text("{}\n")
    path.parent.chmod(0o500)
    try:
        if os.geteuid() != 0:  # root writes anyway
            code, _, err = invoke("install", "cursor", "--project", str(notes))
            assert code == 1 and "cannot write it" in err and "internal error" not in err
    finally:
        path.parent.chmod(0o755)
    path.chmod(0o000)
    try:
        if os.geteuid() != 0:
            code, _, err = invoke("install", "cursor", "--project", str(notes))
            assert code == 1 and "permission denied" in err and "internal error" not in err
    finally:
        path.chmod(0o644)


def test_generate_keeps_a_generated_files_mode(notes: Path) -> None:
    server = next((notes / "src").glob("*/_generated/server.py"))
    original = server.read_bytes()
    server.write_bytes(original + b"# edited\n")
    server.chmod(0o640)
    code, _, err = invoke("generate", str(notes), "--force")
    assert code == 0, err
    assert server.read_bytes() == original and stat.S_IMODE(server.stat().st_mode) == 0o640
    assert not [p for p in server.parent.iterdir() if p.name.endswith(".tmp")]


# Finding 8: dependency confusion in the generated CI.


def wheel(folder: Path, name: str, version: str, origin: str, build: str = "") -> Path:
    """A minimal installable wheel whose module says where it came from."""
    tag = f"{name}-{version}{'-' + build if build else ''}-py3-none-any.whl"
    dist = f"{name}-{version}.dist-info"
    files = {
        f"{name}_origin.py": f"ORIGIN = {origin!r}\n",
        f"{dist}/METADATA": f"Metadata-Version: 2.1\nName: {name}\nVersion: {version}\n",
        f"{dist}/WHEEL": "Wheel-Version: 1.0\nGenerator: test\nRoot-Is-Purelib: true\nTag: py3-none-any\n"
        + (f"Build: {build}\n" if build else ""),
    }
    record = "".join(
        f"{path},sha256={hashlib.sha256(body.encode()).hexdigest()},{len(body)}\n" for path, body in files.items()
    )
    path = folder / tag
    with zipfile.ZipFile(path, "w") as archive:
        for inner, body in files.items():
            archive.writestr(inner, body)
        archive.writestr(f"{dist}/RECORD", record + f"{dist}/RECORD,,\n")
    return path


@pytest.mark.slow
def test_the_generated_ci_installs_failwell_from_the_projects_wheel_only(tmp_path: Path) -> None:
    """A real simple index on 127.0.0.1 serving a build-tagged and a higher `failwell`; the generated
    workflow's failwell step run against it (`PIP_INDEX_URL`): the project's wheel is installed. The
    `-e '.[dev]'` step that follows asks the index only for what is not yet installed, and failwell is:
    its resolution is run here as that requirement (`failwell==X`, what the dev extra holds) so the test
    needs no index for pytest, ruff and mypy."""
    project = tmp_path / "notes"
    new(project, name="notes")
    workflow = (project / ".github" / "workflows" / "failwell.yml").read_text()
    steps = [line.split("- run: ", 1)[1] for line in workflow.splitlines() if "- run: pip install" in line]
    assert len(steps) == 2 and "--no-index" in steps[0] and "-e '.[dev]'" in steps[1], steps
    pyproject = (project / "pyproject.toml").read_text()
    pin = next(part for part in pyproject.split('"') if part.startswith("failwell=="))
    version = pin.removeprefix("failwell==")
    assert f"'{pin}'" in steps[0]
    (project / "wheels").mkdir()
    wheel(project / "wheels", "failwell", version, "project")
    index = tmp_path / "index"
    (index / "simple" / "failwell").mkdir(parents=True)
    hostile = [
        wheel(index / "simple" / "failwell", "failwell", version, "index", build="9"),
        wheel(index / "simple" / "failwell", "failwell", "99.0", "index"),
    ]
    (index / "simple" / "failwell" / "index.html").write_text(
        "".join(f'<a href="{p.name}">{p.name}</a>\n' for p in hostile)
    )
    (index / "simple" / "index.html").write_text('<a href="failwell/">failwell</a>\n')
    server = subprocess.Popen(
        [sys.executable, "-m", "http.server", "0", "--bind", "127.0.0.1", "--directory", str(index)],
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )
    try:
        assert server.stdout is not None
        line = server.stdout.readline()  # "Serving HTTP on 127.0.0.1 port N ..."
        port = int(line.split(" port ")[1].split()[0])
        venv = tmp_path / "venv"
        subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True, timeout=120)
        environ = {
            **os.environ,
            "PIP_INDEX_URL": f"http://127.0.0.1:{port}/simple/",
            "PIP_EXTRA_INDEX_URL": "",
            "PIP_FIND_LINKS": "",
            "PIP_CONSTRAINT": "",
            "PIP_CONFIG_FILE": os.devnull,
            "PATH": f"{venv / 'bin'}{os.pathsep}{os.environ['PATH']}",
            "VIRTUAL_ENV": str(venv),
        }

        def shell(command: str) -> subprocess.CompletedProcess[str]:
            return subprocess.run(
                ["sh", "-c", command], cwd=project, env=environ, capture_output=True, text=True, timeout=300
            )

        first = shell(steps[0])
        assert first.returncode == 0, first.stderr
        second = shell(steps[1].replace("-e '.[dev]'", f"'{pin}'"))
        assert second.returncode == 0, second.stderr
        origin = subprocess.run(
            [str(venv / "bin" / "python"), "-c", "import failwell_origin; print(failwell_origin.ORIGIN)"],
            capture_output=True,
            text=True,
            timeout=60,
        )
        assert origin.stdout.strip() == "project", (origin, first.stdout, second.stdout)
        # The step main had (one command, the index asked) takes the index's build-tagged wheel.
        old = shell(f"pip install --force-reinstall --find-links wheels '{pin}'")
        assert old.returncode == 0, old.stderr
        confused = subprocess.run(
            [str(venv / "bin" / "python"), "-c", "import failwell_origin; print(failwell_origin.ORIGIN)"],
            capture_output=True,
            text=True,
            timeout=60,
        )
        assert confused.stdout.strip() == "index"
    finally:
        server.terminate()
        server.wait(timeout=30)


def test_launch_secrets_are_the_ones_install_hides() -> None:
    server = Launch("n", "/x", (), {"A": "1", "API_KEY": "k"}, Path("/p"), frozenset({"API_KEY"}))
    from failwell.client.clients import entry

    assert entry("vscode", server, "project")["env"] == {"A": "1", "API_KEY": "${env:API_KEY}"}
    assert entry("vscode", server, "user")["env"] == {"A": "1", "API_KEY": "k"}


def test_write_all_writes_every_file_atomically_keeping_modes_and_refusing_a_link_before_renaming_any(
    tmp_path: Path,
) -> None:
    """`failwell generate` writes a project's files in one batch (one flush to disk for all of them): each file
    gets its bytes and keeps its mode, no temporary file is left, and a link anywhere in the batch leaves every
    file as it was."""
    from failwell import safewrite
    from failwell.errors import FailwellError

    (tmp_path / "a").mkdir()
    kept = tmp_path / "a" / "kept.py"
    kept.write_bytes(b"old\n")
    kept.chmod(0o640)
    files = [(tmp_path / "a" / f"m{number}.py", f"# {number}\n".encode() * 1000) for number in range(50)]
    safewrite.write_all([*files, (kept, b"new\n"), (tmp_path / "empty", b"")], root=tmp_path)
    assert all(path.read_bytes() == data for path, data in files)
    assert kept.read_bytes() == b"new\n" and stat.S_IMODE(kept.stat().st_mode) == 0o640
    assert (tmp_path / "empty").read_bytes() == b""
    assert not [path for path in tmp_path.rglob(".*.tmp")]

    outside = tmp_path / "outside"
    outside.mkdir()
    (tmp_path / "b").symlink_to(outside)
    with pytest.raises(FailwellError, match="symbolic link"):
        safewrite.write_all([(kept, b"newer\n"), (tmp_path / "b" / "x.py", b"x")], root=tmp_path)
    assert kept.read_bytes() == b"new\n" and not list(outside.iterdir())
    assert not [path for path in tmp_path.rglob(".*.tmp")]


@pytest.mark.slow  # runs failwell under strace
@pytest.mark.skipif(shutil.which("strace") is None, reason="needs strace (.ci/test installs it)")
def test_new_files_are_not_synced_and_replaced_files_are(tmp_path: Path) -> None:
    """Syncing is what keeps a replaced file's old bytes or new after a crash: `failwell new` writes only files
    that did not exist (no old bytes to keep) and syncs nothing; `generate` replacing files syncs them, counted
    from outside the process."""

    def syncs(*args: str) -> int:
        log = tmp_path / "strace.log"
        command = [sys.executable, "-m", "failwell", *args]
        traced = ["strace", "-f", "-qq", "-e", "trace=syncfs,fsync,fdatasync,sync", "-o", str(log), *command]
        subprocess.run(traced, check=True, capture_output=True, cwd=tmp_path)
        return sum(1 for line in log.read_text().splitlines() if re.search(r"\b(syncfs|fsync|fdatasync|sync)\(", line))

    project = tmp_path / "notes"
    assert syncs("new", str(project)) == 0
    spec = project / "failwell.yaml"
    spec.write_text(spec.read_text().replace("Read one note", "Read a note", 1))
    assert syncs("generate", str(project)) >= 1


def test_a_large_batch_is_written_folder_by_folder_in_parallel_and_all_or_nothing(tmp_path: Path) -> None:
    """Above 64 files, each folder's files are staged in a thread of their own: every file still gets its bytes
    and its mode, and a failure in one folder (a folder where a file should be) removes every temporary file of
    every folder and replaces nothing."""
    from failwell import safewrite
    from failwell.errors import FailwellError

    folders = [tmp_path / name for name in ("tools", "handlers", "tests", "models")]
    for folder in folders:
        folder.mkdir()
    kept = folders[1] / "kept.py"
    kept.write_bytes(b"old\n")
    kept.chmod(0o640)
    files = [
        (folder / f"m{number}.py", f"# {folder.name} {number}\n".encode()) for folder in folders for number in range(40)
    ]
    safewrite.write_all([*files, (kept, b"new\n")], root=tmp_path)
    assert all(path.read_bytes() == data for path, data in files)
    assert kept.read_bytes() == b"new\n" and stat.S_IMODE(kept.stat().st_mode) == 0o640
    assert not list(tmp_path.rglob(".*.tmp"))

    (folders[3] / "m39.py").unlink()
    (folders[3] / "m39.py").mkdir()  # not a regular file: its folder's thread fails, the others have staged theirs
    changed = [(path, b"changed\n") for path, _ in files]
    with pytest.raises(FailwellError, match="not a regular file"):
        safewrite.write_all([*changed, (kept, b"newer\n")], root=tmp_path)
    assert all(path.read_bytes() == data for path, data in files if path.name != "m39.py" or path.parent != folders[3])
    assert kept.read_bytes() == b"new\n"
    assert not list(tmp_path.rglob(".*.tmp"))
