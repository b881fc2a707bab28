"""Specs read as YAML 1.2, and the fast reader (quickyaml, libyaml) agrees with ruamel.yaml on everything it reads."""

from __future__ import annotations

import datetime
from typing import Any

import pytest

from conftest import REPO
from failwell.errors import FailwellError
from failwell.spec import bounds, quickyaml
from failwell.spec.load import _load_with_ruamel, load_text

SCALARS: list[tuple[str, Any]] = [
    ("yes", "yes"),
    ("no", "no"),
    ("on", "on"),
    ("off", "off"),
    ("Yes", "Yes"),
    ("y", "y"),
    ("true", True),
    ("False", False),
    ("TRUE", True),
    ("null", None),
    ("~", None),
    ("", None),
    ("0777", 777),
    ("0o17", 15),
    ("0x1F", 31),
    ("1_000", 1000),
    ("-3", -3),
    ("+3", 3),
    (".5", 0.5),
    ("1.5", 1.5),
    ("1e3", 1000.0),
    ("12:30", "12:30"),
    ("0.1.0", "0.1.0"),
    ("2024-01-01", datetime.date(2024, 1, 1)),
    ("2024-01-01 10:00:00", datetime.datetime(2024, 1, 1, 10, 0)),
    ("'yes'", "yes"),
    ('"1"', "1"),
]


@pytest.mark.parametrize(("written", "value"), SCALARS, ids=[written or "empty" for written, _ in SCALARS])
def test_plain_scalars_read_as_yaml_1_2(written: str, value: Any) -> None:
    loaded = load_text(f"key: {written}\n", "spec.yaml").data["key"]
    assert (type(loaded), loaded) == (type(value), value)


DOCUMENTS = [
    "a: 1\nb: [x, 'y', \"z\"]\nc: {d: e, f: [1, 2.5, true, ~]}\n",
    "a:\n  - x\n  -\n    b: 1\n    c: 2\n  - - 3\n    - 4\nd:\n- e\n",
    "a: |\n  one\n  two\n\nb: >-\n  folded\n  text\n\n  para\nc: |+\n  kept\n\n",
    "a: plain\n  continued\n\n  para\nb: 'it''s'\nc: \"tab\\tnl\\n\\u00e9\"\n",
    "a: 1 # comment\n# line\n\nb:    spaced   \n",
    "ünï: cödé\nb: [é, '😀', {😀: x}]\nc: 日本語\n",
    "a: 1\r\nb:\r\n  c: |\r\n    x\r\n",
    "---\na: 1\n...\n",
    'a: ! 12\nb: ! "12"\n',
    "a: !!str 1\nb: !foo x\n",
    "a: &x true\nb: *x\n",
    "base: &b {x: 1}\nd:\n  <<: *b\n",
    "%YAML 1.1\n---\na: yes\n",
    "a:\nb: 1\nc: {x: }\n",
    "a: 1\t\n",
    "a: >#x\n  y\n",
    "a: |\n \n   x\n",
    "a: 1\na: 2\n",
    "1: a\ntrue: b\n",
    "? [a]\n: 1\n",
    "a: [1, 2\n",
    "- a\n",
    "",
]


def corpus() -> list[tuple[str, str]]:
    files = sorted([*REPO.glob("examples/*/failwell.yaml"), *REPO.glob("tests/invalid/*.yaml")])
    files.append(REPO / "generator" / "failwell" / "starter.yaml")
    texts = [(str(path.relative_to(REPO)), path.read_bytes().decode("utf-8", errors="replace")) for path in files]
    # what bounds.py refuses before any reader reads it (tests/test_hostile_specs.py) is left out: a billion laughs
    readable = [(name, text) for name, text in texts if not (bounds.check_text(text, name) or bounds.scan(text, name))]
    return readable + [(repr(text), text) for text in DOCUMENTS]


def canonical(value: Any) -> Any:
    """Compare values with their types: 1, 1.0 and True differ here."""
    if isinstance(value, dict):
        return {key: canonical(item) for key, item in value.items()}
    if isinstance(value, list):
        return [canonical(item) for item in value]
    return (type(value).__name__, repr(value))


@pytest.mark.parametrize(("name", "text"), corpus(), ids=[name for name, _ in corpus()])
def test_the_fast_reader_agrees_with_ruamel(name: str, text: str) -> None:
    quick = quickyaml.load(text)
    if quick is None:
        return  # load_text reads it with ruamel.yaml
    data, positions, key_positions = quick
    try:
        doc = _load_with_ruamel(text, "spec.yaml")
    except FailwellError as exc:
        pytest.fail(f"ruamel.yaml refuses what the fast reader took: {exc.diagnostics}")
    assert canonical(data) == canonical(doc.data)
    assert positions == doc._positions
    assert key_positions == doc._key_positions


def test_the_examples_take_the_fast_path() -> None:
    for spec in REPO.glob("examples/*/failwell.yaml"):
        assert quickyaml.load(spec.read_text(encoding="utf-8")) is not None, spec


@pytest.mark.parametrize(
    ("text", "where", "code"),
    [
        ("a: 1\nb: 2\na: 3\n", (3, 1), "FW104"),
        ("a: 1\nb: [1, 2\n", (2, 4), "FW001"),  # the [ never closed, not the end of the file
        ("a: {x: 1\nb: 2\n", (1, 4), "FW001"),  # the { never closed, not the next key
        ("a: 1\nb: x: y\n", (2, 5), "FW001"),
    ],
)
def test_yaml_errors_keep_their_position(text: str, where: tuple[int, int], code: str) -> None:
    with pytest.raises(FailwellError) as raised:
        load_text(text, "spec.yaml")
    (diagnostic,) = raised.value.diagnostics
    assert ((diagnostic.line, diagnostic.col), diagnostic.code) == (where, code)


def test_positions_point_at_keys_and_values() -> None:
    doc = load_text("server:\n  name: shop\ntools:\n  - a\n  -   b\n", "spec.yaml")
    assert doc.position(("server", "name")) == (2, 9)
    assert doc.position(("server", "name"), key=True) == (2, 3)
    assert doc.position(("tools", 1)) == (5, 7)


def test_without_libyaml_every_spec_is_read_by_ruamel(monkeypatch: pytest.MonkeyPatch) -> None:
    import failwell.spec.load

    text = (REPO / "examples" / "tasks" / "failwell.yaml").read_text()
    fast = load_text(text, "failwell.yaml")
    monkeypatch.setattr(failwell.spec.load, "quickyaml", None)
    slow = load_text(text, "failwell.yaml")
    assert slow.data == fast.data
    assert slow._positions == fast._positions and slow._key_positions == fast._key_positions
