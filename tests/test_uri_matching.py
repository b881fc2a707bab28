"""Resource-template matching and template parameters, attacked over a real streamable-HTTP server on 127.0.0.1.

The matcher used to be a backtracking regular expression run on the event loop: a template whose variables are
separated by a character they may also hold (`dates://{year}-{month}-{day}`, `v://{a}.{b}.{c}.{d}`) took
minutes on a URI of a few KB, and every other caller waited. Lint now refuses such templates (FW180), so the
server here is generated with `/` between those variables and the two URIs are then put back into the generated
modules by hand, as a spec that skipped lint would have them; the server must still answer every hostile URI
with -32602 and answer another client's `ping` meanwhile. The time the other caller waited is printed (the
benchmark is `bench/uri_match.py`); the test bounds it only generously.

A template parameter is percent-decoded after matching, so a handler could receive `/`, `..` or NUL
(`files://..%2F..%2Fetc%2Fpasswd`): such a value is refused -32602 naming the parameter, unless the parameter's
pattern matches the whole value (a control character never passes).
"""

from __future__ import annotations

import dataclasses
import json
import random
import re
import time
from collections.abc import Iterator
from pathlib import Path

import anyio
import pytest
from httpserver import Running, client, http_server
from ledger import importable
from mcp.shared.exceptions import MCPError

from conftest import EXAMPLES
from failwell import new
from failwell.render.pipeline import diagnose

SPEC = """\
failwell: 1
server:
  name: uris
  version: 0.1.0
  description: Resources with URI templates, for the matcher and decoding tests.
resources:
  file:
    uri: "files://{name}"
    description: A file by its name.
    params:
      name: {type: string, example: notes.txt}
  dotted:
    uri: "dots://{path}"
    description: A dotted path, whose pattern allows dots and slashes.
    params:
      path: {type: string, pattern: "^[a-z./]+$", example: a.b}
  day:
    uri: "dates://{year}/{month}/{day}"
    description: A day, by three strings.
    params:
      year: {type: string, example: "2024"}
      month: {type: string, example: "01"}
      day: {type: string, example: "02"}
  version:
    uri: "v://{a}/{b}/{c}/{d}"
    description: A version of four parts.
    params:
      a: {type: string, example: "1"}
      b: {type: string, example: "2"}
      c: {type: string, example: "3"}
      d: {type: string, example: "4"}
  calendar:
    uri: "day://{year}-{month}-{day}"
    description: A day, by three integers.
    params:
      year: {type: integer, example: 2024}
      month: {type: integer, example: 1}
      day: {type: integer, example: 2}
"""
UNLINTED = {
    "day": ("dates://{year}/{month}/{day}", "dates://{year}-{month}-{day}"),
    "version": ("v://{a}/{b}/{c}/{d}", "v://{a}.{b}.{c}.{d}"),
}
"""The two templates of the finding, which lint refuses: put into the generated modules after generation."""
HANDLER = '''\
"""Answers with the parameters it was given, as JSON text."""

import json

from ..._generated.resources.{name} import Context, Output, Params


async def handle(params: Params, ctx: Context) -> Output:
    return json.dumps(params.model_dump(), sort_keys=True)
'''

HOSTILE = [
    "dates://" + "-" * 4096 + "/",
    "v://" + "." * 1024 + "/",
    "dates://" + "1-" * 2048 + "/",
    "v://" + "1." * 2048 + "/",
    "day://" + "-" * 4096 + "/",
    "day://" + "1-" * 2048 + "x",
    "files://" + "%2F" * 1400 + "/",
    "dots://" + "." * 4096 + "/",
    "dates://" + "-%2D" * 1024 + "#",
    "v://" + ".?" * 2048,
]
"""Each is no resource's URI (-32602), and each took the old matcher from seconds to hours."""


