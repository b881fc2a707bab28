"""Nothing secret leaves the server: every kind of credential in `secrets_corpus`, in every quoting, carried
by every path a handler can take (a declared failure's value, an exception's text, cause, context, note,
group member, dict argument, a pydantic ValidationError, its own log calls) never reaches a client or a
log line, in-process and over a real stdio pipe; and ordinary values pass unchanged.

Canaries are the random cores of each planted credential: a leak is any of them seen again, whole.
"""

from __future__ import annotations

import json
import logging
import os
import random
import re
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from ledger import importable
from secrets_corpus import KINDS, Kind, ordinary, planted, quotings_for
from secrets_heldout import BENIGN, HELD_OUT

from failwell.spec import messages

TESTS = Path(__file__).resolve().parent
PATHS = (
    "failure_value",
    "exception",
    "cause",
    "context",
    "note",
    "group",
    "dict_args",
    "validation",
    "validation_dict",
    "log_message",
    "log_extra",
    "mapping",
)
CASES = [(kind, quoting) for kind in KINDS for quoting in quotings_for(kind)]
BY_NAME = {kind.name: kind for kind in KINDS}

SPEC = """\
failwell: 1
server:
  name: vault
tools:
  vault_run:
    description: Fail, with a planted credential, along the path the arguments choose.
    effect: read
    deadline_s: 5
    input:
      kind: {type: string, example: password}
      quoting: {type: string, example: colon}
      path: {type: string, example: exception}
      seed: {type: integer, example: 1}
    failures:
      rejected:
        class: not_found
        fields: [detail]
        message: "Could not use {detail}. Call vault_run with another seed."
"""

HANDLER = """\
import logging
import random

from pydantic import TypeAdapter
from secrets_corpus import KINDS, planted

from .._generated.tools.vault_run import Context, Input, Output, Rejected

logger = logging.getLogger("vault.handler")


async def handle(params: Input, ctx: Context) -> Output:
    kind = next(kind for kind in KINDS if kind.name == params.kind)
    text, _ = planted(kind, params.quoting, random.Random(params.seed))
    if params.path == "failure_value":
        raise Rejected(detail=text)
    if params.path == "exception":
        raise RuntimeError(text)
    if params.path == "cause":
        raise RuntimeError("the upstream call failed") from ConnectionError(text)
    if params.path == "context":
        try:
            raise OSError(text)
        except OSError:
            raise LookupError("while looking it up")
    if params.path == "note":
        error = ValueError("bad settings")
        error.add_note(text)
        raise error
    if params.path == "group":
        raise ExceptionGroup("several failures", [ValueError(text), KeyError("missing")])
    if params.path == "mapping":  # the credential itself, in a mapping as Python prints it (issue 39, point 13)
        value, _ = kind.make(random.Random(params.seed))
        config = {"dsn": "db", "password": value, "api_key": [value], "token": {"current": value}}
        raise RuntimeError({"config": config, "secret": value.encode()})
    if params.path == "dict_args":
        raise RuntimeError({"request": {"user": "ann", "detail": text}}, [text])
    if params.path == "validation":
        TypeAdapter(int).validate_python(text)
    if params.path == "validation_dict":
        TypeAdapter(dict[str, int]).validate_python({kind.key: text, "user": "ann"})
    if params.path == "log_message":
        logger.warning("connecting with %s", text)
        logger.info("settings: %r", {kind.key: text})
    if params.path == "log_extra":
        logger.warning("settings loaded", extra={"settings": {kind.key: text}, kind.key: text, "detail": text})
    return "done"
"""


def leaks(seen: str, canaries: list[str]) -> list[str]:
    return [canary for canary in canaries if canary in seen]


# --- the rules themselves, fast ---------------------------------------------------------------------------------


@settings(max_examples=300, deadline=None, derandomize=True)
@given(case=st.sampled_from(CASES), seed=st.integers(0, 2**32))
def test_no_planted_credential_survives_scrubbing(case: tuple[Kind, str], seed: int) -> None:
    scrub = messages.runtime("wording.scrub")
    kind, quoting = case
    text, canaries = planted(kind, quoting, random.Random(seed))
    if kind.log:  # an internal host name is for the log to keep and the model not to see
        assert not leaks(scrub.redact_secrets(text), canaries), (kind.name, quoting, scrub.redact_secrets(text))
    assert not leaks(scrub.scrub(text), canaries), (kind.name, quoting, scrub.scrub(text))


def test_every_kind_in_every_quoting_is_masked_for_the_log_and_the_model() -> None:
    scrub = messages.runtime("wording.scrub")
    leaked = []
    for seed in range(5):
        for kind, quoting in CASES:
            text, canaries = planted(kind, quoting, random.Random(seed))
            for rule in (scrub.redact_secrets, scrub.scrub) if kind.log else (scrub.scrub,):
                if leaks(rule(text), canaries):
                    leaked.append((kind.name, quoting, rule.__name__, rule(text)))
    assert len(KINDS) >= 67 and len(CASES) >= 1000
    assert leaked == [], leaked


