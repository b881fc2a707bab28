"""What would not build: a version pip refuses, two names that derive the same Python name, models that clash."""

from __future__ import annotations

import re
from typing import Any

from ...errors import Diagnostic
from .. import fields as f
from .. import naming
from ..naming import (
    RESERVED_FIELD_NAMES,
    pascal,
    problem_with_name,
)
from .common import _Linted, _nested_names, published_names

_PEP440 = re.compile(
    r"v?(?:[0-9]+!)?[0-9]+(?:\.[0-9]+)*"
    r"(?:[-_.]?(?:a|b|c|rc|alpha|beta|pre|preview)[-_.]?[0-9]*)?"
    r"(?:-[0-9]+|[-_.]?(?:post|rev|r)[-_.]?[0-9]*)?"
    r"(?:[-_.]?dev[-_.]?[0-9]*)?"
    r"(?:\+[a-z0-9]+(?:[-_.][a-z0-9]+)*)?",
    re.IGNORECASE,
)
"""A version PEP 440 accepts (its appendix's pattern, without surrounding whitespace)."""


def _buildable(doc: _Linted, out: list[Diagnostic]) -> None:
    """Names that would collide in the generated code, constraints no value meets, nothing to serve, a version
    packaging refuses."""
    server = doc.data.get("server") if isinstance(doc.data.get("server"), dict) else {}
    assert isinstance(server, dict)
    package = server.get("package")
    why = naming.reserved_package_name(package) if isinstance(package, str) else None
    if why and not problem_with_name(str(package), "package"):
        message = f"package `{package}`: {why}; pick another name, such as `{package}_mcp`"
        out.append(doc.diagnostic(("server", "package"), "FW153", message))
    version = server.get("version")
    if isinstance(version, str | int | float) and not isinstance(version, bool) and not _PEP440.fullmatch(str(version)):
        message = f"version {str(version)!r} is not a PEP 440 version, which the package needs; such as 1.0.0 or 1.0rc1"
        out.append(doc.diagnostic(("server", "version"), "FW159", message))
    served = [key for key in ("tools", "resources", "prompts") if key in doc.data]
    if served and all(doc.data[key] == {} for key in served):
        message = "the server has no tools, resources or prompts; declare at least one, such as under `tools:`"
        out.append(doc.diagnostic((served[0],), "FW158", message, key=True))
    claimed: dict[str, tuple[str | int, ...]] = {}
    tools = doc.data.get("tools")
    for name, tool in tools.items() if isinstance(tools, dict) else ():
        path: tuple[str | int, ...] = ("tools", name)
        if not isinstance(name, str) or naming.problem_with_published_name(name, "tool"):
            continue
        py = naming.python_name(name)
        why = naming.reserved_tool_name(py)
        if why:
            out.append(doc.diagnostic(path, "FW150", f"tool name `{name}`: {why}; pick another name", key=True))
        becomes = {
            f"the name `{py}` in _generated/server.py": f"server:{py}",
            f"the name `{py}_handler` in _generated/server.py": f"server:{py}_handler",
            f"a test file named test_{py}.py": f"test:test_{py}",
            f"a test file named test_{py}_errors.py": f"test:test_{py}_errors",
        }
        _claim(doc, out, claimed, path, f"tool `{name}`", becomes)
        if isinstance(tool, dict):
            _tool_buildable(doc, out, path, tool)
    for kind, section in (("resource", "params"), ("prompt", "arguments")):
        specs = doc.data.get(f"{kind}s")
        for name, spec in specs.items() if isinstance(specs, dict) else ():
            path = (f"{kind}s", name)
            if not isinstance(name, str) or naming.problem_with_published_name(name, kind):
                continue
            py = naming.python_name(name)
            test = f"test_{py}_{kind}_errors"
            becomes = {
                f"the name `{py}_{kind}` in _generated/server.py": f"server:{py}_{kind}",
                f"the name `{py}_{kind}_handler` in _generated/server.py": f"server:{py}_{kind}_handler",
                f"a test file named {test}.py": f"test:{test}",
            }
            why = naming.reserved_tool_name(f"{py}_{kind}") or naming.reserved_tool_name(f"{py}_{kind}_handler")
            if why:
                message = (
                    f"{kind} name `{name}`: its names in _generated/server.py would be reserved ({why}); pick another"
                )
                out.append(doc.diagnostic(path, "FW150", message, key=True))
            _claim(doc, out, claimed, path, f"{kind} `{name}`", becomes)
            if isinstance(spec, dict) and isinstance(spec.get(section), dict):
                _fields_buildable(doc, out, (*path, section), spec[section])
            if isinstance(spec, dict) and isinstance(spec.get("failures"), dict):
                _failures_buildable(doc, out, path, spec["failures"], spec.get(section) or {}, [], kind)


