"""The runtime's modules grouped into subpackages (`_generated/runtime/calls/`, `transport/`, ...): a project
generated before names them flat (`from ._generated.runtime.upstream import UpstreamError`). `failwell generate`
rewrites those imports in the person's own modules and tests to the module's new home, and says so per file,
as `--rename` rewrites the imports of a renamed tool's module."""

from __future__ import annotations

import re
from pathlib import Path

from .. import safewrite
from . import rename

HOMES: dict[str, str] = {
    **{name: "wording." + name for name in ("classes", "patterns", "scrub", "secret_names", "secret_texts")},
    **{name: "wording." + name for name in ("tool_failure", "wording")},
    **{name: "checks." + name for name in ("formats", "params", "schemas")},
    **{name: "setup." + name for name in ("chosen", "config", "logs", "setting_kinds", "settings", "startup")},
    **{name: "asking." + name for name in ("asks", "sealing")},
    **{name: "calls." + name for name in ("batches", "call", "callers", "confirm", "content", "contracts")},
    **{name: "calls." + name for name in ("idempotency", "inflight", "limits", "progress", "results")},
    **{name: "calls." + name for name in ("store_contracts", "telemetry")},
    **{name: "tasks." + name for name in ("task_records", "task_runner", "tasks")},
    **{name: "readers." + name for name in ("prompts", "reads", "resources", "subscriptions")},
    **{name: "upstreams." + name for name in ("breaker", "dependency", "dependency_errors", "upstream")},
    **{name: "stores." + name for name in ("records", "store_memory", "store_redis", "store_sqlite")},
    **{name: "transport." + name for name in ("bearer", "envelope", "http", "http_envelope", "http_limits")},
    **{name: "transport." + name for name in ("oauth", "rebinding", "stdio", "tokens")},
}
"""Each module that was flat in `_generated/runtime/`, and its home there now (package.module)."""

_FLAT = re.compile(rf"(_generated\.runtime\.)({'|'.join(sorted(HOMES, key=len, reverse=True))})\b(?![.\w])")


def rewritten(text: str) -> str:
    """`text` with every dotted name of a flat runtime module (`_generated.runtime.upstream`) naming its home."""
    return _FLAT.sub(lambda found: found.group(1) + HOMES[found.group(2)], text)


def rewrite(project_dir: Path, package: str, *, write: bool) -> list[str]:
    """Rewrite (with `write`) the flat runtime imports in the person's modules and tests; one line per file."""
    done = []
    for path in rename._importers(project_dir, package):
        try:
            text = path.read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError):
            continue
        new = rewritten(text)
        if new == text:
            continue
        relative = path.relative_to(project_dir).as_posix()
        if write:
            safewrite.write(path, new.encode("utf-8"), root=project_dir)
            done.append(f"rewrote the runtime imports of {relative} (its modules are grouped by concern now)")
        else:
            done.append(
                f"{relative} imports runtime modules by their old flat names; `failwell generate` rewrites them"
            )
    return done
