"""A corpus of credentials as they turn up in real text, and the ordinary values that must survive.

A kind makes one fresh credential (random, in its real shape) and names the canaries: the parts that
must never be seen again (its random core, at least 6 characters each). A quoting puts a credential into
text the way code, configs, headers, URLs and reprs do. A path (in test_secrets.py) carries that text
to where it could leak: a declared failure's value, an exception's text, its cause or context, an
ExceptionGroup member, a dict argument, a pydantic ValidationError, a handler's own log call.
"""

from __future__ import annotations

import base64
import json
import random
import re
import string
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass
from itertools import pairwise
from urllib.parse import quote

B62 = string.ascii_letters + string.digits
B64 = B62 + "+/"
B64URL = B62 + "-_"
HEX = "0123456789abcdef"
UPPER_DIGITS = string.ascii_uppercase + string.digits


def word(rng: random.Random, size: int, alphabet: str = B62) -> str:
    """A random string that, like a real key of this length, mixes lower case, upper case and digits."""
    while True:
        drawn = "".join(rng.choice(alphabet) for _ in range(size))
        classes = [any(c.islower() for c in drawn), any(c.isupper() for c in drawn), any(c.isdigit() for c in drawn)]
        if alphabet in (HEX, UPPER_DIGITS, string.ascii_lowercase + string.digits) or all(classes):
            return drawn


@dataclass(frozen=True)
class Kind:
    name: str
    key: str
    """The field name it usually sits under."""
    make: Callable[[random.Random], tuple[str, list[str]]]
    bare: bool = True
    """Whether its shape alone gives it away (a password does not: it needs its field name)."""
    log: bool = True
    """Whether the log must not hold it either (a credential), or only the model (an internal host name, which
    the log keeps so an operator can trace the failure)."""
    literal: bool = False
    """Whether its value is not a string: written as Python prints a number or an object (`48213957`,
    `Secret('...')`), unquoted, so only the quotings that write such a value take it (`LITERAL_QUOTINGS`)."""


def _pem(label: str) -> Callable[[random.Random], tuple[str, list[str]]]:
    def make(rng: random.Random) -> tuple[str, list[str]]:
        lines = [word(rng, 64, B64) for _ in range(rng.randint(3, 8))]
        body = "\n".join(lines)
        return f"-----BEGIN {label}-----\n{body}\n-----END {label}-----\n", lines

    return make


def _token(prefix: str, size: int, alphabet: str = B62, suffix: str = "") -> Callable[..., tuple[str, list[str]]]:
    def make(rng: random.Random) -> tuple[str, list[str]]:
        core = word(rng, size, alphabet)
        return f"{prefix}{core}{suffix}", [core]

    return make


def _gcp(rng: random.Random) -> tuple[str, list[str]]:
    key_id = word(rng, 40, HEX)
    pem, lines = _pem("PRIVATE KEY")(rng)
    account = {
        "type": "service_account",
        "project_id": "demo-project",
        "private_key_id": key_id,
        "private_key": pem,
        "client_email": "svc@demo-project.iam.gserviceaccount.com",
        "client_id": "1234567890",
    }
    return json.dumps(account), [key_id, *lines]


def _azure_storage(rng: random.Random) -> tuple[str, list[str]]:
    key = base64.b64encode(rng.randbytes(64)).decode()
    account = f"acct{rng.randint(1, 99)}"
    text = f"DefaultEndpointsProtocol=https;AccountName={account};AccountKey={key};EndpointSuffix=core.windows.net"
    return text, [key[:40], key[40:]]


def _azure_bus(rng: random.Random) -> tuple[str, list[str]]:
    key = base64.b64encode(rng.randbytes(32)).decode()
    text = (
        f"Endpoint=sb://bus{rng.randint(1, 99)}.servicebus.windows.net/;SharedAccessKeyName=Root;SharedAccessKey={key}"
    )
    return text, [key]


