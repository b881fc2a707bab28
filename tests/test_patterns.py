"""Spec patterns mean what clients read (ECMA-262, `u` flag) and run in linear time on the server.

Node's `new RegExp(p, "u").test(s)` is the oracle: the Rust translation, run as the generated server runs
it (pydantic-core's `rust-regex`), accepts exactly the strings Node accepts. Both are searches, not
anchored, as JSON Schema's `pattern` is.
"""

from __future__ import annotations

import json
import re
import shutil
import subprocess
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from ledger import importable

from conftest import REPO, failwell
from failwell import new
from failwell.errors import FailwellError
from failwell.render.pipeline import diagnose
from failwell.spec.failures import IDEMPOTENCY_KEY
from failwell.spec.load import load_text
from failwell.spec.patterns import PatternError, matches, search, translate

NODE = shutil.which("node")
needs_node = pytest.mark.skipif(NODE is None, reason="node is not on PATH")

ORACLE = r"""
const lines = require("readline").createInterface({ input: process.stdin });
lines.on("line", (line) => {
  const { pattern, strings } = JSON.parse(line);
  let answer;
  try {
    const compiled = new RegExp(pattern, "u");
    answer = { compiles: true, verdicts: strings.map((s) => compiled.test(s)) };
  } catch (error) {
    answer = { compiles: false, error: String(error.message) };
  }
  process.stdout.write(JSON.stringify(answer) + "\n");
});
"""


class Oracle:
    """One Node process answering, for a pattern and strings, whether `new RegExp(p, "u")` compiles and
    what `.test` says of each string."""

    def __init__(self, process: subprocess.Popen[str]) -> None:
        self.process = process

    def ask(self, pattern: str, strings: list[str]) -> dict[str, Any]:
        assert self.process.stdin is not None and self.process.stdout is not None
        self.process.stdin.write(json.dumps({"pattern": pattern, "strings": strings}) + "\n")
        self.process.stdin.flush()
        answer: dict[str, Any] = json.loads(self.process.stdout.readline())
        return answer


