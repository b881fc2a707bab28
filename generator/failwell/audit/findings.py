"""What an audit found: every check made (passed or not, for the scores) and the findings of those that failed,
each with the exact answer that failed it."""

from __future__ import annotations

from collections import defaultdict
from dataclasses import asdict, dataclass, field
from typing import Any, Literal

Severity = Literal["error", "warning"]
RULES = {
    "refuses": "input the schema forbids is refused, not run",
    "channel": "a tool's failure is an isError result; a broken request a JSON-RPC error",
    "codes": "JSON-RPC codes are the standard ones, never 0 or an invented reserved code",
    "wording": "the message says what failed, the value, what is accepted, the next step, retry and changed",
    "leaks": "no planted credential, stack trace, path, SQL or address in any answer",
    "envelope": "a machine-readable failure object (failwell's or SEP-3313 toolFailure) that is well formed",
    "retry": "retry advice matches the failure and the tool's annotations",
    "listing": "every tool is described and annotated; capabilities say what is served",
    "stdout": "on stdio, nothing but JSON-RPC on stdout",
}
"""Every rule an answer is judged by, with what it asks."""


@dataclass(frozen=True)
class Finding:
    rule: str
    severity: Severity
    subject: str
    """A tool's name, or `server`."""
    probe: str
    """What was sent: `place off its pattern`, `an unknown tool`."""
    problem: str
    answer: str = ""
    """The answer, quoted exactly (its first 500 characters)."""


@dataclass(frozen=True)
class Check:
    rule: str
    subject: str
    passed: bool


@dataclass
class Report:
    target: str
    transport: str
    server: dict[str, Any] = field(default_factory=dict)
    tools: list[dict[str, Any]] = field(default_factory=list)
    resources: list[dict[str, Any]] = field(default_factory=list)
    resource_templates: list[dict[str, Any]] = field(default_factory=list)
    prompts: list[dict[str, Any]] = field(default_factory=list)
    checks: list[Check] = field(default_factory=list)
    findings: list[Finding] = field(default_factory=list)
    skipped: list[str] = field(default_factory=list)
    """Tools not probed, and why (`send_email: not read-only; pass --allow-writes`)."""
    exchange: list[dict[str, Any]] = field(default_factory=list)
    """Every message sent and received, labelled with its probe, when the audit was asked to record it."""

    def record(self, rule: str, subject: str, problem: Finding | None) -> None:
        """One check: passed when `problem` is None."""
        self.checks.append(Check(rule, subject, problem is None))
        if problem is not None:
            self.findings.append(problem)

    def scores(self, by: Literal["subject", "rule"]) -> dict[str, int]:
        """Per tool (`server` for the server's own checks) or per rule: the percentage of checks passed."""
        totals: dict[str, list[int]] = defaultdict(lambda: [0, 0])
        for check in self.checks:
            key = check.subject if by == "subject" else check.rule
            totals[key][0] += check.passed
            totals[key][1] += 1
        return {key: round(100 * passed / total) for key, (passed, total) in sorted(totals.items())}

    @property
    def score(self) -> int:
        passed = sum(check.passed for check in self.checks)
        return round(100 * passed / len(self.checks)) if self.checks else 100

    @property
    def errors(self) -> int:
        return sum(finding.severity == "error" for finding in self.findings)

    @property
    def warnings(self) -> int:
        return sum(finding.severity == "warning" for finding in self.findings)

    def worst(self, count: int = 10) -> list[Finding]:
        """Errors first, then warnings; one per (rule, subject) before any repeat."""
        ordered = sorted(self.findings, key=lambda f: (f.severity != "error", f.rule, f.subject))
        seen: set[tuple[str, str]] = set()
        first: list[Finding] = []
        for finding in ordered:
            if (finding.rule, finding.subject) not in seen:
                seen.add((finding.rule, finding.subject))
                first.append(finding)
        rest = [f for f in ordered if f not in first]
        return (first + rest)[:count]

    def as_dict(self) -> dict[str, Any]:
        data = asdict(self)
        data.pop("checks")
        if not data["exchange"]:
            data.pop("exchange")
        data["score"] = self.score
        data["scores"] = {"tools": self.scores("subject"), "rules": self.scores("rule")}
        data["counts"] = {"checks": len(self.checks), "errors": self.errors, "warnings": self.warnings}
        return data
