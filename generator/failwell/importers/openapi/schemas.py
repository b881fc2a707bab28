"""OpenAPI schemas as the spec's fields: a documented subset of JSON Schema. What the subset cannot say is
mapped to the nearest plain value (an object, a string) with a note, never dropped in silence."""

from __future__ import annotations

import datetime
import json
import keyword
import math
import re
from typing import Any

from ...spec import bounds, patterns
from ...spec import schemas as spec_schemas
from ...spec.naming import RESERVED_FIELD_NAMES, reserved_model_field_name
from .document import Document, Node

MAX_DEPTH = 4
"""Objects nested deeper than this are one plain object: a model fills a deep schema poorly."""
MAX_DESCRIPTION = 1000
"""A field's description is cut to this many characters."""
FORMATS = frozenset({"uri", "email", "date", "date-time", "uuid", "ipv4", "ipv6", "hostname"})
SCALARS = ("string", "integer", "number", "boolean")
FIELD_NAME = re.compile(r"^[a-z][a-z0-9_]*\Z")
MAX_INTEGER = 2**53
MAX_COMPOSITION = 16
"""The most schemas an `allOf`, `oneOf` or `anyOf` merges."""
MAX_SCHEMA = 60_000
"""The largest `schema:` field (as JSON, its `$defs` included) an import writes; a larger one keeps the short form."""
_DROPPED = frozenset(
    {"example", "examples", "xml", "discriminator", "externalDocs", "nullable", "readOnly", "writeOnly", "$schema"}
)
"""OpenAPI keys a `schema:` field leaves out: annotations JSON Schema 2020-12 does not have, or that would be
checked as data (an example the document got wrong)."""
_SUBSCHEMA = ("items", "not", "additionalProperties", "contains", "propertyNames", "if", "then", "else")
_SUBSCHEMAS = ("allOf", "anyOf", "oneOf", "prefixItems")


def jsonable(value: Any) -> Any:
    """`value` as JSON would carry it: YAML dates as ISO strings, nothing infinite."""
    if isinstance(value, datetime.datetime | datetime.date):
        return value.isoformat()
    if isinstance(value, float) and not math.isfinite(value):
        return None
    if isinstance(value, dict):
        return {str(k): jsonable(v) for k, v in value.items()}
    if isinstance(value, list):
        return [jsonable(v) for v in value]
    return value


def snake(text: str) -> str:
    """`petId` -> `pet_id`, `X-Request-ID` -> `x_request_id`, `page[size]` -> `page_size`."""
    text = re.sub(r"([a-z0-9])([A-Z])", r"\1_\2", text)
    text = re.sub(r"([A-Z]+)([A-Z][a-z])", r"\1_\2", text)
    text = re.sub(r"[^A-Za-z0-9]+", "_", text).strip("_").lower()
    return re.sub(r"_+", "_", text)


def field_name(wire: str) -> str:
    """A spec field name for the wire name `wire`: snake_case, starting with a letter, not reserved."""
    name = snake(wire) or "value"
    if not name[0].isalpha():
        name = f"n_{name}"
    if name.startswith("model_"):  # pydantic's namespace
        name = f"the_{name}"
    if keyword.iskeyword(name) or name in RESERVED_FIELD_NAMES or reserved_model_field_name(name):
        name = f"{name}_value"
    return name[:64]


def trim(raw: Any, limit: int = MAX_DESCRIPTION) -> str:
    """A description on one paragraph's terms: whitespace folded, cut at a sentence within `limit`."""
    if not isinstance(raw, str):
        return ""
    text = re.sub(r"<[^>]+>", "", bounds.writable(raw))
    text = " ".join(text.split())
    if len(text) <= limit:
        return text
    cut = text[:limit]
    end = cut.rfind(". ")
    return cut[: end + 1] if end > limit // 2 else cut[: limit - 1].rstrip() + "…"