@settings(max_examples=500, deadline=None, derandomize=True, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 2**32))
def test_ordinary_values_pass_unchanged(seed: int) -> None:
    scrub = messages.runtime("wording.scrub")
    rng = random.Random(seed)
    value = ordinary(rng)
    sentence = f"Order {ordinary(rng)} for {value} is not ready; try again."
    for text in (value, sentence):
        assert scrub.scrub(text) == text
        assert scrub.redact_secrets(text) == text


def test_a_field_named_like_a_secret_is_masked_whole_and_others_are_not() -> None:
    scrub = messages.runtime("wording.scrub")
    secret = [
        "password",
        "DB_PASSWORD",
        "x-api-key",
        "refreshToken",
        "aws_secret_access_key",
        "AccountKey",
        "sid_cookie",
    ]
    plain = ["passenger", "Compass", "tokens", "token_count", "max_tokens", "order_id", "session_count", "keyboard"]
    assert [name for name in secret if not scrub.secret_named(name)] == []
    assert [name for name in plain if scrub.secret_named(name)] == []


SECRET = "Xk29fjQ7pw"


@pytest.mark.parametrize(
    "text",
    [
        f"requirepass {SECRET}",
        f"masterauth {SECRET}",
        f"  bindpw\t{SECRET}",
        f"Password  {SECRET}",
        f"AUTH_TOKEN {SECRET}",
        f"machine h.example.org login ann password {SECRET}",
        f"machine h login u password {SECRET} account acct1",
        f"default login anonymous password {SECRET}",
        f"machine h\n  login u\n  password {SECRET}\n",
        f'poll mail.example.org protocol imap user "ann" password "{SECRET}"',
        f"{{'netrc': 'machine h\\n  login u\\n  password {SECRET}\\n'}}",
        f"*:5432:*:svc:{SECRET}",
        f"db.example.org:6432:billing:svc:{SECRET}",
        f"ldap_default_authtok = {SECRET}",
        # command-line options, as a failed command's text shows them (issue 24's widened held-out corpus)
        f"exit status 1: docker login --username ci --password {SECRET} registry.example.com",
        f"mysqladmin --password {SECRET} status",
        f"deploy --db-password '{SECRET}' --verbose",
        f"Command '['mysqldump', '--password', '{SECRET}', 'orders']' returned non-zero exit status 2.",
        f'{{"argv": ["vault", "login", "--client-secret", "{SECRET}", "-method=oidc"]}}',
        f"CalledProcessError(1, ['psql', '--api-key', \"{SECRET}\"])",
        # a tool's option that takes a credential, by the tool's manual (issue 24's widened held-out corpus, after)
        f"exit status 5: sshpass -p {SECRET} ssh deploy@build",
        f"command failed: mysql -u app -p{SECRET} -h db orders",
        f"mysqldump -p'{SECRET}' orders",
        f"Command '['sshpass', '-p', '{SECRET}', 'ssh', 'build']' returned non-zero exit status 5.",
        f"redis-cli -h cache -a {SECRET} ping",
        f"docker login -u ci -p {SECRET} ghcr.io",
        f"keytool -importkeystore -srcstorepass {SECRET} -destkeystore a.p12",
        f"openssl pkcs12 -export -passout pass:{SECRET} -out a.p12",
        f"ldapsearch -x -D cn=reader,dc=example,dc=org -w {SECRET} -b dc=example,dc=org",
        f"tar c data | sshpass -p{SECRET} ssh backup 'cat > data.tar'",
        # a `user:password` pair where real tools put one
        f"curl -sf -u admin:{SECRET} https://ci.example.org/api/json failed with 22",
        f"['curl', '--user', 'admin:{SECRET}', 'https://ci.example.org']",
        f"smbclient //files/share -U ann%{SECRET}",
        f"cache_peer parent.example.org parent 3128 0 no-query login=proxyuser:{SECRET}",
        f"backup:{SECRET}\n",
        f"[smtp.example.org]:587 alerts@example.org:{SECRET}\n",
        # columns and positions that say which field is the secret
        f'# client\tserver\tsecret\tIP addresses\n"alice"\t*\t"{SECRET}"\t*\n',
        f"SQLConnectInfo ftpusers@db.example.org proftpd {SECRET}",
        f'LDAPBindDN "cn=ftp,dc=example,dc=org" {SECRET}',
        # pre-shared keys
        f'network={{\n\tssid="office"\n\tpsk="{SECRET}"\n}}\n',
        f"wpa_psk={SECRET}",
        f'203.0.113.5 198.51.100.7 : PSK "{SECRET}"',
        f'ann : XAUTH "{SECRET}"',
        # a credential in a sentence stays masked: the words around it do not make its value prose (issue 41)
        f"connecting with password {SECRET}",
        f"login failed for user ann with password {SECRET} at 12:00",
        f"the token {SECRET} was refused",
    ],
)
def test_a_setting_written_with_blanks_is_masked(text: str) -> None:
    scrub = messages.runtime("wording.scrub")
    assert SECRET not in scrub.redact_secrets(text), scrub.redact_secrets(text)
    assert SECRET not in scrub.scrub(text)


