"""A held-out corpus of secrets and internal names, kept apart from `secrets_corpus` (the one the tests and the
rules were tuned on): nothing here was looked at while the rules were written. `bench/scrub.py` measures the
rules against it; no test asserts on it, so it keeps measuring rather than becoming another training set.

Each kind writes one whole text the way a real tool writes it (a configuration file, a driver's error, a
wrapped token), with fresh random values, and names its canaries (the parts that must not be seen again).
A kind with `log=False` is an internal name (a managed service's host): the model must not see it, while the
log may keep it. The formats follow real files and messages; each cites where its shape was taken from.
"""

from __future__ import annotations

import base64
import json
import random
import string
import textwrap
from collections.abc import Callable
from dataclasses import dataclass

from secrets_corpus import B62, B64, B64URL, HEX, word

LOWER_DIGITS = string.ascii_lowercase + string.digits


@dataclass(frozen=True)
class HeldOut:
    name: str
    make: Callable[[random.Random], tuple[str, list[str]]]
    log: bool = True
    """Whether the log must not hold it either (a credential), or only the client (an internal name)."""


def _pw(rng: random.Random) -> str:
    return word(rng, rng.randint(10, 18), B62 + "!#%^*_")


def _host_label(rng: random.Random, size: int = 10) -> str:
    return rng.choice(string.ascii_lowercase) + word(rng, size - 1, LOWER_DIGITS)


# --- credentials in whitespace-separated key and value lines --------------------------------------------------


def _netrc_line(rng: random.Random) -> tuple[str, list[str]]:
    # python/cpython Lib/test/test_netrc.py: "machine foo login log1 password pass1 account acct1"
    pw = _pw(rng)
    return f"machine ftp.example.org login ann password {pw} account acct1\n", [pw]


def _netrc_lines(rng: random.Random) -> tuple[str, list[str]]:
    # the netrc(5) layout with one token per line, as curl and git write it
    pw = _pw(rng)
    return f"machine api.example.org\n  login deploy\n  password {pw}\n", [pw]


def _netrc_default(rng: random.Random) -> tuple[str, list[str]]:
    pw = _pw(rng)  # cpython test_netrc: "default login log2 password pass2"
    return f"default login anonymous password {pw}", [pw]


def _pgpass(rng: random.Random) -> tuple[str, list[str]]:
    # rosenfeld/command-reference en/databases/postgresql/store-password.md:
    # "localhost:5432:database_name:username:secret"
    pw = _pw(rng)
    return f"db.example.org:5432:appdb:app_user:{pw}\n", [pw]


def _pgpass_wild(rng: random.Random) -> tuple[str, list[str]]:
    pw = _pw(rng)  # tg/pgpass README.md: "*:*:db:*:superman"
    return f"could not read line 3 of the password file: *:*:reports:*:{pw}", [pw]


def _my_cnf(rng: random.Random) -> tuple[str, list[str]]:
    pw = _pw(rng)
    return f'[client]\nuser = reporting\npassword = "{pw}"\nhost = db\n', [pw]


def _nslcd(rng: random.Random) -> tuple[str, list[str]]:
    # nkabushka/nslcd README.md: "binddn cn=...", "bindpw ********* -- his password"
    pw = _pw(rng)
    return f"uri ldap://ldap.example.org\nbase dc=example,dc=org\nbinddn cn=reader,dc=example,dc=org\nbindpw {pw}\n", [
        pw
    ]


def _ldap_conf(rng: random.Random) -> tuple[str, list[str]]:
    # an ldap.conf(5) template: "BINDDN {{ bind_dn }}\nBINDPW {{ bind_pw }}", tab-separated keys
    pw = _pw(rng)
    return f"URI\tldaps://ldap.example.org\nBASE\tdc=example,dc=org\nBINDPW\t{pw}\n", [pw]


def _slapd_rootpw(rng: random.Random) -> tuple[str, list[str]]:
    # saltstack-formulas/openldap-formula test/salt/pillar/default.sls: rootpw: '{SSHA}5++yqs7UNz22kAYf7jboAmklhavVXahK'
    digest = base64.b64encode(rng.randbytes(24)).decode()
    return f"rootdn cn=root,dc=example,dc=org\nrootpw {{SSHA}}{digest}\n", [digest[:20], digest[20:]]