def _azure_sas_url(rng: random.Random) -> tuple[str, list[str]]:
    sig = base64.b64encode(rng.randbytes(32)).decode()
    return f"https://acct.blob.core.windows.net/c/f.txt?sv=2022-11-02&sp=r&sig={quote(sig, safe='')}", [
        quote(sig, safe="")[:30]
    ]


def _aws_secret(rng: random.Random) -> tuple[str, list[str]]:
    key = word(rng, 40, B64)
    return key, [key]


def _aws_session(rng: random.Random) -> tuple[str, list[str]]:
    token = "IQoJb3JpZ2luX2Vj" + word(rng, 300, B64)
    return token, [token[16:80], token[200:260]]


def _slack_webhook(rng: random.Random) -> tuple[str, list[str]]:
    secret = word(rng, 24)
    return f"https://hooks.slack.com/services/T{word(rng, 8, UPPER_DIGITS)}/B{word(rng, 8, UPPER_DIGITS)}/{secret}", [
        secret
    ]


def _discord_webhook(rng: random.Random) -> tuple[str, list[str]]:
    secret = word(rng, 68, B64URL)
    return f"https://discord.com/api/webhooks/{rng.randint(10**17, 10**18)}/{secret}", [secret]


def _telegram(rng: random.Random) -> tuple[str, list[str]]:
    secret = word(rng, 33, B64URL)
    return f"{rng.randint(10**8, 10**9)}:AA{secret}", [secret]


def _sendgrid(rng: random.Random) -> tuple[str, list[str]]:
    first, second = word(rng, 22, B64URL), word(rng, 43, B64URL)
    return f"SG.{first}.{second}", [first, second]


def _jwt(rng: random.Random, joiner: str = ".") -> tuple[str, list[str]]:
    header = base64.urlsafe_b64encode(b'{"alg":"HS256","typ":"JWT"}').decode().rstrip("=")
    claims = {"sub": word(rng, 12), "exp": rng.randint(10**9, 2 * 10**9), "name": "Ann"}
    payload = base64.urlsafe_b64encode(json.dumps(claims).encode()).decode().rstrip("=")
    signature = word(rng, 43, B64URL)
    return joiner.join([header, payload, signature]), [payload[10:], signature]


def _jwt_split(rng: random.Random) -> tuple[str, list[str]]:
    return _jwt(rng, "\n.")


def _basic(rng: random.Random) -> tuple[str, list[str]]:
    password = word(rng, 14)
    encoded = base64.b64encode(f"svc-user:{password}".encode()).decode()
    return f"Basic {encoded}", [encoded[8:], password]


def _bearer(rng: random.Random) -> tuple[str, list[str]]:
    token = word(rng, 32, B64URL)
    return f"Bearer {token}", [token]


def _cookie(rng: random.Random) -> tuple[str, list[str]]:
    session, csrf = word(rng, 16, string.ascii_lowercase + string.digits), word(rng, 20)
    return f"theme=dark; sid={session}; csrftoken={csrf}", [session, csrf]


def _password(rng: random.Random) -> tuple[str, list[str]]:
    password = word(rng, rng.randint(8, 16), B62 + "!#%^*")
    return password, [password]


def _password_with_a_quote(rng: random.Random) -> tuple[str, list[str]]:
    # a quote inside a password: JSON and repr escape it (`"ab\\"cd..."`), a shell or an env file writes it bare
    tail = word(rng, rng.randint(8, 14), B62 + "!#%^*")
    return f'{word(rng, 3, B62)}"{tail}', [tail]


def _passphrase(rng: random.Random) -> tuple[str, list[str]]:
    words = ["".join(rng.choice(string.ascii_lowercase) for _ in range(rng.randint(6, 9))) for _ in range(4)]
    return " ".join(words), words


def _dsn(scheme: str, port: int) -> Callable[[random.Random], tuple[str, list[str]]]:
    def make(rng: random.Random) -> tuple[str, list[str]]:
        password = word(rng, 8) + rng.choice(["/", "@", "%", ":", "!"]) + word(rng, 8)
        pieces = [p for p in password.replace("@", "/").replace("%", "/").replace(":", "/").split("/") if p]
        return f"{scheme}://app_user:{password}@db{rng.randint(1, 9)}.example.com:{port}/appdb", [
            *pieces[:1],
            *[p for p in pieces[1:] if len(p) >= 6],
        ]

    return make