def _claim(
    doc: _Linted,
    out: list[Diagnostic],
    claimed: dict[str, tuple[str | int, ...]],
    path: tuple[str | int, ...],
    what: str,
    becomes: dict[str, str],
) -> None:
    """Claim each generated identifier in `becomes` (shown -> key) for `path`; FW154 naming both places when
    another name of the spec claimed it first."""
    for shown, key in becomes.items():
        other = claimed.setdefault(key, path)
        if other != path:
            line, col = doc.position(other, key=True)
            message = f"{what} and the name at {doc.file}:{line}:{col} both become {shown}; rename one of them"
            out.append(doc.diagnostic(path, "FW154", message, key=True))
            return


def _tool_buildable(doc: _Linted, out: list[Diagnostic], path: tuple[str | int, ...], tool: dict[str, Any]) -> None:
    claimed: dict[str, tuple[str | int, ...]] = {}
    models: list[tuple[str, tuple[str | int, ...]]] = []
    for section, root in (("input", "Input"), ("output", "Output")):
        fields = tool.get(section)
        if isinstance(fields, dict):
            _fields_buildable(doc, out, (*path, section), fields)
            _models(root, fields, (*path, section), models)
    for model, where in models:
        _claim(doc, out, claimed, where, f"`{where[-1]}`", {f"the model class {model}": model})
    failures = tool.get("failures")
    if isinstance(failures, dict):
        _failures_buildable(doc, out, path, failures, tool.get("input") or {}, models, "tool", claimed)


def _failures_buildable(
    doc: _Linted,
    out: list[Diagnostic],
    path: tuple[str | int, ...],
    failures: dict[str, Any],
    inputs: dict[str, Any],
    models: list[tuple[str, tuple[str | int, ...]]],
    kind: str,
    claimed: dict[str, tuple[str | int, ...]] | None = None,
) -> None:
    """Each failure's class name fits the module of its tool, resource or prompt (`kind`), beside `models`."""
    claimed = {} if claimed is None else claimed
    for fname in failures:
        fpath = (*path, "failures", fname)
        if not isinstance(fname, str) or problem_with_name(fname, "failure", naming.RESERVED_FAILURE_NAMES):
            continue
        class_name = pascal(fname)
        root = "Input" if kind == "tool" else "Params"
        if class_name in ({"Input", "Output", "Item"} if kind == "tool" else {"Params"}):
            continue  # FW104
        if class_name in _nested_names(root, inputs):
            continue  # FW104
        module = naming.TOOL_MODULE_NAMES if kind == "tool" else naming.READER_MODULE_NAMES
        why = naming.reserved_class_name(class_name, module, kind) or (
            f"the {kind} module already has the model {class_name}" if class_name in {m for m, _ in models} else None
        )
        if why:
            out.append(doc.diagnostic(fpath, "FW151", f"failure `{fname}` becomes class {class_name}: {why}", key=True))
            continue
        shown = f"the class {class_name} of the {kind} module"
        _claim(doc, out, claimed, fpath, f"failure `{fname}`", {shown: class_name})


def _models(
    prefix: str, fields: dict[str, Any], path: tuple[str | int, ...], found: list[tuple[str, tuple[str | int, ...]]]
) -> None:
    """Each generated model class of these fields (named as fields.models names them) and its field's path."""
    for name, spec in fields.items():
        if isinstance(name, str) and isinstance(spec, dict):
            _model_of(f"{prefix}{pascal(naming.python_name(name))}", spec, (*path, name), found)


