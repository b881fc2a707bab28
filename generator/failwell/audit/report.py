"""An audit's report: a terminal summary (a score per tool and per rule, the worst findings with the answer
quoted), JSON, and one HTML file a person can share (inline style, no script, nothing fetched)."""

from __future__ import annotations

import html
import json
import textwrap

from ..client.terminal import visible
from .findings import RULES, Finding, Report


def as_json(report: Report) -> str:
    return json.dumps(report.as_dict(), indent=2, sort_keys=True, default=str) + "\n"


def verdict(report: Report) -> str:
    if report.errors:
        return f"{report.errors} error(s), {report.warnings} warning(s)"
    if report.warnings:
        return f"no errors, {report.warnings} warning(s)"
    return "clean"


def counted(report: Report) -> str:
    """`4 tools, 3 resources, 1 prompt`: what the server lists."""
    resources = len(report.resources) + len(report.resource_templates)
    counts = ((len(report.tools), "tool"), (resources, "resource"), (len(report.prompts), "prompt"))
    return ", ".join(f"{count} {noun}{'' if count == 1 else 's'}" for count, noun in counts)


def terminal(report: Report, worst: int = 8) -> str:
    server = report.server
    name, version = _line(server.get("name") or "?"), _line(server.get("version") or "")
    lines = [
        " ".join(
            filter(None, ["failwell audit:", name, version, "over", report.transport, f"({_line(report.target)})"])
        ),
        f"  {counted(report)}; {len(report.checks)} checks",
        f"  score {report.score}/100: {verdict(report)}",
        "",
        "  per tool:",
    ]
    per_tool = {_line(name): score for name, score in report.scores("subject").items()}
    counts = {_line(name): count for name, count in _counts(report.findings, "subject").items()}
    width = max([len(name) for name in per_tool] + [6])
    lines += [f"    {name:<{width}}  {score:>3}  {counts.get(name, '')}".rstrip() for name, score in per_tool.items()]
    lines += ["", "  per rule:"]
    counts = _counts(report.findings, "rule")
    lines += [
        f"    {rule:<9}  {score:>3}  {counts.get(rule, '')}".rstrip() for rule, score in report.scores("rule").items()
    ]
    for skipped in report.skipped:
        lines.append(f"  skipped {skipped}")
    if report.findings:
        lines += ["", "  worst findings:"]
        for finding in report.worst(worst):
            lines.append(
                f"  - [{finding.severity}] {_line(finding.subject)}, {_line(finding.probe)}: {_line(finding.problem)}"
            )
            if finding.answer:
                quoted = finding.answer if len(finding.answer) <= 300 else finding.answer[:300] + "..."
                lines += textwrap.wrap(quoted, 110, initial_indent="      > ", subsequent_indent="      > ")
    return "\n".join(lines) + "\n"


def _line(text: str) -> str:
    """A server's text on one summary line: its line breaks escaped, so a name cannot forge the lines after it."""
    return visible(str(text), one_line=True)


def _counts(findings: list[Finding], by: str) -> dict[str, str]:
    tally: dict[str, list[int]] = {}
    for finding in findings:
        key = finding.subject if by == "subject" else finding.rule
        pair = tally.setdefault(key, [0, 0])
        pair[finding.severity != "error"] += 1
    return {key: f"{e} error(s), {w} warning(s)" for key, (e, w) in tally.items()}


_STYLE = """
body{font:15px/1.45 system-ui,sans-serif;margin:2em auto;max-width:60em;padding:0 1em;color:#1b1b1b}
table{border-collapse:collapse;margin:.5em 0 1.5em}td,th{border:1px solid #ccc;padding:.25em .6em;text-align:left}
.error{color:#a40000}.warning{color:#8a5a00}.score{font-size:2em;font-weight:bold}
blockquote{white-space:pre-wrap;font-family:ui-monospace,monospace;font-size:13px;background:#f5f5f5;margin:.3em 0 1em;
padding:.5em}
"""


def as_html(report: Report) -> str:
    """One self-contained page: no script, no link, nothing fetched; a control character a server sent shown as
    its escape (`visible`), as in a terminal."""

    def e(text: str) -> str:
        return html.escape(visible(text))

    server = report.server
    rows_tools = "".join(
        f"<tr><td>{e(name)}</td><td>{score}</td></tr>" for name, score in report.scores("subject").items()
    )
    rows_rules = "".join(
        f"<tr><td>{e(rule)}</td><td>{score}</td><td>{e(RULES.get(rule, ''))}</td></tr>"
        for rule, score in report.scores("rule").items()
    )
    findings = "".join(
        f'<li><span class="{f.severity}">[{f.severity}]</span> <b>{e(f.subject)}</b>, {e(f.probe)}: {e(f.problem)}'
        + (f"<blockquote>{e(f.answer)}</blockquote>" if f.answer else "")
        + "</li>"
        for f in report.worst(len(report.findings))
    )
    skipped = "".join(f"<li>{e(item)}</li>" for item in report.skipped)
    title = f"failwell audit: {server.get('name') or report.target}"
    return (
        f'<!doctype html>\n<html lang="en"><head><meta charset="utf-8"><title>{e(title)}</title>'
        f"<style>{_STYLE}</style></head><body>\n"
        f"<h1>{e(title)} {e(str(server.get('version') or ''))}</h1>\n"
        f"<p>{e(report.transport)}: <code>{e(report.target)}</code>; {e(counted(report))};"
        f" {len(report.checks)} checks.</p>\n"
        f'<p class="score">{report.score}/100</p><p>{e(verdict(report))}</p>\n'
        f"<h2>Per tool</h2><table><tr><th>tool</th><th>score</th></tr>{rows_tools}</table>\n"
        f"<h2>Per rule</h2><table><tr><th>rule</th><th>score</th><th>what it asks</th></tr>{rows_rules}</table>\n"
        + (f"<h2>Findings</h2><ol>{findings}</ol>\n" if findings else "")
        + (f"<h2>Not probed</h2><ul>{skipped}</ul>\n" if skipped else "")
        + "</body></html>\n"
    )