class Mapper:
    """Turns schemas of one document into fields, noting what could not be said."""

    def __init__(self, doc: Document) -> None:
        self.doc = doc
        self.notes: list[str] = []
        self._def_names: dict[str, str] = {}

    def note(self, text: str) -> None:
        if text not in self.notes:
            self.notes.append(text)

    def flatten(
        self, node: Node, where: str, stack: tuple[str, ...] = (), *, side: str = ""
    ) -> tuple[dict[str, Any], set[str]]:
        """The (properties, required) of an object schema, `allOf` merged and `oneOf`/`anyOf` of objects
        flattened (each variant's properties optional); ({}, set()) for anything else. `side` "request" leaves out
        the `readOnly` properties (the API sets them; OpenAPI says they are not sent), "response" the `writeOnly`
        ones (the API never sends them back)."""
        properties, required = self._flatten(node, where, stack)
        undescribed = sorted(required - set(properties)) if side == "request" else []
        if undescribed:
            # the document requires a property it never describes (Figma's webhook body requires `team_id`): the
            # API wants it, so it is an input (untyped in the document), not dropped: the call would be refused
            self.note(f"{where}: required {', '.join(undescribed)} not described by the document: still an input")
            for name in undescribed:
                properties[name] = Node({}, node.base, f"{node.pointer}/required")
        marker = {"request": "readOnly", "response": "writeOnly"}.get(side)
        if marker is None:
            return properties, required
        left_out = [name for name, sub in properties.items() if self._marked(sub, marker)]
        if left_out:
            whose = "left out of the inputs: the API sets them" if side == "request" else "left out of the output"
            self.note(f"{where}: {marker} {', '.join(left_out)} {whose}")
        kept = {name: sub for name, sub in properties.items() if name not in left_out}
        return kept, required - set(left_out)

    def _marked(self, node: Node, marker: str) -> bool:
        """Whether a property's schema says `marker: true`, beside a `$ref` (3.1) or in what it refers to."""
        if isinstance(node.value, dict) and node.value.get(marker) is True:
            return True
        resolved = self.doc.resolve(node).value
        return isinstance(resolved, dict) and resolved.get(marker) is True

    def _flatten(self, node: Node, where: str, stack: tuple[str, ...]) -> tuple[dict[str, Any], set[str]]:
        node = self.doc.resolve(node)
        schema = node.value
        if not isinstance(schema, dict) or node.where in stack or len(stack) > 3 * MAX_DEPTH:
            return {}, set()
        stack = (*stack, node.where)
        properties: dict[str, Any] = {}
        required: set[str] = set()
        own = schema.get("properties")
        if isinstance(own, dict):
            for name, sub in own.items():
                properties[str(name)] = Node(sub, node.base, f"{node.pointer}/properties/{name}")
            required |= {r for r in schema.get("required") or [] if isinstance(r, str)}
        for index, part in enumerate((schema.get("allOf") or [])[:MAX_COMPOSITION]):
            props, req = self._flatten(Node(part, node.base, f"{node.pointer}/allOf/{index}"), where, stack)
            properties.update(props)
            required |= req
        for key in ("oneOf", "anyOf"):
            variants = (schema.get(key) or [])[:MAX_COMPOSITION]
            for index, part in enumerate(variants):
                props, _ = self._flatten(Node(part, node.base, f"{node.pointer}/{key}/{index}"), where, stack)
                for name, sub in props.items():
                    properties.setdefault(name, sub)
            if variants:
                self.note(f"{where}: {key} of objects flattened; each variant's fields are optional")
        return properties, required

    def lossy(self, node: Node, depth: int = 1, stack: tuple[str, ...] = (), *, top: bool = False) -> bool:
        """Whether the short form (`field`) of a request schema loses what it says: an `anyOf`/`oneOf` that is not
        `[X, null]`, several types, `minProperties`/`maxProperties`, `additionalProperties` with a schema or
        `patternProperties`, or objects nested past MAX_DEPTH. `top`: the schema's own keys only (its `allOf` parts
        included), not its properties'."""
        node = self.doc.resolve(node)
        schema = node.value
        if not isinstance(schema, dict) or node.where in stack:
            return False
        stack = (*stack, node.where)
        for key in ("oneOf", "anyOf"):
            variants = schema.get(key)
            if isinstance(variants, list) and variants:
                plain = [
                    v
                    for v in variants
                    if not (isinstance(v, dict) and (v.get("type") == "null" or v.get("enum") == [None]))
                ]
                if len(plain) > 1 or "properties" in schema or "type" in schema:
                    return True
        declared = schema.get("type")
        if isinstance(declared, list) and len([k for k in declared if k != "null"]) > 1:
            return True
        if any(key in schema for key in ("minProperties", "maxProperties", "patternProperties")):
            return True
        extra = schema.get("additionalProperties")
        if isinstance(extra, dict) and extra:
            return True
        parts = [Node(p, node.base, f"{node.pointer}/allOf/{i}") for i, p in enumerate(schema.get("allOf") or [])]
        if any(self.lossy(part, depth, stack, top=top) for part in parts[:MAX_COMPOSITION]):
            return True
        if top:
            return False
        own = schema.get("properties")
        if isinstance(own, dict) and own:
            if depth > MAX_DEPTH:
                return True
            for name, sub in own.items():
                if self.lossy(Node(sub, node.base, f"{node.pointer}/properties/{name}"), depth + 1, stack):
                    return True
        items = schema.get("items")
        return isinstance(items, dict) and self.lossy(Node(items, node.base, f"{node.pointer}/items"), depth + 1, stack)

    def schema_field(self, node: Node, where: str, *, required: bool, description: str = "") -> dict[str, Any] | None:
        """A `schema:` field for a request schema the short form cannot say: the JSON Schema 2020-12 as the document
        writes it, `readOnly` properties left out, each `$ref` a `#/$defs/NAME` of its own `$defs`; None (with a
        note) when it does not make a usable one (then the caller keeps the short form)."""
        defs: dict[str, Any] = {}
        schema = self._json_schema(node, where, defs, ())
        if not isinstance(schema, dict):
            return None
        if description and "description" not in schema and "$ref" not in schema:
            schema["description"] = description
        if defs:
            schema = {**schema, "$defs": defs}
        spec: dict[str, Any] = {"schema": schema}
        if not required and "default" not in schema:
            spec["required"] = False
        if spec_schemas.example(spec) is None and not spec_schemas.problems(schema):
            made = _made(schema, defs, 0)
            if made is not None and spec_schemas.fits(made, spec) is None:
                spec["example"] = made
        if len(json.dumps(schema)) > MAX_SCHEMA or spec_schemas.problems(schema) or spec_schemas.example(spec) is None:
            self.note(f"{where}: its JSON Schema could not be kept as written; mapped to the nearest plain fields")
            return None
        self.note(f"{where}: kept as its JSON Schema (a `schema:` field): the fields cannot say it")
        return spec

    def _json_schema(self, node: Node, where: str, defs: dict[str, Any], stack: tuple[str, ...]) -> Any:
        raw = node.value
        if isinstance(raw, bool):
            return raw
        if not isinstance(raw, dict):
            return {}
        if isinstance(raw.get("$ref"), str):
            target = self.doc.resolve(node)
            name = self._def_name(target.where)
            if name not in defs and target.where not in stack:
                defs[name] = {}  # taken before its body is made: a recursive schema refers to itself
                made = self._json_schema(Node(target.value, target.base, target.pointer), where, defs, stack)
                defs[name] = made if isinstance(made, dict | bool) else {}
            return {"$ref": f"#/$defs/{name}"}
        if node.where in stack:
            return {}
        stack = (*stack, node.where)
        out: dict[str, Any] = {}
        for key, value in raw.items():
            key = str(key)
            if key in _DROPPED or key.startswith("x-") or key == "$ref":
                continue
            if key in ("description", "title"):
                if trim(value):
                    out[key] = trim(value)
            elif key == "properties" and isinstance(value, dict):
                kept = {}
                for name, sub in value.items():
                    inner = Node(sub, node.base, f"{node.pointer}/properties/{name}")
                    if not self._marked(inner, "readOnly"):
                        kept[str(name)] = self._json_schema(inner, f"{where}.{name}", defs, stack)
                out[key] = kept
            elif key == "patternProperties" and isinstance(value, dict):
                out[key] = {
                    str(name): self._json_schema(
                        Node(sub, node.base, f"{node.pointer}/{key}/{name}"), where, defs, stack
                    )
                    for name, sub in value.items()
                    if _pattern_ok(str(name))
                }
            elif key in _SUBSCHEMA and isinstance(value, dict | bool):
                out[key] = self._json_schema(Node(value, node.base, f"{node.pointer}/{key}"), where, defs, stack)
            elif key in _SUBSCHEMAS and isinstance(value, list):
                out[key] = [
                    self._json_schema(Node(sub, node.base, f"{node.pointer}/{key}/{i}"), where, defs, stack)
                    for i, sub in enumerate(value)
                ]
            elif key == "pattern":
                if isinstance(value, str) and _pattern_ok(value):
                    out[key] = value
                else:
                    self.note(f"{where}: pattern {value!r} is outside what clients and the runtime share; left out")
            elif key in ("exclusiveMinimum", "exclusiveMaximum") and isinstance(value, bool):
                bound = "minimum" if key == "exclusiveMinimum" else "maximum"
                if value and isinstance(raw.get(bound), int | float):
                    out[key] = raw[bound]
            elif key in ("minimum", "maximum") and raw.get(f"exclusive{key.capitalize()}") is True:
                continue
            else:
                out[key] = jsonable(value)
        if isinstance(out.get("properties"), dict) and isinstance(out.get("required"), list):
            out["required"] = [r for r in out["required"] if r in out["properties"] or not isinstance(r, str)]
            if not out["required"]:
                out.pop("required")
        if raw.get("nullable") is True:
            if isinstance(out.get("type"), str):
                out["type"] = [out["type"], "null"]
                if isinstance(out.get("enum"), list) and None not in out["enum"]:
                    out["enum"] = [*out["enum"], None]
            elif "type" not in out:
                out = {"anyOf": [out, {"type": "null"}]}
        return out

    def _def_name(self, where: str) -> str:
        """The `$defs` name of the schema at `where`: its last name in the document, the same in every field."""
        names = self._def_names
        if where not in names:
            base = re.sub(r"[^A-Za-z0-9_.-]+", "_", where.rsplit("/", 1)[-1]).strip("_") or "schema"
            name, count = base, 1
            while name in names.values():
                count += 1
                name = f"{base}_{count}"
            names[where] = name
        return names[where]

    def field(
        self, node: Node, where: str, *, depth: int = 0, output: bool = False, stack: tuple[str, ...] = ()
    ) -> dict[str, Any]:
        """The field for one schema. `output`: only types and descriptions (the upstream's answer is not refused
        for a value outside its documented bounds)."""
        raw = node
        node = self.doc.resolve(node)
        schema = node.value
        if not isinstance(schema, dict):
            return {"type": "object" if schema is None and isinstance(raw.value, dict) else "string"}
        if node.where in stack:
            self.note(f"{where}: a recursive schema, cut to a plain object")
            return {"type": "object"}
        stack = (*stack, node.where)
        for key in ("oneOf", "anyOf"):  # [X, null]: X, nullable (the usual shape of an optional value)
            variants = schema.get(key)
            if isinstance(variants, list) and "type" not in schema and "properties" not in schema:
                plain = [
                    (index, v)
                    for index, v in enumerate(variants)
                    if not (isinstance(v, dict) and (v.get("type") == "null" or v.get("enum") == [None]))
                ]
                if len(plain) == 1 and len(variants) == 2:
                    index, only = plain[0]
                    inner = self.field(
                        Node(only, node.base, f"{node.pointer}/{key}/{index}"),
                        where,
                        depth=depth,
                        output=output,
                        stack=stack,
                    )
                    inner["nullable"] = True
                    described = trim(schema.get("description") or schema.get("title"))
                    if described:
                        inner["description"] = described
                    return inner
        out: dict[str, Any] = {}
        description = trim(schema.get("description") or schema.get("title"))
        if description:
            out["description"] = description
        kind, nullable = self._type(schema, node, where, stack)
        if nullable:
            out["nullable"] = True
        if kind == "object":
            if depth >= MAX_DEPTH:
                self.note(f"{where}: nested deeper than {MAX_DEPTH} levels, cut to a plain object")
                out["type"] = "object"
                return out
            # an output's nested objects are plain objects (the spec says the top level of an output only)
            properties, required = self.flatten(node, where, stack[:-1], side="" if output else "request")
            fields: dict[str, Any] = {}
            for name, sub in properties.items():
                if not FIELD_NAME.match(name) or name != field_name(name):
                    self.note(f"{where}: property {name!r} is not a field name; the object is kept as a plain object")
                    fields = {}
                    break
                mapped = self.field(sub, f"{where}.{name}", depth=depth + 1, output=output, stack=stack)
                if name not in required and "default" not in mapped:
                    mapped["required"] = False
                fields[name] = mapped
            out["type"] = "object"
            if fields:
                out["properties"] = fields
            return out
        if kind == "array":
            out["type"] = "array"
            items = schema.get("items")
            if isinstance(items, dict):
                out["items"] = self.field(
                    Node(items, node.base, f"{node.pointer}/items"),
                    f"{where}[]",
                    depth=depth + 1,
                    output=output,
                    stack=stack,
                )
            if not output:
                for key in ("minItems", "maxItems"):
                    if isinstance(schema.get(key), int) and 0 <= schema[key] <= 10_000:
                        out[key] = schema[key]
                if out.get("minItems", 0) > out.get("maxItems", 10_000):
                    out.pop("minItems")
            return out
        out["type"] = kind
        if output:
            return out
        self._constraints(schema, out, where)
        return out

    def _type(self, schema: dict[str, Any], node: Node, where: str, stack: tuple[str, ...]) -> tuple[str, bool]:
        nullable = schema.get("nullable") is True
        declared = schema.get("type")
        if isinstance(declared, list):  # 3.1: ["string", "null"]
            if "null" in declared:
                nullable = True
            listed = [k for k in declared if k != "null"]
            declared = listed[0] if len(listed) == 1 else None
            if len(listed) > 1:
                self.note(f"{where}: one of the types {', '.join(map(str, listed))}, mapped as a string")
                return "string", nullable
        if declared == "null":
            return "string", True
        if declared in (*SCALARS, "array", "object"):
            return str(declared), nullable
        if "properties" in schema or "allOf" in schema:
            if "allOf" in schema and "properties" not in schema:
                kinds = {
                    self._type(self.doc.resolve(Node(p, node.base)).value or {}, node, where, stack)[0]
                    for p in schema["allOf"]
                    if isinstance(p, dict)
                }
                if kinds and kinds != {"object"} and len(kinds) == 1:
                    return kinds.pop(), nullable
            return "object", nullable
        for key in ("oneOf", "anyOf"):
            variants = [self.doc.resolve(Node(v, node.base)).value for v in schema.get(key) or []]
            if not variants:
                continue
            plain = [
                v
                for v in variants
                if not (isinstance(v, dict) and (v.get("type") == "null" or v.get("enum") == [None]))
            ]
            if len(plain) < len(variants):
                nullable = True
            kinds = {self._type(v, node, where, stack)[0] if isinstance(v, dict) else "object" for v in plain}
            if len(kinds) == 1:
                return kinds.pop(), nullable
            if kinds <= {"integer", "number"}:
                return "number", nullable
            self.note(
                f"{where}: {key} of {', '.join(sorted(kinds))}, mapped as "
                + ("a plain object" if "object" in kinds else "a string")
            )
            return ("object" if "object" in kinds else "string"), nullable
        if "enum" in schema and isinstance(schema["enum"], list):
            kinds = {_json_type(v) for v in schema["enum"] if v is not None}
            if len(kinds) == 1:
                return kinds.pop(), nullable or None in schema["enum"]
        if "items" in schema:
            return "array", nullable
        return "string", nullable

    def _constraints(self, schema: dict[str, Any], out: dict[str, Any], where: str) -> None:
        kind = out["type"]
        enum = schema.get("enum")
        if isinstance(enum, list):
            values = [jsonable(v) for v in enum if v is not None]
            if (
                values
                and all(fits(v, kind) and within(v, {}) for v in values)
                and len(set(map(repr, values))) == len(values)
            ):
                out["enum"] = values
        if kind == "string":
            fmt = schema.get("format")
            if fmt in FORMATS:
                out["format"] = fmt
            for key in ("minLength", "maxLength"):
                if isinstance(schema.get(key), int) and 0 <= schema[key] <= 1_000_000:
                    out[key] = schema[key]
            if out.get("minLength", 0) > out.get("maxLength", 1_000_000):
                out.pop("minLength")
            pattern = schema.get("pattern")
            if isinstance(pattern, str) and "enum" not in out and "format" not in out:
                if _pattern_ok(pattern):
                    out["pattern"] = pattern
                else:
                    self.note(f"{where}: pattern {pattern!r} is outside what clients and the runtime share; left out")
        if kind in ("integer", "number"):
            for key in ("minimum", "maximum"):
                value = schema.get(key)
                if isinstance(value, int | float) and not isinstance(value, bool) and abs(value) <= 2**53:
                    exclusive = schema.get(f"exclusive{key.capitalize()}")
                    out[f"exclusive{key.capitalize()}" if exclusive is True else key] = value
            for key in ("exclusiveMinimum", "exclusiveMaximum"):
                value = schema.get(key)
                if isinstance(value, int | float) and not isinstance(value, bool) and abs(value) <= 2**53:
                    out[key] = value
            low = out.get("minimum", out.get("exclusiveMinimum"))
            high = out.get("maximum", out.get("exclusiveMaximum"))
            if low is not None and high is not None and low > high:
                for key in ("minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum"):
                    out.pop(key, None)
            if kind == "integer":
                for key in ("minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum"):
                    if key in out and out[key] != int(out[key]):
                        out.pop(key)
                    elif key in out:
                        out[key] = int(out[key])
        for key, target in (("default", "default"), ("example", "example")):
            value = jsonable(schema.get(key))
            if value is not None and fits(value, kind) and within(value, out):
                out[target] = value
        examples = schema.get("examples")
        if "example" not in out and isinstance(examples, list) and examples:
            value = jsonable(examples[0])
            if value is not None and fits(value, kind) and within(value, out):
                out["example"] = value


