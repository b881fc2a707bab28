"""One test per diagnostic code: a spec fragment that earns it, at the line it points to."""

from __future__ import annotations

import textwrap

import pytest

from failwell.render.pipeline import diagnose

GOOD = """\
failwell: 1
server:
  name: shop
  client_timeout_s: 60
tools:
  orders_get:
    description: Read one order.
    effect: read
    deadline_s: 10
    input:
      order_id: {type: string, pattern: "^O-[0-9]+$", example: O-1}
      limit: {type: integer, minimum: 1, maximum: 50, default: 10}
    failures:
      order_missing:
        class: not_found
        message: "No order {order_id}. Ids look like O-1. Check the id and call again."
      over_quota:
        class: rate_limited
        fields: {seconds: integer}
        message: "Too many reads; wait {seconds} s."
"""


def codes(text: str) -> list[tuple[str, int]]:
    return [(d.code, d.line) for d in diagnose(textwrap.dedent(text), "spec.yaml")]


def replace(old: str, new: str) -> str:
    assert old in GOOD, old
    return GOOD.replace(old, new)


def test_the_good_spec_is_clean() -> None:
    assert codes(GOOD) == []


CASES = [
    ("FW001", "failwell: 1\nserver: [\n", 3),
    ("FW002", "   \n", 1),
    ("FW003", "- a\n- b\n", 1),
    ("FW004", replace("failwell: 1", "failwell: 2"), 1),
    ("FW010", replace("    effect: read\n", ""), 6),
    ("FW011", replace("deadline_s: 10", "deadline_s: soon"), 9),
    ("FW012", replace("type: integer", "type: int"), 12),
    ("FW013", replace("name: shop", "name: Shop"), 3),
    ("FW014", replace("deadline_s: 10", "deadline_s: -1"), 9),
    ("FW015", replace("    deadline_s: 10\n", "    deadline_s: 10\n    retries: 3\n"), 10),
    ("FW101", replace("  orders_get:", "  orders get:"), 6),
    ("FW102", replace("fields: {seconds: integer}", "fields: {seconds: integer, lambda: integer}"), 19),
    ("FW103", replace("      limit:", "      model_config:"), 12),
    ("FW103", replace("      limit:", "      idempotency_key:"), 12),
    ("FW104", replace("      limit:", "      order_id:"), 12),
    ("FW104", replace("fields: {seconds: integer}", "fields: {order_id: string}"), 19),
    (
        "FW104",
        replace(
            "      over_quota:", "      input_limit:\n        class: conflict\n        message: x\n      over_quota:"
        ).replace(
            "limit: {type: integer, minimum: 1, maximum: 50, default: 10}",
            "limit: {type: object, properties: {a: {type: string}}, required: false}",
        ),
        17,
    ),
    ("FW110", replace("No order {order_id}.", "No order {order}."), 16),
    ("FW111", replace("wait {seconds} s.", "wait a minute."), 19),
    ("FW112", replace("No order {order_id}.", "No order {order_id!r}."), 16),
    ("FW112", replace("No order {order_id}.", "No order {}."), 16),
    ("FW120", replace("deadline_s: 10", "deadline_s: 60"), 9),
    ("FW120", replace("client_timeout_s: 60", "client_timeout_s: 2"), 4),
    ("FW121", replace("effect: read", "effect: delete"), 8),
    (
        "FW123",
        replace("tools:\n", "upstreams:\n  shop_api: {base_url_env: SHOP_API_URL, timeout_s: 10}\ntools:\n").replace(
            "    deadline_s: 10\n", "    deadline_s: 10\n    upstreams: [shop_api]\n"
        ),
        12,
    ),
    ("FW124", replace("    deadline_s: 10\n", "    deadline_s: 10\n    upstreams: [shop_api]\n"), 10),
    ("FW181", replace("    deadline_s: 10\n", "    deadline_s: 10\n    uses: [db]\n"), 10),
    (
        "FW182",
        replace("tools:\n", "dependencies:\n  db: {timeout_s: 10}\ntools:\n").replace(
            "    deadline_s: 10\n", "    deadline_s: 10\n    uses: [db]\n"
        ),
        12,
    ),
    ("FW122", replace("class: not_found", "class: missing"), 15),
    ("FW130", replace("default: 10", "default: 100"), 12),
    ("FW131", replace("example: O-1", "example: X-1"), 11),
    ("FW131", replace(", example: O-1", "").replace('"^O-[0-9]+$"', '"^O-[]$"'), 11),
    ("FW132", replace("minimum: 1, maximum: 50", "minimum: 50, maximum: 1"), 12),
    ("FW133", replace('"^O-[0-9]+$"', '"^O-[0-9+$"'), 11),
    ("FW134", replace("minimum: 1, maximum: 50, default: 10", "minLength: 1"), 12),
    ("FW135", replace("{type: integer, minimum: 1, maximum: 50, default: 10}", "{type: integer, enum: [1, two]}"), 12),
    ("FW136", replace("    deadline_s: 10\n", "    deadline_s: 10\n    scopes: [orders:read]\n"), 10),
    ("FW110", replace("  client_timeout_s: 60\n", "  client_timeout_s: 60\n  auth: {scope_message: '{id}'}\n"), 5),
    ("FW138", replace("    deadline_s: 10\n", "    deadline_s: 10\n    rerun_safe: true\n"), 10),
    ("FW138", replace("    deadline_s: 10\n", "    deadline_s: 10\n    check_with: orders_get\n"), 10),
    (
        "FW110",
        replace("  client_timeout_s: 60\n", "  client_timeout_s: 60\nmessages: {outcome_unknown: '{order_id}'}\n"),
        5,
    ),
    *(
        (
            "FW137",
            replace(
                "  client_timeout_s: 60\n", f"  client_timeout_s: 60\n  auth:\n    authorization_servers: [{url}]\n"
            ),
            6,
        )
        for url in ("auth.example.com", "http://auth.example.com", "https://auth.example.com/?tenant=1", "ftp://x")
    ),
    ("FW148", replace("    deadline_s: 10\n", "    deadline_s: 10\n    confirm: {message: Read it?}\n"), 10),
]