def _number(rng: random.Random) -> tuple[str, list[str]]:
    number = str(rng.randint(10**8, 10**12))
    return number, [number]


def _secret_object(rng: random.Random) -> tuple[str, list[str]]:
    inner = word(rng, rng.randint(10, 16))
    return f"Secret({inner!r})", [inner]


def _api_key_field(rng: random.Random) -> tuple[str, list[str]]:
    key = word(rng, 24, string.ascii_lowercase + string.digits)
    return key, [key]


def _high_entropy(rng: random.Random) -> tuple[str, list[str]]:
    key = word(rng, rng.randint(32, 64), B64URL)
    return key, [key]


def _pgpass_line(rng: random.Random) -> tuple[str, list[str]]:
    """A line of libpq's password file: host:port:database:user:password (any field but the last may be *)."""
    password = word(rng, rng.randint(10, 16), B62 + "!#%^*")
    host = rng.choice(["*", "localhost", f"pg{rng.randint(1, 9)}.example.net"])
    return f"{host}:{rng.choice(['5432', '*', '6432'])}:{rng.choice(['*', 'billing'])}:svc:{password}", [password]


def _ssha(rng: random.Random) -> tuple[str, list[str]]:
    """An LDAP password hash as slappasswd writes it; crackable, so as secret as the password."""
    digest = base64.b64encode(rng.randbytes(24)).decode()
    return f"{{SSHA}}{digest}", [digest]


def _static_key(rng: random.Random) -> tuple[str, list[str]]:
    """A PEM-armoured secret whose label is not PRIVATE KEY (an OpenVPN static key, hex lines)."""
    lines = [word(rng, 32, HEX) for _ in range(rng.randint(4, 8))]
    body = "\n".join(lines)
    return f"-----BEGIN OpenVPN Static key V1-----\n{body}\n-----END OpenVPN Static key V1-----", lines


def _hex_secret(rng: random.Random) -> tuple[str, list[str]]:
    """A long hex secret: it reads as a digest, so only its field name gives it away."""
    key = word(rng, 96, HEX)
    return key, [key]


def _host(*labels: str, port: str = "") -> Callable[[random.Random], tuple[str, list[str]]]:
    """A managed service's host name: `{name}` and `{id}` become the instance's own labels (the canaries)."""

    def make(rng: random.Random) -> tuple[str, list[str]]:
        name = rng.choice(string.ascii_lowercase) + word(rng, rng.randint(6, 11), string.ascii_lowercase + "0123456789")
        ident = word(rng, rng.randint(6, 12), string.ascii_lowercase + "0123456789")
        host = ".".join(labels).replace("{name}", name).replace("{id}", ident)
        return host + port, [canary for canary in (name, ident) if canary in host]

    return make


def _cloud_sql_name(rng: random.Random) -> tuple[str, list[str]]:
    """A Cloud SQL instance connection name, project:region:instance."""
    project = rng.choice(string.ascii_lowercase) + word(rng, 9, string.ascii_lowercase + "0123456789")
    instance = rng.choice(string.ascii_lowercase) + word(rng, 7, string.ascii_lowercase + "0123456789")
    region = rng.choice(["us-central1", "asia-northeast1", "europe-west3", "us-east4"])
    return f"{project}:{region}:{instance}", [project, instance]