_FORMAT_EXAMPLES = {
    "email": "ada@example.com",
    "uri": "https://example.com/a",
    "date": "2024-02-01",
    "date-time": "2024-02-01T09:00:00Z",
    "uuid": "3f0c9b1e-7d2a-4c55-9e61-0a8f2b7c4d10",
    "ipv4": "192.0.2.1",
    "ipv6": "2001:db8::1",
    "hostname": "example.com",
}


def _count(value: Any) -> int:
    """A document's count (`minItems`, `minLength`, ...) as a non-negative int: 0 for anything else."""
    return value if isinstance(value, int) and not isinstance(value, bool) and value > 0 else 0


def _made(schema: Any, defs: dict[str, Any], depth: int) -> Any:
    """A value for an example of a `schema:` field where the spec's own maker finds none: each `anyOf`/`oneOf`
    branch tried in turn, an object given enough of its optional properties for its `minProperties`; None when
    this finds none (a `pattern` it cannot match)."""
    if not isinstance(schema, dict) or depth > 8:
        return None
    if isinstance(schema.get("$ref"), str):
        return _made(defs.get(schema["$ref"].rsplit("/", 1)[-1]), defs, depth + 1)
    for key in ("const", "default"):
        if key in schema:
            return schema[key]
    if schema.get("enum"):
        return schema["enum"][0]
    for key in ("anyOf", "oneOf"):
        for branch in schema.get(key) or []:
            made = _made(branch, defs, depth + 1)
            if made is not None:
                return made
    if schema.get("allOf"):
        merged: dict[str, Any] = {}
        for part in schema["allOf"]:
            made = _made(part, defs, depth + 1)
            if not isinstance(made, dict):
                return made
            merged.update(made)
        return merged
    kind = schema.get("type")
    kind = next((k for k in kind if k != "null"), None) if isinstance(kind, list) else kind
    if kind == "object" or "properties" in schema:
        properties = schema.get("properties") or {}
        names = [n for n in schema.get("required") or [] if isinstance(n, str)]
        names += [n for n in properties if n not in names][: max(_count(schema.get("minProperties")) - len(names), 0)]
        out = {name: _made(properties.get(name, {"type": "string"}), defs, depth + 1) for name in names}
        return None if any(value is None for value in out.values()) else out
    if kind == "array":
        item = _made(schema.get("items", {"type": "string"}), defs, depth + 1)
        return None if item is None else [item] * max(min(_count(schema.get("minItems")), 100), 1)
    if kind in ("integer", "number"):
        low = schema.get("minimum", schema.get("exclusiveMinimum", 0))
        floor = low if isinstance(low, (int, float)) and not isinstance(low, bool) and math.isfinite(low) else 0
        return max(1, math.ceil(floor) + (1 if "exclusiveMinimum" in schema else 0))
    if kind == "boolean":
        return True
    if kind == "string" and "pattern" not in schema:
        text = _FORMAT_EXAMPLES.get(str(schema.get("format")), "example")
        longest = schema.get("maxLength")
        cut = text[: longest if isinstance(longest, int) and longest >= 0 else len(text)]
        return cut.ljust(min(_count(schema.get("minLength")), 10_000), "x")
    return None