CANCEL = """\
  orders_cancel:
    description: Cancel an order.
    effect: destructive
    idempotency: required
    deadline_s: 10
    input:
      order_id: {type: string, example: O-1}
    confirm:
      message: "Cancel order {order_id}?"
"""

ASKING = [
    ("FW149", CANCEL.replace("{order_id}?", "{order}?"), 29),
    ("FW149", CANCEL + "      declined: '{tool} kept {idem}.'\n", 30),
    ("FW112", CANCEL.replace("{order_id}?", "{order_id?"), 29),
    (
        "FW183",
        CANCEL
        + "    asks:\n      why: {kind: form, message: Why?, fields: {tags: {type: array, items: {type: string}}}}\n",
        31,
    ),
    (
        "FW183",
        CANCEL + "    asks:\n      why: {kind: form, message: Why?, fields: {note: {type: string, nullable: true}}}\n",
        31,
    ),
    (
        "FW184",
        CANCEL + "    asks:\n      login: {kind: form, message: Sign in., fields: {api_key: {type: string}}}\n",
        31,
    ),
    (
        "FW183",
        CANCEL.replace(
            "    idempotency: required\n", "    idempotency: required\n    batch: {items: ids, policy: partial}\n"
        ).replace("      order_id:", "      ids: {type: array, items: {type: string}}\n      order_id:")
        + "    asks:\n      why: {kind: sampling}\n",
        32,
    ),
]
"""A tool that confirms or asks, and what each rule finds in it (its lines follow the GOOD spec's 20)."""


@pytest.mark.parametrize(("code", "tool", "line"), ASKING, ids=[f"{c}-{i}" for i, (c, _, _) in enumerate(ASKING)])
def test_confirm_and_asks_are_linted(code: str, tool: str, line: int) -> None:
    found = codes(GOOD + tool)
    assert [c for c in found if c[0] not in ("FW201",)] == [(code, line)]


def test_a_confirming_and_asking_tool_is_clean() -> None:
    asking = (
        "    asks:\n      why: {kind: form, message: 'Why cancel {order_id}?', fields: {reason: {type: string}}}\n"
        "      summary: {kind: sampling, max_tokens: 100}\n      folders: {kind: roots}\n"
    )
    assert codes(GOOD + CANCEL + asking) == []