def _redis_conf(rng: random.Random) -> tuple[str, list[str]]:
    first, second = _pw(rng), _pw(rng)  # redis.conf: "requirepass foobared", "masterauth <master-password>"
    return f"bind 0.0.0.0\nport 6379\nrequirepass {first}\nmasterauth {second}\n", [first, second]


def _msmtprc(rng: random.Random) -> tuple[str, list[str]]:
    pw = _pw(rng)  # msmtp(1) configuration: "account", "host", "user", "password" lines
    return f"account default\nhost smtp.example.org\nport 587\nuser ann\npassword {pw}\n", [pw]


def _fetchmailrc(rng: random.Random) -> tuple[str, list[str]]:
    pw = _pw(rng)  # fetchmail(1): poll <server> protocol <p> user "<u>" password "<p>"
    return f'poll mail.example.org protocol imap user "ann" password "{pw}"\n', [pw]


def _aligned_password(rng: random.Random) -> tuple[str, list[str]]:
    pw = _pw(rng)  # a session file written with aligned columns
    return f"Host      bastion\nUser      deploy\nPassword  {pw}\n", [pw]


def _auth_token_line(rng: random.Random) -> tuple[str, list[str]]:
    token = word(rng, 40, B62)
    return f"AUTH_TOKEN {token}", [token]


def _s3cfg(rng: random.Random) -> tuple[str, list[str]]:
    secret = word(rng, 40, B64)  # s3cmd's ~/.s3cfg: "access_key = ...", "secret_key = ..."
    return (
        f"[default]\naccess_key = AKIA{word(rng, 16, string.ascii_uppercase + string.digits)}\nsecret_key = {secret}\n",
        [secret],
    )


def _boto(rng: random.Random) -> tuple[str, list[str]]:
    secret = word(rng, 40, B64)  # boto's ~/.boto: [Credentials] aws_secret_access_key = ...
    return f"[Credentials]\naws_access_key_id = AKIAEXAMPLE\naws_secret_access_key = {secret}\n", [secret]


def _pypirc(rng: random.Random) -> tuple[str, list[str]]:
    token = word(rng, 70, B64URL)
    return f"[pypi]\n  username = __token__\n  password = pypi-{token}\n", [token]


def _npmrc(rng: random.Random) -> tuple[str, list[str]]:
    token = word(rng, 36)
    auth = base64.b64encode(f"ann:{_pw(rng)}".encode()).decode()
    return f"//registry.npmjs.org/:_authToken={token}\n_auth = {auth}\nalways-auth = true\n", [token, auth[4:]]


def _smb_credentials(rng: random.Random) -> tuple[str, list[str]]:
    pw = _pw(rng)  # mount.cifs(8) credentials file: username=, password=, domain=
    return f"username=svc_backup\npassword={pw}\ndomain=CORP\n", [pw]


def _openvpn_static(rng: random.Random) -> tuple[str, list[str]]:
    lines = [word(rng, 32, HEX) for _ in range(16)]  # `openvpn --genkey --secret ta.key`
    body = "\n".join(lines)
    return (
        f"<tls-auth>\n-----BEGIN OpenVPN Static key V1-----\n{body}\n-----END OpenVPN Static key V1-----\n</tls-auth>",
        lines,
    )


def _ini_spaced_key(rng: random.Random) -> tuple[str, list[str]]:
    pw = _pw(rng)
    return f"[database]\nhost = db\ndb password = {pw}\n", [pw]


# --- tokens broken across lines --------------------------------------------------------------------------------


def _base64_wrapped_76(rng: random.Random) -> tuple[str, list[str]]:
    blob = base64.b64encode(rng.randbytes(rng.randint(150, 220))).decode()
    lines = textwrap.wrap(blob, 76)
    return "GOOGLE_CREDENTIALS_B64=\n" + "\n".join(lines), [line for line in lines if len(line) >= 6]


def _pem_body_only(rng: random.Random) -> tuple[str, list[str]]:
    blob = base64.b64encode(rng.randbytes(rng.randint(200, 300))).decode()
    lines = textwrap.wrap(blob, 64)
    return "could not load the signing key:\n" + "\n".join(lines), [line for line in lines if len(line) >= 6]