def _json_type(value: Any) -> str:
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, int):
        return "integer"
    if isinstance(value, float):
        return "number"
    if isinstance(value, str):
        return "string"
    return "object"


def fits(value: Any, kind: str) -> bool:
    actual = _json_type(value)
    return actual == kind or (kind == "number" and actual == "integer")


def within(value: Any, out: dict[str, Any]) -> bool:
    """Whether a default or example keeps the field's own rules (else the spec refuses it, FW130/FW131)."""
    if "enum" in out and value not in out["enum"]:
        return False
    if isinstance(value, str):
        if len(value) < out.get("minLength", 0) or len(value) > out.get("maxLength", 1_000_000):
            return False
        if "pattern" in out and not _matches(out["pattern"], value):
            return False
        if "format" in out:
            return False  # a format's check is the runtime's: an example that fails it would break the tests
    if isinstance(value, int | float) and not isinstance(value, bool):
        if abs(value) > MAX_INTEGER:  # past what a JSON Schema client reads exactly (FW024)
            return False
        if ("minimum" in out and value < out["minimum"]) or ("maximum" in out and value > out["maximum"]):
            return False
        if "exclusiveMinimum" in out and value <= out["exclusiveMinimum"]:
            return False
        if "exclusiveMaximum" in out and value >= out["exclusiveMaximum"]:
            return False
    return True


def _pattern_ok(pattern: str) -> bool:
    try:
        patterns.translate(pattern)
    except Exception:
        return False
    return len(pattern) <= 500


def _matches(pattern: str, value: str) -> bool:
    try:
        return patterns.matches(pattern, value)
    except Exception:
        return False