@pytest.mark.parametrize(
    "text",
    [
        "Session 3 of 5",
        "PasswordAuthentication no",
        "The password must be at least 12 characters long.",
        "Token expired at 12:00; call auth_refresh to get a new one.",
        "secret santa draw is on Friday",
        'FATAL:  password authentication failed for user "app"',
        "compass north",
        "bypass mode is off",
        "max_tokens 4096",
        "Orders:\nORD-2024-000117\nORD-2024-000118",
        "release-notes-2024\ngetUserSettings",
        "see api.example.com or v1.2.3 in data.db; mail ann.lee@example.com or first.middle.last.name@example.com",
        "Only HTML and plain-text pages are accepted; pass raw true to get the body as it is.",
        "It does not exist in the repository. Pass paths relative to the repository's top folder, as git lists them.",
        "Only SELECT statements have a plan; the statement given starts with WITH. Pass one of those.",
        "Command '['pg_dump', '--no-password', '--format', 'custom', 'orders']' returned non-zero exit status 1.",
        "Command '['backup', '--token-count', '3', '--session-name', 'nightly']' returned non-zero exit status 2.",
        "mysql --password --user app orders",
        # near the new rules: options that take no credential, pairs that are names and versions, prose about keys
        "docker login --username ci --password-stdin registry.example.com",
        "see the --password option",
        "Use --token to pass a token on the command line.",
        "docker run -p 8080:80 nginx",
        "ssh -p 2222 deploy@build",
        "psql -h db -p 5432 -U app orders",
        "redis-cli -h cache -p 6379 ping",
        "mysql -u app -p orders",
        "unzip -p archive.zip notes.txt",
        "openssl rsa -in key.pem -passin env:KEY_PASS -out plain.pem",
        "ssh-keygen -t ed25519 -N '' -f id_ed25519",
        "image: nginx:1.25.3-alpine",
        "ERROR:root:Connection refused",
        "Deploy:Release-2024.10",
        "Ready:True",
        "cache_peer parent.example.org parent 3128 0 no-query login=PASSTHRU",
        "runs WPA2-PSK mode with a hidden SSID.",
        "key_mgmt=WPA-PSK",
        "Error: EAP failure, retrying",
        "PSK identity hint: none",
        "# client\tserver\tsecret\tIP addresses",
        # prose about credentials, as an imported API's words and its documents' descriptions write it (issue 41
        # point 1: "the caller's role is the API credentials [redacted] this server")
        "the API credentials of this server",
        "auth token for user",
        "It needs the get_booking permission, and the caller's role is the API credentials of this server.",
        "The API refused this call: the credentials this server uses may not do it.",
        "Ask the user for an auth token for user 5.",
        "A list of credentials associated with this credential list.",
        "A personal access token allows access to the api for the user who created it.",
        "Authentication token metadata.",
        "Create a Credential List",
        "Filter by token value(s).",
        "A name for the secret that's unique within the scope.",
        "A blank response is returned if the session was",
    ],
)
def test_a_sentence_near_a_secret_word_passes_unchanged(text: str) -> None:
    scrub = messages.runtime("wording.scrub")
    assert scrub.redact_secrets(text) == text
    assert scrub.scrub(text) == text


@pytest.mark.parametrize(
    "text",
    [
        "demo://resource/dynamic/text/{resourceId}",  # server-everything's resource template (its audit masked it)
        "file:///home/{userName}/Notes.md",
        "mongodb://Cluster0/{dbName}",
    ],
)
def test_a_uri_alone_on_its_line_is_not_a_user_password_pair(text: str) -> None:
    assert messages.runtime("wording.scrub").redact_secrets(text) == text


@pytest.mark.parametrize("text", ["rsync:Xy7#kPq2", "ann:S3cr3t!Pass"])
def test_a_user_password_line_is_still_masked(text: str) -> None:
    masked = messages.runtime("wording.scrub").redact_secrets(text)
    assert masked == text.split(":")[0] + ":[redacted]", masked


@pytest.mark.parametrize(
    "text", ["requirepass foobared", "password hunter", "machine h.example.org login ann password swordfish"]
)
def test_a_setting_whose_value_is_a_plain_word_is_still_masked(text: str) -> None:
    """A line that is a setting (no word of prose beside it) masks a value that is an English word too."""
    scrub = messages.runtime("wording.scrub")
    value = text.rsplit(" ", 1)[1]
    assert value not in scrub.redact_secrets(text), scrub.redact_secrets(text)