def _jwt_wrapped(rng: random.Random) -> tuple[str, list[str]]:
    header = base64.urlsafe_b64encode(b'{"alg":"RS256","typ":"JWT"}').decode().rstrip("=")
    claims = {"sub": word(rng, 12), "iat": rng.randint(10**9, 2 * 10**9), "scope": "read write"}
    payload = base64.urlsafe_b64encode(json.dumps(claims).encode()).decode().rstrip("=")
    token = ".".join([header, payload, word(rng, 86, B64URL)])
    lines = textwrap.wrap(token, 64)
    return "Authorization: Bearer\n  " + "\n  ".join(lines), [line for line in lines[1:] if len(line) >= 6]


def _token_split_crlf(rng: random.Random) -> tuple[str, list[str]]:
    first, second = word(rng, 20), word(rng, 20)
    return f"api_key:\r\n    {first}\r\n    {second}\r\nregion: eu-west-1\r\n", [first, second]


def _backslash_continuation(rng: random.Random) -> tuple[str, list[str]]:
    first, second = word(rng, 18), word(rng, 22)
    return f'export SERVICE_TOKEN="{first}\\\n{second}"\n', [first, second]


def _hex_wrapped(rng: random.Random) -> tuple[str, list[str]]:
    first, second = word(rng, 64, HEX), word(rng, 64, HEX)
    return f"signing_secret = {first}\n    {second}\n", [first, second]


def _shape_split(rng: random.Random) -> tuple[str, list[str]]:
    core = word(rng, 36)  # a terminal wrapping a GitHub token in a log line
    return f"cloning with token ghp_{core[:10]}\n{core[10:]}", [core[:10], core[10:]]


def _json_escaped_body(rng: random.Random) -> tuple[str, list[str]]:
    lines = textwrap.wrap(base64.b64encode(rng.randbytes(150)).decode(), 64)
    return json.dumps({"key_material": "\n".join(lines)}), [line for line in lines if len(line) >= 6]


# --- internal host names of managed services, in the errors their drivers raise --------------------------------


def _rds(rng: random.Random) -> tuple[str, list[str]]:
    # psycopg: connection to server at "<host>" (<ip>), port 5432 failed
    name, ident = _host_label(rng), word(rng, 12, LOWER_DIGITS)
    host = f"{name}.{ident}.us-east-1.rds.amazonaws.com"
    return f'connection to server at "{host}" (10.0.3.7), port 5432 failed: Connection timed out', [name, ident]


def _aurora(rng: random.Random) -> tuple[str, list[str]]:
    name, ident = _host_label(rng), word(rng, 12, LOWER_DIGITS)
    host = f"{name}.cluster-ro-{ident}.eu-west-1.rds.amazonaws.com"
    return f"(2003, \"Can't connect to MySQL server on '{host}' (timed out)\")", [name, ident]


def _elasticache(rng: random.Random) -> tuple[str, list[str]]:
    # kmangal/IndianOnlineJobsScrapingServer test/redis_connection.py: 'task-queue.3g7al0.0001.aps1.cache.amazonaws.com'
    name, ident = _host_label(rng), word(rng, 6, LOWER_DIGITS)
    host = f"{name}.{ident}.ng.0001.use1.cache.amazonaws.com"
    return f"Error 110 connecting to {host}:6379. Connection timed out.", [name, ident]


def _azure_mysql(rng: random.Random) -> tuple[str, list[str]]:
    name = _host_label(rng, 12)
    return f"(2003, \"Can't connect to MySQL server on '{name}.mysql.database.azure.com' (111)\")", [name]


def _azure_sql(rng: random.Random) -> tuple[str, list[str]]:
    name = _host_label(rng, 12)
    return (
        "('08001', '[08001] [Microsoft][ODBC Driver 18 for SQL Server]TCP Provider: Error code 0x2749 (10057)') "
        f"Server=tcp:{name}.database.windows.net,1433",
        [name],
    )


def _azure_redis(rng: random.Random) -> tuple[str, list[str]]:
    name = _host_label(rng, 12)
    return f"Error 8 connecting to {name}.redis.cache.windows.net:6380. nodename nor servname provided.", [name]