WRITE = """\
  orders_cancel:
    description: Cancel an order.
    effect: write
    idempotency: required
    check_with: {target}
    input:
      order_id: {{type: string, example: O-1}}
"""


@pytest.mark.parametrize(("target", "expected"), [("orders_get", []), ("orders_cancel", [("FW139", 25)])])
def test_check_with_names_a_read_tool(target: str, expected: list[tuple[str, int]]) -> None:
    assert codes(GOOD + WRITE.format(target=target)) == expected


@pytest.mark.parametrize("template", ["{0}", "{a.b}", "{order_id!r}", "{order_id:>3}", "{", "}", "{}", '{"a": 1}'])
def test_every_malformed_template_says_how_to_write_a_literal_brace(template: str) -> None:
    text = textwrap.dedent(replace("No order {order_id}.", template.replace('"', '\\"')))
    (found,) = [d for d in diagnose(text, "spec.yaml") if d.code == "FW112"]
    assert "{{" in found.message and "literal brace" in found.message, found.message


@pytest.mark.parametrize("name", ["ordersGet", "orders-get", "orders.get", "Orders_get"])
def test_check_with_names_a_read_tool_by_any_name_a_tool_may_have(name: str) -> None:
    """One rule wherever a tool is named: a camelCase, dashed or dotted read tool, accepted under `tools:`, is
    accepted by `check_with:` (it was FW013, the snake_case pattern, before); a write tool so named is FW139."""
    renamed = GOOD.replace("  orders_get:\n", f"  {name}:\n")
    assert codes(renamed) == []
    assert codes(renamed + WRITE.format(target=name)) == []
    assert codes(renamed + WRITE.format(target="orders_cancel")) == [("FW139", 25)]


@pytest.mark.parametrize(
    "url", ["https://auth.example.com", "https://login.example.com/tenant-1", "http://127.0.0.1:9000"]
)
def test_issuer_urls_that_are_accepted(url: str) -> None:
    text = replace("  client_timeout_s: 60\n", f"  client_timeout_s: 60\n  auth:\n    authorization_servers: [{url}]\n")
    assert codes(text.replace("    deadline_s: 10\n", "    deadline_s: 10\n    scopes: []\n")) == []


READERS = """\
resources:
  order:
    uri: "orders://{{order_id}}"
    description: One order.
{resource_scopes}    params:
      order_id: {{type: string, example: O-1}}
prompts:
  refund:
    description: Ask for a refund.
{prompt_scopes}"""


def test_with_auth_every_tool_resource_and_prompt_says_its_scopes() -> None:
    """FW160: nothing is public by omission; `scopes: []` says public, and each part without `scopes` is named."""
    authed = replace("  client_timeout_s: 60\n", "  client_timeout_s: 60\n  auth: {}\n")
    found = diagnose(authed + READERS.format(resource_scopes="", prompt_scopes=""), "spec.yaml")
    assert sorted((d.code, d.line) for d in found) == [("FW160", 7), ("FW160", 23), ("FW160", 29)]
    messages = {d.path: d.message for d in found}
    assert messages[("tools", "orders_get")] == (
        "tool `orders_get` does not say which scopes a token needs to call it, and the server has `auth`; add "
        "`scopes: [...]` naming them (such as `scopes: [orders:read]`), or `scopes: []` if any valid token may, "
        "so that nothing is public by omission"
    )
    resource = messages[("resources", "order")]
    assert "resource `order` does not say which scopes a token needs to read or list it" in resource
    assert "prompt `refund` does not say which scopes a token needs to get it" in messages[("prompts", "refund")]
    said = authed.replace("    deadline_s: 10\n", "    deadline_s: 10\n    scopes: [orders:read]\n") + READERS.format(
        resource_scopes="    scopes: [orders:read]\n", prompt_scopes="    scopes: []\n"
    )
    assert codes(said) == []


def test_scopes_on_a_resource_or_prompt_need_auth() -> None:
    text = GOOD + READERS.format(resource_scopes="    scopes: [orders:read]\n", prompt_scopes="    scopes: [x]\n")
    assert codes(text) == [("FW136", 25), ("FW136", 31)]
    assert codes(GOOD + READERS.format(resource_scopes="    scopes: []\n", prompt_scopes="")) == []