KINDS: tuple[Kind, ...] = (
    Kind("pem_rsa", "private_key", _pem("RSA PRIVATE KEY")),
    Kind("pem_pkcs8", "private_key", _pem("PRIVATE KEY")),
    Kind("pem_encrypted", "private_key", _pem("ENCRYPTED PRIVATE KEY")),
    Kind("pem_ec", "private_key", _pem("EC PRIVATE KEY")),
    Kind("pem_openssh", "ssh_key", _pem("OPENSSH PRIVATE KEY")),
    Kind("pem_pgp", "signing_key", _pem("PGP PRIVATE KEY BLOCK")),
    Kind("gcp_service_account", "credentials", _gcp),
    Kind("aws_access_key_id", "aws_access_key_id", _token("AKIA", 16, UPPER_DIGITS)),
    Kind("aws_secret_access_key", "aws_secret_access_key", _aws_secret),
    Kind("aws_session_token", "aws_session_token", _aws_session),
    Kind("azure_storage_connection", "connection_string", _azure_storage),
    Kind("azure_service_bus", "connection_string", _azure_bus),
    Kind("azure_sas_url", "blob_url", _azure_sas_url),
    Kind("gcp_api_key", "api_key", _token("AIza", 35, B64URL)),
    Kind("google_oauth", "access_token", _token("ya29.", 60, B64URL)),
    Kind("github_classic", "github_token", _token("ghp_", 36)),
    Kind("github_fine_grained", "github_token", _token("github_pat_", 82, B62 + "_")),
    Kind("gitlab", "gitlab_token", _token("glpat-", 20, B64URL)),
    Kind("npm", "npm_token", _token("npm_", 36)),
    Kind("pypi", "pypi_token", _token("pypi-AgEIcHlwaS5vcmc", 60, B64URL)),
    Kind("docker_hub", "docker_token", _token("dckr_pat_", 27, B64URL)),
    Kind("slack_bot", "slack_token", _token("xoxb-2718281828-3141592653-", 24)),
    Kind("slack_webhook", "webhook", _slack_webhook),
    Kind("discord_webhook", "webhook", _discord_webhook),
    Kind("telegram_bot", "bot_token", _telegram),
    Kind("stripe_secret", "stripe_key", _token("sk_live_", 24)),
    Kind("stripe_restricted", "stripe_key", _token("rk_live_", 24)),
    Kind("stripe_webhook", "webhook_secret", _token("whsec_", 32)),
    Kind("sendgrid", "sendgrid_key", _sendgrid),
    Kind("mailgun", "mailgun_key", _token("key-", 32, string.ascii_lowercase + string.digits)),
    Kind("twilio_api_key", "twilio_key", _token("SK", 32, HEX)),
    Kind("openai", "openai_api_key", _token("sk-proj-", 48, B64URL)),
    Kind("anthropic", "anthropic_api_key", _token("sk-ant-api03-", 80, B64URL)),
    Kind("huggingface", "hf_token", _token("hf_", 34)),
    Kind("vault", "vault_token", _token("hvs.", 24, B64URL)),
    Kind("jwt", "id_token", _jwt),
    Kind("jwt_split_across_lines", "id_token", _jwt_split),
    Kind("basic_authorization", "Authorization", _basic),
    Kind("bearer_authorization", "Authorization", _bearer),
    Kind("cookie", "Cookie", _cookie, bare=False),
    Kind("password", "password", _password, bare=False),
    Kind("passphrase_with_spaces", "passphrase", _passphrase, bare=False),
    Kind("password_with_a_quote", "password", _password_with_a_quote, bare=False),
    Kind("postgres_dsn", "DATABASE_URL", _dsn("postgresql", 5432)),
    Kind("mysql_dsn", "dsn", _dsn("mysql", 3306)),
    Kind("mongodb_dsn", "MONGO_URL", _dsn("mongodb+srv", 27017)),
    Kind("redis_dsn", "REDIS_URL", _dsn("rediss", 6380)),
    Kind("amqp_dsn", "BROKER_URL", _dsn("amqps", 5671)),
    Kind("mssql_dsn", "db_url", _dsn("mssql+pyodbc", 1433)),
    Kind("api_key_field", "X-Api-Key", _api_key_field, bare=False),
    Kind("client_secret_field", "client_secret", _api_key_field, bare=False),
    Kind("high_entropy_string", "value", _high_entropy),
    # credentials that classic configuration files write as whitespace-separated keys and values
    Kind("redis_requirepass", "requirepass", _password, bare=False),
    Kind("ldap_bindpw", "bindpw", _password, bare=False),
    Kind("sssd_authtok", "ldap_default_authtok", _password, bare=False),
    Kind("pgpass_line", "passfile_line", _pgpass_line),
    Kind("ldap_ssha_hash", "userPassword", _ssha),
    Kind("pem_openvpn_static_key", "tls_auth", _static_key),
    Kind("hex_signing_secret", "signing_secret", _hex_secret, bare=False),
    # values that are not strings under a secret name (a numeric PIN-like password, an object's repr), as a repr,
    # keyword arguments or pairs print them: masked to their end exactly
    Kind("password_number", "password", _number, bare=False, literal=True),
    Kind("secret_object", "api_token", _secret_object, bare=False, literal=True),
    # internal host names of managed services: for the model, not the log
    Kind(
        "aws_docdb_host",
        "host",
        _host("{name}", "cluster-{id}", "eu-central-1", "docdb", "amazonaws", "com"),
        log=False,
    ),
    Kind(
        "aws_redshift_host",
        "host",
        _host("{name}", "{id}", "us-west-2", "redshift", "amazonaws", "com", port=":5439"),
        log=False,
    ),
    Kind(
        "aws_memorydb_host",
        "host",
        _host("clustercfg", "{name}", "{id}", "memorydb", "eu-west-1", "amazonaws", "com"),
        log=False,
    ),
    Kind("azure_cosmos_host", "endpoint_host", _host("{name}", "documents", "azure", "com", port=":443"), log=False),
    Kind("azure_vault_host", "vault_host", _host("{name}", "vault", "azure", "net"), log=False),
    Kind("azure_flexible_mysql", "server", _host("{name}", "mysql", "database", "azure", "com"), log=False),
    Kind("upstash_host", "host", _host("{name}-{id}", "upstash", "io", port=":6379"), log=False),
    Kind("gcp_internal_dns", "host", _host("{name}", "{id}", "c", "prod-project", "internal"), log=False),
    Kind("cloud_sql_instance_name", "instance_connection_name", _cloud_sql_name, log=False),
)


