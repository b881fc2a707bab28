"""Every diagnostic code failwell prints, with its severity and what it means: the registry the documentation's
diagnostics table is generated from (tests/test_docs.py fails on a code used in the source and missing here,
or listed here and used nowhere). Codes are stable: one is never reused for another problem."""

from __future__ import annotations

from typing import Literal

Severity = Literal["error", "warning"]

CODES: dict[str, tuple[Severity, str]] = {
    "FW001": ("error", "not YAML"),
    "FW002": ("error", "empty"),
    "FW003": ("error", "not a mapping"),
    "FW004": ("error", "unsupported spec format (`failwell:` is not 1)"),
    "FW010": ("error", "missing key"),
    "FW011": ("error", "wrong type"),
    "FW012": ("error", "value not allowed"),
    "FW013": ("error", "pattern mismatch"),
    "FW014": ("error", "other schema rule"),
    "FW015": ("error", 'unknown key (with "did you mean")'),
    "FW016": ("error", "a mapping or a list used as a mapping key (`? {a: 1}`); found before any reader builds it"),
    "FW020": ("error", "a YAML tag other than the core types (`!!python/...`, `!!binary`, `!!timestamp`, `!custom`)"),
    "FW021": (
        "error",
        "aliases that add more than 100,000 values when expanded (a billion laughs), or an alias inside "
        "its own anchor; found before anything is expanded (values written out are bounded by the file "
        "size)",
    ),
    "FW022": ("error", "a file over 5,000,000 bytes (no more is read)"),
    "FW023": ("error", "nesting deeper than 64 levels, found before a YAML reader recurses"),
    "FW024": (
        "error",
        "a number written with more than 30 digits, or an integer past 2\\*\\*53 (what JSON Schema clients"
        " read exactly)",
    ),
    "FW025": ("error", "a number that is not finite: `.inf`, `.nan`, `1e400`"),
    "FW026": ("error", "a file that is not UTF-8 (at the first bad byte)"),
    "FW027": (
        "error",
        "a control character (other than tab and line breaks), NUL or lone surrogate in the text or a "
        'string (`"\\ud800"`, `"\\0"`)',
    ),
    "FW028": (
        "error",
        "`minLength`/`maxLength` over 1,000,000 or `minItems`/`maxItems` over 10,000 (generated code and"
        " tests build such values)",
    ),
    "FW029": ("error", "a server, tool, resource, prompt, field, failure or upstream name over 64 characters"),
    "FW101": (
        "error",
        "a name that cannot be used: a tool, resource, prompt, tool argument or prompt argument not named as MCP "
        "clients accept (ASCII letters, digits, `_`, `-`, `.`, at most 64 characters, starting with a letter); any "
        "other name not snake_case",
    ),
    "FW102": ("error", "a Python keyword"),
    "FW103": ("error", "reserved by the generated code"),
    "FW104": ("error", "duplicate"),
    "FW110": ("error", "placeholder neither an input nor a declared field"),
    "FW111": ("warning", "declared field unused"),
    "FW112": ("error", "malformed template"),
    "FW113": ("error", "no message for the failure's class"),
    "FW120": ("error", "a deadline at or over the client's timeout"),
    "FW121": ("error", "unknown effect"),
    "FW122": ("error", "unknown failure class"),
    "FW123": ("error", "an upstream's timeout not shorter than a using tool's deadline"),
    "FW124": ("error", "an unknown upstream"),
    "FW126": ("error", "a write without `idempotency`"),
    "FW127": ("error", "`none` without `idempotency_reason`"),
    "FW128": ("error", "`idempotency` on a read"),
    "FW129": ("error", "`batch.items` is not an array input field"),
    "FW130": ("error", "a default that does not fit its field"),
    "FW131": ("error", "an example (or a pattern's example) that does not fit its field"),
    "FW132": (
        "error",
        "a minimum over its maximum (minLength over maxLength, minimum over maximum, minItems over maxItems)",
    ),
    "FW133": ("error", "a pattern that is not a valid regular expression (the problem and where it is)"),
    "FW134": ("error", "a constraint for another type (`maxLength` on an integer, `minimum` on a string)"),
    "FW135": ("error", "an enum mixing types"),
    "FW136": ("error", "a tool, resource or prompt with `scopes` in a server without `auth`"),
    "FW137": (
        "error",
        "an authorization server that is not an https issuer URL (plain http only on loopback; no query or fragment)",
    ),
    "FW138": ("error", "`rerun_safe` or `check_with` on a tool without an idempotency key"),
    "FW139": ("error", "`check_with` naming no read tool"),
    "FW140": (
        "error",
        "a pattern with Python-only syntax (`(?P<n>…)`, `\\A`, `\\Z`, inline flags; the rewrite is given)",
    ),
    "FW141": ("error", "other syntax ECMA-262 refuses with the `u` flag (`\\e`, a lone `{`, `\\p{Greek}`)"),
    "FW142": ("error", "a pattern the linear-time engine cannot run (look-around, back-references)"),
    "FW143": ("error", "outside the supported subset"),
    "FW144": ("error", "too large once compiled"),
    "FW145": ("error", "`idempotent: true` on a read or on a write with an idempotency key"),
    "FW146": ("error", "`idempotent: true` on a destructive tool without an `idempotency_reason`"),
    "FW147": ("error", "a tool's `text` without an `output` (or on a batch), or naming a field the output lacks"),
    "FW148": ("error", "`confirm` on a read tool (a read changes nothing to confirm)"),
    "FW149": ("error", "a placeholder in `confirm`'s message, `declined` or `unavailable` that is not an argument"),
    "FW150": ("error", 'a tool name the generated code already uses (see "Reserved names")'),
    "FW151": (
        "error",
        "a failure whose class name (`pascal(name)`) is a keyword, a builtin, a name of its tool's "
        "module or one of its models",
    ),
    "FW152": (
        "error",
        "an input or output field named like a pydantic `BaseModel` attribute or a type the model's annotations use",
    ),
    "FW153": (
        "error",
        "a `server.package` that would shadow a standard library module or an import of the generated project",
    ),
    "FW154": (
        "error",
        "two names that become the same Python name (`x1`/`x_1` → class `X1`; `tag`'s items and "
        "`tag_item` → `InputTagItem`; tool `x` and `x_handler`; tools `x` and `x_errors` → two "
        "`test_x_errors.py`; tools `resolve-library-id` and `resolve_library_id`; arguments `libraryName` and "
        "`library_name`); both places are named",
    ),
    "FW155": (
        "error",
        "a numeric range with no value in it (`exclusiveMinimum` ≥ `exclusiveMaximum`, `minimum` = "
        "`exclusiveMaximum`, ...)",
    ),
    "FW156": ("error", "an integer range with no integer (0.5 to 0.7)"),
    "FW157": (
        "error",
        "a `pattern` whose strings the length limits refuse, with no `example` (`^a$` with `minLength: 5`)",
    ),
    "FW158": ("error", "`tools: {}` (and no resource or prompt): a server with nothing to serve"),
    "FW159": ("error", "a `version` that is not PEP 440 (`1.0foo`)"),
    "FW160": (
        "error",
        "in a server with `auth`, a tool, resource or prompt that does not say which `scopes` it needs "
        "(`scopes: []` when any valid token may), so none is public by omission",
    ),
    "FW161": (
        "error",
        "`before_task` on a question of a tool, resource or prompt that does not run as a task (`task:`)",
    ),
    "FW162": (
        "error",
        "a `schema:` that is not a valid JSON Schema 2020-12, or whose `$ref` is not one of its own top `$defs` "
        "(`#/$defs/NAME`), or that uses `$id`, `$anchor`, `$dynamicRef` or a nested `$defs`",
    ),
    "FW163": ("error", "`schema:` outside a tool's input or output, or a key beside it that belongs inside it"),
    "FW164": ("error", "two `schema:` fields of one tool whose `$defs` give one name two meanings (both places named)"),
    "FW165": (
        "error",
        "a tool's listing keys say what it does not do: an `execution.taskSupport` other than its `task`, an input "
        "published open that refuses extra arguments (or closed with `extra_arguments: allow`), `required: []` "
        "beside a required field; or a prompt's `unlisted: [arguments]` while it takes arguments",
    ),
    "FW166": (
        "error",
        'a rate_limit\'s `calls: "{settings.<name>}"` names a setting that is not declared, or is not an integer',
    ),
    "FW167": (
        "error",
        "a rate_limit's `per` on the server's limit, or naming no argument of the tool, or one that is not a string, "
        "integer or boolean",
    ),
    "FW168": (
        "error",
        "a dependency's `errors:` names a bare exception that is not one of Python's builtins (write its dotted name)",
    ),
    "FW170": (
        "error",
        "a resource URI that is not one: no scheme (or not lowercase), whitespace, over 2,048 characters",
    ),
    "FW171": (
        "error",
        "a URI template beyond RFC 6570 level 1: an operator (`{+x}`, `{#x}`, `{?x}`, `{/x}`, `{.x}`, "
        "`{;x}`, `{&x}`), a modifier (`{x*}`, `{x:3}`), a list (`{x,y}`), an unbalanced or nested brace,"
        " a variable that is not a snake_case name",
    ),
    "FW172": ("error", "a URI variable that is not a declared param"),
    "FW173": ("error", "a param that is not in the URI (a static URI takes no params)"),
    "FW174": ("error", "a variable used twice in one URI"),
    "FW175": ("error", "two variables with nothing between them (`{name}{version}`)"),
    "FW176": ("error", "a param that is not a string, integer, number or boolean"),
    "FW177": ("error", "a param with a `default` or `required: false`"),
    "FW178": ("error", "two resources whose URIs can match the same URI (both named, with the URI)"),
    "FW179": (
        "error",
        "a prompt argument that is not a string (MCP prompt arguments are strings; use pattern, enum, "
        "minLength, maxLength)",
    ),
    "FW180": (
        "error",
        "a URI template whose variables cannot be told apart: the literal between two variables starts "
        "with a character the first may hold, given its type, enum or anchored pattern "
        "(`dates://{year}-{month}` with a string `year`; `v://{a}.{b}` with a number `a`)",
    ),
    "FW181": ("error", "an unknown dependency in `uses` (with the closest declared one)"),
    "FW182": (
        "error",
        "a dependency's timeout not shorter than the deadline of a tool, resource or prompt that uses it",
    ),
    "FW183": (
        "error",
        "`asks` on a batch tool, or a form field that is not flat (an array, an object, nullable, a format "
        "other than email, uri, date and date-time)",
    ),
    "FW184": ("error", "a form field named like a secret (`password`, `token`, `api_key`): forms must not ask for one"),
    "FW185": (
        "error",
        "a tool's `content` that cannot be served: on a batch tool, or a `mime_types` entry none of its `kinds` "
        "carries (`image/png` without `image`, `resource` or `resource_link`)",
    ),
    "FW186": (
        "warning",
        "`subscribe: true` on a resource of a server whose tools are all reads: nothing the server does changes it, "
        "so its subscribers hear of an update only if a handler calls `ctx.notify_updated` for a change made "
        "elsewhere",
    ),
    "FW187": (
        "error",
        "a `when:` or `from_setting` that names no setting, compares it with a value it never takes, has both or "
        "neither of `equals`/`not_equals`, hides a required input field, names a required setting or one of another "
        "type, or sits anywhere but a tool, resource, prompt or a tool's top-level `input` field",
    ),
    "FW188": (
        "error",
        "an input field's alias that another field claims too, or that is an argument's name; or `aliases` anywhere "
        "but a tool's top-level `input` fields",
    ),
    "FW190": (
        "error",
        "a setting's flag or environment variable that another setting or the server itself already takes "
        "(`--http`, `--port`, `--help`, `MCP_PORT`, `LOG_LEVEL`, an upstream's variable; a setting may take "
        "`--http`, `--host`, `--port` or `--path` once `server.transport_flags` spells the server's own otherwise)",
    ),
    "FW191": (
        "error",
        "`{settings.<name>}` in a description (a tool's, resource's, prompt's, or any of their fields', parameters' "
        "or arguments' at any depth) names a setting `server.settings` does not declare",
    ),
    "FW192": (
        "error",
        "`{settings.<name>}` in a description names a `secret` setting, or one named like a secret, which is never "
        "shown",
    ),
    "FW193": (
        "error",
        "a setting that cannot be built: `required` with a `default`, or a name pydantic reserves (`model_...`); or "
        "a `default_from: hook` beside a `default` or `required: true`, or on a server with a tool named `settings`",
    ),
    "FW194": (
        "error",
        "a setting's kind that cannot be taken from a command line: `type: json` without `schema`, `type: array` "
        "without `items`, `flag_value` off a boolean, positions with a gap or taken twice, `positional: rest` not an "
        "array or twice, `conflicts` naming an undeclared or required setting, a "
        "`transport_flags` spelling that is not a flag",
    ),
    "FW201": (
        "warning",
        "no next step (no tool named, no action to take) for invalid_input, not_found, permission_denied, conflict",
    ),
    "FW202": (
        "warning",
        "the offending value is not shown (no placeholder) for invalid_input, not_found, conflict (a "
        'conflict that describes the server\'s state, "already", "still", "in progress", "uncommitted", '
        '"locked", has no argument to show and passes)',
    ),
    "FW203": (
        "warning",
        'vague wording: a sentence that is only "Error", "Failed", "Bad request", "Invalid input", ...',
    ),
    "FW204": (
        "warning",
        "internals in a template: a credential, URL, address, host, a path into a machine (under a "
        "system or home folder, relative, or to a source, config, data or key file), a SQL statement "
        "against a named table (`SELECT id FROM users`), or stack words; SQL keywords in a message about"
        " SQL and slash-separated ids (`/vercel/next.js`, `Europe/Lisbon`) pass",
    ),
    "FW205": ("warning", "over 300 characters with example values"),
    "FW206": ("warning", "what would be accepted is not said, for invalid_input and not_found"),
    "FW207": (
        "warning",
        "names a tool the spec does not have (`Call tasks_serch ...`: a snake_case word after "
        "call/use/run/try, or one that starts like the spec's tools), with the closest tool",
    ),
    "FW208": (
        "warning",
        'repeats a sentence the runtime appends itself ("Nothing was changed", "No changes were made", '
        '"Retrying ... will not help"): the class and `changed` already say it',
    ),
    "FW209": (
        "warning",
        "a failure field shown `verbatim` is named like a secret (`token`, `password`, `api_key`, ...): its value "
        "would reach the model unscrubbed",
    ),
    "FW301": (
        "warning",
        "a failure's words drafted by `failwell import openapi` (`reviewed: false`), unchanged since: read them, "
        "then reword them or set `reviewed: true` (or remove the key)",
    ),
    "FW310": ("warning", "`failwell import openapi`: an operation documents no error response"),
    "FW311": (
        "warning",
        "`failwell import openapi`: a POST takes no Idempotency-Key header, so a retry cannot be made safe",
    ),
    "FW312": ("warning", "`failwell import openapi`: a parameter or body field without a description"),
    "FW313": ("warning", "`failwell import openapi`: an operation's description over 600 characters, cut"),
    "FW314": (
        "warning",
        "`failwell import openapi`: two inputs of one operation with the same name (path, query, header, body): the "
        "later is renamed `<name>_<location>` (when that is taken too, its name and a hash), never overwritten",
    ),
    "FW315": (
        "warning",
        "`failwell import openapi`: a tool name over 64 characters, or taken by another operation: it ends in a "
        "hash of its operation",
    ),
    "FW316": (
        "warning",
        "`failwell import openapi`: a part of the document not mapped (a cookie parameter, a binary body, an "
        "unsupported security scheme, an operation the spec language cannot say), with why",
    ),
    "FW317": (
        "warning",
        "`failwell import openapi`: a documented status with no class of its own (418, 449, ...) mapped by its "
        "description's words, or by guess as the API refusing the call: review the class and the words",
    ),
}
