"""The runtime's own secret rules against detect-secrets, side by side in one run: leaks over the credential
corpus, false positives over ordinary values, and the cost of redacting one failure message.

    python bench/scrub.py [--seeds 5] [--ordinary 2000] [--reps 3000] [--scrub PATH] [--no-hostile]
    (the detect-secrets row needs `.venv/bin/pip install detect-secrets==1.5.0`, a bench-only dependency;
    without it only the own rules are measured)

Prints one line per redactor (own, detect_secrets, detect_secrets_lines), `scrub.<redactor> leaks=L/N
false_positives=F/M p50_us=... p99_us=... clean_p50_us=... clean_p99_us=...`, then the kinds each one leaks
(with the quotings it leaks them in), then a one-line verdict and the run's time. A leak is a planted text
(every kind of `tests/secrets_corpus.py` x its quotings x seeds) whose redacted form still holds one of its
canaries; a false positive is an ordinary value, alone or in a sentence, that does not come out unchanged.
The times are for one ~200-character failure message with one planted secret (p50_us, p99_us) and the same
message without it (clean_*).

Then the own rules against the held-out corpus (`tests/secrets_heldout.py`, which neither the tests nor the
rules were tuned on): `heldout client_leaks=K/N kinds (T/M texts) log_leaks=... benign_changed=B/C`, with the
kinds each leaks; and the widened training corpus the same way (`train client_leaks=... log_leaks=...`), an
internal host counting for the client only. Then `prose changed=P/S`: of every sentence in the OpenAPI
corpus's descriptions and summaries (`tests/openapi_corpus`, the documents fetched so far), how many lose a word
to a mask (prose about tokens and credentials is not a secret). Last,
`hostile max_ms_10kb=... max_ms_100kb=... worst_ratio=...`:
`scrub` over 10 kB and 100 kB of each hostile arrangement (the test's list and more), the slowest times and
the ratio of the total times at 100 kB and at 10 kB (about 10 when the rules are linear). `--scrub PATH`
measures another copy of scrub.py (an older one, for a before and after).

The detect-secrets redactor runs its ad hoc scanning (`scan_line`, what `detect-secrets scan --string`
uses) over each line with the default plugin set and replaces each found `secret_value` with
`[redacted]`. `scan_line` leaves the entropy limit of the high-entropy plugins to its caller (the CLI
prints such a find as `False (entropy)`), so, like the CLI, a high-entropy find counts only above the
plugin's limit; every other plugin's find is redacted as found. Some plugins' `secret_value` is only part
of the credential (GitLab: `glpat`; JWT: header and payload, not the signature; a private key: its BEGIN
line), so a second row, `detect_secrets_lines`, masks each whole line where anything is found: the most
detect-secrets' detection can give a redactor, at the price of the message around it.
"""

from __future__ import annotations

import argparse
import random
import re
import sys
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

sys.path[:0] = [
    str(Path(__file__).resolve().parents[1] / "tests"),
    str(Path(__file__).resolve().parents[1] / "generator"),
]

from secrets_corpus import KINDS, ordinary, planted, quotings_for  # noqa: E402
from secrets_heldout import BENIGN, HELD_OUT  # noqa: E402

from failwell.spec import messages  # noqa: E402

INSTALL = ".venv/bin/pip install detect-secrets==1.5.0"
MASK = "[redacted]"

Redactor = Callable[[str], str]


@contextmanager
def detect_secrets_redactor() -> Iterator[tuple[Redactor, Redactor] | None]:
    """Two redactors built on detect-secrets' default plugins (mask each found value; mask each line where
    anything is found), or None when detect-secrets is not installed."""
    try:
        from detect_secrets.core.scan import scan_line
        from detect_secrets.plugins.high_entropy_strings import HighEntropyStringsPlugin
        from detect_secrets.settings import default_settings, get_plugins
    except ImportError:
        yield None
        return
    with default_settings():
        plugins = {plugin.secret_type: plugin for plugin in get_plugins()}

        def found(line: str) -> set[str]:
            values = set()
            for secret in scan_line(line):
                if not secret.secret_value:
                    continue
                plugin = plugins.get(secret.type)
                if isinstance(plugin, HighEntropyStringsPlugin) and (
                    plugin.calculate_shannon_entropy(secret.secret_value) <= plugin.entropy_limit
                ):
                    continue
                values.add(secret.secret_value)
            return values

        def redactor(whole_lines: bool) -> Redactor:
            def redact(text: str) -> str:
                out = []
                for line in text.splitlines(keepends=True):
                    body = line.rstrip("\r\n")
                    ending = line[len(body) :]
                    values = found(body)
                    if whole_lines and values:
                        body = MASK
                    for value in sorted(values, key=len, reverse=True):
                        body = body.replace(value, MASK)
                    out.append(body + ending)
                return "".join(out)

            return redact

        yield redactor(False), redactor(True)


