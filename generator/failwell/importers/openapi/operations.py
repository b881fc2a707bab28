"""The operations of an OpenAPI document, and the selection of those that become tools."""

from __future__ import annotations

import fnmatch
from collections import Counter
from dataclasses import dataclass, field
from typing import Any

from ...errors import FailwellError
from .document import Document, Node

METHODS = ("get", "head", "options", "post", "put", "patch", "delete", "trace")
DEFAULT_CAP = 40
"""The most tools written without an explicit choice (`--all` or `--max-tools`): a model chooses worse among
more, and each tool's schema costs context (one import measured 805 tools, about 207k tokens)."""


@dataclass(frozen=True)
class Operation:
    method: str
    path: str
    node: Node
    parameters: tuple[Node, ...]
    """The path item's parameters then the operation's, the operation's winning on the same (name, in)."""

    @property
    def spec(self) -> dict[str, Any]:
        value = self.node.value
        return value if isinstance(value, dict) else {}

    @property
    def key(self) -> str:
        return f"{self.method.upper()} {self.path}"

    @property
    def operation_id(self) -> str:
        value = self.spec.get("operationId")
        return value if isinstance(value, str) else ""

    @property
    def tags(self) -> list[str]:
        return [t for t in self.spec.get("tags") or [] if isinstance(t, str)] or ["(untagged)"]


def operations(doc: Document) -> list[Operation]:
    """Every operation, in the document's order of paths and the methods' usual order."""
    found = []
    for path, item in (doc.root.get("paths") or {}).items():
        item_node = doc.resolve(Node(item, next(iter(doc.files)), f"#/paths/{path}"))
        if not isinstance(item_node.value, dict):
            continue
        shared = _parameters(doc, item_node)
        for method in METHODS:
            if method not in item_node.value:
                continue
            op = doc.resolve(Node(item_node.value[method], item_node.base, f"{item_node.pointer}/{method}"))
            if not isinstance(op.value, dict):
                continue
            own = _parameters(doc, op)
            merged = {key: node for key, node in shared.items()}
            merged.update(own)
            found.append(Operation(method, str(path), op, tuple(merged.values())))
    return found


def _parameters(doc: Document, node: Node) -> dict[tuple[str, str], Node]:
    out: dict[tuple[str, str], Node] = {}
    for index, raw in enumerate(node.value.get("parameters") or []):
        param = doc.resolve(Node(raw, node.base, f"{node.pointer}/parameters/{index}"))
        if isinstance(param.value, dict) and isinstance(param.value.get("name"), str):
            out[(param.value["name"], str(param.value.get("in")))] = param
    return out


@dataclass
class Selection:
    """Which operations become tools; kept in the spec's `imported.select` so a re-import keeps it."""

    tags: list[str] = field(default_factory=list)
    operations: list[str] = field(default_factory=list)
    paths: list[str] = field(default_factory=list)
    methods: list[str] = field(default_factory=list)
    exclude_tags: list[str] = field(default_factory=list)
    exclude_operations: list[str] = field(default_factory=list)
    exclude_paths: list[str] = field(default_factory=list)
    exclude_methods: list[str] = field(default_factory=list)
    max_tools: int | None = None
    """Allow this many tools (default DEFAULT_CAP); `all` lifts the cap."""
    all: bool = False

    def as_spec(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            key: list(value) for key, value in vars(self).items() if isinstance(value, list) and value
        }
        if self.max_tools is not None:
            out["max_tools"] = self.max_tools
        if self.all:
            out["all"] = True
        return out

    @classmethod
    def from_spec(cls, data: Any) -> Selection:
        data = data if isinstance(data, dict) else {}
        chosen = cls()
        for key, value in vars(chosen).items():
            if isinstance(value, list) and isinstance(data.get(key), list):
                setattr(chosen, key, [str(v) for v in data[key]])
        if isinstance(data.get("max_tools"), int):
            chosen.max_tools = data["max_tools"]
        chosen.all = data.get("all") is True
        return chosen

    @property
    def empty(self) -> bool:
        return not self.as_spec()

    def matches(self, op: Operation) -> bool:
        method = op.method.upper()
        checks = (
            (self.tags, lambda t: t in op.tags),
            (self.operations, lambda o: o == op.operation_id),
            (self.paths, lambda p: fnmatch.fnmatchcase(op.path, p)),
            (self.methods, lambda m: m.upper() == method),
        )
        if any(wanted and not any(test(w) for w in wanted) for wanted, test in checks):
            return False
        excluded = (
            (self.exclude_tags, lambda t: t in op.tags),
            (self.exclude_operations, lambda o: o == op.operation_id),
            (self.exclude_paths, lambda p: fnmatch.fnmatchcase(op.path, p)),
            (self.exclude_methods, lambda m: m.upper() == method),
        )
        return not any(any(test(w) for w in unwanted) for unwanted, test in excluded)

    def choose(self, every: list[Operation], source: str) -> list[Operation]:
        chosen = [op for op in every if self.matches(op)]
        if not chosen:
            raise FailwellError(f"no operation of {source} matches the selection; {tag_table(every)}")
        cap = self.max_tools if self.max_tools is not None else DEFAULT_CAP
        if not self.all and len(chosen) > cap:
            raise FailwellError(
                f"{len(chosen)} operations of {source} are selected, more than {cap} tools: a model chooses worse "
                "among many tools and each costs context. Choose with --tag, --operation, --path, --method (and "
                f"--exclude-...), or pass --max-tools {len(chosen)} or --all; nothing was written. {tag_table(chosen)}"
            )
        return chosen


def tag_table(ops: list[Operation]) -> str:
    """The tags with their operation counts, most first, for the person to choose from."""
    counts = Counter(tag for op in ops for tag in op.tags)
    rows = "\n".join(f"  {count:5d}  {tag}" for tag, count in sorted(counts.items(), key=lambda kv: (-kv[1], kv[0])))
    return f"the tags, with their operations:\n{rows}"
