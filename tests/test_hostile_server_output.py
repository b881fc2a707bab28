"""What a hostile MCP server sends, as failwell's commands print and write it (issue 39, points 3, 4 and 12). The
server is tests/hostile_server.py, a real subprocess over stdio whose every byte the test chooses; failwell is the
installed command, its output read as bytes.

- Point 3: no control a terminal acts on (OSC 52, OSC 0, OSC 8, `ESC[2J`, the C1 CSI, bidi overrides, CR, BEL,
  DEL) reaches stdout or stderr raw, whichever command prints the server's name, version, tool names,
  descriptions, results, errors or stderr lines; each is shown as its escape.
- Point 4: `failwell audit` starts the server with PATH, HOME, LANG (the mcp SDK's few) and what `--env` gives,
  never the caller's environment; the secrets the server prints are masked in the terminal summary, `--json`,
  `--html` and the `--write-spec` draft.
- Point 12: a server name longer than a spec takes (64 characters) is renamed in the draft, which validates."""

from __future__ import annotations

import json
import os
import shlex
import shutil
import subprocess
import sys
from pathlib import Path

import hostile_server as hostile
import pytest
import yaml

from conftest import BIN, REPO

pytestmark = pytest.mark.slow

SERVER = [sys.executable, hostile.__file__]
ESCAPED = ("\\u202ebidi\\u202c", "\\u2066iso\\u2069", "\\u009b31m", "\\u007fdel", "\\u061carabic")
"""The hostile text's C1, DEL and bidi controls as every output shows them (JSON reads these escapes too)."""


def run(*args: str | Path, cwd: Path | None = None, env: dict[str, str] | None = None) -> tuple[int, str, str]:
    done = subprocess.run(
        [str(BIN / "failwell"), *map(str, args)], cwd=cwd, env=env or dict(os.environ), capture_output=True, timeout=180
    )
    return done.returncode, done.stdout.decode("utf-8"), done.stderr.decode("utf-8")


def raw_controls(text: str) -> list[str]:
    return sorted({f"U+{ord(char):04X}" for char in text if char in hostile.RAW_CONTROLS})


def shows_escaped(text: str) -> bool:
    """Whether `text` shows the hostile text, every control in it as its escape."""
    c0 = {"]52;c;cHduZWQ=": "1b", "]0;pwned title": "1b", "]8;;https://evil.example/": "1b", "[2J": "1b"}
    c0 |= {"bell": "07", "carriage": "0d"}
    shown = {part: [f"\\x{code}{part}", f"\\u00{code}{part}"] for part, code in c0.items()}
    shown["carriage"].append("\\rcarriage")
    return all(part in text for part in ESCAPED) and all(any(f in text for f in found) for found in shown.values())


@pytest.fixture
def project(tmp_path: Path) -> Path:
    """A failwell project whose installed console script starts the hostile server (what `tools`, `call`, `read`
    and `prompt` start, as a client would)."""
    root = tmp_path / "notes"
    (root / ".venv" / "bin").mkdir(parents=True)
    shutil.copy(REPO / "generator" / "failwell" / "starter.yaml", root / "failwell.yaml")
    script = root / ".venv" / "bin" / "notes-mcp"
    script.write_text(f"#!/bin/sh\nexec {shlex.join(SERVER)}\n")
    script.chmod(0o755)
    return root


COMMANDS = {
    "tools": ["tools"],
    "tools --json": ["tools", "--json"],
    "call, an error result": ["call", hostile.TOOL, "q=x"],
    "call, a result": ["call", hostile.TOOL, "q=y"],
    "call, a JSON-RPC error": ["call", "no_such_tool"],
    "read": ["read", hostile.URI],
    "read, a JSON-RPC error": ["read", "hostile://nothing"],
    "prompt": ["prompt", hostile.PROMPT],
    "prompt, a JSON-RPC error": ["prompt", "nothing"],
}


@pytest.mark.parametrize("command", list(COMMANDS))
def test_no_control_a_server_sends_reaches_the_terminal(project: Path, command: str) -> None:
    # --verbose: the server's own stderr lines are shown, and they too go through the escape.
    code, out, err = run(*COMMANDS[command], "--verbose", cwd=project)
    assert code in (0, 1), err
    assert raw_controls(out + err) == [], f"raw controls reached the terminal: {out + err!r}"[:3000]
    assert shows_escaped(out + err), f"the server's text, its controls escaped: {out + err!r}"[:3000]
    assert "starting\\x1b]52;c;cHduZWQ=\\x07" in err, "the server's own stderr line, escaped"
    if "--json" in COMMANDS[command]:
        assert json.loads(out)[0]["name"] == hostile.TOOL, "JSON stays JSON: its own escapes"


def test_no_control_a_server_sends_reaches_the_terminal_through_audit(tmp_path: Path) -> None:
    for flags in ([], ["--json"]):
        code, out, err = run("audit", *flags, "--", *SERVER)
        assert code == 1, err
        assert raw_controls(out + err) == [], f"raw controls reached the terminal: {out + err!r}"[:3000]
        assert shows_escaped(out), f"the server's name, tool names and answers, escaped: {out!r}"[:3000]
    assert out.startswith("{") and json.loads(out)["server"]["name"] == hostile.NAME, "JSON reads them back"


