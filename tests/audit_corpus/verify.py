"""Each finding of a recorded audit checked against the raw exchange it came from (`Report.exchange`), by checks
written apart from the judge: the request the finding names was sent, and its answer (or its silence) shows what
the finding says. A finding no check covers counts as unchecked, never as true."""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from typing import Any

PLANTED_MARK = "FailwellAuditPlanted"
EXTRA = "failwell_audit_extra"
_FAILURE_WORDS = re.compile(r"(?i)\b(error|errors|failed|failure|exception|invalid|could not|unable|required)\b")
_STACK = re.compile(
    r'Traceback \(most recent call last\)|File "[^"]+", line \d+|errors\.pydantic\.dev|input_value=|at \S+:\d+:\d+'
)
_INTERNAL = re.compile(
    r"https?://|(?<![\w.])/(?:[\w.-]+/)+[\w.-]*|\b\d{1,3}(?:\.\d{1,3}){3}\b|[A-Za-z]:\\\\|"
    r"(?i:\b(select|insert|update|delete)\b.{0,80}\b(from|into|set|where)\b)|\b[\w-]+\.(py|js|ts|go|rb|java):\d+|"
    r"\b(ENOENT|EACCES|EPERM|errno|stack|traceback)\b",
)
_RETRY = re.compile(r"(?i)\b(retry|retrying|try again|again later|wait|will not help|won't help|same call)\b")
_CHANGED = re.compile(
    r"(?i)\b(nothing|no changes?|not)\b[^.]{0,40}\b(changed|modified|made|applied|written|saved|created|deleted)\b"
    r"|\b(may|might) have been (applied|changed|made)|\bpart of the change\b|\bunchanged\b"
)


def pairs(exchange: Sequence[dict[str, Any]], subject: str, probe: str) -> list[tuple[dict[str, Any], Any]]:
    """(request sent, its response or None) for each request labelled with `subject` and `probe`."""
    mine = [entry for entry in exchange if entry.get("subject") == subject and entry.get("probe") == probe]
    found = []
    for entry in mine:
        message = entry.get("message")
        if entry["direction"] != "sent":
            continue
        if not isinstance(message, dict):  # a line that is not JSON
            session = entry["session"]
            answers = [e.get("message") for e in mine if e["direction"] == "received" and e["session"] == session]
            found.append((entry, next((a for a in answers if isinstance(a, dict)), None)))
            continue
        if "id" not in message:
            continue
        response = next(
            (
                e.get("message")
                for e in exchange
                if e["direction"] == "received"
                and e["session"] == entry["session"]
                and isinstance(e.get("message"), dict)
                and e["message"].get("id") == message["id"]
                and ("result" in e["message"] or "error" in e["message"])
            ),
            None,
        )
        found.append((entry, response))
    return found


def _message(entry: dict[str, Any]) -> dict[str, Any]:
    message = entry.get("message")
    return message if isinstance(message, dict) else {}


def text_of(response: dict[str, Any]) -> str:
    if "error" in response:
        return str(response["error"].get("message", ""))
    content = (response.get("result") or {}).get("content") or []
    return "\n".join(str(b.get("text", "")) for b in content if isinstance(b, dict) and b.get("type") == "text")


def sent_strings(value: Any) -> list[str]:
    if isinstance(value, str):
        return [value]
    if isinstance(value, dict):
        return [s for item in value.values() for s in sent_strings(item)]
    if isinstance(value, list):
        return [s for item in value for s in sent_strings(item)]
    return []


def is_refusal(response: dict[str, Any]) -> bool:
    return "error" in response or (response.get("result") or {}).get("isError") is True


def quoted(response: dict[str, Any]) -> str:
    if "error" in response:
        error = response["error"]
        data = f" data={json.dumps(error['data'], default=str)}" if "data" in error else ""
        return f"JSON-RPC error {error.get('code')}: {error.get('message', '')}{data}"
    flag = "isError result" if (response.get("result") or {}).get("isError") is True else "success result"
    return f"{flag}: {text_of(response)}"


def _tool(exchange: Sequence[dict[str, Any]], name: str) -> dict[str, Any] | None:
    for entry in exchange:
        result = (entry.get("message") or {}).get("result") if isinstance(entry.get("message"), dict) else None
        if entry["direction"] == "received" and isinstance(result, dict) and isinstance(result.get("tools"), list):
            for tool in result["tools"]:
                if tool.get("name") == name:
                    return dict(tool)
    return None


