"""Upstreams and dependencies a tool, resource or prompt uses, and those nothing uses."""

from __future__ import annotations

import difflib
from typing import Any

from ...errors import Diagnostic
from .common import _Linted, default_deadline


def _uses(
    doc: _Linted,
    out: list[Diagnostic],
    path: tuple[str, ...],
    tool: dict[str, Any],
    timeout: float,
    upstreams: dict[str, Any],
) -> None:
    """Each upstream a tool, resource or prompt uses exists, and one attempt fits inside its deadline."""
    noun = {"resources": "resource", "prompts": "prompt"}.get(path[0], "tool")
    deadline = tool.get("deadline_s", default_deadline(timeout))
    for index, name in enumerate(tool.get("upstreams") or []):
        if not isinstance(name, str) or (name not in upstreams and doc.is_broken(("upstreams",))):
            continue  # the upstreams failed the schema, reported already: which exist is not known
        if name not in upstreams:
            close = difflib.get_close_matches(name, list(upstreams), n=1)
            hint = f" (did you mean `{close[0]}`?)" if close else ""
            known = ", ".join(upstreams) or "none are declared"
            message = f"unknown upstream `{name}`{hint}; declare it under `upstreams:` ({known})"
            out.append(doc.diagnostic((*path, "upstreams", index), "FW124", message))
            continue
        upstream = upstreams[name]
        limit = upstream.get("timeout_s") if isinstance(upstream, dict) else None
        if isinstance(limit, int | float) and isinstance(deadline, int | float) and limit >= deadline:
            message = (
                f"upstream `{name}` allows {limit} s per attempt, not less than this {noun}'s {deadline:g} s deadline; "
                f"lower its timeout_s below {deadline:g} so an attempt can fail in time to answer"
            )
            out.append(doc.diagnostic((*path, "upstreams", index), "FW123", message))


def _dependencies_used(
    doc: _Linted,
    out: list[Diagnostic],
    path: tuple[str, ...],
    part: dict[str, Any],
    timeout: float,
    dependencies: dict[str, Any],
) -> None:
    """Each dependency a tool, resource or prompt lists in `uses` is declared (FW181), and one use of it fits
    inside its deadline (FW182)."""
    noun = {"resources": "resource", "prompts": "prompt"}.get(path[0], "tool")
    deadline = part.get("deadline_s", default_deadline(timeout))
    for index, name in enumerate(part.get("uses") or []):
        if not isinstance(name, str) or (name not in dependencies and doc.is_broken(("dependencies",))):
            continue  # the dependencies failed the schema, reported already: which exist is not known
        if name not in dependencies:
            close = difflib.get_close_matches(name, list(dependencies), n=1)
            hint = f" (did you mean `{close[0]}`?)" if close else ""
            known = ", ".join(dependencies) or "none are declared"
            message = f"unknown dependency `{name}`{hint}; declare it under `dependencies:` ({known})"
            out.append(doc.diagnostic((*path, "uses", index), "FW181", message))
            continue
        dependency = dependencies[name]
        limit = dependency.get("timeout_s") if isinstance(dependency, dict) else None
        if isinstance(limit, int | float) and isinstance(deadline, int | float) and limit >= deadline:
            message = (
                f"dependency `{name}` allows {limit} s per use, not less than this {noun}'s {deadline:g} s deadline; "
                f"lower its timeout_s below {deadline:g} so a use can fail in time to answer"
            )
            out.append(doc.diagnostic((*path, "uses", index), "FW182", message))