@pytest.mark.parametrize(("code", "text", "line"), CASES, ids=[f"{c}-{i}" for i, (c, _, _) in enumerate(CASES)])
def test_each_rule_fires_at_its_line(code: str, text: str, line: int) -> None:
    found = codes(text)
    assert (code, line) in found, found


def test_a_resource_and_a_prompt_may_use_upstreams_and_dependencies_that_exist() -> None:
    spec = replace(
        "tools:\n",
        "upstreams:\n  docs_api: {base_url_env: DOCS_API_URL, timeout_s: 2}\n"
        "dependencies:\n  db: {timeout_s: 1, errors: {sqlite3.OperationalError: upstream_unavailable}}\n"
        "resources:\n  doc:\n    uri: docs://x\n    description: One doc.\n    deadline_s: 5\n"
        "    upstreams: [docs_api]\n    uses: [db]\n"
        "prompts:\n  explain:\n    description: Explain.\n    deadline_s: 5\n    upstreams: [docs_api, doc_api]\n"
        "    uses: [dbb]\ntools:\n",
    )
    assert codes(spec) == [("FW124", 20), ("FW181", 21)]


def test_duplicate_yaml_keys_are_named() -> None:
    text = GOOD + "  orders_get:\n    description: again\n    effect: read\n"
    (diagnostic,) = diagnose(text, "spec.yaml")
    assert diagnostic.code == "FW104"
    assert "duplicate key `orders_get`" in diagnostic.message


def test_every_problem_at_once() -> None:
    text = replace("effect: read", "effect: reed").replace("name: shop", "name: Shop").replace("{order_id}.", "{nope}.")
    assert sorted(code for code, _ in codes(text)) == ["FW013", "FW110", "FW121"]


def test_warnings_are_not_errors() -> None:
    (diagnostic,) = diagnose(replace("wait {seconds} s.", "wait a minute."), "spec.yaml")
    assert diagnostic.severity == "warning"
    assert "warning:" in str(diagnostic)


def test_the_default_deadline_is_50_s_at_the_usual_60_s_client_timeout() -> None:
    from failwell.spec.lint import default_deadline

    assert default_deadline(60) == 50
    assert default_deadline(10) == 8  # at least 2 s for the answer to reach the client
    assert default_deadline(300) == 250


def test_did_you_mean() -> None:
    (diagnostic,) = diagnose(replace("class: not_found", "class: notfound"), "spec.yaml")
    assert "(did you mean `not_found`?)" in diagnostic.message


def test_scopes_with_auth_are_clean() -> None:
    text = replace("  client_timeout_s: 60\n", "  client_timeout_s: 60\n  auth: {}\n")
    text = text.replace("    deadline_s: 10\n", "    deadline_s: 10\n    scopes: [orders:read]\n")
    assert codes(text) == []


PATTERN_CASES = [
    ("FW140", r"'^O-[0-9]+\Z'", 51, "`\\Z` is Python-only; JavaScript clients cannot compile it: use `$`"),
    ("FW140", '"(?P<id>O-[0-9]+)"', 42, "write `(?<name>...)`"),
    ("FW140", '"(?i)^O-[0-9]+$"', 42, "inline flags such as `(?i)` are Python-only"),
    ("FW140", '"^O-[0-9]{,9}$"', 50, "write `{0,n}`"),
    ("FW141", '"^O\\\\-[0-9]+$"', 44, "`\\-` is not an escape in ECMA-262 (u flag)"),
    ("FW141", "'^O-[[:digit:]]+$'", 46, "POSIX classes"),
    ("FW142", '"^(?!X)O-[0-9]+$"', 43, "look-ahead"),
    ("FW142", '"^(O)-\\\\1$"', 47, "backreference"),
    ("FW143", r"'^O-\p{Script=Adlam}+$'", 45, "outside what failwell supports"),
    ("FW144", '"^(O{1,1000}){1,1000}$"', 42, "size limit"),
    ("FW133", '"^O-[0-9+$"', 45, "this class is never closed"),
]