def leaks(redact: Redactor, seeds: int) -> tuple[int, int, dict[str, list[str]]]:
    """Leaked texts, texts, and for each leaking kind the quotings it leaked in."""
    leaked, total = 0, 0
    where: dict[str, list[str]] = {}
    for kind in KINDS:
        if not getattr(kind, "log", True):
            continue  # an internal host name: the log may keep it
        for quoting in quotings_for(kind):
            for seed in range(seeds):
                text, canaries = planted(kind, quoting, random.Random(seed))
                total += 1
                out = redact(text)
                if any(canary in out for canary in canaries):
                    leaked += 1
                    where.setdefault(kind.name, [])
                    if quoting not in where[kind.name]:
                        where[kind.name].append(quoting)
    return leaked, total, where


def ordinaries(count: int) -> list[str]:
    rng = random.Random(2024)
    values = [ordinary(rng) for _ in range(count)]
    return values + [f"The order for {value} was not found; check it and call again." for value in values]


def false_positives(redact: Redactor, values: list[str]) -> tuple[int, list[str]]:
    changed = [value for value in values if redact(value) != value]
    return len(changed), changed[:3]


SECRET = "sk_live_" + "".join(
    random.Random(7).choice("abcdefghijkmnopqrstuvwxyzABCDEFGHJKLMNPQRSTUVWXYZ23456789") for _ in range(24)
)
WITH_SECRET = (
    f"The payment provider rejected the charge for order ORD-2024-004211 (HTTP 401): the API key {SECRET} "
    "is not valid for this account. Nothing was charged; check the key and call payments_charge again."
)
WITHOUT_SECRET = WITH_SECRET.replace(SECRET, "configured for eu-west-1")