def check(finding: dict[str, Any], exchange: Sequence[dict[str, Any]]) -> tuple[bool, str]:
    """Whether the raw exchange shows what `finding` says, and how it was checked."""
    rule, problem, subject, probe = finding["rule"], finding["problem"], finding["subject"], finding["probe"]
    if rule == "listing" and probe == "tools/list":
        tool = _tool(exchange, subject)
        if tool is None:
            return False, "the tool is not in any tools/list answer"
        annotations = tool.get("annotations") or {}
        if problem.startswith("no description"):
            return not str(tool.get("description") or "").strip(), "its listed description is empty"
        if problem.startswith("no readOnlyHint or destructiveHint"):
            return "readOnlyHint" not in annotations and "destructiveHint" not in annotations, "neither hint listed"
    if rule == "stdout":
        lines = [entry for entry in exchange if "stdout" in entry]
        count = int(problem.split()[0])
        return len(lines) >= count and finding["answer"] in {entry["stdout"][:500] for entry in lines}, "lines seen"
    found = pairs(exchange, subject, probe)
    if not found:
        return False, "no request with this probe's label was recorded"
    asking = [pair for pair in found if not str(_message(pair[0]).get("method", "")).endswith("/list")]
    request, response = (asking or found)[-1]  # the SDK may list the tools again under the same probe
    if problem.startswith("no answer"):
        return response is None, "no response to the request"
    if response is None:
        return False, "the request had no response, and the finding says it had"
    said = text_of(response)
    body = quoted(response)
    shown = finding["answer"][:150]
    if shown and shown != body[:150] and shown != str(request.get("message"))[:150]:
        return False, f"the quoted answer is not the recorded one: {body[:150]!r}"
    error = response.get("error") or {}
    result = response.get("result") or {}
    meta = result.get("_meta") or {}
    if rule in ("channel", "codes") and (match := re.match(r"(?:code |)(-?\d+)(?:;| is in)", problem)):
        return error.get("code") == int(match.group(1)), f"error code {error.get('code')}"
    if rule == "codes" and problem.startswith("JSON-RPC code 0"):
        return error.get("code") == 0, f"error code {error.get('code')}"
    if rule == "channel":
        if problem.startswith("answered with an isError result"):
            return result.get("isError") is True, "isError true"
        if problem.startswith(("answered as if it existed", "answered as if valid")):
            return "result" in response, "a result came back"
        if problem.startswith("an error sent as a success"):
            failed = bool(_FAILURE_WORDS.search(said[:300]))
            return result.get("isError") is not True and failed, "isError false, and failure words"
        if problem.startswith("a JSON-RPC error the model may never see"):
            return "error" in response, "a JSON-RPC error"
    if rule == "refuses":
        if problem == "input the schema forbids was accepted":
            return "result" in response and result.get("isError") is not True, "a success result"
        if problem.startswith("the unknown argument"):
            return is_refusal(response) and EXTRA not in said, f"refused without naming {EXTRA}"
    if rule == "leaks":
        everything = json.dumps(response)
        if "planted credential" in problem:
            return PLANTED_MARK in everything, "the planted credential is in the response"
        if problem.startswith("a stack trace"):
            return bool(_STACK.search(everything)), "stack words in the response"
        if problem.startswith("internals"):
            rest = said
            for value in sorted(set(sent_strings(_message(request).get("params"))), key=len, reverse=True):
                rest = rest.replace(value, "x") if len(value) > 1 else rest
            return bool(_INTERNAL.search(rest)), f"internals beyond what was sent: {_INTERNAL.search(rest)}"
    if rule == "wording":
        if problem.startswith("the message lacks:"):
            parts = problem.split(":", 1)[1].replace(" ", "").split(",")
            ok = is_refusal(response) or not result
            if "retry" in parts:
                ok = ok and not _RETRY.search(said)
            if "changed" in parts:
                ok = ok and not _CHANGED.search(said)
            return ok, "a refusal; no retry or change words where it says so (the other parts by the wording lint)"
        if problem.startswith("the message should be one line"):
            asked = str((_message(request).get("params") or {}).get("name") or "")
            return "\n" in said.strip() or asked not in said, "a line break, or the name asked is missing"
        if match := re.match(r"(\d+) characters", problem):
            return len(said) >= int(match.group(1)) - 5, f"{len(said)} characters"
    if rule == "envelope":
        keys = {"io.modelcontextprotocol/toolFailure", "dev.failwell/error"} & set(meta)
        if problem.startswith("no machine-readable failure object"):
            return result.get("isError") is True and not keys, "an isError result with no failure object in _meta"
        if problem.startswith("a success result carrying"):
            return result.get("isError") is not True and bool(keys), "a success with a failure object"
    if rule == "retry":
        failure = meta.get("io.modelcontextprotocol/toolFailure") or {}
        return failure.get("retryable") is True, "retryable true"
    return False, "no check covers this finding"