def _azure_postgres(rng: random.Random) -> tuple[str, list[str]]:
    name = _host_label(rng, 12)
    return f'could not translate host name "{name}.postgres.database.azure.com" to address', [name]


def _servicebus(rng: random.Random) -> tuple[str, list[str]]:
    name = _host_label(rng, 12)  # azure-core / aiohttp: Cannot connect to host <host>:443 ssl:default
    return f"Cannot connect to host {name}.servicebus.windows.net:443 ssl:default [Name or service not known]", [name]


def _atlas(rng: random.Random) -> tuple[str, list[str]]:
    name, ident = _host_label(rng, 8), word(rng, 5, LOWER_DIGITS)  # pymongo ServerSelectionTimeoutError
    host = f"{name}-shard-00-01.{ident}.mongodb.net:27017"
    return f"{host}: timed out (configured timeouts: socketTimeoutMS: 20000.0ms, connectTimeoutMS: 20000.0ms)", [
        name,
        ident,
    ]


def _cloud_sql(rng: random.Random) -> tuple[str, list[str]]:
    # "554655392699:us-central1:mcp-registry-db" (project:region:instance), the Cloud SQL connection name
    project, instance = f"{_host_label(rng, 8)}-{rng.randint(100, 999)}", f"{_host_label(rng, 7)}-db"
    return f"Cloud SQL instance {project}:europe-west4:{instance} does not exist or is not reachable", [
        project,
        instance,
    ]


def _render(rng: random.Random) -> tuple[str, list[str]]:
    # ChandanM123456/Project-Management-Tool POSTGRESQL_TROUBLESHOOTING.md: 'dpg-...-a.singapore-postgres.render.com'
    ident = word(rng, 20, LOWER_DIGITS)
    return f'connection to server at "dpg-{ident}-a.oregon-postgres.render.com" (35.1.2.3), port 5432 failed', [ident]


def _gke_service(rng: random.Random) -> tuple[str, list[str]]:
    name, space = _host_label(rng, 9), _host_label(rng, 7)
    return f"HTTPConnectionPool(host='{name}.{space}.svc.cluster.local', port=8080): Max retries exceeded", [name]


def _ec2_internal(rng: random.Random) -> tuple[str, list[str]]:
    octet = rng.randint(10, 250)
    host = f"ip-10-0-{octet}-{rng.randint(10, 250)}.eu-west-1.compute.internal"
    return f"Error 111 connecting to {host}:6379. Connection refused.", [host.split(".")[0]]


def _memorystore(rng: random.Random) -> tuple[str, list[str]]:
    name = _host_label(rng, 10)  # google-api-core style: 503 DNS resolution failed for <host>
    return f"503 DNS resolution failed for {name}.europe-west1.c.example-prod.internal:6379", [name]


# --- widened when issue 24 was closed: more formats real tools write, of the same three shapes and next to them ---
# (Only the two command-line-option kinds were looked at when the rules were changed after this widening; the
# rest were measured as they came.)


def _cli_long_option(rng: random.Random) -> tuple[str, list[str]]:
    pw = _pw(rng)  # docker login(1): "docker login --username USER --password PASS [SERVER]"
    return f"exit status 1: docker login --username ci --password {pw} registry.example.com", [pw]


def _called_process_error(rng: random.Random) -> tuple[str, list[str]]:
    pw = _pw(rng)  # Python's subprocess.CalledProcessError: "Command '[...]' returned non-zero exit status N."
    return (
        f"Command '['mysqldump', '--user', 'backup', '--password', '{pw}', 'orders']' returned non-zero exit status 2.",
        [pw],
    )


def _mysql_short_option(rng: random.Random) -> tuple[str, list[str]]:
    pw = _pw(rng)  # mysql(1): "-p[password]", the password glued to the option
    return f"command failed: mysql -u app -p{pw} -h db orders", [pw]


def _sshpass(rng: random.Random) -> tuple[str, list[str]]:
    pw = _pw(rng)  # sshpass(1): "sshpass -p password ssh user@host"
    return f"exit status 5: sshpass -p {pw} ssh deploy@build", [pw]