def _json(key: str, value: str) -> str:
    return json.dumps({"user": "ann", key: value})


def _repr(key: str, value: str) -> str:
    return repr({"user": "ann", key: value})


def _kwargs(key: str, value: str) -> str:
    return f"Settings(user='ann', {key.lower().replace('-', '_')}={value!r})"


def _header(key: str, value: str) -> str:
    return f"POST /v1/things HTTP/1.1\r\nHost: api.example.com\r\n{key}: {value}\r\nAccept: */*\r\n"


def _env(key: str, value: str) -> str:
    return (
        f"export {key.upper().replace('-', '_')}={value!r}"
        if "\n" in value
        else f"{key.upper().replace('-', '_')}={value}"
    )


def _query(key: str, value: str) -> str:
    return f"GET https://api.example.com/v1/items?page=2&{quote(key)}={quote(value, safe='')} returned 401"


QUOTINGS: dict[str, Callable[[str, str], str]] = {
    "bare": lambda key, value: f"could not use {value} for the call",
    "equals": lambda key, value: f"{key}={value}",
    "colon": lambda key, value: f"{key}: {value}",
    "spaced_equals": lambda key, value: f"{key} = {value}",
    "json": _json,
    "repr": _repr,
    "kwargs": _kwargs,
    "header": _header,
    "env": _env,
    "query": _query,
    "multiline": lambda key, value: f"config loaded:\n  user: ann\n  {key}: {value}\n  region: eu-west-1\n",
    # a structure under the secret's name, as Python prints a mapping (an exception's argument, a logged dict) and
    # JSON writes one: the value is a mapping, a list, bytes, at any depth
    "repr_nested": lambda key, value: repr({"config": {"user": "ann", key: {"current": value, "previous": "old"}}}),
    "repr_list_bytes": lambda key, value: repr({"user": "ann", key: ["old", value.encode()], "region": "eu"}),
    "json_list": lambda key, value: json.dumps({"user": "ann", key: ["old", value], "region": "eu"}),
}