@pytest.mark.parametrize(("code", "pattern", "col", "words"), PATTERN_CASES)
def test_each_pattern_rule_points_at_the_construct(code: str, pattern: str, col: int, words: str) -> None:
    """A refused pattern is reported at FILE:LINE:COL of the offending part, inside the quoted scalar."""
    (diagnostic,) = diagnose(replace('"^O-[0-9]+$"', pattern), "spec.yaml")
    assert str(diagnostic).startswith(f"spec.yaml:11:{col}: {code} "), str(diagnostic)
    assert words in diagnostic.message


def test_a_pattern_is_checked_as_clients_read_it() -> None:
    """ECMA-262's `$` refuses a trailing newline and its `\\d` is ASCII, so these examples do not fit."""
    newline = replace("example: O-1", 'example: "O-1\\n"')
    digit = replace('"^O-[0-9]+$"', "'^O-\\d+$'").replace("example: O-1", "example: O-٣")
    assert codes(newline) == [("FW131", 11)]
    assert codes(digit) == [("FW131", 11)]
    assert codes(replace('"^O-[0-9]+$"', "'^O-\\d+$'")) == []


SETTINGS = """\
  settings:
    repository: {type: string, flag: --repository, required: true}
    api_key: {type: string, secret: true}
"""


@pytest.mark.parametrize(
    ("settings", "description", "expected"),
    [
        ("", "Read one order from {settings.repository}.", []),
        ("", "Read one order from {settings.repo}.", ["FW191"]),
        ("", "Read one order with {settings.api_key}.", ["FW192"]),
        ("    db_password: {type: string}\n", "Read one order as {settings.db_password}.", ["FW192"]),
        ("    max_tokens: {type: integer, default: 5}\n", "At most {settings.max_tokens} tokens.", []),
        ("    port: {type: integer, flag: --port}\n", "Read one order.", ["FW190"]),
        ("    level: {type: string, env: LOG_LEVEL}\n", "Read one order.", ["FW190"]),
        ("    other: {type: string, env: SHOP_REPOSITORY}\n", "Read one order.", ["FW190"]),
        ("    limit: {type: integer, required: true, default: 3}\n", "Read one order.", ["FW193"]),
        ("    model_name: {type: string}\n", "Read one order.", ["FW193"]),
        ("    count: {type: integer, minimum: 5, default: 3}\n", "Read one order.", ["FW130"]),
    ],
)
def test_settings_are_linted(settings: str, description: str, expected: list[str]) -> None:
    text = replace("  client_timeout_s: 60\n", "  client_timeout_s: 60\n" + SETTINGS + settings)
    text = text.replace("description: Read one order.", f'description: "{description}"')
    assert [code for code, _ in codes(text)] == expected


TASK = "    deadline_s: 10\n    task: optional\n"


def test_a_task_tool_may_have_a_deadline_past_the_clients_timeout() -> None:
    """FW120 is for the creation step only: a task answers its id at once and runs for its own deadline."""
    assert codes(replace("    deadline_s: 10\n", "    deadline_s: 600\n")) == [("FW120", 9)]
    assert codes(replace("    deadline_s: 10\n", "    deadline_s: 600\n    task: required\n")) == []
    assert codes(replace("    deadline_s: 10\n", TASK)) == []


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        (replace("    deadline_s: 10\n", TASK + "    asks: {x: {kind: roots}}\n"), []),
        (
            replace("  client_timeout_s: 60\n", "  client_timeout_s: 60\n  store: redis\n").replace(
                "    deadline_s: 10\n", TASK
            ),
            [],
        ),
        (replace("    deadline_s: 10\n", "    deadline_s: 10\n    task: always\n"), [("FW012", 10)]),
        (
            replace(
                "    deadline_s: 10\n",
                "    deadline_s: 10\n    asks:\n      when: {kind: roots, before_task: true}\n",
            ),
            [("FW161", 11)],
        ),
        (
            replace("    deadline_s: 10\n", TASK + "    asks:\n      when: {kind: roots, before_task: true}\n"),
            [],
        ),
    ],
)
def test_task_rules(text: str, expected: list[tuple[str, int]]) -> None:
    assert codes(text) == expected
