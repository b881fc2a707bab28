"""A fresh project passes the tests failwell generates for it, whatever its spec says, and lint tells the truth:
counts in their singular form, suggestions that are the spec's own names, every problem in one run."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from failwell import new
from failwell.render.pipeline import diagnose
from failwell.spec.fields import accepts

URL_NO_RETRIES = """\
failwell: 1
server:
  name: pages
  description: Reads web pages for an assistant.
upstreams:
  fetcher: {base_url_env: FETCHER_URL, timeout_s: 3, retries: 0}
tools:
  pages_fetch:
    description: Fetch one page by its address, such as https://example.com/docs.
    effect: read
    deadline_s: 10
    upstreams: [fetcher]
    input:
      url:
        type: string
        minLength: 1
        maxLength: 2000
        description: The page's address.
        example: https://example.com/docs
    output:
      text: {type: string}
    failures:
      page_missing:
        class: not_found
        message: "No page at {url}. Addresses look like https://example.com/docs. Check the address and try again."
"""


@pytest.mark.slow
def test_a_url_example_and_retries_0_give_a_fresh_project_whose_own_tests_pass(tmp_path: Path) -> None:
    project = tmp_path / "pages"
    new(project, _spec(tmp_path, URL_NO_RETRIES))
    generated = (project / "tests" / "generated" / "test_pages_fetch_errors.py").read_text()
    assert "test_upstream_429_is_retried_after_its_retry_after" not in generated, "retries: 0 retries nothing"
    assert 'why = "the upstream declares retries: 0"' in generated
    env = {**os.environ, "PYTHONPATH": "src"}
    tests = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "tests/generated"],
        cwd=project,
        env=env,
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert tests.returncode == 0, tests.stdout[-4000:]
    assert " failed" not in tests.stdout and " passed" in tests.stdout


def _spec(folder: Path, text: str) -> Path:
    path = folder / "spec.yaml"
    path.write_text(text, encoding="utf-8")
    return path


def test_counts_of_one_are_singular() -> None:
    assert accepts({"type": "string", "minLength": 1}) == "a string of at least 1 character"
    assert accepts({"type": "string", "minLength": 1, "maxLength": 1}) == "a string of exactly 1 character"
    assert accepts({"type": "string", "maxLength": 2}) == "a string of at most 2 characters"
    assert accepts({"type": "array", "minItems": 1}) == "a list of at least 1 item"
    assert accepts({"type": "string", "minLength": 1, "maxLength": 5}) == "a string of 1 to 5 characters"


def _messages(text: str) -> list[str]:
    return [f"{d.code} {d.message}" for d in diagnose(text, "failwell.yaml")]


def test_a_camel_case_argument_is_accepted_and_a_name_mcp_refuses_gets_a_suggestion() -> None:
    camel = _messages(URL_NO_RETRIES.replace("      url:\n", "      libraryId:\n").replace("{url}", "{libraryId}"))
    assert not any(m.startswith("FW101") for m in camel), camel
    found = _messages(URL_NO_RETRIES.replace("      url:\n", '      "library id":\n').replace("{url}", "{library_id}"))
    assert any(m.startswith("FW101 field name `library id`") and m.endswith("try `library_id`") for m in found), found


def test_value_and_accepted_hints_use_the_specs_own_names() -> None:
    vague = URL_NO_RETRIES.replace(
        '"No page at {url}. Addresses look like https://example.com/docs. Check the address and try again."',
        '"That page is not there. Check the address and try again."',
    )
    found = [m for m in _messages(vague) if m.startswith(("FW202", "FW206"))]
    assert len(found) == 2, found
    assert "such as {url}" in found[0] and "'url looks like https://example.com/docs'" in found[1], found
    assert not any("{id}" in m or "T-1" in m for m in found), "no name the spec does not have"
    no_input = vague.replace(
        "    input:\n      url:\n        type: string\n        minLength: 1\n        maxLength: 2000\n"
        "        description: The page's address.\n        example: https://example.com/docs\n",
        "",
    )
    found = [m for m in _messages(no_input) if m.startswith(("FW202", "FW206"))]
    assert found and not any("{id}" in m or "T-1" in m for m in found), found


def test_a_placeholder_typo_is_named_in_the_same_run_as_a_schema_error() -> None:
    both = URL_NO_RETRIES.replace("No page at {url}.", "No page at {ulr}.").replace(
        "        class: not_found\n", "        class: not_found\n        fields: {status: int}\n"
    )
    codes = {m.split(" ", 1)[0] for m in _messages(both)}
    assert {"FW012", "FW110"} <= codes, codes