QUOTINGS.update(
    {  # a mapping given as pairs: OrderedDict's repr, a list of tuples, JSON's list of lists
        "pairs": lambda key, value: repr(OrderedDict([("user", "ann"), (key, value), ("region", "eu")])),
        "pair_list": lambda key, value: repr([("user", "ann"), (key, value), ("region", "eu")]),
        "json_pairs": lambda key, value: json.dumps([["user", "ann"], [key, value], ["region", "eu"]]),
    }
)

URL_QUOTINGS: dict[str, Callable[[str, str], str]] = {
    # a URL with user-info glued to what precedes its scheme: a letter, a digit and a dot, dashes, `=`, a bracket
    "url_after_letter": lambda key, value: f"fetching x{value} failed",
    "url_after_digit": lambda key, value: f"1.{value} failed",
    "url_after_dashes": lambda key, value: f"--{value}",
    "url_after_equals": lambda key, value: f"{key.lower()}={value}",
    "url_in_brackets": lambda key, value: f"could not connect ({value})",
}
"""For a kind whose value is a URL only (`scheme://user:password@host`)."""

LITERAL_QUOTINGS: dict[str, Callable[[str, str], str]] = {
    "literal_repr": lambda key, value: f"{{'user': 'ann', {key!r}: {value}, 'region': 'eu'}}",
    "literal_json": lambda key, value: f'{{"user": "ann", {json.dumps(key)}: {value}, "region": "eu"}}',
    "literal_kwargs": lambda key, value: f"Settings(user='ann', {key}={value}, region='eu')",
    "literal_pairs": lambda key, value: f"OrderedDict([('user', 'ann'), ({key!r}, {value}), ('region', 'eu')])",
    "literal_dict_call": lambda key, value: f"dict(user='ann', {key}={value})",
    "literal_colon": lambda key, value: f"{key}: {value}",
}
"""For a kind whose value is not a string (`Kind.literal`): the value written as it is, unquoted."""
QUOTINGS.update(URL_QUOTINGS)
QUOTINGS.update(LITERAL_QUOTINGS)


def _quoted(value: str) -> str:
    """A value as a whitespace-separated configuration file writes it: in double quotes when it holds a space."""
    return f'"{value}"' if " " in value else value


QUOTINGS.update(
    {  # whitespace-separated keys and values, as netrc, ldap.conf, redis.conf, msmtprc and aligned files write them
        "spaced": lambda key, value: f"{key} {_quoted(value)}",
        "netrc": lambda key, value: f"machine api.example.com login ann {key} {_quoted(value)}",
        "aligned": lambda key, value: f"User{' ' * 10}ann\n{key}{' ' * max(2, 14 - len(key))}{_quoted(value)}\n",
    }
)

SPLIT_QUOTINGS: dict[str, tuple[Callable[[str, list[str]], str], int]] = {
    "split_lf": (lambda key, pieces: f"{key}: " + "\n    ".join(pieces) + "\n", 0),
    "split_crlf": (lambda key, pieces: f"{key}:\r\n  " + "\r\n  ".join(pieces) + "\r\n", 0),
    "continuation": (lambda key, pieces: f'{key.upper().replace("-", "_")}="' + "\\\n".join(pieces) + '"', 0),
    "wrapped_40": (lambda key, pieces: f"{key}:\n" + "\n".join(pieces), 40),
    "wrapped_in_json": (lambda key, pieces: json.dumps({"user": "ann", key: "\n".join(pieces)}), 40),
}
"""A value broken across lines: how the pieces are joined, and where it is cut (0: in the middle, else every N
characters)."""