def _curl_user(rng: random.Random) -> tuple[str, list[str]]:
    pw = _pw(rng)  # curl(1): "-u, --user <user:password>"
    return f"curl -sf -u admin:{pw} https://ci.example.org/api/json failed with 22", [pw]


def _chap_secrets(rng: random.Random) -> tuple[str, list[str]]:
    pw = _pw(rng)  # pppd(8), /etc/ppp/chap-secrets: client server secret IP-addresses
    return f'# client\tserver\tsecret\tIP addresses\n"alice"\t*\t"{pw}"\t*\n', [pw]


def _sasl_passwd(rng: random.Random) -> tuple[str, list[str]]:
    pw = _pw(rng)  # Postfix SASL_README, /etc/postfix/sasl_passwd: "[mail.isp.example] username:password"
    return f"[smtp.example.org]:587 alerts@example.org:{pw}\n", [pw]


def _ipsec_psk(rng: random.Random) -> tuple[str, list[str]]:
    pw = _pw(rng)  # ipsec.secrets(5): ': PSK "secret"'
    return f'203.0.113.5 198.51.100.7 : PSK "{pw}"\n', [pw]


def _rsyncd_secrets(rng: random.Random) -> tuple[str, list[str]]:
    pw = _pw(rng)  # rsyncd.conf(5), secrets file: "username:password" lines
    return f"backup:{pw}\n", [pw]


def _wpa_psk(rng: random.Random) -> tuple[str, list[str]]:
    pw = _pw(rng)  # wpa_supplicant.conf(5): network={ ssid="..." psk="..." }
    return f'network={{\n\tssid="office"\n\tpsk="{pw}"\n}}\n', [pw]


def _squid_peer(rng: random.Random) -> tuple[str, list[str]]:
    pw = _pw(rng)  # squid cache_peer: "login=user:password"
    return f"cache_peer parent.example.org parent 3128 0 no-query login=proxyuser:{pw}", [pw]


def _proftpd_sql(rng: random.Random) -> tuple[str, list[str]]:
    pw = _pw(rng)  # ProFTPD mod_sql: "SQLConnectInfo dbname[@host[:port]] [username] [password]"
    return f"SQLConnectInfo ftpusers@db.example.org proftpd {pw}", [pw]


def _yaml_literal(rng: random.Random) -> tuple[str, list[str]]:
    # a base64 key in a YAML block scalar (a Helm values file), wrapped at 64 columns as `openssl base64` writes it
    lines = textwrap.wrap(base64.b64encode(rng.randbytes(rng.randint(120, 180))).decode(), 64)
    return "client-key-data: |\n    " + "\n    ".join(lines) + "\n", [line for line in lines if len(line) >= 6]


# --- widened again on branch scrub2, after the rules for the kinds above were written: same shapes, other tools ---
# (Written before the rules were run on them, and measured as they came: nothing was changed for them.)


def _mysqladmin_glued(rng: random.Random) -> tuple[str, list[str]]:
    pw = _pw(rng)  # mysqladmin(1): "-p[password]", user glued too: "mysqladmin -uroot -pPASS status"
    return f"mysqladmin -uroot -p{pw} status exited with 1", [pw]


def _sqlcmd(rng: random.Random) -> tuple[str, list[str]]:
    pw = _pw(rng)  # sqlcmd: "-U login_id -P password"
    return f'sqlcmd -S db,1433 -U sa -P {pw} -Q "SELECT 1" returned 1', [pw]


def _seven_zip(rng: random.Random) -> tuple[str, list[str]]:
    pw = _pw(rng)  # 7-Zip: "-p{Password}", glued
    return f"Command '['7z', 'a', '-p{pw}', '-mhe=on', 'backup.7z', 'data']' returned non-zero exit status 2.", [pw]


def _openssl_enc(rng: random.Random) -> tuple[str, list[str]]:
    pw = _pw(rng)  # openssl-enc(1): "-k password", "-pass arg" with arg "pass:password"
    return f"openssl enc -aes-256-cbc -salt -pass pass:{pw} -in a.tar -out a.tar.enc: bad decrypt", [pw]