@pytest.mark.parametrize("quote", ['"', "'"])
def test_a_quote_escaped_inside_a_value_does_not_end_its_mask(quote: str) -> None:
    """JSON and repr escape a quote inside a value (`"ab\\"cd"`); the mask goes on to the quote that closes it."""
    scrub = messages.runtime("wording.scrub")
    tail = "cd" + SECRET
    for value in (f"ab{quote}{tail}", f"ab{quote} {tail}", f"ab{quote}{quote}{tail}{quote}"):
        texts = [
            json.dumps({"password": value}),
            json.dumps({"password": value, "user": "ann"}),
            json.dumps({"config": json.dumps({"password": value})}),
            repr({"api_key": value, "region": "eu-west-1"}),
            f"password {json.dumps(value)}",
        ]
        for text in texts:
            for rule in (scrub.redact_secrets, scrub.scrub):
                assert SECRET not in rule(text), (text, rule(text))
    assert scrub.redact_secrets('password: "x" is wrong, try "y"').startswith("password: [redacted]")


def test_a_token_wrapped_over_lines_is_masked_whole() -> None:
    """Base64 wrapped at 64 columns, a token split by CRLF and indentation, a backslash continuation, the same
    inside JSON, and a hex secret (which reads as a digest) continued under its name: no piece is seen again."""
    scrub = messages.runtime("wording.scrub")
    rng = random.Random(5)
    blob = "".join(rng.choice("ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz23456789+/") for _ in range(150))
    pieces = [blob[i : i + 64] for i in range(0, len(blob), 64)]
    hex_pieces = ["".join(rng.choice("0123456789abcdef") for _ in range(48)) for _ in range(2)]
    texts = [
        "could not load the key:\n" + "\n".join(pieces),
        "token:\r\n    " + "\r\n    ".join(pieces) + "\r\nregion: eu-west-1",
        'export TOKEN="' + "\\\n".join(pieces) + '"',
        json.dumps({"material": "\n".join(pieces)}),
        f"signing_secret = {hex_pieces[0]}\n    {hex_pieces[1]}\n",
        f"SIGNING_SECRET={hex_pieces[0]}\\\n{hex_pieces[1]}",
    ]
    for text in texts:
        for rule in (scrub.redact_secrets, scrub.scrub):
            out = rule(text)
            assert [piece for piece in pieces + hex_pieces if piece in out] == [], (text, out)


@pytest.mark.parametrize(
    "host",
    [
        "db7.c9akciq32xyz.us-east-1.rds.amazonaws.com",
        "orders.cluster-ro-c9akciq32xyz.eu-west-1.rds.amazonaws.com",
        "cache7.x1y2z3.ng.0001.use1.cache.amazonaws.com",
        "orders7.database.windows.net",
        "orders7.redis.cache.windows.net",
        "orders7.postgres.database.azure.com",
        "orders7.servicebus.windows.net",
        "cluster7-shard-00-01.x1y2z.mongodb.net",
        "orders7.svc.cluster.local",
        "ip-10-0-1-5.eu-west-1.compute.internal",
        "orders7-x1y2.upstash.io:6379",
        "my-project7:us-central1:orders7",
        "orders7-x1y2z3.snowflakecomputing.com",
    ],
)
def test_a_managed_services_host_is_hidden_from_the_model_and_kept_for_the_log(host: str) -> None:
    scrub = messages.runtime("wording.scrub")
    text = f"Error 111 connecting to {host}. Connection refused."
    assert (
        "orders7" not in scrub.scrub(text)
        and "cluster7" not in scrub.scrub(text)
        and "ip-10" not in scrub.scrub(text)
        and "c9akciq32xyz" not in scrub.scrub(text)
        and "x1y2z3" not in scrub.scrub(text)
    ), scrub.scrub(text)
    assert scrub.redact_secrets(text) == text


HOSTILE = (
    "input_value=", "a.", "a/", "1.", "a:", "a-", "C:\\", "select ", "aa::", "password", "a", "x://", "x://a", "a@",
    "-----BEGIN PRIVATE KEY-----", "Aa1", "token: ", "%41", "eyJ", "a=b&", "Bearer ", "xPassword", '"password": "',
    "a.internal ", "::", "sk_live_", "password a\n", "password a ", "machine h login u password p ", "a.b.c.d:1",
    "x:1:y:z:", "requirepass ", "api_key:\n  ", "password: a\\\n", "[redacted]\n  x", "-----BEGIN A KEY-----\n",
    "Aa1Bb2Cc3Dd4\n ", "Aa1Bb2Cc3Dd4Ee5\\\n", "\\n  Aa1Bb2Cc3Dd4Ee5", "ab-cd:eu-west1:x ", "{SSHA}", "$6$",
    "'--password', '", "'--password', 'a", "--password a ", "['-a', '",
    "sshpass -p ", "mysql -pa ", "['curl', '-u', '", "curl -u a:", "a:Aa1!aaaa\n", "[h]:1 a:Aa1!aaaa ", "login=a:",
    ': PSK "', 'psk="a', "psk=", "SQLConnectInfo a b ", "# a\tsecret\n", "# secret\n a b c\n", '"password": "a"b',
    "'password': 'a'b", 'password "a"b ', "--password-stdin a ", "a.snowflakecomputing.com ",
    'password "', 'password: "a"b', 'password=a"b ',
)  # fmt: skip


