"""The quick yes-or-no schema check (spec/quickschema.py) judges exactly as `jsonschema`, which it stands in for
on the happy path: on every spec the suite holds, on thousands of mutations of them, and on made-up fields and
values. A disagreement would let an invalid spec through (or refuse a valid one), so each is a failure here."""

from __future__ import annotations

import copy
import json
import random
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from jsonschema import Draft202012Validator, validators

from failwell.errors import FailwellError
from failwell.spec import fields, quickschema
from failwell.spec.load import load_text
from failwell.spec.validate import _is_integer, _pattern, schema

ROOT = Path(__file__).resolve().parents[1]
SPECS = sorted(
    path
    for pattern in ("examples/*/failwell.yaml", "tests/**/*.yaml", "generator/failwell/starter.yaml")
    for path in ROOT.glob(pattern)
    if "golden" not in path.parts and "node_modules" not in path.parts
)
STRICT = validators.extend(  # type: ignore[no-untyped-call]
    Draft202012Validator,
    {"pattern": _pattern},  # read as ECMA-262 reads it, `$` the end of the text, as the spec's validator reads it
    type_checker=Draft202012Validator.TYPE_CHECKER.redefine("integer", _is_integer),
)(schema())
ODD_VALUES: list[Any] = [None, True, False, 0, -1, 1.5, 2.0, 10**9, "", "x", "UPPER case!", [], [1], {}, {"k": 1}]


def spec_data() -> list[tuple[str, Any]]:
    out = []
    for path in SPECS:
        try:
            out.append((path.relative_to(ROOT).as_posix(), load_text(path.read_text(encoding="utf-8"), "x").data))
        except (FailwellError, UnicodeDecodeError):
            continue  # refused before the schema is asked (not YAML, a bound)
    return out


def same_verdict(data: Any) -> None:
    expected = STRICT.is_valid(data)
    try:
        quick = quickschema.valid(data, schema(), strict_integers=True)
    except quickschema.Unsupported:
        return  # a spec with a `schema:` field (the ports): validate() asks jsonschema itself, the same verdict
    assert quick == expected, json.dumps(data, default=str)[:500]


def test_the_suite_holds_valid_and_invalid_specs() -> None:
    verdicts = [STRICT.is_valid(data) for _, data in spec_data()]
    assert verdicts.count(True) >= 20 and verdicts.count(False) >= 20, verdicts


@pytest.mark.parametrize(("name", "data"), spec_data(), ids=lambda value: value if isinstance(value, str) else "")
def test_every_spec_of_the_suite_gets_the_same_verdict(name: str, data: Any) -> None:
    same_verdict(data)