@contextmanager
def node_oracle() -> Iterator[Oracle]:
    assert NODE is not None
    process = subprocess.Popen([NODE, "-e", ORACLE], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    try:
        yield Oracle(process)
    finally:
        assert process.stdin is not None
        process.stdin.close()
        process.wait(timeout=10)


# -- the corpus ----------------------------------------------------------------------------------------

CONSTRUCTS = [
    # \d \w \s and their negations, which ECMA-262 keeps narrower than Rust
    r"\d", r"^\d+$", r"\D", r"^\D*$", r"\w+", r"^\w+$", r"^\W$", r"\s", r"^\s+$", r"^\S+$", r"a\sb",
    # \b \B: ASCII word boundaries
    r"\bcat\b", r"\bé", r"é\b", r"a\Bb", r"a\B", r"^\w+\b", r"\b\d{3}\b",
    # . excludes \n \r U+2028 U+2029
    r"^.$", r"^.+$", r"a.c", r"^.*$", r"^[^\n]*$",
    # classes: ranges, negation, escapes, and what Rust reads as nesting or set operations
    r"[\d]", r"^[^\d]+$", r"[\D]", r"^[\w-]+$", r"^[\s\S]$", r"^[[]$", r"^[a[]+$", r"^[a&&b]+$", r"^[&&]$",
    r"^[a-c--b]+$", r"^[~~]+$", r"^[\-]$", r"^[-a]+$", r"^[a-]+$", r"^[\^a]+$", r"^[a^]+$", r"^[\]]$",
    r"^[\\]$", r"^[\b]$", r"^[^\s]$", r"^[^\W\d]+$", r"^[.]$", r"^[$]$", r"^[+--]+$", r"^[]$", r"^[^]$", r"[]",
    r"[^]",
    # escapes: unicode, hex, control, syntax characters
    r"\u00e9", r"^\u{1F600}$", r"^[\u{1F600}-\u{1F64F}]$", r"^\uD83D\uDE00$", r"\x41", r"\cJ", r"\0", r"\t",
    r"\v", r"\f", r"\n", r"\r", r"\u2028", r"\u{FEFF}", r"\/", r"\.", r"\$", r"\^", r"a\|b", r"\(\)",
    r"\{\}", r"\[\]", r"\*\+\?", r"\\",
    # literals beyond ASCII
    "é", "^😀+$", "^[😀-🙏]$", "٣", "^SKU-[0-9]+$", "SKU-[0-9]+", "^T-[0-9]+$",
    # anchors, alternation, groups
    r"^$", r"^", r"$", r"^a|b$", r"^(a|b)c$", r"^(?:ab)+$", r"^(?<y>[0-9]{4})-(?<m>[0-9]{2})$", r"(|a)b",
    # quantifiers and their lazy forms
    r"^a*?$", r"a+?b", r"^a??$", r"^a{2}$", r"^a{2,}$", r"^a{2,3}?$", r"^a{0}$", r"^(ab){1,2}$",
    # the patterns a backtracking engine cannot survive
    r"^(a+)+$", r"^(a|a)*$", r"^(a|aa)+$", r"(.*a){5}", r"^(\w+\s?)*$", r"^(a?){12}a{12}$", r"(x+x+)+y",
    # Unicode properties
    r"\p{L}", r"^\p{Lu}+$", r"\P{L}", r"\p{Nd}", r"\p{N}", r"^[\p{L}\d]+$", r"^[^\p{L}]+$", r"\p{Letter}",
    r"\p{General_Category=Decimal_Number}", r"\p{gc=Zs}", r"\p{Script=Greek}", r"\p{sc=Cyrl}",
    r"\p{Script_Extensions=Latin}", r"\p{White_Space}", r"\p{ASCII}", r"\p{Any}", r"\p{Alphabetic}",
    r"\P{Lowercase}",
]  # fmt: skip

# What lint refuses, and the code it gives: 133, 140 and 141 are patterns Node refuses too; 142 to 144
# are ECMA-262 that Node compiles and the server cannot (or failwell does not) run.
REFUSED = {
    "(": "FW133", ")": "FW133", "[": "FW133", "*": "FW133", "a{3,1}": "FW133", "[z-a]": "FW133", "\\": "FW133",
    "a**": "FW133", "a{2}{3}": "FW133",
    r"\A": "FW140", r"\Z": "FW140", r"\z": "FW140", "(?P<n>x)": "FW140", "(?P=n)": "FW140", "(?i)x": "FW140",
    "(?i:x)": "FW140", "a{,3}": "FW140", "a++": "FW140", "(?>a)": "FW140", "(?#c)": "FW140",
    r"\N{DIGIT ONE}": "FW140", r"\U0001F600": "FW140",
    r"\e": "FW141", r"\-": "FW141", r"\_": "FW141", r"\ ": "FW141", "x{": "FW141", "x}": "FW141", "]": "FW141",
    "[[:alpha:]]": "FW141", r"\x{41}": "FW141", r"[\d-z]": "FW141", r"[a-\w]": "FW141", "^*": "FW141",
    r"\b+": "FW141", "(?<a>x)(?<a>y)": "FW141", r"\p{Greek}": "FW141", r"\c1": "FW141", r"\01": "FW141",
    r"[\B]": "FW141", r"\u12": "FW141", r"\u{110000}": "FW141", r"\p": "FW141", "(?<1>x)": "FW141",
    "(?=a)": "FW142", "(?!a)": "FW142", "(?<=a)b": "FW142", "(?<!a)b": "FW142", r"(a)\1": "FW142",
    r"(?<n>a)\k<n>": "FW142",
    r"\uD800": "FW143", "(?<é>x)": "FW143", r"\p{Changes_When_NFKC_Casefolded}": "FW143",
    r"\p{Script=Adlam}": "FW143", r"\p{Cs}": "FW143", r"\p{gc=Surrogate}": "FW143",
    r"\p{lu}": "FW141", r"\p{Script}": "FW141", r"\p{Foo=Bar}": "FW141", r"\p{gc=Greek}": "FW141",
    "(a{1,1000}){1,1000}": "FW144",
}  # fmt: skip


def spec_patterns() -> list[str]:
    """Every pattern in the examples' specs and in the specs the tests use (YAML files and spec text)."""
    found = {IDEMPOTENCY_KEY["pattern"]}
    for path in [*REPO.glob("examples/*/failwell.yaml"), *REPO.glob("tests/**/*.yaml")]:
        try:
            found.update(_patterns_in(load_text(path.read_bytes().decode("utf-8", errors="replace"), path.name).data))
        except FailwellError:
            continue  # tests/invalid holds files that are not YAML, or hostile, on purpose
    for path in REPO.glob("tests/*.py"):
        found.update(re.findall(r"""pattern: "((?:[^"\\]|\\.)+)"[,}]""", path.read_text(encoding="utf-8")))
    return sorted(found)


def _patterns_in(value: Any) -> Iterator[str]:
    if isinstance(value, dict):
        for key, inner in value.items():
            if key == "pattern" and isinstance(inner, str):
                yield inner
            yield from _patterns_in(inner)
    elif isinstance(value, list):
        for inner in value:
            yield from _patterns_in(inner)


def accepted(candidates: list[str]) -> list[str]:
    out = []
    for pattern in candidates:
        try:
            translate(pattern)
        except PatternError:
            continue
        out.append(pattern)
    return out


CORPUS = sorted(set(accepted(spec_patterns()) + CONSTRUCTS))

TRICKY = [
    "", "a", "A", "z", "0", "9", "_", "-", ".", " ", "ab", "a b", "cat", "a cat!", "\n", "\r", "\t", "\v", "\f",
    "\u00a0", "\u1680", "\u2000", "\u200b", "\u2028", "\u2029", "\u202f", "\u3000", "\ufeff", "\u0085", "\u180e",
    "٣", "\uff10", "\u0663\u0664", "é", "ß", "K", "\u017f", "ǅ", "Σσ", "я", "中", "😀", "🙏", "a😀b", "[", "]", "&",
    "&&", "~~", "--", "^", "$", "\\", "/", "\x00", "\x08", "\x1b", "SKU-1042", "SKU-1042\n", "\nSKU-1042",
    "SKU-٣", "T-1", "T-1\n", "T-1\r", "x\u2028y", "aaaa!", "aaaaaaaaaaaaaaaaaaaaaaaaaaaaa!",
]  # fmt: skip


def variants(pattern: str) -> list[str]:
    """TRICKY plus strings near the pattern's own example (with a trailing newline, a non-ASCII digit...)."""
    example = translate(pattern).example
    near = []
    if example is not None:
        near = [example, example + "\n", example + "\r", "\n" + example, example + "\u2028", example + "x"]
        near += [example.replace(d, "٣") for d in "0123456789" if d in example]
        near += [example[:-1], example[1:], example * 2]
    return TRICKY + near


def rust_verdicts(pattern: str, strings: list[str]) -> list[bool]:
    return [matches(pattern, s) for s in strings]


# -- the differential tests ----------------------------------------------------------------------------


def test_the_corpus_covers_the_specs_and_every_construct() -> None:
    from_specs = accepted(spec_patterns())
    assert "^T-[0-9]+$" in from_specs and IDEMPOTENCY_KEY["pattern"] in from_specs
    assert set(CONSTRUCTS) <= set(CORPUS)
    print(f"\ncorpus: {len(CORPUS)} patterns ({len(from_specs)} from specs, {len(CONSTRUCTS)} constructs)")


@pytest.mark.slow
@needs_node
def test_every_corpus_pattern_accepts_what_node_accepts_on_tricky_strings() -> None:
    checked = 0
    with node_oracle() as node:
        for pattern in CORPUS:
            strings = variants(pattern)
            answer = node.ask(pattern, strings)
            assert answer["compiles"], (pattern, answer)
            mismatches = [
                (s, n) for s, n, r in zip(strings, answer["verdicts"], rust_verdicts(pattern, strings), strict=True)
                if n != r
            ]  # fmt: skip
            assert not mismatches, (pattern, translate(pattern).rust, mismatches)
            checked += len(strings)
    print(f"\n{len(CORPUS)} patterns x tricky strings: {checked} cases, Rust and Node agree on all")


CHARACTERS = st.characters(
    max_codepoint=0x2FFFF,
    exclude_categories=("Cs", "Cn", "Co"),  # Cn: what is unassigned here may be assigned in Node's Unicode
)


@st.composite
def cases(draw: st.DrawFn) -> tuple[str, list[str]]:
    pattern = draw(st.sampled_from(CORPUS))
    example = translate(pattern).example or ""
    alphabet = st.sampled_from(sorted(set("".join(TRICKY) + pattern + example))) | CHARACTERS
    text = st.text(alphabet, max_size=10)
    near = st.tuples(text, text).map(lambda t: t[0] + example + t[1])
    changed = st.tuples(st.integers(0, max(len(example) - 1, 0)), alphabet).map(
        lambda t: example[: t[0]] + t[1] + example[t[0] + 1 :]
    )
    return pattern, draw(st.lists(text | near | changed, min_size=1, max_size=8))


@pytest.mark.slow
@needs_node
def test_rust_translation_accepts_exactly_what_node_accepts() -> None:
    seen = {"cases": 0, "accepted": 0}
    with node_oracle() as node:

        @settings(max_examples=1500, deadline=None, suppress_health_check=[HealthCheck.too_slow])
        @given(cases())
        def agree(case: tuple[str, list[str]]) -> None:
            pattern, strings = case
            answer = node.ask(pattern, strings)
            assert answer["compiles"], answer
            assert rust_verdicts(pattern, strings) == answer["verdicts"], (pattern, translate(pattern).rust, strings)
            seen["cases"] += len(strings)
            seen["accepted"] += sum(answer["verdicts"])

        agree()
    print(f"\nhypothesis: {seen['cases']} strings over {len(CORPUS)} patterns, {seen['accepted']} accepted; all agree")


def generated_patterns() -> st.SearchStrategy[str]:
    r"""Random patterns of the subset: literals, classes, escapes, groups, alternation, quantifiers, anchors.

    `\B` is left out: V8 alone finds it between the halves of a surrogate pair (see the `\B` case below)."""
    literal = st.sampled_from([*"ab-_ é😀1&~^$/", r"\.", r"\[", r"\]", r"\^", r"\$", r"\\", r"\/", r"\n", r"\u2028"])
    item = st.sampled_from(
        [*"ab-&~^[1é😀 ", r"\d", r"\D", r"\w", r"\W", r"\s", r"\S", r"\]", r"\\", r"\-", r"\b", r"\p{L}", r"\P{Lu}",
         "0-9", "a-c", "!--", r"\u2028", r"\u{1F600}-\u{1F64F}"]
    )  # fmt: skip
    klass = st.builds(
        lambda negated, items: f"[{'^' if negated else ''}{''.join(items)}]", st.booleans(), st.lists(item, max_size=4)
    )
    escape = st.sampled_from([".", r"\d", r"\D", r"\w", r"\W", r"\s", r"\S", r"\p{L}", r"\P{L}", r"\p{Nd}", r"\r"])
    quantifier = st.sampled_from(["", "", "*", "+", "?", "{2}", "{0,2}", "{1,}", "*?", "+?", "??"])

    def extend(inner: st.SearchStrategy[str]) -> st.SearchStrategy[str]:
        atom = literal | klass | escape | inner.map(lambda p: f"({p})") | inner.map(lambda p: f"(?:{p})")
        term = st.tuples(atom, quantifier).map("".join) | st.sampled_from(["^", "$", r"\b"])
        return st.lists(st.lists(term, max_size=4).map("".join), min_size=1, max_size=3).map("|".join)

    return st.recursive(st.just(""), extend, max_leaves=8)


@pytest.mark.slow
@needs_node
def test_generated_patterns_accept_what_node_accepts() -> None:
    seen = {"patterns": 0, "refused": 0}
    alphabet = st.sampled_from(sorted(set("".join(TRICKY)))) | CHARACTERS
    with node_oracle() as node:

        @settings(max_examples=1500, deadline=None, suppress_health_check=[HealthCheck.too_slow])
        @given(generated_patterns(), st.lists(st.text(alphabet, max_size=8), min_size=1, max_size=6))
        def agree(pattern: str, strings: list[str]) -> None:
            answer = node.ask(pattern, strings)
            try:
                translate(pattern)
            except PatternError as refused:  # quantified assertions, ranges out of order...: Node refuses too
                assert not answer["compiles"], (pattern, refused.code, refused.message)
                seen["refused"] += 1
                return
            assert answer["compiles"], (pattern, answer)
            assert rust_verdicts(pattern, strings) == answer["verdicts"], (pattern, translate(pattern).rust, strings)
            seen["patterns"] += 1

        agree()
    print(f"\ngenerated: {seen['patterns']} patterns agree with Node, {seen['refused']} refused by both")


@pytest.mark.slow
@needs_node
def test_lint_refuses_what_node_refuses_and_only_that() -> None:
    with node_oracle() as node:
        for pattern, code in REFUSED.items():
            compiles = node.ask(pattern, [])["compiles"]
            assert compiles == (code in ("FW142", "FW143", "FW144")), (pattern, code, compiles)


@pytest.mark.parametrize(("pattern", "code"), sorted(REFUSED.items()))
def test_each_refused_pattern_gets_its_code(pattern: str, code: str) -> None:
    with pytest.raises(PatternError) as refused:
        translate(pattern)
    assert refused.value.code == code, refused.value.message
    assert 0 <= refused.value.offset <= len(pattern)


# -- the translation, directly ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("pattern", "rust"),
    [
        (r"\d", "[0-9]"),
        (r"\w", "[A-Za-z0-9_]"),
        (r"\bx\B", r"(?-u:\b)x(?-u:\B)"),
        (r"\s", r"[\s\x{FEFF}--\x{85}]"),
        (r"[\sa]", r"[[\s\x{FEFF}--\x{85}]a]"),
        (r"\S", r"[^\s\x{FEFF}--\x{85}]"),
        (".", r"[^\n\r\x{2028}\x{2029}]"),
        ("[[a&&~~-]", r"[\[a\&\&\~\~\-]"),
        ("[+--]", r"[+-\-]"),
        (r"[^\D]", "[^[^0-9]]"),
        ("^T-[0-9]+$", "^T-[0-9]+$"),
        ("(?<id>a)", "(?<id>a)"),
        (r"\p{Lu}\P{Script=Greek}", r"\p{gc=Lu}\P{sc=Greek}"),
    ],
)
def test_translations_read_as_ecma_262_does(pattern: str, rust: str) -> None:
    assert translate(pattern).rust == rust