@pytest.mark.slow
def test_scrubbing_100_kb_of_any_hostile_text_takes_linear_time() -> None:
    """The arrangements that made earlier rules quadratic (13 s to 5 min for 100 kB each): all of them, scrubbed
    in a subprocess that must finish within 60 s (linear rules take about 0.3 s each)."""
    program = (
        "import sys; from failwell.spec import messages; scrub = messages.runtime('wording.scrub')\n"
        "for base in sys.argv[1:]:\n"
        "    scrub.scrub((base * (100_000 // len(base) + 1))[:100_000])\n"
    )
    subprocess.run([sys.executable, "-c", program, *HOSTILE], check=True, timeout=60)


# --- a generated server, in-process and over stdio ---------------------------------------------------------------


@pytest.fixture(scope="module")
def vault_src(tmp_path_factory: pytest.TempPathFactory) -> Path:
    from failwell import new

    root = tmp_path_factory.mktemp("vault")
    spec = root / "vault.yaml"
    spec.write_text(SPEC)
    new(root / "vault", spec)
    (root / "vault" / "src" / "vault_mcp" / "handlers" / "vault_run.py").write_text(HANDLER)
    return root / "vault" / "src"


def every_call() -> Iterator[tuple[dict[str, Any], list[str]]]:
    """Each kind x quoting x path once, with its canaries."""
    for number, (kind, quoting) in enumerate(CASES):
        for path in PATHS:
            arguments = {"kind": kind.name, "quoting": quoting, "path": path, "seed": number}
            yield arguments, planted(kind, quoting, random.Random(number))[1]


class Lines(logging.Handler):
    def __init__(self, formatter: logging.Formatter) -> None:
        super().__init__()
        self.setFormatter(formatter)
        self.lines: list[str] = []

    def emit(self, record: logging.LogRecord) -> None:
        self.lines.append(self.format(record))


@pytest.mark.slow
@pytest.mark.anyio
async def test_no_credential_reaches_a_client_or_the_log_in_process(vault_src: Path) -> None:
    sys.path.insert(0, str(TESTS))
    with importable(vault_src, "vault_mcp"):
        from vault_mcp._generated.runtime.setup.logs import JsonLines
        from vault_mcp._generated.server import build_server

        server = build_server()
        server.services.rate_limit = None
        captured = Lines(JsonLines())
        root, runtime_logger = logging.getLogger(), logging.getLogger("failwell")
        runtime_logger.addHandler(captured)  # on the runtime's own logger: whatever propagates or not above it
        handler_logger = logging.getLogger("vault.handler")
        handler_logger.addHandler(captured)
        old_level, root.level = root.level, logging.INFO
        # whatever earlier tests in this process did to logging: a dictConfig disables existing loggers, a
        # logging.disable() silences every logger, a level set on the runtime's logger hides its INFO lines
        was_disabled, runtime_logger.disabled = runtime_logger.disabled, False
        was_level, runtime_logger.level = runtime_logger.level, logging.NOTSET
        was_silenced = logging.root.manager.disable
        logging.disable(logging.NOTSET)
        leaked, calls = [], 0
        try:
            for arguments, canaries in every_call():
                captured.lines.clear()
                result = await server.call_tool("vault_run", arguments)
                seen = json.dumps(result.model_dump(mode="json", by_alias=True), ensure_ascii=False)
                logged = "\n".join(captured.lines)
                assert captured.lines, f"{arguments} logged nothing: {result}"
                in_log = leaks(logged, canaries) if BY_NAME[arguments["kind"]].log else []
                if leaks(seen, canaries) or in_log:
                    leaked.append((arguments, leaks(seen, canaries), in_log))
                calls += 1
        finally:
            runtime_logger.removeHandler(captured)
            handler_logger.removeHandler(captured)
            root.level = old_level
            runtime_logger.disabled = was_disabled
            runtime_logger.level = was_level
            logging.disable(was_silenced)
    assert calls == len(CASES) * len(PATHS)
    assert leaked == [], leaked