def percentiles(redact: Redactor, text: str, reps: int) -> tuple[float, float]:
    for _ in range(min(reps // 10, 50)):
        redact(text)
    samples = []
    for _ in range(reps):
        started = time.perf_counter_ns()
        redact(text)
        samples.append(time.perf_counter_ns() - started)
    samples.sort()
    return samples[len(samples) // 2] / 1000, samples[min(len(samples) - 1, len(samples) * 99 // 100)] / 1000


def measure(name: str, redact: Redactor, args: argparse.Namespace, values: list[str], reps: int) -> dict[str, Any]:
    leaked, total, where = leaks(redact, args.seeds)
    fp, examples = false_positives(redact, values)
    p50, p99 = percentiles(redact, WITH_SECRET, reps)
    clean50, clean99 = percentiles(redact, WITHOUT_SECRET, reps)
    print(
        f"scrub.{name} leaks={leaked}/{total} false_positives={fp}/{len(values)} "
        f"p50_us={p50:.1f} p99_us={p99:.1f} clean_p50_us={clean50:.1f} clean_p99_us={clean99:.1f}",
        flush=True,
    )
    return {"leaks": leaked, "where": where, "fp": fp, "examples": examples, "p50": p50}


def load_scrub(path: str | None) -> Any:
    """The runtime's scrub module, or the scrub.py at `path` imported as the module of a package whose other modules
    (its `from .patterns import ...`) come from the folder it is in, else from the runtime's."""
    if path is None:
        return messages.runtime("wording.scrub")
    import importlib.util
    from types import ModuleType

    package = ModuleType("scrub_under_test")
    package.__path__ = [str(Path(path).resolve().parent), str(Path(messages.runtime("wording.scrub").__file__).parent)]
    sys.modules[package.__name__] = package
    spec = importlib.util.spec_from_file_location("scrub_under_test.scrub", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


def heldout(scrub: Any, seeds: int) -> None:
    """Leaks of the held-out corpus to the client (`scrub`) and to the log (`redact_secrets`), by kind."""
    client: dict[str, int] = {}
    log: dict[str, int] = {}
    texts = 0
    for kind in HELD_OUT:
        for seed in range(seeds):
            text, canaries = kind.make(random.Random(seed))
            texts += 1
            if any(canary in scrub.scrub(text) for canary in canaries):
                client[kind.name] = client.get(kind.name, 0) + 1
            if kind.log and any(canary in scrub.redact_secrets(text) for canary in canaries):
                log[kind.name] = log.get(kind.name, 0) + 1
    logged = [kind for kind in HELD_OUT if kind.log]
    changed = [text for text in BENIGN if scrub.redact_secrets(text) != text]
    print(
        f"heldout client_leaks={len(client)}/{len(HELD_OUT)} kinds ({sum(client.values())}/{texts} texts) "
        f"log_leaks={len(log)}/{len(logged)} kinds ({sum(log.values())}/{len(logged) * seeds} texts) "
        f"benign_changed={len(changed)}/{len(BENIGN)}"
    )
    print(f"  heldout client leaks: {', '.join(sorted(client)) or 'none'}")
    print(f"  heldout log leaks: {', '.join(sorted(log)) or 'none'}")
    if changed:
        print(f"  heldout benign changed, e.g.: {changed[:3]!r}")


def train(scrub: Any, seeds: int) -> None:
    """Leaks of the training corpus to the client and the log, by kind (an internal host counts for the client)."""
    client: set[str] = set()
    log: set[str] = set()
    for kind in KINDS:
        for quoting in quotings_for(kind):
            for seed in range(seeds):
                text, canaries = planted(kind, quoting, random.Random(seed))
                if any(canary in scrub.scrub(text) for canary in canaries):
                    client.add(kind.name)
                if getattr(kind, "log", True) and any(canary in scrub.redact_secrets(text) for canary in canaries):
                    log.add(kind.name)
    logged = [kind for kind in KINDS if getattr(kind, "log", True)]
    print(f"train client_leaks={len(client)}/{len(KINDS)} kinds log_leaks={len(log)}/{len(logged)} kinds")
    if client or log:
        print(f"  train leaks: client {sorted(client)} log {sorted(log)}")


def prose(scrub: Any) -> None:
    """Real prose about credentials: every sentence of the OpenAPI corpus's descriptions and summaries (issue 41,
    `tests/openapi_corpus`: API documents say "token", "secret", "credentials" and "session" all the time), each
    one a false positive when `redact_secrets` masks anything in it. The documents not fetched yet are skipped."""
    sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests" / "openapi_corpus"))
    import fetch as corpus

    texts: set[str] = set()

    def walk(node: Any) -> None:
        if isinstance(node, dict):
            for key, value in node.items():
                if key in ("description", "summary") and isinstance(value, str):
                    texts.add(value)
                else:
                    walk(value)
        elif isinstance(node, list):
            for value in node:
                walk(value)

    documents = 0
    for entry in corpus.entries():
        path = corpus.cached(entry)
        if path.is_file():
            walk(corpus.load(path))
            documents += 1
    sentences = sorted(
        {
            sentence.strip()
            for text in texts
            for sentence in re.split(r"(?<=[.!?])\s+|\n+", text)
            if len(sentence.strip()) > 12 and not re.search(r"[`<>{}=|$]|://", sentence)
        }
    )
    changed = [s for s in sentences if "[redacted" in scrub.redact_secrets(s) and "[redacted" not in s]
    print(f"prose changed={len(changed)}/{len(sentences)} sentences of {documents} OpenAPI documents")
    if changed:
        print(f"  prose changed, e.g.: {changed[:3]!r}")


HOSTILE = (
    "input_value=", "a.", "a/", "1.", "a:", "a-", "C:\\", "select ", "aa::", "password", "a", "x://", "x://a", "a@",
    "-----BEGIN PRIVATE KEY-----", "Aa1", "token: ", "%41", "eyJ", "a=b&", "Bearer ", "xPassword", '"password": "',
    "a.internal ", "::", "sk_live_", "password ", "password a ", "a b ", "a\n", "Aa1Bb2Cc3Dd4\n ", "Aa1Bb2Cc3Dd4\\\n",
    "a:1:b:c:", "a:1:", "x.y", "ab.cd.", "p:us-east1:", "-----BEGIN A KEY-----\n", "\\n", "AUTH_TOKEN ", "a\r\n  ",
    "'--password', '", "--password a ",
    "sshpass -p ", "mysql -pa ", "['curl', '-u', '", "curl -u a:", "a:Aa1!aaaa\n", "[h]:1 a:Aa1!aaaa ", "login=a:",
    ': PSK "', 'psk="a', "psk=", "SQLConnectInfo a b ", "# a\tsecret\n", "# secret\n a b c\n", '"password": "a"b',
    "'password': 'a'b", 'password "a"b ', "--password-stdin a ", "a.snowflakecomputing.com ",
    'password "', 'password: "a"b', 'password=a"b ',
)  # fmt: skip


def hostile(scrub: Any) -> None:
    """The slowest `scrub` over 10 kB and 100 kB of any hostile arrangement, and the ratio of the total times."""
    worst = {10_000: 0.0, 100_000: 0.0}
    total, slowest = {10_000: 0.0, 100_000: 0.0}, ""
    for base in HOSTILE:
        times = {}
        for size in worst:
            text = (base * (size // len(base) + 1))[:size]
            started = time.perf_counter()
            scrub.scrub(text)
            times[size] = time.perf_counter() - started
            worst[size] = max(worst[size], times[size])
        if times[100_000] == worst[100_000]:
            slowest = base
        total[10_000] += times[10_000]
        total[100_000] += times[100_000]
    print(
        f"hostile arrangements={len(HOSTILE)} max_ms_10kb={worst[10_000] * 1000:.1f} "
        f"max_ms_100kb={worst[100_000] * 1000:.1f} (of {slowest!r}) total_ratio={total[100_000] / total[10_000]:.1f}"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seeds", type=int, default=5)
    parser.add_argument("--ordinary", type=int, default=2000)
    parser.add_argument("--reps", type=int, default=3000, help="timing repetitions (a tenth for detect-secrets)")
    parser.add_argument("--scrub", help="measure this scrub.py instead of the runtime's (for a before and after)")
    parser.add_argument("--no-hostile", action="store_true", help="skip the hostile-input timing")
    args = parser.parse_args()
    started = time.perf_counter()
    scrub = load_scrub(args.scrub)
    own = scrub.redact_secrets
    values = ordinaries(args.ordinary)
    results = {}
    with detect_secrets_redactor() as built:
        theirs, lines = built or (None, None)
        if theirs is None:
            print(f"detect_secrets is not importable: install it with `{INSTALL}` to compare; own rules only")
        else:
            probe = "aws_access_key_id=AKIAZ3XQ7P2M4K8JR5TW"
            if "AKIAZ3XQ7P2M4K8JR5TW" in theirs(probe):
                raise SystemExit(f"the detect-secrets redactor finds nothing in {probe!r}: its API has changed")
        redactors: dict[str, tuple[Redactor, int]] = {"own": (own, args.reps)}
        if theirs is not None and lines is not None:
            redactors["detect_secrets"] = (theirs, max(args.reps // 10, 50))
            redactors["detect_secrets_lines"] = (lines, max(args.reps // 10, 50))
        for name, (redact, reps) in redactors.items():
            results[name] = measure(name, redact, args, values, reps)
    for name, result in results.items():
        kinds = ", ".join(f"{kind}[{'/'.join(q)}]" for kind, q in sorted(result["where"].items())) or "none"
        print(f"  {name} leaks kinds ({len(result['where'])}): {kinds}")
        if result["examples"]:
            print(f"  {name} false positives, e.g.: {result['examples']!r}")
    if "detect_secrets" in results:
        a, b, c = results["own"], results["detect_secrets"], results["detect_secrets_lines"]
        better = all(a["leaks"] <= x["leaks"] and a["fp"] <= x["fp"] for x in (b, c))
        print(
            f"verdict: {'keep the own rules' if better else 'consider detect-secrets'}: leaks own {a['leaks']} vs "
            f"detect-secrets {b['leaks']} (whole lines {c['leaks']}), false positives {a['fp']} vs {b['fp']} "
            f"({c['fp']}), p50 {a['p50']:.0f} us vs {b['p50']:.0f} us ({b['p50'] / max(a['p50'], 1e-9):.0f}x)"
        )
    else:
        print("verdict: own rules measured alone (no detect-secrets)")
    heldout(scrub, args.seeds)
    train(scrub, args.seeds)
    prose(scrub)
    if not args.no_hostile:
        hostile(scrub)
    print(f"elapsed_s={time.perf_counter() - started:.1f}")


if __name__ == "__main__":
    main()