def _cut(value: str, every: int) -> list[int]:
    return [len(value) // 2] if every == 0 else list(range(every, len(value), every))


def _fragments(value: str, cuts: list[int], canaries: list[str]) -> list[str]:
    """Each canary cut where the value is cut: a piece is seen whole or not at all."""
    pieces = []
    for canary in canaries:
        start = value.find(canary)
        inner = [cut - start for cut in cuts if start >= 0 and start < cut < start + len(canary)]
        bounds = [0, *inner, len(canary)]
        pieces += [canary[a:b] for a, b in pairwise(bounds)]
    return pieces


def planted(kind: Kind, quoting: str, rng: random.Random) -> tuple[str, list[str]]:
    """Text carrying one fresh credential of `kind`, quoted as `quoting`; and its canaries."""
    value, canaries = kind.make(rng)
    if quoting == "query":
        canaries = [quote(canary, safe="") for canary in canaries]
    if quoting in SPLIT_QUOTINGS:
        join, every = SPLIT_QUOTINGS[quoting]
        cuts = _cut(value, every)
        canaries = _fragments(value, cuts, canaries)
        bounds = [0, *cuts, len(value)]
        text = join(kind.key, [value[a:b] for a, b in pairwise(bounds)])
    else:
        text = QUOTINGS[quoting](kind.key, value)
    return text, [canary for canary in canaries if len(canary) >= 6]


def quotings_for(kind: Kind) -> list[str]:
    """Every quoting a kind can take: `bare` only when its shape gives it away, the splits only for a token (a
    credential on one line, without spaces, and not a URL or a `host:port:...` line), the URL quotings only for a
    URL, and a value that is not a string only the quotings that write it unquoted."""
    sample, _ = kind.make(random.Random(0))
    if kind.literal:
        return list(LITERAL_QUOTINGS)
    splittable = kind.log and not any(c in sample for c in " \n:")
    url = re.match(r"[a-z][a-z0-9+.-]*://", sample) is not None
    quotings = [q for q in QUOTINGS if q not in LITERAL_QUOTINGS and (url or q not in URL_QUOTINGS)]
    return [q for q in quotings if kind.bare or q != "bare"] + (list(SPLIT_QUOTINGS) if splittable else [])


ORDINARY_WORDS = (
    "order", "shipped", "invoice", "customer", "warehouse", "blue", "large", "Ann", "Zoë", "Łódź", "München",
    "北京", "release", "notes", "draft", "review", "approved", "the", "is", "not", "yet", "ready", "for",
    "delivery", "tomorrow", "because", "stock", "ran", "out", "please", "try", "again", "later",
)  # fmt: skip


def ordinary(rng: random.Random) -> str:
    """An ordinary value a message carries: an id, a SKU, a digest, a UUID, a name, a number, a date, a sentence."""
    shapes: list[Callable[[], str]] = [
        lambda: f"T-{rng.randint(1, 99999)}",
        lambda: f"SKU-{rng.randint(1000, 9999)}-{rng.choice(['BLUE', 'RED', 'XL'])}",
        lambda: f"ORD-{rng.randint(2020, 2026)}-{rng.randint(1, 999999):06d}",
        lambda: "".join(rng.choice(HEX) for _ in range(40)),
        lambda: "".join(rng.choice(HEX) for _ in range(64)),
        lambda: str(__import__("uuid").UUID(int=rng.getrandbits(128))),
        lambda: rng.choice(["Ann Lee", "José Álvarez", "李雷", "Ngozi Okafor", "O'Brien"]),
        lambda: str(rng.randint(-(10**9), 10**9)),
        lambda: f"{rng.uniform(-1000, 1000):.2f}",
        lambda: f"20{rng.randint(10, 30)}-{rng.randint(1, 12):02d}-{rng.randint(1, 28):02d}",
        lambda: f"ann.lee{rng.randint(1, 99)}@example.com",
        lambda: rng.choice(["release-notes-2024", "getUserSettings", "order_id", "max_tokens", "v1.2.3"]),
        lambda: " ".join(rng.choice(ORDINARY_WORDS) for _ in range(rng.randint(3, 14))).capitalize() + ".",
        lambda: f"{rng.randint(1, 500)} items over {rng.randint(1, 60)} s",
        lambda: rng.choice(["Compass: north", "Passenger: Ann", "tokens: 42", "Session 3 of 5", "Basic plan"]),
    ]
    return rng.choice(shapes)()