@pytest.mark.slow
def test_no_credential_reaches_the_pipe_or_stderr_over_stdio(vault_src: Path) -> None:
    hello = {"protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "t", "version": "0"}}
    lines = [
        {"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": hello},
        {"jsonrpc": "2.0", "method": "notifications/initialized"},
    ]
    planted_calls = list(every_call())[::3]  # a third of the calls: every kind, quoting and path still appear
    for number, (arguments, _) in enumerate(planted_calls, start=1):
        params = {"name": "vault_run", "arguments": arguments}
        lines.append({"jsonrpc": "2.0", "id": number, "method": "tools/call", "params": params})
    ran = subprocess.run(
        [sys.executable, "-m", "vault_mcp"],
        input="".join(json.dumps(line) + "\n" for line in lines).encode(),
        capture_output=True,
        timeout=300,
        env={**os.environ, "PYTHONPATH": os.pathsep.join([str(vault_src), str(TESTS)])},
    )
    assert ran.returncode == 0, ran.stderr[-2000:]
    answers = [json.loads(line) for line in ran.stdout.splitlines()]
    assert len(answers) == len(planted_calls) + 1
    out, err = ran.stdout.decode(), ran.stderr.decode()
    every_canary = {canary for _, canaries in planted_calls for canary in canaries}
    logged_canaries = {c for arguments, canaries in planted_calls if BY_NAME[arguments["kind"]].log for c in canaries}
    assert [canary for canary in every_canary if canary in out] == []
    assert [canary for canary in logged_canaries if canary in err] == []


@pytest.mark.slow
def test_no_credential_reaches_the_log_over_http_in_the_url_or_the_call(vault_src: Path, tmp_path: Path) -> None:
    """Every kind sent in the query string and (for the kinds whose shape gives them away) as a path segment of
    the URL, and every kind planted by a handler called over streamable HTTP: the server's stderr holds none."""
    import httpx
    from httpserver import ACCEPT, http_server

    canaries: set[str] = set()
    on_path = Path(os.pathsep.join([str(vault_src), str(TESTS)]))
    with http_server("vault_mcp", on_path, tmp_path / "stderr.log", {}) as server:
        for number, kind in enumerate(kind for kind in KINDS if kind.log):  # hosts are for the log to keep
            text, found = planted(kind, "query", random.Random(number))
            canaries.update(found)
            query = text.split("?", 1)[1].split(" ", 1)[0]
            listing = {"jsonrpc": "2.0", "id": number, "method": "tools/list"}
            assert httpx.post(f"{server.url}?{query}", json=listing, headers=ACCEPT).status_code == 200
            value, found = kind.make(random.Random(number))
            if kind.bare and "\n" not in value:
                canaries.update(found)
                httpx.get(f"http://127.0.0.1:{server.port}/files/{value.replace(' ', '%20')}")
            for path in ("exception", "log_extra", "validation_dict"):
                arguments = {"kind": kind.name, "quoting": "header", "path": path, "seed": number}
                call = {"jsonrpc": "2.0", "id": number, "method": "tools/call"}
                call["params"] = {"name": "vault_run", "arguments": arguments}
                answered = httpx.post(server.url, json=call, headers=ACCEPT)
                assert answered.status_code == 200
                canaries.update(planted(kind, "header", random.Random(number))[1])
                assert not [canary for canary in canaries if canary in answered.text]
        logged = server.logged()
    assert '"path": "/files/' in logged, "the requests were logged"
    assert sorted(canary for canary in canaries if canary in logged) == []


def quick_check(scrub: Any) -> Any:
    """The quick pattern a text must hold for the name rule (`_VALUE_AFTER_NAME`, replaced by `_mask_value`) to run."""
    return next(needs for needs, _, replacement in scrub._SECRET_RULES if replacement is scrub._mask_value)


SECRET_WORDS = (
    "password",
    "passwd",
    "passphrase",
    "pass",
    "pwd",
    "pw",
    "secret",
    "token",
    "api_key",
    "api-key",
    "api.key",
    "apikey",
    "access_key",
    "access key",
    "private_key",
    "account_key",
    "shared_access_key",
    "shared_access_signature",
    "credential",
    "credentials",
    "authorization",
    "authtok",
    "auth",
    "cookie",
    "session",
    "session_id",
    "sessionkey",
    "signature",
    "sig",
    "dsn",
    "conn_str",
    "connection_string",
    "requirepass",
    "masterauth",
    "bindpw",
    "rootpw",
    "adminpwd",
)
FOLDS = {"s": "sS\u017f", "k": "kK\u212a", "i": "iI\u0131\u0130"}
"""Characters the `re` engine's case folding matches for s, k and i (the long s, the Kelvin sign, the dotless and
dotted i): a name spelled with them is a secret name to the scrubber, and its quick check must say so too."""


@settings(max_examples=400, deadline=None, derandomize=True)
@given(
    word=st.sampled_from(SECRET_WORDS),
    spelling=st.lists(st.integers(0, 3), min_size=40, max_size=40),
    before=st.sampled_from(["", "db_", "X-", "my", "\\n", "{'", " "]),
    value=st.sampled_from(["=hunter2x", ": 'Tr0ub4dor&3'", " s3cr3tValue", '"=>"p4ss"']),
)
def test_the_quick_check_finds_every_secret_name_the_name_rule_finds(
    word: str, spelling: list[int], before: str, value: str
) -> None:
    """The name rule's quick check decides whether `_VALUE_AFTER_NAME` runs at all: wherever that rule finds a name
    and its value (in any case, with any letter the engine folds to the same one), the quick check finds a word."""
    scrub = messages.runtime("wording.scrub")
    spelled = "".join(
        FOLDS[char.lower()][turn % len(FOLDS[char.lower()])]
        if char.lower() in FOLDS
        else (char.upper() if turn % 2 else char)
        for char, turn in zip(word, spelling, strict=False)
    )
    text = f"{before}{spelled}{value}"
    if scrub._VALUE_AFTER_NAME.search(text):
        assert quick_check(scrub).search(text), text
        assert scrub.redact_secrets(text) != text, text


STRUCTURES = (
    "{{'current': {v!r}, 'previous': 'old'}}",
    '["old", "{v}"]',
    "['old', {{'nested': [{v!r}]}}]",
    "b'{v}'",
    'b"{v}"',
    "SecretStr({v!r})",
    "({v!r}, 'x')",
    "bytearray(b'{v}')",
)


@settings(max_examples=400, deadline=None, derandomize=True)
@given(
    word=st.sampled_from(SECRET_WORDS),
    spelling=st.lists(st.integers(0, 3), min_size=40, max_size=40),
    before=st.sampled_from(["", "db_", "X-", "my", "old_"]),
    quote=st.sampled_from(["'", '"', ""]),
    separator=st.sampled_from([": ", ":", "=", " => ", " : "]),
    structure=st.sampled_from(STRUCTURES),
    tail=st.sampled_from(["", "\n", " | and more"]),
)
def test_a_structure_under_a_secret_name_is_masked_whole(
    word: str, spelling: list[int], before: str, quote: str, separator: str, structure: str, tail: str
) -> None:
    """Issue 39, point 13: a mapping, list, tuple, call or bytes printed under a secret name (a Python repr at any
    depth, JSON, keyword arguments), in any case and quoting, is masked whole for the log and the model; the fields
    beside it stay (before the fix only the text up to its first closing quote was: the other items leaked)."""
    scrub = messages.runtime("wording.scrub")
    spelled = "".join(char.upper() if turn % 2 else char for char, turn in zip(word, spelling, strict=False))
    name = f"{before}{spelled}"
    secret = "Qz7-Hv2kW9-x"
    text = f"RuntimeError({{{quote}user{quote}{separator}'ann', {quote}{name}{quote}{separator}"
    text += structure.format(v=secret) + f", {quote}region{quote}{separator}'eu'}}){tail}"
    for rule in (scrub.redact_secrets, scrub.scrub):
        shown = rule(text)
        if scrub.secret_named(name):
            assert secret not in shown, (text, shown)
            assert "'ann'" in shown, (text, shown)
            if not quote and re.fullmatch(r"(?i)(?:set-)?cookie|(?:proxy-)?authorization", name):
                continue  # unquoted, it is an HTTP header line (`Cookie: ...`): masked to the line's end
            assert "'eu'" in shown and "region" in shown, (text, shown)
        else:
            assert secret in shown, (text, shown)


@pytest.mark.parametrize("quote", ["'", '"', ""])
@pytest.mark.parametrize("before", ["", "db_"])
def test_a_structure_under_a_secret_name_of_two_words_is_masked_whole(quote: str, before: str) -> None:
    """A name of two words (`access key`) before a structure: the structure rule read only its last word (`key`, not
    a secret's name), so the name rule masked the value to its first closing quote and the items after it leaked."""
    scrub = messages.runtime("wording.scrub")
    secret = "Qz7-Hv2kW9-x"
    for structure in STRUCTURES:
        text = f"RuntimeError({{{quote}user{quote}: 'ann', {quote}{before}access key{quote}: "
        text += structure.format(v=secret) + f", {quote}region{quote}: 'eu'}})"
        for rule in (scrub.redact_secrets, scrub.scrub):
            shown = rule(text)
            assert secret not in shown and "'ann'" in shown and "'eu'" in shown, (text, shown)


def test_a_handlers_exception_with_a_mapping_keeps_its_other_fields_in_the_log() -> None:
    """The issue's own case: `RuntimeError({"config": {"dsn": ..., "password": ...}})` as its traceback prints it:
    every secret-named key masked, at any depth, its neighbours kept."""
    scrub = messages.runtime("wording.scrub")
    error = RuntimeError(
        {"config": {"dsn": "db", "password": "Pw-1x9Q", "api_key": ["Ak-7c2Z"], "token": {"v": "Tk-4b8M"}}},
        {"user": "ann", "secret": b"Sb-3d6R"},
    )
    shown = scrub.redact_secrets(f"RuntimeError: {error}")
    assert [canary for canary in ("Pw-1x9Q", "Ak-7c2Z", "Tk-4b8M", "Sb-3d6R") if canary in shown] == []
    assert "'user': 'ann'" in shown and "'config': {" in shown, shown


SCALARS = ("48213957", "-7", "3.25e-4", "True", "false", "None", "null", "Secret('Qz7-Hv2kW9-x')")
"""Values under a secret name that are not strings, as Python or JSON prints them."""


@pytest.mark.parametrize("value", SCALARS)
@pytest.mark.parametrize(
    "layout",
    [
        "{{'user': 'ann', 'password': {v}, 'region': 'eu'}}",
        '{{"user": "ann", "api_token": {v}, "region": "eu"}}',
        "Settings(user='ann', client_secret={v}, region='eu')",
        "OrderedDict([('user', 'ann'), ('password', {v}), ('region', 'eu')])",
        "[('user', 'ann'), ('token', {v}), ('region', 'eu')]",
        "dict(user='ann', password={v}, region='eu')",
    ],
)
def test_a_value_that_is_not_a_string_is_masked_exactly(layout: str, value: str) -> None:
    """Issue 39, points 6 and 13 (red team): a number, a boolean, `None` or an object's repr under a secret name is
    masked to its own end: the items after it stay as they were (before the fix the name rule took an unquoted value
    on to the next quote, `{'password': [redacted]': 'eu'}`, and a pair, `('password', 'p')`, was not masked)."""
    scrub = messages.runtime("wording.scrub")
    text = layout.format(v=value)
    for rule in (scrub.redact_secrets, scrub.scrub):
        shown = rule(text)
        assert shown.replace("'[redacted]'", "[redacted]") == text.replace(value, "[redacted]"), (text, shown)


@pytest.mark.parametrize(
    "layout",
    [
        "OrderedDict([('password', {v!r}), ('user', 'ann')])",
        "[('token', {v!r})]",
        "dict([('user', 'ann'), ('api_key', [{v!r}, 'x'])])",
        '[["user", "ann"], ["token", {v}]]',
        "dict(password={v!r})",
    ],
)
def test_a_mapping_given_as_pairs_is_masked(layout: str) -> None:
    """`OrderedDict([('password', 'x')])`, `[('token', 'y')]`, JSON's `[["token", "t"]]`, `dict(password='z')`: the
    value of a pair whose first item is a secret name is masked, the others kept (before the fix a pair leaked)."""
    scrub = messages.runtime("wording.scrub")
    text = layout.format(v=f'"{SECRET}"' if layout.startswith("[[") else SECRET)
    for rule in (scrub.redact_secrets, scrub.scrub):
        shown = rule(text)
        assert SECRET not in shown and shown.count("ann") == text.count("ann"), (text, shown)
    listed = '{"fields": ["password", "email"], "token_count": 3}'
    assert scrub.redact_secrets(listed) == listed, "a list of names is not a list of pairs"
    called = "open('PWNED', 'w') and check('password', 'strength')"
    assert scrub.redact_secrets(called) == called, "a call's arguments are not a pair"


@pytest.mark.parametrize("before", ["x", "1.", "v2", "-", "--", "+", ".", "=", "(", "[", "<", "'", '"', "\\n", "é"])
def test_url_user_info_is_masked_whatever_precedes_the_scheme(before: str) -> None:
    """`scheme://user:password@host` glued to anything (a letter, a digit, a dash, `=`, a bracket): masked for the
    log and the model (before the fix a digit, `+`, `-` or `.` before the scheme hid it: `-https://u:p@h`)."""
    scrub = messages.runtime("wording.scrub")
    for scheme in ("https", "postgresql", "mongodb+srv", "HTTPS"):
        text = f"failed: {before}{scheme}://app:{SECRET}@db.example.com:5432/app"
        assert SECRET not in scrub.redact_secrets(text), text
        assert SECRET not in scrub.scrub(text), text


def test_the_quick_check_agrees_with_the_name_rule_on_every_corpus_text() -> None:
    """Every planted text of both corpora, and ordinary text: the name rule never finds what the quick check skips."""
    scrub = messages.runtime("wording.scrub")
    texts = [planted(kind, quoting, random.Random(seed))[0] for kind, quoting in CASES for seed in range(3)]
    texts += [ordinary(random.Random(seed)) for seed in range(500)]
    texts += [held.make(random.Random(seed))[0] for held in HELD_OUT for seed in range(3)]
    texts += list(BENIGN)
    found = [text for text in texts if scrub._VALUE_AFTER_NAME.search(text)]
    assert len(found) > 100, "the corpora hold secret names for the rule to find"
    assert [text for text in found if not quick_check(scrub).search(text)] == []
    assert any(not quick_check(scrub).search(text) for text in texts), "and text without any, which skips it"