def _model_of(
    name: str, spec: dict[str, Any], path: tuple[str | int, ...], found: list[tuple[str, tuple[str | int, ...]]]
) -> None:
    if "enum" in spec:
        return
    kind = f.json_type(spec)
    if kind == "object" and isinstance(spec.get("properties"), dict) and spec["properties"]:
        found.append((name, path))
        _models(name, spec["properties"], (*path, "properties"), found)
    if kind == "array" and isinstance(spec.get("items"), dict):
        _model_of(f"{name}Item", spec["items"], (*path, "items"), found)


def _fields_buildable(doc: _Linted, out: list[Diagnostic], path: tuple[str | int, ...], fields: dict[str, Any]) -> None:
    published = published_names(path)
    attributes: dict[str, tuple[str | int, ...]] = {}
    for name, spec in fields.items():
        fpath = (*path, name)
        if not isinstance(name, str):
            problem: tuple[str, str] | None = ("", "")
        elif published:
            problem = naming.problem_with_published_name(name, "field", RESERVED_FIELD_NAMES, aliased=True)
        else:
            problem = problem_with_name(name, "field", RESERVED_FIELD_NAMES)
        if isinstance(name, str) and not problem:
            py = naming.field_attribute(name) if published else name
            why = naming.reserved_model_field_name(py)
            if why:
                out.append(doc.diagnostic(fpath, "FW152", f"field name `{name}`: {why}; pick another name", key=True))
            model = "output" if len(path) >= 3 and path[2] == "output" else "input"
            becomes = {f"the attribute `{py}` of the generated {model} model": py}
            _claim(doc, out, attributes, fpath, f"field `{name}`", becomes)
        if isinstance(spec, dict) and not doc.is_broken(fpath):
            _constraints(doc, out, fpath, spec)
            if isinstance(spec.get("properties"), dict):
                _fields_buildable(doc, out, (*fpath, "properties"), spec["properties"])
            items = spec.get("items")
            if isinstance(items, dict):
                _constraints(doc, out, (*fpath, "items"), items)
                if isinstance(items.get("properties"), dict):
                    _fields_buildable(doc, out, (*fpath, "items", "properties"), items["properties"])


def _constraints(doc: _Linted, out: list[Diagnostic], path: tuple[str | int, ...], spec: dict[str, Any]) -> None:
    """A numeric range no value (or no integer) is in; a pattern whose strings the length limits refuse."""
    kind = f.json_type(spec)
    if kind in ("integer", "number"):
        low, high = f.bounds(spec)
        if low is None or high is None:
            return
        if low.value > high.value and not (low.strict or high.strict):
            return  # FW132
        low_key = "exclusiveMinimum" if low.strict else "minimum"
        high_key = "exclusiveMaximum" if high.strict else "maximum"
        if low.value > high.value or (low.value == high.value and (low.strict or high.strict)):
            message = f"`{low_key}` {low.value} and `{high_key}` {high.value} leave no value between them"
            out.append(doc.diagnostic((*path, low_key), "FW155", message))
            return
        least, greatest = f.integer_bounds(spec)
        if kind == "integer" and least is not None and greatest is not None and least > greatest:
            message = f"no integer is in the range `{low_key}` {low.value} to `{high_key}` {high.value}"
            out.append(doc.diagnostic((*path, low_key), "FW156", message))
    has_lengths = "minLength" in spec or "maxLength" in spec
    if kind == "string" and isinstance(spec.get("pattern"), str) and has_lengths and not f.example_values(spec):
        made = f.pattern_example(spec["pattern"])
        if made is not None and "default" not in spec and f.make_example(spec) is None:
            message = (
                f"pattern {spec['pattern']} matches strings such as {made!r}, which the length limits refuse, and "
                "failwell can make up no string that fits both; add an `example` that does, or change the limits"
            )
            out.append(doc.diagnostic((*path, "pattern"), "FW157", message))