@pytest.fixture(scope="module")
def project(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("uris")
    (root / "failwell.yaml").write_text(SPEC)
    new(root / "uris", root / "failwell.yaml")
    package = root / "uris" / "src" / "uris_mcp"
    for name, (linted, unlinted) in UNLINTED.items():
        module = package / "_generated" / "resources" / f"{name}.py"
        module.write_text(module.read_text().replace(f'URI = "{linted}"', f'URI = "{unlinted}"'))
    for name in ("file", "dotted", "day", "version", "calendar"):
        (package / "handlers" / "resources" / f"{name}.py").write_text(HANDLER.replace("{name}", name))
    return root / "uris"


@pytest.fixture(scope="module")
def server(project: Path) -> Iterator[Running]:
    with http_server("uris_mcp", project / "src", project / "server.log", {}) as running:
        yield running


def test_lint_refuses_the_two_templates_and_accepts_the_integer_one() -> None:
    assert diagnose(SPEC, "spec.yaml") == []
    text = SPEC
    for linted, unlinted in UNLINTED.values():
        text = text.replace(linted, unlinted)
    found = diagnose(text, "spec.yaml")
    codes = sorted((d.code, d.message.split(" are separated")[0]) for d in found)
    assert codes == [
        ("FW180", "{a} and {b}"),
        ("FW180", "{b} and {c}"),
        ("FW180", "{c} and {d}"),
        ("FW180", "{month} and {day}"),
        ("FW180", "{year} and {month}"),
    ], [d.message for d in found]
    assert "a character {year} cannot hold (such as `/`)" in next(d.message for d in found if "{year}" in d.message)


AGREE = {
    # a template lint accepts, its params' types, and the characters its random URIs are made of
    "day://{year}-{month}-{day}": ({"year": "integer", "month": "integer", "day": "integer"}, "0123456789-/x"),
    "img://{id}.png": ({"id": "string"}, "ab.png/"),
    "a://{x}/b/{y}": ({"x": "string", "y": "string"}, "ab/-."),
    "v://{major}.{minor}": ({"major": "integer", "minor": "string"}, "12.-a/"),
    "tasks://{ref}": ({"ref": "string"}, "T-1/?#"),
}


def _valid(value: str, kind: str) -> bool:
    return re.fullmatch(r"-?[0-9]{1,16}", value) is not None if kind == "integer" else True


def test_the_linear_matcher_splits_every_uri_a_linted_template_accepts_as_the_regex_did() -> None:
    """For templates lint accepts, every URI whose parts are valid values is split by the new matcher exactly
    as the old backtracking regular expression split it (4,000 seeded random URIs per template)."""
    with importable(EXAMPLES / "tasks" / "src", "tasks_mcp"):
        from tasks_mcp._generated.resources import task

        async def handle(params: object, ctx: object) -> object:
            return {}

        base = task.definition(handle)
        rng = random.Random(24)
        compared = 0
        for template, (kinds, alphabet) in AGREE.items():
            assert not [d for d in diagnose(_spec_with(template, kinds), "spec.yaml") if d.severity == "error"]
            resource = dataclasses.replace(base, uri=template)
            parts = re.split(r"\{([a-z_]+)\}", template)
            old = re.compile("".join(re.escape(p) if i % 2 == 0 else f"(?P<{p}>[^/?#]+)" for i, p in enumerate(parts)))
            head = parts[0]
            for _ in range(4000):
                uri = head + "".join(rng.choice(alphabet) for _ in range(rng.randint(1, 12)))
                if rng.random() < 0.5:  # and some built from valid values, so that many match
                    values = {n: str(rng.randint(-9, 99)) if k == "integer" else "ab" for n, k in kinds.items()}
                    uri = template.format(**values)
                found = old.fullmatch(uri)
                if found is not None and all(_valid(v, kinds[n]) for n, v in found.groupdict().items()):
                    assert resource.split(uri) == found.groupdict(), uri
                    compared += 1
                elif found is None:
                    assert resource.split(uri) is None, uri
        assert compared > 5000


def _spec_with(template: str, kinds: dict[str, str]) -> str:
    params = "".join(f"      {name}: {{type: {kind}}}\n" for name, kind in kinds.items())
    return (
        "failwell: 1\nserver: {name: agree}\nresources:\n  thing:\n"
        f'    uri: "{template}"\n    description: A thing.\n    params:\n{params}'
    )


@pytest.mark.slow
@pytest.mark.filterwarnings("ignore:ping is removed")
def test_hostile_uris_are_refused_and_the_other_caller_is_answered_meanwhile(server: Running) -> None:
    waited: list[float] = []
    outcomes: dict[str, object] = {}

    async def attack() -> None:
        async with client(server.url) as attacker:
            for uri in HOSTILE:
                try:
                    await attacker.read_resource(uri)
                except MCPError as exc:
                    outcomes[uri] = exc.error.code
                else:
                    outcomes[uri] = "served"

    async def main() -> None:
        async with client(server.url, mode="legacy") as other:
            await other.send_ping()
            async with anyio.create_task_group() as group:
                group.start_soon(attack)
                for _ in range(40):  # bounded: the attack ends long before, or the liveness check fails
                    started = time.perf_counter()
                    with anyio.fail_after(15):  # liveness only: "answered at all"; the figure is printed
                        await other.send_ping()
                    waited.append(time.perf_counter() - started)
                    if len(outcomes) == len(HOSTILE):
                        break
                    await anyio.sleep(0.05)
                with anyio.fail_after(60):
                    while len(outcomes) < len(HOSTILE):
                        await anyio.sleep(0.05)
            served = json.loads((await other.read_resource("dates://2024-01-02")).contents[0].text)  # type: ignore[union-attr]
            assert served == {"day": "02", "month": "01", "year": "2024"}

    anyio.run(main)
    assert outcomes == dict.fromkeys(HOSTILE, -32602)
    print(f"\nuri-matcher: {len(HOSTILE)} hostile URIs; the other caller's ping took at most {max(waited):.3f} s")


DECODED = [
    # (uri, the parameter refused, or the parameters served)
    ("files://..%2F..%2Fetc%2Fpasswd", "name"),
    ("files://%2E%2E", "name"),
    ("files://.", "name"),
    ("files://..", "name"),
    ("files://a%2Fb", "name"),
    ("files://a%00b", "name"),
    ("files://%0Aline", "name"),
    ("files://%1B%5B2J", "name"),
    ("files://%FF%FE", "name"),
    ("dots://a%00", "path"),
    ("dates://%2E%2E-01-%2F", "year"),
    ("files://notes.txt", {"name": "notes.txt"}),
    ("files://a..b", {"name": "a..b"}),
    ("files://caf%C3%A9%20au%20lait", {"name": "café au lait"}),
    ("dots://a.b%2Fc", {"path": "a.b/c"}),
    ("dots://..", {"path": ".."}),
    ("day://-5-1-2", {"year": -5, "month": 1, "day": 2}),
    ("v://1.2.3.4", {"a": "1", "b": "2", "c": "3", "d": "4"}),
]


@pytest.mark.slow
def test_a_parameter_that_decodes_to_a_path_or_a_control_character_is_refused_naming_it(server: Running) -> None:
    answers: dict[str, object] = {}

    async def main() -> None:
        async with client(server.url) as session:
            for uri, _ in DECODED:
                try:
                    result = await session.read_resource(uri)
                except MCPError as exc:
                    answers[uri] = (exc.error.code, exc.error.message)
                else:
                    answers[uri] = json.loads(result.contents[0].text)  # type: ignore[union-attr]

    anyio.run(main)
    for uri, expected in DECODED:
        answer = answers[uri]
        if isinstance(expected, str):
            assert isinstance(answer, tuple), f"{uri} reached the handler as {answer}"
            code, message = answer
            assert code == -32602 and f"`{expected}` received" in message, (uri, message)
            assert "\x00" not in message and "\n`" not in message.split("received")[1][:40]
        else:
            assert answer == expected, (uri, answer)
    assert "Traceback" not in server.logged()