def _mongosh(rng: random.Random) -> tuple[str, list[str]]:
    pw = _pw(rng)  # mongosh: "--username, -u", "--password, -p"
    return f"mongosh --host db -u admin -p {pw} --authenticationDatabase admin: exit 1", [pw]


def _lftp(rng: random.Random) -> tuple[str, list[str]]:
    pw = _pw(rng)  # lftp(1): "-u user[,pass]"
    return f"lftp -u deploy,{pw} sftp://files.example.org failed", [pw]


def _smbclient_domain(rng: random.Random) -> tuple[str, list[str]]:
    pw = _pw(rng)  # smbclient(1): "-U|--user=[DOMAIN\\]USERNAME[%PASSWORD]"
    return f"smbclient //files/share --user=CORP\\ann%{pw} -c ls: NT_STATUS_LOGON_FAILURE", [pw]


def _curl_proxy_user(rng: random.Random) -> tuple[str, list[str]]:
    pw = _pw(rng)  # curl(1): "-U, --proxy-user <user:password>"
    return f"curl --proxy-user proxy:{pw} -x http://proxy:3128 https://example.org exited 56", [pw]


def _htpasswd_batch(rng: random.Random) -> tuple[str, list[str]]:
    pw = _pw(rng)  # htpasswd(1): "htpasswd -b[cmBdpsD] passwordfile username password"
    return f"htpasswd -bB /etc/nginx/.htpasswd ann {pw}: could not open file", [pw]


def _xfreerdp(rng: random.Random) -> tuple[str, list[str]]:
    pw = _pw(rng)  # xfreerdp(1): "/u:[[<domain>\\]<user>|<user>[@<domain>]]", "/p:<password>"
    return f"xfreerdp /v:build /u:admin /p:{pw} /cert:ignore exited with 131", [pw]


def _eap_secret(rng: random.Random) -> tuple[str, list[str]]:
    pw = _pw(rng)  # ipsec.secrets(5): '<user id> : EAP "<password>"'
    return f'carol@strongswan.org : EAP "{pw}"\n', [pw]


def _dovecot_passwd_file(rng: random.Random) -> tuple[str, list[str]]:
    pw = _pw(rng)  # Dovecot passwd-file: "user:{scheme}password:uid:gid::home"
    return f"ann:{{PLAIN}}{pw}:1000:1000::/home/ann\n", [pw]


def _json_escaped_twice(rng: random.Random) -> tuple[str, list[str]]:
    pw = _pw(rng)  # a JSON log line whose message holds JSON: the quote inside the password escaped twice
    inner = json.dumps({"user": "ann", "password": f'x"{pw}'})
    return json.dumps({"level": "error", "msg": f"login rejected: {inner}"}), [pw]


def _squid_any_user(rng: random.Random) -> tuple[str, list[str]]:
    pw = _pw(rng)  # squid cache_peer: "login=*:password" passes the client's user name with a fixed password
    return f"cache_peer 192.0.2.10 parent 8080 0 no-query default login=*:{pw}", [pw]


def _host_error(host: str) -> str:
    # psycopg2: could not connect to server ... Is the server running on host "<host>" and accepting ...
    return (
        "could not connect to server: Connection refused\n"
        f'\tIs the server running on host "{host}" and accepting TCP/IP connections on port 5432?'
    )


def _managed(pattern: str) -> Callable[[random.Random], tuple[str, list[str]]]:
    """A managed service's host from `pattern`: `{a}` and `{b}` are random labels, and the canaries."""

    def make(rng: random.Random) -> tuple[str, list[str]]:
        a, b = _host_label(rng, 9), word(rng, 10, LOWER_DIGITS)
        return _host_error(pattern.format(a=a, b=b)), [a, b] if "{b}" in pattern else [a]

    return make