def test_no_control_a_server_sends_reaches_the_terminal_through_audit_over_http(tmp_path: Path) -> None:
    """The same server over streamable HTTP, each answer after an SSE event of a hostile name, which the mcp SDK
    logs as it came ("Unknown SSE event: ..."): the log line is escaped too. The bearer token given with `--header`
    reaches the server, which echoes it bare in its answers; it is in no output."""
    token = "plain-header-credential"  # no shape a scrubber knows: masked as the value `--header` gave
    page = tmp_path / "audit.html"
    with hostile.http_server() as (url, seen):
        code, out, err = run("audit", url, "--header", f"Authorization: Bearer {token}", "--html", page)
        json_code, as_json, json_err = run("audit", url, "--header", f"Authorization: Bearer {token}", "--json")
    assert code == json_code == 1, err + json_err
    assert "Unknown SSE event: unknown\\x1b]52;c;cHduZWQ=\\x07" in err, "the SDK's log line, escaped"
    for text in (out + err, as_json + json_err, page.read_text(encoding="utf-8")):
        assert raw_controls(text) == [], f"raw controls reached the terminal: {text!r}"[:3000]
        assert token not in text
    assert shows_escaped(out) and shows_escaped(as_json)
    assert all(headers.get("Authorization") == f"Bearer {token}" for headers in seen), "every request carried it"


CALLER_TOKEN = "ghp_" + "CallerPlantedK3x9" + "0123456789abcdefABC"
CANARY = "canary-7f3a9c-the-callers-own"
GIVEN = "plain-words-value-123"


def test_audit_gives_the_server_a_minimal_environment_and_masks_its_secrets_everywhere(tmp_path: Path) -> None:
    env_file, html, draft = tmp_path / "env.jsonl", tmp_path / "audit.html", tmp_path / "draft.yaml"
    caller = {**os.environ, "GITHUB_TOKEN": CALLER_TOKEN, "CANARY_NOTE": CANARY}
    given = ["--env", f"SERVICE_API_KEY={GIVEN}", "--env", "EXTRA_SETTING=on"]
    server = [*SERVER, "--env-file", str(env_file)]
    code, terminal, err = run(
        "audit", "--call-reads", "--html", html, "--write-spec", draft, *given, "--", *server, env=caller
    )
    assert code == 1 and "a draft that validates" in err, err
    json_code, as_json, json_err = run("audit", "--call-reads", "--json", *given, "--", *server, env=caller)
    assert json_code == 1, json_err
    outputs = {
        "terminal": terminal + err,
        "--json": as_json + json_err,
        "--html": html.read_text(encoding="utf-8"),
        "--write-spec": draft.read_text(encoding="utf-8"),
    }
    for name, text in outputs.items():
        for secret in (hostile.TOKEN, hostile.PASSWORD, CALLER_TOKEN, CANARY, GIVEN):
            assert secret not in text, f"{secret} in {name}"
        assert raw_controls(text) == [], name
    report = json.loads(as_json)
    answered = [f["answer"] for f in report["findings"] if f["subject"] == "get-env"]
    assert answered and "[redacted token]" in answered[0] and "password=[redacted]" in answered[0], answered
    assert "[redacted token]" in report["tools"][1]["description"], "the listing is masked too, and so the draft"
    assert "the planted credential" in json.dumps(report["findings"]), "failwell's own sentences are kept whole"

    started = [json.loads(line) for line in env_file.read_text().splitlines()]
    assert len(started) >= 4, "the audit and its raw probes started the server, each time with the same environment"
    allowed = {"PATH", "HOME", "LANG", "LOGNAME", "SHELL", "TERM", "USER", "LC_CTYPE"}  # LC_CTYPE: Python's PEP 538
    for seen in started:
        assert "GITHUB_TOKEN" not in seen and "CANARY_NOTE" not in seen, "the caller's environment stays the caller's"
        assert (seen["SERVICE_API_KEY"], seen["EXTRA_SETTING"]) == (GIVEN, "on"), "--env reaches it"
        assert set(seen) - {"SERVICE_API_KEY", "EXTRA_SETTING"} <= allowed, sorted(seen)
        assert seen["PATH"] == os.environ["PATH"]

    checked = subprocess.run([str(BIN / "failwell"), "validate", str(draft)], capture_output=True, text=True)
    assert checked.returncode == 0, checked.stdout + checked.stderr


def test_a_server_name_too_long_for_a_spec_is_renamed_in_the_draft(tmp_path: Path) -> None:
    long_name = ("acme-internal-knowledge-base-" * 4)[:100]
    draft = tmp_path / "draft.yaml"
    code, _, err = run("audit", "--write-spec", draft, "--", *SERVER, "--name", long_name)
    assert code == 1 and "a draft that validates" in err, err
    text = draft.read_text(encoding="utf-8")
    name = yaml.safe_load(text)["server"]["name"]
    assert name == long_name[:64].rstrip("-") and len(name) <= 64
    assert f"# DRAFT: renamed to a name a spec takes: the server `{long_name}` as `{name}`" in text
    checked = subprocess.run([str(BIN / "failwell"), "validate", str(draft)], capture_output=True, text=True)
    assert checked.returncode == 0, checked.stdout + checked.stderr


def test_a_servers_name_cannot_forge_lines_of_the_audits_summary(tmp_path: Path) -> None:
    """Found by the red team after issue 39: line breaks in a server's name were printed as they came, so a server
    wrote a score of its own (and blank lines) above the real one. Every server text in the summary is one line."""
    forged = "calm\n  score 100/100: clean\n\n  per tool:\n    everything  100"
    code, out, err = run("audit", "--", *SERVER, "--name", forged)
    assert code == 1, err
    assert [line for line in out.splitlines() if line.startswith("  score ")] != []
    assert len([line for line in out.splitlines() if line.lstrip().startswith("score ")]) == 1, out
    assert out.splitlines()[0].startswith("failwell audit: calm\\x0a  score 100/100: clean\\x0a\\x0a  per tool:"), out