def paths(node: Any, prefix: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    out = [prefix]
    if isinstance(node, dict):
        for key, value in node.items():
            out += paths(value, (*prefix, key))
    elif isinstance(node, list):
        for index, value in enumerate(node):
            out += paths(value, (*prefix, index))
    return out


def mutated(data: Any, path: tuple[Any, ...], how: int, rng: random.Random) -> Any:
    data = copy.deepcopy(data)
    parent = data
    for part in path[:-1]:
        parent = parent[part]
    last = path[-1]
    target = parent[last]
    if how == 0:
        del parent[last]
    elif how == 1 and isinstance(target, dict):
        target[rng.choice(["zz_unknown", "type", "pattern", "enum", "minimum"])] = rng.choice(ODD_VALUES)
    elif how == 2 and isinstance(target, list):
        target.append(copy.deepcopy(rng.choice(target)) if target else rng.choice(ODD_VALUES))
    else:
        parent[last] = copy.deepcopy(rng.choice(ODD_VALUES))
    return data


@pytest.mark.parametrize("seed", range(4))
def test_mutated_specs_get_the_same_verdict(seed: int) -> None:
    """Each of 150 mutations a seed picks: a key dropped, a value swapped for one of another type, a key added, a
    list item repeated, anywhere in a valid spec of the suite."""
    rng = random.Random(seed)
    valid = [data for _, data in spec_data() if STRICT.is_valid(data)]
    verdicts = []
    for _ in range(150):
        data = rng.choice(valid)
        path = rng.choice(paths(data)[1:])
        changed = mutated(data, path, rng.randrange(4), rng)
        same_verdict(changed)
        verdicts.append(STRICT.is_valid(changed))
    assert 10 < verdicts.count(False) < 150, "the mutations must make both valid and invalid specs"


FIELD_VALIDATOR = fields._validator_class()

strings = st.text(alphabet=st.sampled_from("aZ09-_ @.:/é\n"), max_size=8)
scalars = st.one_of(st.none(), st.booleans(), st.integers(-5, 5), st.floats(-5, 5, allow_nan=False), strings)
values = st.recursive(
    scalars, lambda inner: st.lists(inner, max_size=3) | st.dictionaries(strings, inner, max_size=3), max_leaves=6
)


@st.composite
def field_specs(draw: st.DrawFn, depth: int = 0) -> dict[str, Any]:
    kind = draw(st.sampled_from(["string", "integer", "number", "boolean", "array", "object"][: 6 if depth < 2 else 4]))
    spec: dict[str, Any] = {"type": kind}
    if kind == "string":
        spec |= draw(st.fixed_dictionaries({}, optional={
            "minLength": st.integers(0, 3), "maxLength": st.integers(0, 6),
            "pattern": st.sampled_from(["^[a-z]+$", "[0-9]", "^A-[0-9]{2}$", "@", "^$"]),
            "format": st.sampled_from(["uri", "email", "date", "date-time", "uuid"]),
            "enum": st.lists(strings, min_size=1, max_size=3),
        }))  # fmt: skip
    elif kind in ("integer", "number"):
        bound = st.integers(-3, 3) if kind == "integer" else st.floats(-3, 3, allow_nan=False)
        spec |= draw(st.fixed_dictionaries({}, optional={
            "minimum": bound, "maximum": bound, "exclusiveMinimum": bound, "exclusiveMaximum": bound,
            "enum": st.lists(bound, min_size=1, max_size=3),
        }))  # fmt: skip
    elif kind == "array":
        spec["items"] = draw(field_specs(depth + 1))
        spec |= draw(st.fixed_dictionaries({}, optional={"minItems": st.integers(0, 2), "maxItems": st.integers(0, 3)}))
    elif kind == "object":
        spec["properties"] = draw(st.dictionaries(st.sampled_from(["a", "b", "c"]), field_specs(depth + 1), max_size=2))
    spec |= draw(st.fixed_dictionaries({}, optional={"nullable": st.booleans(), "required": st.booleans()}))
    return spec


@settings(max_examples=400, deadline=None)
@given(spec=field_specs(), value=values)
def test_a_field_and_a_value_get_the_same_verdict(spec: dict[str, Any], value: Any) -> None:
    expected = next(iter(FIELD_VALIDATOR(fields._published(spec)).iter_errors(value)), None) is None
    assert fields.conforms(value, spec) == expected
    assert (fields.fits(value, spec) is None) == expected


@settings(max_examples=200, deadline=None)
@given(spec=field_specs())
def test_a_fields_own_example_gets_the_same_verdict(spec: dict[str, Any]) -> None:
    """The values lint and the generated tests check are the ones made for the field: the hard cases."""
    found, refused = fields.violation(spec)
    for value in (fields.make_example(spec), *([refused] if found else [])):
        expected = next(iter(FIELD_VALIDATOR(fields._published(spec)).iter_errors(value)), None) is None
        assert fields.conforms(value, spec) == expected


def test_a_keyword_it_does_not_know_is_left_to_jsonschema() -> None:
    with pytest.raises(quickschema.Unsupported):
        quickschema.valid([1, 2], {"type": "array", "contains": {"const": 3}})
    with pytest.raises(quickschema.Unsupported):
        quickschema.valid({}, {"$ref": "https://example.com/schema"})
    assert quickschema.valid("x", {"type": "string", "x-vendor": {"contains": 1}})  # an annotation, as there


def test_a_valid_spec_does_not_import_jsonschema(tmp_path: Path) -> None:
    """The point of the quick check: `failwell new` of a valid spec never imports jsonschema (slow to import)."""
    code = (
        "import sys; from pathlib import Path; import failwell; "
        f"failwell.new(Path({str(tmp_path / 'out')!r}), spec=Path({str(ROOT / 'examples/tasks/failwell.yaml')!r})); "
        "print(sorted(name for name in sys.modules if name.split('.')[0] in ('jsonschema', 'referencing')))"
    )
    shown = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert shown.strip() == "[]"