@pytest.mark.parametrize(
    ("pattern", "accepted", "refused"),
    [
        ("^SKU-[0-9]+$", ["SKU-1042"], ["SKU-1042\n", "SKU-١٠٤٢"]),
        (r"^\d+$", ["42"], ["٣", "4\n"]),
        (r"^\w+$", ["a_1"], ["é", "中"]),
        (r"^\s$", [" ", "\u2028", "\ufeff", "\u00a0", "\t"], ["\u0085", "\u180e", "\u200b"]),
        (r"^.$", ["a", "\u0085", "😀"], ["\n", "\r", "\u2028", "\u2029"]),
        (r"\bé", ["aé"], ["é", " é", "ée"]),
        ("^[[]$", ["["], ["a", "[]"]),
        ("^[a&&b]$", ["a", "&", "b"], ["&&"]),
        # ECMA-262 tries a search at each code point, never between the halves of a surrogate pair; V8 does,
        # so Node alone finds this `\B` inside the emoji. The corpus keeps `\B` after a character.
        (r"\B", ["ab", "é"], ["a😀b"]),
    ],
)
def test_the_server_engine_means_what_clients_mean(pattern: str, accepted: list[str], refused: list[str]) -> None:
    assert all(matches(pattern, s) for s in accepted)
    assert not any(matches(pattern, s) for s in refused)


