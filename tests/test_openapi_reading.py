"""What an OpenAPI document can make `failwell import openapi` read (issue 39, points 2, 7, 8 and 9): documents
are third parties', so a `$ref` reaches only regular files inside the document's folder, under a size cap (never
a file outside it by `..`, an absolute path or a link, never a pipe, a device or a folder); YAML aliases cannot
blow a document up; a fetch by URL has one deadline however slowly the server sends; a `servers` URL's
`user:password@` reaches no file. Each refusal is one line naming what was wrong, and nothing is written.

The hostile documents are real files (a FIFO, a device, links, a sparse file past the cap) read by the real
`failwell` command in a subprocess bounded in time (and in memory, for the aliases), and a real loopback server
that trickles its answer."""

from __future__ import annotations

import json
import os
import resource
import socket
import stat
import subprocess
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest
import yaml

from conftest import BIN, tree
from failwell import FailwellError
from failwell.importers.openapi import Selection, document, import_openapi

SECRET = "TOPSECRET-d41c9"
"""A word only the file outside the document's folder holds."""
LIMIT_S = 20.0
"""The most any one `failwell import` here may take; a refusal takes well under a second."""


def run(*args: str | Path, memory: int | None = None) -> tuple[int, str, str, float]:
    """`failwell` with `args`, killed after LIMIT_S (and limited to `memory` bytes of address space): its exit code,
    stdout, stderr and seconds; a run that had to be killed is exit code -9."""

    def limit() -> None:
        if memory is not None:
            resource.setrlimit(resource.RLIMIT_AS, (memory, memory))

    started = time.monotonic()
    process = subprocess.Popen(
        [str(BIN / "failwell"), *map(str, args)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        preexec_fn=limit,
    )
    try:
        out, err = process.communicate(timeout=LIMIT_S)
    except subprocess.TimeoutExpired:
        process.kill()
        out, err = process.communicate()
        return -9, out, err, time.monotonic() - started
    return process.returncode, out, err, time.monotonic() - started


def hostile_folder(tmp_path: Path, ref: str) -> Path:
    """api/doc.yaml, whose one operation's body is `ref`, next to outside/secret.yaml (outside api/)."""
    outside = tmp_path / "outside"
    outside.mkdir(exist_ok=True)
    secret = {"Secret": {"type": "object", "description": SECRET, "properties": {"x": {"description": SECRET}}}}
    (outside / "secret.yaml").write_text(yaml.safe_dump(secret))
    api = tmp_path / "api"
    api.mkdir(exist_ok=True)
    (api / "good.yaml").write_text(
        yaml.safe_dump({"Good": {"type": "object", "properties": {"y": {"type": "string"}}}})
    )
    body = {"required": True, "content": {"application/json": {"schema": {"$ref": ref}}}}
    doc = {
        "openapi": "3.1.0",
        "info": {"title": "T", "version": "1"},
        "paths": {
            "/a": {"post": {"operationId": "a", "requestBody": body, "responses": {"200": {"description": "ok"}}}}
        },
    }
    (api / "doc.yaml").write_text(yaml.safe_dump(doc, sort_keys=False))
    return api / "doc.yaml"


def ref_line(doc: Path) -> int:
    return next(n for n, line in enumerate(doc.read_text().splitlines(), 1) if "$ref" in line)


def assert_refused(tmp_path: Path, doc: Path, ref: str, words: str) -> None:
    """The import of `doc` is one line naming `ref` at FILE:LINE and saying `words`; nothing is written and
    nothing of the outside file is shown."""
    dest = tmp_path / "dest"
    code, out, err, seconds = run("import", "openapi", doc, dest)
    assert code == 1, (code, out, err)
    assert seconds < 10, f"the refusal took {seconds:.1f} s"
    assert out == "" and err.count("\n") == 1, err
    assert words in err and repr(ref) in err and f"{doc}:{ref_line(doc)}:" in err, err
    assert SECRET not in out + err
    assert not dest.exists(), "nothing is written"


@pytest.mark.slow
@pytest.mark.parametrize(
    ("case", "words"),
    [
        ("parent", "leads outside the document's folder"),
        ("absolute", "is an absolute path"),
        ("dev-zero", "is an absolute path"),
        ("link", "leads outside the document's folder"),
        ("linked-folder", "leads outside the document's folder"),
        ("fifo", "is a pipe"),
        ("folder", "is a folder"),
        ("device", "is a device"),
        ("huge", "failwell reads at most 64,000,000"),
    ],
)
def test_a_ref_reads_only_regular_files_inside_the_documents_folder(tmp_path: Path, case: str, words: str) -> None:
    outside = tmp_path / "outside" / "secret.yaml"
    refs = {
        "parent": "../outside/secret.yaml#/Secret",
        "absolute": f"{outside}#/Secret",
        "dev-zero": "/dev/zero",
        "link": "link.yaml#/Secret",
        "linked-folder": "models/secret.yaml#/Secret",
        "fifo": "pipe.yaml#/Secret",
        "folder": "folder.yaml#/Secret",
        "device": "zero.yaml#/Secret",
        "huge": "huge.yaml#/Secret",
    }
    doc = hostile_folder(tmp_path, refs[case])
    api = doc.parent
    if case == "link":
        (api / "link.yaml").symlink_to(outside)
    elif case == "linked-folder":
        (api / "models").symlink_to(outside.parent, target_is_directory=True)
    elif case == "fifo":
        os.mkfifo(api / "pipe.yaml")
    elif case == "folder":
        (api / "folder.yaml").mkdir()
    elif case == "device":
        try:  # /dev/zero's own device, inside the folder
            os.mknod(api / "zero.yaml", stat.S_IFCHR | 0o644, os.makedev(1, 5))
        except PermissionError:
            pytest.skip("making a device needs root; /dev/zero by its own path and as the document are tested")
    elif case == "huge":
        with (api / "huge.yaml").open("wb") as sparse:  # no disk: a hole of 64 MB and one byte
            sparse.truncate(document.MAX_BYTES + 1)
    assert_refused(tmp_path, doc, refs[case], words)


@pytest.mark.slow
@pytest.mark.parametrize("kind", ["fifo", "dev-zero", "folder"])
def test_the_document_itself_is_a_regular_file(tmp_path: Path, kind: str) -> None:
    source = {"fifo": tmp_path / "pipe.yaml", "dev-zero": Path("/dev/zero"), "folder": tmp_path}[kind]
    if kind == "fifo":
        os.mkfifo(source)
    code, out, err, seconds = run("import", "openapi", source, tmp_path / "dest")
    assert code == 1 and seconds < 10 and out == "" and err.count("\n") == 1, (code, seconds, err)
    assert {"fifo": "is a pipe", "dev-zero": "is a device", "folder": "is a folder"}[kind] in err
    assert not (tmp_path / "dest").exists()


@pytest.mark.slow
def test_a_refused_reimport_leaves_the_project_as_it_was(tmp_path: Path) -> None:
    doc = hostile_folder(tmp_path, "good.yaml#/Good")
    dest = tmp_path / "dest"
    code, _, err, _ = run("import", "openapi", doc, dest)
    assert code == 0, err
    before = tree(dest)
    hostile_folder(tmp_path, "../outside/secret.yaml#/Secret")
    code, out, err, _ = run("import", "openapi", doc, dest)
    assert code == 1 and err.count("\n") == 1 and "leads outside the document's folder" in err, err
    assert SECRET not in out + err
    assert tree(dest) == before


def test_refs_inside_the_folder_still_resolve_through_subfolders_and_links(tmp_path: Path) -> None:
    """What stays allowed: `..` that stays inside the folder, and a link whose target is inside it."""
    doc = hostile_folder(tmp_path, "models/pet.yaml#/Pet")
    (doc.parent / "models").mkdir()
    (doc.parent / "models" / "pet.yaml").write_text("Pet: {$ref: '../good.yaml#/Good'}\n")
    (doc.parent / "also.yaml").symlink_to(doc.parent / "good.yaml")
    result = import_openapi(str(doc), tmp_path / "dest", Selection())
    assert yaml.safe_load(result.spec_text)["tools"]["a"]["input"]["y"]["type"] == "string"
    hostile_folder(tmp_path, "also.yaml#/Good")
    result = import_openapi(str(doc), tmp_path / "dest", Selection())
    assert "y" in yaml.safe_load(result.spec_text)["tools"]["a"]["input"]


def test_the_size_cap_counts_every_file_a_document_reaches(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Many files each under the cap are refused once together they pass it."""
    doc = hostile_folder(tmp_path, "one.yaml#/One")
    filler = "# " + "x" * 1500 + "\n"
    (doc.parent / "one.yaml").write_text(filler + "One: {$ref: 'two.yaml#/Two'}\n")
    (doc.parent / "two.yaml").write_text(filler + "Two: {type: object, properties: {y: {type: string}}}\n")
    monkeypatch.setattr(document, "MAX_BYTES", len(doc.read_bytes()) + 2000)
    with pytest.raises(FailwellError, match=r"two\.yaml .*more than the .* left: failwell reads at most"):
        import_openapi(str(doc), tmp_path / "dest", Selection())
    monkeypatch.setattr(document, "MAX_BYTES", len(doc.read_bytes()) + 4000)
    import_openapi(str(doc), tmp_path / "dest", Selection())


@pytest.mark.slow
def test_yaml_a_document_reaches_is_bounded_as_yaml_in_memory_and_time(tmp_path: Path) -> None:
    """Found by the red team after issue 39: a 13 MB YAML file beside the document, reached by one $ref, took 15 s
    and 1.3 GB (a YAML reader holds about 100 bytes a byte), and the 64 MB budget allowed five times that. YAML is
    read up to 16 MB, all files together: a 20 MB one is one line at once, in a process allowed 1 GB; the same
    data as JSON is read."""
    doc = tmp_path / "api" / "doc.yaml"
    doc.parent.mkdir()
    doc.write_text(
        "openapi: 3.0.0\ninfo: {title: t, version: '1'}\npaths:\n  /a:\n    get:\n      operationId: a\n"
        "      responses: {'200': {description: ok, content: {application/json: {schema: {$ref: 'big.yaml#/x'}}}}}\n"
    )
    rows = [f"  k{i}: [{i}, {{a: b{i}}}]\n" for i in range(640_000)]
    (doc.parent / "big.yaml").write_text("x:\n" + "".join(rows))
    code, out, err, seconds = run("import", "openapi", doc, tmp_path / "dest", memory=1 << 30)
    assert code == 1 and seconds < 10 and err.count("\n") == 1 and out == "", (code, seconds, err[-500:])
    assert "big.yaml is 21,426,673 bytes of YAML, more than the" in err and "convert the large files" in err
    assert not (tmp_path / "dest").exists()
    (doc.parent / "big.yaml").write_text(json.dumps({"x": {"type": "object"}}))
    code, _, err, _ = run("import", "openapi", doc, tmp_path / "dest", memory=1 << 30)
    assert code == 0, err


def billion_laughs(levels: int) -> str:
    lines = [
        "openapi: 3.0.0",
        "info: {title: t, version: '1'}",
        "x-lol:",
        "  l0: &l0 [" + ", ".join(["lol"] * 10) + "]",
    ]
    for level in range(1, levels):
        lines.append(f"  l{level}: &l{level} [" + ", ".join([f"*l{level - 1}"] * 10) + "]")
    operation = {
        "operationId": "a",
        "parameters": [{"name": "q", "in": "query", "schema": {"type": "string", "example": "EXAMPLE"}}],
        "responses": {"200": {"description": "ok"}},
    }
    paths = yaml.safe_dump({"paths": {"/a": {"get": operation}}}, sort_keys=False)
    return "\n".join(lines) + "\n" + paths.replace("EXAMPLE", f"*l{levels - 1}")


@pytest.mark.slow
def test_a_billion_laughs_is_one_line_quickly_within_bounded_memory(tmp_path: Path) -> None:
    """Ten levels of ten aliases (10**10 values) in an example, which the mapper would walk: refused at once in a
    process allowed 1 GB of address space, before any reader builds it."""
    doc = tmp_path / "laughs.yaml"
    doc.write_text(billion_laughs(10))
    code, out, err, seconds = run("import", "openapi", doc, tmp_path / "dest", memory=1 << 30)
    assert code == 1, (code, seconds, err[-500:])
    assert seconds < 10 and out == "" and err.count("\n") == 1, err
    assert f"{doc}:" in err and "YAML aliases here add more than 100,000 values" in err
    assert not (tmp_path / "dest").exists()


def test_a_document_nested_past_what_a_reader_can_hold_is_one_line(tmp_path: Path) -> None:
    """100,000 brackets: Python's JSON reader recurses, so the import says so in one line (no RecursionError)."""
    doc = tmp_path / "deep.json"
    doc.write_text('{"openapi": "3.0.0", "x": ' + "[" * 100_000 + "]" * 100_000 + "}")
    with pytest.raises(FailwellError, match=r"deep\.json is nested too deeply to read"):
        import_openapi(str(doc), tmp_path / "dest", Selection())


def test_a_few_aliases_are_read(tmp_path: Path) -> None:
    """A document that shares a schema by an anchor, as some do, imports."""
    doc = tmp_path / "doc.yaml"
    doc.write_text(billion_laughs(2))
    result = import_openapi(str(doc), tmp_path / "dest", Selection())
    assert "q" in yaml.safe_load(result.spec_text)["tools"]["a"]["input"]


@contextmanager
def trickling(where: str, gap_s: float = 0.25, most: int = 120) -> Iterator[str]:
    """A loopback HTTP server that answers every request with a document, one byte every `gap_s` seconds: its
    status line and headers (`where="headers"`) or its body (`"body"`), at most `most` bytes slowly; its URL."""
    body = b"openapi: 3.0.0\ninfo: {title: t, version: '1'}\npaths: {}\n" + b"#" * most
    head = b"HTTP/1.1 200 OK\r\nContent-Type: application/yaml\r\nContent-Length: %d\r\n\r\n" % len(body)
    slow, fast = (head, body) if where == "headers" else (b"", head + body)
    stop = threading.Event()
    listener = socket.create_server(("127.0.0.1", 0))
    listener.settimeout(0.2)

    def serve() -> None:
        while not stop.is_set():
            try:
                conn, _ = listener.accept()
            except TimeoutError:
                continue
            with conn:
                try:
                    conn.recv(65536)
                    if where == "body":
                        conn.sendall(fast[: len(head)])
                    for index in range(min(len(slow or fast), most)):
                        if stop.wait(gap_s):
                            return
                        conn.sendall((slow or fast[len(head) :])[index : index + 1])
                except OSError:
                    continue

    thread = threading.Thread(target=serve, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{listener.getsockname()[1]}/openapi.yaml"
    finally:
        stop.set()
        thread.join(timeout=5)
        listener.close()


@pytest.mark.parametrize("where", ["headers", "body"])
def test_a_fetch_has_one_deadline_however_slowly_the_server_sends(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, where: str
) -> None:
    """A byte every 0.25 s never trips a per-read timeout; the whole fetch still ends at its deadline (1.5 s
    here, 30 s by default), with one line, where the server would keep it for 30 s."""
    monkeypatch.setattr(document, "FETCH_TIMEOUT_S", 1.5)
    with trickling(where) as url:
        started = time.monotonic()
        with pytest.raises(FailwellError) as refused:
            import_openapi(url, tmp_path / "dest", Selection())
        seconds = time.monotonic() - started
    assert seconds < 6, f"the fetch took {seconds:.1f} s (the server would hold it 30 s)"
    assert refused.value.message == (
        f"{url} was not fetched within 1.5 s; check the address, or download it and give the file"
    )


@contextmanager
def redirecting() -> Iterator[tuple[str, list[str]]]:
    """A loopback HTTP server: `/to?URL` answers 302 to URL, `/doc` a small document; (its address, the paths
    asked for)."""
    import http.server
    import urllib.parse

    asked: list[str] = []

    class Handler(http.server.BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            asked.append(self.path)
            if self.path.startswith("/to?"):
                self.send_response(302)
                self.send_header("Location", urllib.parse.unquote(self.path[4:]))
                self.send_header("Content-Length", "0")
                self.end_headers()
                return
            body = b"openapi: 3.0.0\ninfo: {title: t, version: '1'}\npaths: {}\n"
            self.send_response(200)
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, *args: Any) -> None:
            pass

    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    thread = threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.1}, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}", asked
    finally:
        server.shutdown()
        server.server_close()
        thread.join(timeout=5)


@pytest.mark.parametrize("target", ["ftp://127.0.0.1:{port}/openapi.yaml", "file:///etc/hostname", "data:,x"])
def test_a_fetch_follows_redirects_to_http_only(tmp_path: Path, target: str) -> None:
    """Issue 39 point 8, found by the red team: urllib's default opener follows a redirect to `ftp://`, whose fetch
    no deadline bounds (a trickling FTP server held an import past 75 s), and has file and data handlers. Only
    http(s) is followed; anything else is one line naming the scheme, nothing written."""
    with socket.create_server(("127.0.0.1", 0)) as silent, redirecting() as (base, asked):
        started = time.monotonic()
        where = target.format(port=silent.getsockname()[1])
        with pytest.raises(FailwellError) as refused:
            import_openapi(f"{base}/to?{where}", tmp_path / "dest", Selection())
        assert time.monotonic() - started < 5
        scheme = where.partition(":")[0]
        assert f"it redirects to a {scheme} address; failwell follows http(s)" in refused.value.message
        assert not (tmp_path / "dest").exists()
        followed = document.load(f"{base}/to?{base}/doc")
        assert asked[-1] == "/doc" and followed.version.startswith("3.0")


def test_a_document_url_with_credentials_is_refused_without_showing_them(tmp_path: Path) -> None:
    with pytest.raises(FailwellError) as refused:
        import_openapi("https://alice:pw-Zq81xK@127.0.0.1:9/openapi.json", tmp_path / "dest", Selection())
    assert "https://127.0.0.1:9/openapi.json" in refused.value.message
    assert "alice" not in refused.value.message and "pw-Zq81xK" not in refused.value.message


USER, PASSWORD = "alice-7f3k", "pw-Zq81xK"


@pytest.mark.slow
def test_credentials_in_a_servers_url_reach_no_file_and_a_warning_says_where_they_go(tmp_path: Path) -> None:
    servers: list[dict[str, Any]] = [
        {"url": f"https://{USER}:{PASSWORD}@api.example.com/v2", "description": "production"},
    ]
    doc = {
        "openapi": "3.1.0",
        "info": {"title": "T", "version": "1"},
        "servers": servers,
        "paths": {"/a": {"get": {"operationId": "a", "responses": {"200": {"description": "ok"}}}}},
    }
    source = tmp_path / "doc.json"
    source.write_text(json.dumps(doc))
    dest = tmp_path / "dest"
    code, out, err, _ = run("import", "openapi", source, dest)
    assert code == 0, err
    written = tree(dest)
    assert {"failwell.yaml", "README.md"} <= set(written) and any(p.endswith("server.py") for p in written)
    for path, content in written.items():
        assert USER.encode() not in content and PASSWORD.encode() not in content, path
    assert USER not in out + err and PASSWORD not in out + err
    spec = yaml.safe_load(written["failwell.yaml"])
    assert spec["upstreams"]["dest_api"]["base_url"] == "https://api.example.com/v2"
    warning = [line for line in err.splitlines() if line.startswith("failwell: warning:")]
    assert len(warning) == 1 and "secret: true" in warning[0] and "docs/how-to/settings.md" in warning[0], err


def test_credentials_from_server_variables_are_stripped_too(tmp_path: Path) -> None:
    variables = {"user": {"default": USER}, "password": {"default": PASSWORD}}
    doc = {
        "openapi": "3.1.0",
        "info": {"title": "T", "version": "1"},
        "servers": [{"url": "https://{user}:{password}@api.example.com", "variables": variables}],
        "paths": {"/a": {"get": {"operationId": "a", "responses": {"200": {"description": "ok"}}}}},
    }
    source = tmp_path / "doc.json"
    source.write_text(json.dumps(doc))
    result = import_openapi(str(source), tmp_path / "dest", Selection())
    assert USER not in result.spec_text and PASSWORD not in result.spec_text
    assert yaml.safe_load(result.spec_text)["upstreams"]["dest_api"]["base_url"] == "https://api.example.com"
    assert len(result.warnings) == 1 and USER not in result.warnings[0] and PASSWORD not in result.warnings[0]


API_KEY, TOKEN = "ak-Vd93kQm2xP", "tk-Lw51bZr8nE"


@pytest.mark.slow
def test_secret_query_parameters_in_a_servers_url_reach_no_file_and_a_warning_says_where_they_go(
    tmp_path: Path,
) -> None:
    """A servers URL `https://api.example.com/v2?api_key=...&region=eu&token=...` (red team): the secret-named
    parameters are left out of every file written (the spec, server.py, the README), the others kept, and one
    warning names them and points at a secret setting, as for `user:password@`."""
    doc = {
        "openapi": "3.1.0",
        "info": {"title": "T", "version": "1"},
        "servers": [{"url": f"https://api.example.com/v2?api_key={API_KEY}&region=eu&token={TOKEN}"}],
        "paths": {"/a": {"get": {"operationId": "a", "responses": {"200": {"description": "ok"}}}}},
    }
    source = tmp_path / "doc.json"
    source.write_text(json.dumps(doc))
    dest = tmp_path / "dest"
    code, out, err, _ = run("import", "openapi", source, dest)
    assert code == 0, err
    written = tree(dest)
    assert {"failwell.yaml", "README.md"} <= set(written) and any(p.endswith("server.py") for p in written)
    for path, content in written.items():
        assert API_KEY.encode() not in content and TOKEN.encode() not in content, path
    assert API_KEY not in out + err and TOKEN not in out + err
    spec = yaml.safe_load(written["failwell.yaml"])
    assert spec["upstreams"]["dest_api"]["base_url"] == "https://api.example.com/v2?region=eu"
    warning = [line for line in err.splitlines() if line.startswith("failwell: warning:")]
    assert len(warning) == 1 and "api_key, token" in warning[0] and "secret: true" in warning[0], err


@pytest.mark.parametrize(
    "url", ["https://api.example.com/v2 x", "https://api.example.com/\n# x", "https://a.b/\u202ex"]
)
def test_a_servers_url_with_a_blank_or_a_control_character_is_not_used(tmp_path: Path, url: str) -> None:
    """A servers URL holding a blank, a line break or a bidi control is not written as the base URL (the spec's
    pattern refuses it too): the upstream's variable is needed instead, and a warning says so."""
    doc = {
        "openapi": "3.1.0",
        "info": {"title": "T", "version": "1"},
        "servers": [{"url": url}],
        "paths": {"/a": {"get": {"operationId": "a", "responses": {"200": {"description": "ok"}}}}},
    }
    source = tmp_path / "doc.json"
    source.write_text(json.dumps(doc))
    result = import_openapi(str(source), tmp_path / "dest", Selection())
    upstream = yaml.safe_load(result.spec_text)["upstreams"]["dest_api"]
    assert "base_url" not in upstream, upstream
    assert any("does not print" in warning for warning in result.warnings), result.warnings


@pytest.mark.parametrize("url", ["https://api.example.com/v2 x", "https://api.example.com/v2\n", "https://a.b/\u202ex"])
def test_the_spec_refuses_a_base_url_with_a_blank_or_a_control_character(url: str) -> None:
    """`upstreams.X.base_url` is refused by its pattern when it holds a blank or a control character anywhere
    (before the fix only its host was checked: `https://h/\\n# x` passed)."""
    from failwell.render.pipeline import diagnose

    text = (
        "failwell: 1\nserver: {name: shop}\n"
        f"upstreams:\n  shop_api: {{base_url_env: SHOP_API_URL, base_url: {json.dumps(url)}, timeout_s: 5}}\n"
        "tools:\n  a_get:\n    description: Read a.\n    effect: read\n    upstreams: [shop_api]\n"
        "    output:\n      ok: {type: boolean}\n"
    )
    found = [d.code for d in diagnose(text, "spec.yaml")]
    assert "FW013" in found, found
    assert "FW013" not in [d.code for d in diagnose(text.replace(json.dumps(url), '"https://api.example.com/v2"'), "s")]


@pytest.mark.parametrize(
    "value", ["https://api.example.com/v2 x", "https://api.example.com/\n# x", "https://a.b/\x1b[2J"]
)
def test_the_server_refuses_a_base_url_variable_with_a_blank_or_a_control_character(value: str) -> None:
    """The generated server's check of an upstream's base URL variable (before serving) refuses a blank or a control
    character anywhere in it, without quoting the value."""
    from failwell.spec import messages

    config = messages.runtime("config")
    assert config.check_base_url("SHOP_API_URL", "https://api.example.com/v2", "x") == "https://api.example.com/v2"
    with pytest.raises(config.ConfigurationError) as refused:
        config.check_base_url("SHOP_API_URL", value, "the base URL of the `shop_api` upstream")
    assert "no blank or control character" in str(refused.value) and value not in str(refused.value)