WIDENED_HOSTS = {
    "redshift": "{a}.{b}.us-east-1.redshift.amazonaws.com",
    "docdb": "{a}.cluster-{b}.eu-west-1.docdb.amazonaws.com",
    "opensearch": "search-{a}-{b}.eu-west-1.es.amazonaws.com",
    "memorydb": "clustercfg.{a}.{b}.memorydb.us-east-1.amazonaws.com",
    "rds_proxy": "{a}.proxy-{b}.us-east-1.rds.amazonaws.com",
    "cosmos": "{a}.documents.azure.com:443",
    "cosmos_mongo": "{a}.mongo.cosmos.azure.com:10255",
    "gce_internal": "{a}.us-central1-a.c.{b}.internal",
    "neon": "ep-{a}-{b}.us-east-2.aws.neon.tech",
    "supabase": "db.{a}{b}.supabase.co:5432",
    "cockroach": "{a}-{b}.j77.cockroachlabs.cloud:26257",
    "aiven": "pg-{a}-{b}.aivencloud.com:12345",
    "redis_cloud": "redis-12345.c{b}.us-east-1-4.ec2.redns.redis-cloud.com:12345",
    "snowflake": "{a}-{b}.snowflakecomputing.com",
    "elastic_cloud": "{a}{b}.us-central1.gcp.cloud.es.io:9243",
}
"""Managed services' hosts (patterns from each provider's documented endpoint format)."""


HELD_OUT: tuple[HeldOut, ...] = (
    HeldOut("netrc_line", _netrc_line),
    HeldOut("netrc_lines", _netrc_lines),
    HeldOut("netrc_default", _netrc_default),
    HeldOut("pgpass", _pgpass),
    HeldOut("pgpass_wildcards_in_an_error", _pgpass_wild),
    HeldOut("my_cnf", _my_cnf),
    HeldOut("nslcd_bindpw", _nslcd),
    HeldOut("ldap_conf_tabs", _ldap_conf),
    HeldOut("slapd_rootpw_ssha", _slapd_rootpw),
    HeldOut("redis_conf", _redis_conf),
    HeldOut("msmtprc", _msmtprc),
    HeldOut("fetchmailrc", _fetchmailrc),
    HeldOut("aligned_password", _aligned_password),
    HeldOut("auth_token_line", _auth_token_line),
    HeldOut("s3cfg", _s3cfg),
    HeldOut("boto", _boto),
    HeldOut("pypirc", _pypirc),
    HeldOut("npmrc", _npmrc),
    HeldOut("smb_credentials", _smb_credentials),
    HeldOut("openvpn_static_key", _openvpn_static),
    HeldOut("ini_spaced_key", _ini_spaced_key),
    HeldOut("base64_wrapped_76", _base64_wrapped_76),
    HeldOut("pem_body_without_header", _pem_body_only),
    HeldOut("jwt_wrapped_64", _jwt_wrapped),
    HeldOut("token_split_crlf_indented", _token_split_crlf),
    HeldOut("backslash_continuation", _backslash_continuation),
    HeldOut("hex_wrapped_under_a_name", _hex_wrapped),
    HeldOut("shape_split_by_a_terminal", _shape_split),
    HeldOut("json_escaped_key_body", _json_escaped_body),
    HeldOut("rds", _rds, log=False),
    HeldOut("aurora", _aurora, log=False),
    HeldOut("elasticache", _elasticache, log=False),
    HeldOut("azure_mysql", _azure_mysql, log=False),
    HeldOut("azure_sql", _azure_sql, log=False),
    HeldOut("azure_redis", _azure_redis, log=False),
    HeldOut("azure_postgres", _azure_postgres, log=False),
    HeldOut("servicebus", _servicebus, log=False),
    HeldOut("mongodb_atlas", _atlas, log=False),
    HeldOut("cloud_sql_connection_name", _cloud_sql, log=False),
    HeldOut("render_postgres", _render, log=False),
    HeldOut("gke_service", _gke_service, log=False),
    HeldOut("ec2_internal", _ec2_internal, log=False),
    HeldOut("memorystore_internal", _memorystore, log=False),
    HeldOut("cli_long_option", _cli_long_option),
    HeldOut("called_process_error_argv", _called_process_error),
    HeldOut("mysql_short_option", _mysql_short_option),
    HeldOut("sshpass_option", _sshpass),
    HeldOut("curl_user_option", _curl_user),
    HeldOut("chap_secrets", _chap_secrets),
    HeldOut("postfix_sasl_passwd", _sasl_passwd),
    HeldOut("ipsec_psk", _ipsec_psk),
    HeldOut("rsyncd_secrets", _rsyncd_secrets),
    HeldOut("wpa_supplicant_psk", _wpa_psk),
    HeldOut("squid_cache_peer_login", _squid_peer),
    HeldOut("proftpd_sqlconnectinfo", _proftpd_sql),
    HeldOut("yaml_literal_key_data", _yaml_literal),
    HeldOut("mysqladmin_glued_options", _mysqladmin_glued),
    HeldOut("sqlcmd_password_option", _sqlcmd),
    HeldOut("seven_zip_in_an_argv", _seven_zip),
    HeldOut("openssl_pass_argument", _openssl_enc),
    HeldOut("mongosh_password_option", _mongosh),
    HeldOut("lftp_user_comma_password", _lftp),
    HeldOut("smbclient_domain_user_percent", _smbclient_domain),
    HeldOut("curl_proxy_user", _curl_proxy_user),
    HeldOut("htpasswd_batch_positional", _htpasswd_batch),
    HeldOut("xfreerdp_slash_p", _xfreerdp),
    HeldOut("ipsec_eap_secret", _eap_secret),
    HeldOut("dovecot_passwd_file", _dovecot_passwd_file),
    HeldOut("json_escaped_twice", _json_escaped_twice),
    HeldOut("squid_login_any_user", _squid_any_user),
    *(HeldOut(f"host_{name}", _managed(pattern), log=False) for name, pattern in WIDENED_HOSTS.items()),
)