def test_made_up_examples_match() -> None:
    for pattern in CORPUS:
        example = translate(pattern).example
        assert example is None or matches(pattern, example), pattern
    assert translate("^T-[0-9]+$").example == "T-1"
    assert translate("[]").example is None


def test_a_hostile_argument_is_checked_in_linear_time() -> None:
    hostile = "a" * 10_000 + "!"
    worst = 0.0
    for pattern in CONSTRUCTS:
        rust = translate(pattern).rust
        search(rust, "warm up")
        started = time.perf_counter()
        search(rust, hostile)
        worst = max(worst, time.perf_counter() - started)
    print(f"\nworst check of a 10 kB hostile string over {len(CONSTRUCTS)} patterns: {worst * 1000:.3f} ms")
    assert worst < 1.0


# -- a generated server ------------------------------------------------------------------------------------

NASTY = {
    "nested": "^(a+)+$",
    "alternatives": "^(a|a)*$",
    "overlap": "^(a|aa)+$",
    "repeated": "(.*a){12}",
    "words": r"^(\w+\s?)*$",
    "optional": "^(a?){25}a{25}$",
    "sku": "^SKU-[0-9]+$",
}

SPEC = """\
failwell: 1
server:
  name: shapes
tools:
  shapes_check:
    description: Check one argument against a pattern.
    effect: read
    input:
{fields}
    output:
      ok: {{type: boolean}}
"""

