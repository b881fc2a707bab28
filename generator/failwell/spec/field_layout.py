"""Model fields laid out as `ruff format` lays them out in a generated project (120 columns): a field longer than a
line split where ruff splits it; a shape this does not know kept as written between `# fmt: off` and `# fmt: on`
(ruff leaves it, and a generated project does not check line length), so the code is what ruff keeps."""

from __future__ import annotations


def aliased_line(attribute: str, annotation: str, arguments: list[str]) -> str:
    """`attribute: annotation = Field(..., alias=...)` in a model's body, laid out as ruff format lays it out: on
    one line when it fits, else the call exploded (kept so by its trailing comma), and an `Annotated[...]` that
    still overflows split inside its brackets."""
    call = f"Field({', '.join(arguments)})"
    if len(f"    {attribute}: {annotation} = {call}") <= 120:
        return f"    {attribute}: {annotation} = {call}"
    exploded = "Field(\n" + "".join(f"        {argument},\n" for argument in arguments) + "    )"
    head = f"    {attribute}: {annotation} = Field("
    if len(head) <= 120:
        return _kept_if_long(f"    {attribute}: {annotation} = {exploded}")
    if annotation.startswith("Annotated[") and annotation.endswith("]") and annotation.count("Annotated[") == 1:
        inner = annotation[len("Annotated[") : -1]
        return _kept_if_long(f"    {attribute}: Annotated[\n        {inner}\n    ] = {exploded}")
    return _unformatted(f"    {attribute}: (\n        {annotation}\n    ) = {exploded}")


def long_line(attribute: str, annotation: str, default: str | None) -> str | None:
    """`attribute: annotation = default` in a model's body, laid out as ruff format lays out a line longer than
    120 characters (None when it fits): a long default in parentheses when the rest fits, a collection one item a
    line; else the `Annotated[...]` split one element a line (a `Field(...)` that still overflows split one argument
    a line), and `... | None` parenthesized around it. A shape this does not know (a long `Literal[...]`, say) is
    written on one line between `# fmt: off` and `# fmt: on`."""
    suffix = f" = {default}" if default is not None else ""
    one_line = f"    {attribute}: {annotation}{suffix}"
    if len(one_line) <= LINE:
        return None
    laid = _laid_out(attribute, annotation, default)
    if laid is None or any(len(line) > LINE for line in laid.splitlines()):
        return _unformatted(one_line)
    return laid


def _laid_out(attribute: str, annotation: str, default: str | None) -> str | None:
    """The layout `long_line` describes, or None for a shape it does not know."""
    suffix = f" = {default}" if default is not None else ""
    head = f"    {attribute}: {annotation} = "
    collection = default is not None and default[:1] in "[{" and len(default) > 2
    if default is not None and len(head) + 1 <= LINE:
        inner = default[1:-1] if collection else default
        items = _top_level(inner) if collection else [inner]
        if len(items) > 1:  # ruff splits a collection one item a line, each with a trailing comma
            return f"{head}{default[0]}\n" + "".join(f"        {item},\n" for item in items) + f"    {default[-1]}"
        if len(f"        {inner}") > LINE:
            return None if collection else _split_or_none(attribute, annotation, suffix)
        if collection:  # ruff splits the collection's own brackets
            return f"{head}{default[0]}\n        {inner}\n    {default[-1]}"
        if default[:1] not in "[{(":
            return f"{head}(\n        {default}\n    )"
    return _split_or_none(attribute, annotation, suffix)


def _kept_if_long(lines: str) -> str:
    """`lines` as they are, or kept from ruff between `# fmt: off` and `# fmt: on` when one is still too long."""
    return _unformatted(lines) if any(len(line) > LINE for line in lines.splitlines()) else lines


def _unformatted(lines: str) -> str:
    """A field in a layout ruff would change (a shape `long_line` does not know): kept as written between
    `# fmt: off` and `# fmt: on`, which ruff leaves alone (a generated project does not check line length)."""
    return f"    # fmt: off\n{lines}\n    # fmt: on"


def _split_or_none(attribute: str, annotation: str, suffix: str) -> str | None:
    """The annotation split (see `long_line`), or None for a shape that is not `Annotated[...]` (`| None`)."""
    optional = annotation.endswith(" | None")
    core = annotation.removesuffix(" | None") if optional else annotation
    if not (core.startswith("Annotated[") and core.endswith("]")) or len(_top_level(core[len("Annotated[") : -1])) < 2:
        return None
    if optional:
        if len(f"        {annotation}") <= LINE:
            return f"    {attribute}: (\n        {annotation}\n    ){suffix}"
        return f"    {attribute}: (\n{_split_annotated(core, 8)}\n        | None\n    ){suffix}"
    return f"    {attribute}: {_split_annotated(core, 4).lstrip()}{suffix}"


LINE = 120
"""The generated project's line length."""


def _split_annotated(annotation: str, indent: int) -> str:
    """`Annotated[a, b, c]` at `indent`, one element a line with a trailing comma; an element that does not fit
    there, a call such as `Field(...)`, split one argument a line (a lone argument keeps no trailing comma)."""
    pad = " " * indent
    elements = _top_level(annotation[len("Annotated[") : -1])
    if len(f"{pad}    {', '.join(elements)}") <= LINE:  # the elements together on a line of their own
        return f"{pad}Annotated[\n{pad}    {', '.join(elements)}\n{pad}]"
    lines = [f"{pad}Annotated["]
    for element in elements:
        if len(f"{pad}    {element},") <= LINE or "(" not in element or not element.endswith(")"):
            lines.append(f"{pad}    {element},")
            continue
        callee, _, rest = element.partition("(")
        arguments = _top_level(rest[:-1])
        lines.append(f"{pad}    {callee}(")
        if len(arguments) == 1:
            lines.append(f"{pad}        {arguments[0]}")
        else:
            lines.extend(f"{pad}        {argument}," for argument in arguments)
        lines.append(f"{pad}    ),")
    lines.append(f"{pad}]")
    return "\n".join(lines)


def _top_level(text: str) -> list[str]:
    """`text` split at its top-level commas (not inside brackets or a double-quoted string), each part stripped."""
    parts, depth, start, quoted, escaped = [], 0, 0, False, False
    for index, char in enumerate(text):
        if quoted:
            escaped, quoted = (False, True) if escaped else (char == "\\", char != '"')
        elif char == '"':
            quoted = True
        elif char in "([{":
            depth += 1
        elif char in ")]}":
            depth -= 1
        elif char == "," and depth == 0:
            parts.append(text[start:index].strip())
            start = index + 1
    parts.append(text[start:].strip())
    return parts