BENIGN: tuple[str, ...] = (
    # real messages and configuration lines with nothing secret in them: they must pass unchanged
    'FATAL:  password authentication failed for user "app"',
    "PasswordAuthentication no",
    "Session 3 of 5",
    "Token expired at 12:00; call auth_refresh to get a new one.",
    "The password must be at least 12 characters long.",
    "Basic plan includes 3 seats.",
    "machine learning jobs are paused for maintenance",
    "secret santa draw is on Friday",
    "Key rotation is scheduled for 2026-12-01.",
    "login failed: too many attempts, wait 30 s",
    "api_key_count: 3",
    "max_tokens 4096",
    "Order ORD-2024-000117 shipped to Łódź.",
    "SKU-1042-BLUE is out of stock in warehouse 3",
    "release-notes-2024 v1.2.3 approved",
    # command lines whose secret-sounding options hold no secret (added when issue 24 was closed)
    "Command '['pg_dump', '--no-password', '--format', 'custom', 'orders']' returned non-zero exit status 1.",
    "usage: backup [--token-count N] [--session-name NAME] [--secret-id ID]",
    "['rsync', '--password-file', 'rsync.secret', 'src', 'backup::nightly']",
    # real command lines, log lines and prose next to the shapes added after the widening (a tool's credential
    # option, `user:password` pairs, pre-shared keys, a comment naming columns, an escaped quote)
    "docker login --username ci --password-stdin registry.example.com",
    "see the --password option",
    "docker run -p 8080:80 nginx:1.25.3-alpine",
    "ssh -p 2222 deploy@build",
    "psql -h db -p 5432 -U app orders",
    "redis-cli -h cache -p 6379 ping",
    "mysql -u app -p orders",
    "unzip -p archive.zip notes.txt",
    "curl -sS -u ann https://ci.example.org/api/json",
    "openssl rsa -in key.pem -passin env:KEY_PASS -out plain.pem",
    "ssh-keygen -t ed25519 -N '' -f id_ed25519",
    "mongodump --host db --port 27017 --out backup",
    "az login --identity",
    "image: nginx:1.25.3-alpine",
    "ERROR:root:Connection refused",
    "Deploy:Release-2024.10",
    "2026-05-01T12:00:00Z worker:started",
    "sha256:9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08",
    "cache_peer parent.example.org parent 3128 0 no-query login=PASSTHRU",
    "runs WPA2-PSK mode with a hidden SSID.",
    "key_mgmt=WPA-PSK",
    "Security: WPA2-PSK (AES)",
    "Error: EAP failure, retrying",
    "PSK identity hint: none",
    "# client\tserver\tsecret\tIP addresses",
    "SQLConnectInfo ftpusers@db.example.org",
    'FATAL:  role "app" does not exist; the "password" field was empty',
    "Use --token to pass a token on the command line.",
    "see docs.neon.tech for the connection limits",
)