HANDLER = """\
from .._generated.tools.shapes_check import Context, Input, Output


async def handle(params: Input, ctx: Context) -> Output:
    return Output(ok=True)
"""


@pytest.fixture(scope="module")
def shapes_src(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    root = tmp_path_factory.mktemp("shapes")
    fields = "\n".join(
        f"      {name}: {{type: string, pattern: {json.dumps(pattern)}, required: false, "
        f"example: {json.dumps(translate(pattern).example)}}}"
        for name, pattern in NASTY.items()
    )
    spec = root / "failwell.yaml"
    spec.write_text(SPEC.format(fields=fields), encoding="utf-8")
    new(root / "shapes", spec)
    (root / "shapes" / "src" / "shapes_mcp" / "handlers" / "shapes_check.py").write_text(HANDLER)
    with importable(root / "shapes" / "src", "shapes_mcp"):
        yield root / "shapes" / "src"


def _envelope(result: Any) -> dict[str, Any]:
    return dict((result.meta or {}).get("dev.failwell/error") or {})


@pytest.mark.anyio
async def test_the_generated_server_refuses_a_hostile_argument_quickly(shapes_src: Path) -> None:
    from shapes_mcp._generated.server import build_server

    server = build_server()
    times = {}
    for name, pattern in NASTY.items():
        # What makes a backtracking engine try every way to split the string, and fail at the end.
        hostile = "a" * 11 + "x" * 10_000 if name == "repeated" else "a" * 10_000 + "!"
        assert not matches(pattern, hostile)
        await server.call_tool("shapes_check", {name: "warm up"})
        started = time.perf_counter()
        result = await server.call_tool("shapes_check", {name: hostile})
        times[name] = time.perf_counter() - started
        assert result.is_error, name
        assert _envelope(result)["class"] == "invalid_input", name
    worst = max(times, key=times.__getitem__)
    print(f"\nworst call with a 10 kB hostile argument: {times[worst] * 1000:.2f} ms ({NASTY[worst]})")
    assert times[worst] < 1.0, times


@pytest.mark.anyio
async def test_the_generated_server_refuses_a_trailing_newline(shapes_src: Path) -> None:
    from shapes_mcp._generated.server import build_server

    server = build_server()
    refused = await server.call_tool("shapes_check", {"sku": "SKU-1042\n"})
    assert refused.is_error and _envelope(refused)["class"] == "invalid_input"
    assert '`sku` received "SKU-1042\\n"' in refused.content[0].text, refused.content[0].text
    assert "matching ^SKU-[0-9]+$" in refused.content[0].text  # the spec's pattern, as the model reads the schema
    words = await server.call_tool("shapes_check", {"words": "é"})
    assert words.is_error and r"matching ^(\w+\s?)*$" in words.content[0].text
    assert "A-Za-z" not in words.content[0].text
    taken = await server.call_tool("shapes_check", {"sku": "SKU-1042"})
    assert not taken.is_error, taken


def test_the_published_schema_keeps_the_spec_pattern_and_the_model_runs_the_translation(shapes_src: Path) -> None:
    from shapes_mcp._generated.tools import shapes_check

    assert shapes_check.INPUT_SCHEMA["properties"]["words"]["pattern"] == r"^(\w+\s?)*$"
    checked = shapes_check.Input.model_json_schema()["properties"]["words"]["anyOf"][0]["pattern"]
    assert checked == translate(r"^(\w+\s?)*$").rust == r"^([A-Za-z0-9_]+[\s\x{FEFF}--\x{85}]?)*$"
    assert shapes_check.Input.model_config["regex_engine"] == "rust-regex"
    shapes_check.Input(words="ab cd")
    with pytest.raises(ValueError):
        shapes_check.Input(words="é")  # ECMA-262's \w is ASCII; Python's and Rust's are not


# -- lint and `failwell validate` ------------------------------------------------------------------------

HOSTILE_SPEC = """\
failwell: 1
server:
  name: shop
tools:
  orders_get:
    description: Read one order.
    effect: read
    input:
      code: {{type: string, pattern: "^(a+)+$", example: {example}}}
"""


def test_lint_checks_a_long_example_against_a_nasty_pattern_promptly() -> None:
    text = HOSTILE_SPEC.format(example="a" * 9_999 + "!")
    started = time.perf_counter()
    found = diagnose(text, "spec.yaml")
    elapsed = time.perf_counter() - started
    assert [(d.code, d.line) for d in found] == [("FW131", 9)], found
    assert diagnose(HOSTILE_SPEC.format(example="a" * 10_000), "spec.yaml") == []
    print(f"\nlint of a 10,000-character example against ^(a+)+$: {elapsed * 1000:.1f} ms")
    assert elapsed < 20, "backtracking ^(a+)+$ over 10,000 characters would take longer than the universe"


@pytest.mark.slow
def test_failwell_validate_returns_promptly_on_a_nasty_pattern(tmp_path: Path) -> None:
    spec = tmp_path / "failwell.yaml"
    spec.write_text(HOSTILE_SPEC.format(example="a" * 9_999 + "!"), encoding="utf-8")
    started = time.perf_counter()
    result = failwell("validate", spec)
    elapsed = time.perf_counter() - started
    assert result.returncode == 1, result.stdout + result.stderr
    assert "FW131 example does not fit the field" in result.stdout + result.stderr
    print(f"\n`failwell validate` on ^(a+)+$ with a 10,000-character example: {elapsed:.2f} s")
    assert elapsed < 30


# -- `$` is the end of the text, as ECMA-262 reads it (issue 39, red team) ----------------------------------

NAMED_SPEC = """\
failwell: 1
server:
  name: {server}
  version: {version}
  settings:
    {setting}: {{type: string, env: {env}, flag: {flag}, description: A setting., default: x}}
upstreams:
  {upstream}: {{base_url_env: {base_url_env}, timeout_s: 5}}
tools:
  {tool}:
    description: Read one thing by its code.
    effect: read
    upstreams: [{upstream}]
    input:
      {field}: {{type: string, pattern: "^[a-z]+$", description: The code., example: {example}}}
    output:
      code: {{type: string, description: The code.}}
    failures:
      {failure}: {{class: not_found, message: "No such thing."}}
"""
PLAIN_NAMES = {
    "server": "pat",
    "version": "0.1.0",
    "setting": "region",
    "env": "PAT_REGION",
    "flag": "--region",
    "upstream": "board",
    "base_url_env": "BOARD_URL",
    "tool": "pat_get",
    "field": "code",
    "example": "abc",
    "failure": "thing_missing",
}


@pytest.mark.parametrize("place", sorted(PLAIN_NAMES))
def test_a_trailing_line_break_is_refused_wherever_the_spec_checks_a_pattern(place: str) -> None:
    """JSON Schema's `pattern` is ECMA-262, where `$` is the end of the text: `"pat\\n"` does not match
    `^[a-z][a-z0-9_-]*$`. Every name, environment variable, flag and version the spec schema or failwell's own name
    rules check, and an example against its field's pattern, is refused with a line break at its end (before the
    fix Python's `re`, whose `$` also matches before a final line break, let the server's, a setting's, an
    upstream's and a failure's names, and the variables and flags, through)."""
    plain = diagnose(NAMED_SPEC.format(**PLAIN_NAMES), "spec.yaml")
    assert [d for d in plain if d.code.startswith(("FW0", "FW1"))] == [], plain
    hostile = {**PLAIN_NAMES, place: json.dumps(PLAIN_NAMES[place] + "\n")}
    found = [d.code for d in diagnose(NAMED_SPEC.format(**hostile), "spec.yaml")]
    assert {"FW013", "FW101", "FW131", "FW159"} & set(found), (place, found)


def test_the_pattern_checks_read_dollar_as_the_end_of_the_text() -> None:
    """The quick check, the spec's validator, failwell's name rules and the audit's probes read `$` as clients do."""
    from failwell.audit.probes import _matches
    from failwell.spec import fields, naming, quickschema

    schema = {"type": "string", "pattern": "^[a-z]+$"}
    assert quickschema.valid("abc", schema) and not quickschema.valid("abc\n", schema)
    assert fields.fits("abc\n", schema) is not None and fields.fits("abc", schema) is None
    assert naming.IDENTIFIER.match("abc") and not naming.IDENTIFIER.match("abc\n")
    assert naming.MCP_NAME.match("a.b") and not naming.MCP_NAME.match("a.b\n")
    assert _matches("^[a-z]+$", "abc") is True and _matches("^[a-z]+$", "abc\n") is False
    assert _matches("^[a-z]+(?=x)?$", "abc\n") is False, "a pattern outside the subset: `re` with `$` as `\\Z`"


@pytest.mark.slow
def test_over_stdio_a_trailing_line_break_fails_the_pattern(shapes_src: Path, tmp_path: Path) -> None:
    """The real client over a real stdio subprocess: `"SKU-1042\\n"` does not match `^SKU-[0-9]+$` (the argument is
    refused, naming the value), `"SKU-1042"` does."""
    import os
    import sys

    import anyio
    from mcp import Client, StdioServerParameters
    from mcp.client.stdio import stdio_client

    env = {**os.environ, "PYTHONPATH": str(shapes_src), "FAILWELL_SQLITE_PATH": str(tmp_path / "s.sqlite3")}
    server = StdioServerParameters(command=sys.executable, args=["-m", "shapes_mcp"], env=env)

    async def calls() -> list[Any]:
        with (tmp_path / "stderr.log").open("w") as errlog:
            async with Client(stdio_client(server, errlog=errlog)) as client:
                return [
                    await client.call_tool("shapes_check", {"sku": "SKU-1042\n"}),
                    await client.call_tool("shapes_check", {"sku": "SKU-1042"}),
                ]

    refused, taken = anyio.run(calls)
    assert refused.is_error and _envelope(refused)["class"] == "invalid_input"
    assert '`sku` received "SKU-1042\\n"' in refused.content[0].text, refused.content[0].text
    assert not taken.is_error, taken
