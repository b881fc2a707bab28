"""`failwell import openapi` (issue 29), its parts without a server: loading (files, relative `$ref`s, cycles,
bad input as one FailwellError), the selection and its cap, names, inputs without silent overwrites, effects,
failures drafted from the documented responses, the FW3xx findings, and a re-import that keeps the person's
wording. The generated server itself is driven in test_openapi_petstore.py and test_openapi_real.py."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest
import yaml

from conftest import REPO, failwell
from failwell import FailwellError, review, validate
from failwell.importers.openapi import Selection, import_openapi

PETSTORE = REPO / "tests" / "openapi" / "petstore.yaml"


def document(tmp_path: Path, paths: dict[str, Any], **extra: Any) -> Path:
    doc = {"openapi": "3.1.0", "info": {"title": "T", "version": "1"}, "paths": paths, **extra}
    path = tmp_path / "doc.json"
    path.write_text(json.dumps(doc))
    return path


def op(operation_id: str, **extra: Any) -> dict[str, Any]:
    return {
        "operationId": operation_id,
        "summary": f"Do {operation_id}.",
        "responses": {"200": {"description": "ok"}},
        **extra,
    }


def spec_of(tmp_path: Path, source: Path, selection: Selection | None = None) -> tuple[dict[str, Any], Any]:
    result = import_openapi(str(source), tmp_path / "dest", selection or Selection())
    return yaml.safe_load(result.spec_text), result


@pytest.mark.parametrize(
    ("content", "words"),
    [
        (None, "does not exist"),
        ("swagger: '2.0'\npaths: {}\n", "Swagger 2.0"),
        ("title: not an api\n", "is not an OpenAPI document"),
        ("openapi: 2.5.0\npaths: {}\n", "imports OpenAPI 3.0 and 3.1"),
        ("openapi: 3.0.0\npaths: {/a: {get: [unclosed\n", "neither JSON nor YAML at line"),
        ("openapi: 3.0.0\ninfo: {title: t, version: '1'}\npaths: {}\n", "has no operations"),
    ],
)
def test_bad_input_is_one_clear_error(tmp_path: Path, content: str | None, words: str) -> None:
    path = tmp_path / "doc.yaml"
    if content is not None:
        path.write_text(content)
    with pytest.raises(FailwellError) as error:
        import_openapi(str(path), tmp_path / "dest", Selection())
    assert words in error.value.message


def test_a_broken_ref_names_the_ref_and_a_missing_file_names_the_file(tmp_path: Path) -> None:
    body = {"content": {"application/json": {"schema": {"$ref": "#/components/schemas/Nope"}}}}
    path = document(tmp_path, {"/a": {"post": op("a", requestBody=body)}}, components={"schemas": {}})
    with pytest.raises(
        FailwellError, match=r"'#/components/schemas/Nope' \(in .*doc\.json:1\) points at nothing: 'Nope'"
    ):
        import_openapi(str(path), tmp_path / "dest", Selection())
    body = {"content": {"application/json": {"schema": {"$ref": "models/pet.yaml#/Pet"}}}}
    path = document(tmp_path, {"/a": {"post": op("a", requestBody=body)}})
    with pytest.raises(FailwellError, match=r"pet\.yaml .*does not exist"):
        import_openapi(str(path), tmp_path / "dest", Selection())


def test_the_cli_says_one_line_and_no_traceback(tmp_path: Path) -> None:
    done = failwell("import", "openapi", tmp_path / "missing.yaml", tmp_path / "dest")
    assert done.returncode != 0 and "Traceback" not in done.stderr + done.stdout
    assert done.stderr.strip().count("\n") == 0 and "does not exist" in done.stderr
    assert not (tmp_path / "dest").exists()


def test_relative_refs_cycles_and_network_refs(tmp_path: Path) -> None:
    (tmp_path / "models").mkdir()
    (tmp_path / "models" / "node.yaml").write_text(
        "Node:\n  type: object\n  properties:\n    name: {type: string}\n    child: {$ref: '#/Node'}\n"
        "    remote: {$ref: 'https://example.com/schemas/x.json'}\n"
    )
    body = {"required": True, "content": {"application/json": {"schema": {"$ref": "models/node.yaml#/Node"}}}}
    path = document(tmp_path, {"/nodes": {"post": op("addNode", requestBody=body)}})
    spec, result = spec_of(tmp_path, path)
    fields = spec["tools"]["add_node"]["input"]
    assert fields["name"]["type"] == "string"
    assert fields["child"]["type"] == "object" and fields["remote"]["type"] == "object"
    assert any("recursive" in note for note in result.notes)
    assert any("network reference, never fetched" in note for note in result.notes)


def test_all_of_is_merged_nullable_is_a_field_and_one_of_is_kept_as_its_schema(tmp_path: Path) -> None:
    schema = {
        "allOf": [
            {"type": "object", "required": ["name"], "properties": {"name": {"type": "string", "maxLength": 5}}},
            {"type": "object", "properties": {"age": {"type": ["integer", "null"], "minimum": 0}}},
        ],
        "properties": {
            "kind": {"oneOf": [{"type": "string"}, {"type": "integer"}]},
            "when": {"anyOf": [{"type": "string", "format": "date-time"}, {"type": "null"}]},
        },
    }
    body = {"content": {"application/json": {"schema": schema}}}
    spec, result = spec_of(tmp_path, document(tmp_path, {"/p": {"post": op("p", requestBody=body)}}))
    fields = spec["tools"]["p"]["input"]
    assert fields["name"] == {"type": "string", "maxLength": 5}
    assert fields["age"] == {"nullable": True, "type": "integer", "minimum": 0, "required": False}
    # a oneOf of two types is no field's type: it is kept as its JSON Schema (a `schema:` field), as published
    assert fields["kind"]["schema"] == {"oneOf": [{"type": "string"}, {"type": "integer"}]}, fields["kind"]
    assert any("kept as its JSON Schema" in note for note in result.notes), result.notes
    assert fields["when"]["nullable"] is True and fields["when"]["format"] == "date-time"


def test_the_selection_has_a_cap_and_prints_the_tags(tmp_path: Path) -> None:
    paths = {f"/r{i}": {"get": op(f"read{i}", tags=["bulk" if i % 3 else "few"])} for i in range(45)}
    path = document(tmp_path, paths)
    with pytest.raises(FailwellError) as error:
        import_openapi(str(path), tmp_path / "dest", Selection())
    message = error.value.message
    assert "45 operations" in message and "more than 40 tools" in message and "nothing was written" in message
    assert "   30  bulk" in message and "   15  few" in message
    assert len(spec_of(tmp_path, path, Selection(tags=["few"]))[0]["tools"]) == 15
    assert len(spec_of(tmp_path, path, Selection(max_tools=45))[0]["tools"]) == 45
    chosen = Selection(paths=["/r1*"], methods=["GET"], exclude_operations=["read1"])
    spec, _ = spec_of(tmp_path, path, chosen)
    assert sorted(spec["tools"]) == [f"read{i}" for i in range(10, 20)]
    assert spec["imported"]["select"] == {"paths": ["/r1*"], "methods": ["GET"], "exclude_operations": ["read1"]}


def test_names_fit_64_characters_collisions_get_a_hash_and_are_reported(tmp_path: Path) -> None:
    long = "repos/" + "get-the-very-long-name-of-an-operation-that-github-would-write" * 2
    paths = {
        "/a": {"get": op(long), "post": op("listThings")},
        "/b": {"get": op("list-things")},
        "/c/{id}": {"delete": {"responses": {"204": {"description": "gone"}}}},
    }
    path = document(tmp_path, paths)
    spec, result = spec_of(tmp_path, path)
    names = sorted(spec["tools"])
    assert all(len(name) <= 64 for name in names) and len(names) == 4
    assert "list_things" in names and "delete_c_id" in names
    assert sum(1 for n in names if n.startswith("list_things_")) == 1
    codes = [f.code for f in result.findings]
    assert codes.count("FW315") == 2
    again, _ = spec_of(tmp_path, path)
    assert sorted(again["tools"]) == names, "the names do not depend on the run"
    backwards = document(tmp_path, {key: dict(reversed(item.items())) for key, item in reversed(paths.items())})
    reversed_spec, _ = spec_of(tmp_path, backwards)
    assert reversed_spec["imported"]["tools"] == spec["imported"]["tools"], "a name never depends on the order"


def test_inputs_from_every_location_are_never_overwritten(tmp_path: Path) -> None:
    parameters = [
        {"name": "id", "in": "path", "required": True, "schema": {"type": "string"}, "description": "The id."},
        {"name": "id", "in": "query", "schema": {"type": "integer"}},
        {"name": "X-Trace", "in": "header", "schema": {"type": "string"}, "description": "A trace id."},
        {"name": "Idempotency-Key", "in": "header", "required": True, "schema": {"type": "string"}},
        {"name": "session", "in": "cookie", "schema": {"type": "string"}},
    ]
    body = {
        "content": {
            "application/x-www-form-urlencoded": {
                "schema": {
                    "type": "object",
                    "properties": {
                        "id": {"type": "string", "description": "The body's id."},
                        "count": {
                            "type": "integer",
                            "minimum": 1,
                            "maximum": 9,
                            "default": 2,
                            "description": "How many.",
                        },
                    },
                }
            }
        }
    }
    responses = {
        "201": {"description": "made"},
        **{str(code): {"description": f"status {code}"} for code in (400, 401, 404, 409, 429, 503)},
    }
    path = document(
        tmp_path, {"/things/{id}": {"post": op("make", parameters=parameters, requestBody=body, responses=responses)}}
    )
    spec, result = spec_of(tmp_path, path)
    tool = spec["tools"]["make"]
    assert list(tool["input"]) == ["id", "id_query", "x_trace", "id_body", "count"]
    assert tool["input"]["count"] == {
        "type": "integer",
        "minimum": 1,
        "maximum": 9,
        "default": 2,
        "description": "How many.",
    }
    assert tool["effect"] == "write" and tool["idempotency"] == "required"
    assert {name: f["class"] for name, f in tool["failures"].items()} == {
        "bad_request": "invalid_input",
        "unauthorized": "permission_denied",
        "not_found": "not_found",
        "conflict": "conflict",
        "rate_limited": "rate_limited",
        "server_error_503": "upstream_unavailable",
    }
    assert all(f["reviewed"] is False for f in tool["failures"].values())
    assert "{id}" in tool["failures"]["not_found"]["message"]
    findings = {(f.code, f.message.split(" ")[0]) for f in result.findings}
    assert ("FW314", "query") in findings and ("FW314", "body") in findings
    assert ("FW312", "query") in findings and ("FW316", "cookie") in findings
    handler = result.handlers["src/dest_mcp/handlers/make.py"]
    assert '"id_query": ("query", "id")' in handler and '"id_body": ("body", "id")' in handler
    assert 'body="form"' in handler


@pytest.mark.parametrize(
    ("method", "effect", "extra"),
    [
        ("get", "read", {}),
        ("post", "write", {"idempotency": "none"}),
        ("put", "write", {"idempotent": True}),
        ("patch", "write", {"idempotency": "none"}),
        ("delete", "destructive", {"idempotency": "none"}),
    ],
)
def test_the_effect_comes_from_the_method(tmp_path: Path, method: str, effect: str, extra: dict[str, Any]) -> None:
    spec, result = spec_of(tmp_path, document(tmp_path, {"/x": {method: op("x")}}))
    tool = spec["tools"]["x"]
    assert tool["effect"] == effect
    assert {key: tool[key] for key in extra} == extra
    assert ("FW311" in [f.code for f in result.findings]) == (method == "post")
    assert "FW310" in [f.code for f in result.findings]


def test_auth_schemes_are_secret_settings_and_the_upstream_comes_from_servers(tmp_path: Path) -> None:
    schemes = {
        "basic": {"type": "http", "scheme": "basic"},
        "bearer": {"type": "http", "scheme": "bearer"},
        "header_key": {"type": "apiKey", "in": "header", "name": "X-Key"},
        "query_key": {"type": "apiKey", "in": "query", "name": "key"},
        "cookie_key": {"type": "apiKey", "in": "cookie", "name": "k"},
    }
    path = document(
        tmp_path,
        {"/x": {"get": op("x", security=[{"basic": []}])}},
        servers=[{"url": "https://{region}.api.example.com/v2", "variables": {"region": {"default": "eu"}}}],
        components={"securitySchemes": schemes},
    )
    spec, result = spec_of(tmp_path, path)
    settings = spec["server"]["settings"]
    assert sorted(settings) == ["basic_password", "basic_username", "bearer_token", "header_key", "query_key"]
    assert all(s["secret"] is True for s in settings.values())
    assert spec["upstreams"]["dest_api"] == {
        "base_url_env": "DEST_API_URL",
        "timeout_s": 10,
        "retries": 2,
        "base_url": "https://eu.api.example.com/v2",
    }
    assert any(f.code == "FW316" and "cookie" in f.message for f in result.findings)
    assert (
        '("basic", "Authorization", "basic_username", "basic_password")'
        in result.handlers["src/dest_mcp/handlers/x.py"]
    )


def test_drafts_are_flagged_until_reviewed(tmp_path: Path) -> None:
    spec_text = import_openapi(str(PETSTORE), tmp_path / "p", Selection(tags=["pets"])).spec_text
    spec = tmp_path / "failwell.yaml"
    spec.write_text(spec_text)
    drafts = [d for d in validate(spec) if d.code == "FW301"]
    assert len(drafts) == 8 and all(d.severity == "warning" for d in drafts)
    assert all(
        any(code == "FW301" for code, _ in row.problems)
        for row in review(spec)
        if row.failure in ("not_found", "conflict")
    )
    with pytest.raises(FailwellError):
        validate(spec, strict=True)
    spec.write_text(spec_text.replace("reviewed: false", "reviewed: true"))
    assert not [d for d in validate(spec, strict=True) if d.code == "FW301"]
    spec.write_text(spec_text.replace("reviewed: false", "reviewed: maybe", 1))
    with pytest.raises(FailwellError):
        validate(spec)


def test_a_reworded_draft_counts_as_reviewed_and_a_reimport_remembers_the_first_draft(tmp_path: Path) -> None:
    """Rewording a drafted message is reviewing it (`reviewed: false` may stay); a re-import keeps the person's
    words and still measures them against the first draft, so an untouched draft stays flagged."""
    dest = tmp_path / "pets"
    first = import_openapi(str(PETSTORE), dest, Selection(tags=["pets"]))
    data = yaml.safe_load(first.spec_text)
    assert data["imported"]["drafts"], "the drafts' digests are kept in the spec"
    failure = data["tools"]["get_pet"]["failures"]["not_found"]
    failure["message"] = "There is no pet {pet_id}. Pet ids are whole numbers; call list_pets to find one."
    spec = dest / "failwell.yaml"
    spec.parent.mkdir(parents=True, exist_ok=True)
    spec.write_text(yaml.safe_dump(data, sort_keys=False))
    flagged = {d.message.split(":")[0] for d in validate(spec) if d.code == "FW301"}
    assert "get_pet.not_found" not in flagged and len(flagged) == 7, flagged
    again = import_openapi(str(PETSTORE), dest, Selection(tags=["pets"]), existing=spec.read_text())
    spec.write_text(again.spec_text)
    flagged_again = {d.message.split(":")[0] for d in validate(spec) if d.code == "FW301"}
    assert flagged_again == flagged


def test_a_reimport_keeps_the_persons_wording_and_own_tools_and_follows_the_document(tmp_path: Path) -> None:
    dest = tmp_path / "pets"
    first = import_openapi(str(PETSTORE), dest, Selection(tags=["pets"]))
    data = yaml.safe_load(first.spec_text)
    data["tools"]["get_pet"]["failures"]["not_found"] = {
        "class": "not_found",
        "message": "There is no pet {pet_id}. Pet ids are whole numbers; call list_pets to find one.",
        "reviewed": True,
    }
    data["tools"]["get_pet"]["description"] = "My own words about reading a pet."
    data["tools"]["my_tool"] = {"description": "Mine.", "effect": "read"}
    existing = yaml.safe_dump(data, sort_keys=False)
    changed = yaml.safe_load(PETSTORE.read_text())
    del changed["paths"]["/pets/{petId}"]["put"]
    changed["paths"]["/pets/{petId}"]["get"]["parameters"] = [
        {"name": "fields", "in": "query", "description": "Which fields.", "schema": {"type": "string"}}
    ]
    changed["paths"]["/pets/{petId}"]["get"]["responses"]["410"] = {"description": "The pet left."}
    newer = tmp_path / "petstore.yaml"
    newer.write_text(yaml.safe_dump(changed))
    (tmp_path / "shared.yaml").write_text((PETSTORE.parent / "shared.yaml").read_text())
    again = import_openapi(str(newer), dest, Selection(), existing=existing)
    merged = yaml.safe_load(again.spec_text)
    assert merged["imported"]["select"] == {"tags": ["pets"]}, "the recorded selection is kept"
    get_pet = merged["tools"]["get_pet"]
    assert get_pet["description"] == "My own words about reading a pet."
    assert get_pet["failures"]["not_found"]["message"].startswith("There is no pet {pet_id}.")
    assert get_pet["failures"]["not_found"]["reviewed"] is True
    assert get_pet["failures"]["gone"]["reviewed"] is False
    assert get_pet["input"]["fields"]["required"] is False
    assert "replace_pet" not in merged["tools"] and again.removed == ["replace_pet"]
    assert merged["tools"]["my_tool"] == {"description": "Mine.", "effect": "read"}
    assert again.changed and "+      gone:" in again.diff()
    same = import_openapi(str(newer), dest, Selection(), existing=again.spec_text)
    assert same.spec_text == again.spec_text and same.diff() == ""


@pytest.mark.slow
def test_the_cli_reimports_with_check_a_diff_and_new_handlers(tmp_path: Path) -> None:
    source = tmp_path / "api"
    source.mkdir()
    doc = yaml.safe_load(PETSTORE.read_text())
    (source / "shared.yaml").write_text((PETSTORE.parent / "shared.yaml").read_text())
    (source / "petstore.yaml").write_text(yaml.safe_dump(doc))
    dest = tmp_path / "pets"
    done = failwell("import", "openapi", source / "petstore.yaml", dest, "--tag", "pets")
    assert done.returncode == 0, done.stderr
    assert "about" in done.stderr and "tokens (characters / 4)" in done.stderr
    handlers = dest / "src" / "pets_mcp" / "handlers"
    assert (handlers / "_openapi.py").is_file() and "NotImplementedError" not in (handlers / "get_pet.py").read_text()
    same = failwell("import", "openapi", source / "petstore.yaml", dest, "--check")
    assert same.returncode == 0, same.stdout + same.stderr
    doc["paths"]["/pets"]["get"]["parameters"].append(
        {"name": "color", "in": "query", "description": "Only pets of this color.", "schema": {"type": "string"}}
    )
    doc["paths"]["/pets/{petId}/toys"] = {
        "get": {
            "operationId": "listToys",
            "tags": ["pets"],
            "summary": "The pet's toys.",
            "responses": {"200": {"description": "ok"}, "404": {"description": "No pet."}},
        }
    }
    (source / "petstore.yaml").write_text(yaml.safe_dump(doc))
    (handlers / "get_pet.py").write_text((handlers / "get_pet.py").read_text() + "\n# my edit\n")
    stale = failwell("import", "openapi", source / "petstore.yaml", dest, "--check")
    assert stale.returncode == 1 and "+  list_toys:" in stale.stdout, stale.stdout + stale.stderr
    assert not (handlers / "list_toys.py").exists(), "--check wrote nothing"
    again = failwell("import", "openapi", source / "petstore.yaml", dest)
    assert again.returncode == 0, again.stdout + again.stderr
    assert "added list_toys" in again.stderr
    assert (
        "list_pets: inputs added: color; removed: none. Your handler src/pets_mcp/handlers/list_pets.py" in again.stderr
    )
    assert 'PATH = "/pets/{petId}/toys"' in (handlers / "list_toys.py").read_text()
    assert (handlers / "get_pet.py").read_text().endswith("# my edit\n"), "a handler is never overwritten"
    assert failwell("generate", dest, "--check").returncode == 0


def test_a_document_by_url_is_fetched_once_and_its_refs_never(tmp_path: Path) -> None:
    import functools
    import threading
    from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer

    served: list[str] = []

    class Handler(SimpleHTTPRequestHandler):
        def log_message(self, format: str, *args: Any) -> None:
            served.append(self.path)

    server = ThreadingHTTPServer(("127.0.0.1", 0), functools.partial(Handler, directory=str(PETSTORE.parent)))
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        url = f"http://127.0.0.1:{server.server_address[1]}"
        result = import_openapi(f"{url}/petstore.yaml", tmp_path / "pets", Selection(exclude_tags=["admin"]))
        with pytest.raises(FailwellError, match="answered HTTP 404"):
            import_openapi(f"{url}/nothing.yaml", tmp_path / "pets", Selection())
    finally:
        server.shutdown()
        server.server_close()
        thread.join(timeout=5)
    spec = yaml.safe_load(result.spec_text)
    assert spec["imported"]["openapi"] == f"{url}/petstore.yaml"
    assert spec["tools"]["get_store_status"]["effect"] == "read"
    assert any("./shared.yaml#/Status: a network reference, never fetched" in note for note in result.notes)
    assert [path for path in served if "shared" in path] == [], "a $ref of a fetched document is never fetched"


def test_a_renamed_input_never_takes_the_name_of_another(tmp_path: Path) -> None:
    """A rename that is taken too (a query parameter literally named `id_query`), and long names cut to the same
    64 characters, still give every parameter an input of its own, each reported, and each sent under its own
    wire name."""
    parameters = [
        {"name": "id", "in": "path", "required": True, "schema": {"type": "string"}, "description": "The id."},
        {"name": "id_query", "in": "query", "schema": {"type": "integer"}, "description": "A literal id_query."},
        {"name": "id", "in": "query", "schema": {"type": "boolean"}, "description": "The query's id."},
    ]
    long = "a" * 70
    properties = {long + tail: {"type": "string", "description": f"Field {tail}."} for tail in "xyz"}
    body = {"content": {"application/json": {"schema": {"type": "object", "properties": properties}}}}
    path = document(tmp_path, {"/t/{id}": {"post": op("t", parameters=parameters, requestBody=body)}})
    spec, result = spec_of(tmp_path, path)
    fields = spec["tools"]["t"]["input"]
    assert len(fields) == 6 and all(len(name) <= 64 for name in fields), list(fields)
    assert fields["id_query"]["description"] == "A literal id_query."
    descriptions = sorted(f["description"] for f in fields.values())
    expected = ["The id.", "A literal id_query.", "The query's id.", *(f"Field {t}." for t in "xyz")]
    assert descriptions == sorted(expected)
    assert [f.code for f in result.findings].count("FW314") == 3
    handler = result.handlers["src/dest_mcp/handlers/t.py"]
    for wire in ("id", "id_query", *(long + tail for tail in "xyz")):
        assert f', "{wire}"),' in handler, wire
    assert handler.count('("query", "id")') == 1 and handler.count('("path", "id")') == 1


@pytest.mark.slow
def test_the_cli_reads_every_selection_option_keeps_the_choice_and_refuses_past_the_cap(tmp_path: Path) -> None:
    """Each of the eight selection options (repeated where it matters) leaves out an operation of its own; the
    choice is written to `imported.select`, and a re-import without options keeps it. With no choice, more than
    40 operations are refused with the tags and their counts, and nothing is written."""
    kept = {"/a": ("get", "opA", ["t1"]), "/aj": ("get", "opJ", ["t1"])}
    left_out = {
        "/az": ("get", "opZ", ["t2"]),  # --tag t1
        "/ab": ("get", "opB", ["t1"]),  # --operation (not named)
        "/c": ("get", "opC", ["t1"]),  # --path '/a*'
        "/ad": ("put", "opD", ["t1"]),  # --method GET --method delete
        "/ae": ("get", "opE", ["t1", "t3"]),  # --exclude-tag t3
        "/af": ("get", "opF", ["t1"]),  # --exclude-operation opF
        "/ag/x": ("get", "opG", ["t1"]),  # --exclude-path '/ag/*'
        "/ah": ("delete", "opH", ["t1"]),  # --exclude-method DELETE
    }
    paths = {path: {method: op(oid, tags=tags)} for path, (method, oid, tags) in {**kept, **left_out}.items()}
    source = document(tmp_path, paths)
    options = ["--tag", "t1", "--path", "/a*", "--method", "GET", "--method", "delete"]
    for oid in ("opA", "opJ", "opC", "opD", "opE", "opF", "opG", "opH", "opZ"):
        options += ["--operation", oid]
    options += ["--exclude-tag", "t3", "--exclude-operation", "opF", "--exclude-path", "/ag/*"]
    options += ["--exclude-method", "DELETE"]
    dest = tmp_path / "chosen"
    done = failwell("import", "openapi", source, dest, *options)
    assert done.returncode == 0, done.stdout + done.stderr
    spec = yaml.safe_load((dest / "failwell.yaml").read_text())
    assert sorted(spec["tools"]) == ["op_a", "op_j"]
    assert spec["imported"]["select"] == {
        "tags": ["t1"],
        "operations": ["opA", "opJ", "opC", "opD", "opE", "opF", "opG", "opH", "opZ"],
        "paths": ["/a*"],
        "methods": ["GET", "DELETE"],
        "exclude_tags": ["t3"],
        "exclude_operations": ["opF"],
        "exclude_paths": ["/ag/*"],
        "exclude_methods": ["DELETE"],
    }
    again = failwell("import", "openapi", source, dest, "--check")
    assert again.returncode == 0, again.stdout + again.stderr
    many = document(tmp_path, {f"/r{i}": {"get": op(f"read{i}", tags=["bulk" if i % 3 else "few"])} for i in range(45)})
    refused = failwell("import", "openapi", many, tmp_path / "many")
    assert refused.returncode == 1 and "Traceback" not in refused.stderr
    assert "45 operations" in refused.stderr and "   30  bulk" in refused.stderr and "   15  few" in refused.stderr
    assert not (tmp_path / "many").exists()


def test_every_documented_status_gets_its_class_and_the_handler_tests_it(tmp_path: Path) -> None:
    """The issue's table, status by status: a draft per status the document declares (a 4xx no class fits better
    keeps the runtime's own), and the handler raises each one for its status, 5XX for any status of 500 or more."""
    statuses = ["200", "400", "401", "403", "404", "409", "410", "412", "418", "422", "429", "500", "503", "5XX"]
    responses = {status: {"description": f"Status {status}."} for status in statuses}
    path = document(tmp_path, {"/x/{id}": {"delete": op("x", responses=responses)}})
    spec, result = spec_of(tmp_path, path)
    failures = spec["tools"]["x"]["failures"]
    assert {name: f["class"] for name, f in failures.items()} == {
        "bad_request": "invalid_input",
        "unauthorized": "permission_denied",
        "forbidden": "permission_denied",
        "not_found": "not_found",
        "conflict": "conflict",
        "gone": "not_found",
        "precondition_failed": "conflict",
        "unprocessable": "invalid_input",
        "rate_limited": "rate_limited",
        "server_error_500": "upstream_unavailable",
        "server_error_503": "upstream_unavailable",
        "server_error": "upstream_unavailable",
        "client_error_418": "conflict",
    }
    assert all(f["reviewed"] is False for f in failures.values())
    assert '("Status 412")' in failures["precondition_failed"]["message"]
    handler = result.handlers["src/dest_mcp/handlers/x.py"]
    for status, name in (("412", "PreconditionFailed"), ("410", "Gone"), ("422", "Unprocessable")):
        assert f"if error.status == {status}:\n            raise {name}(" in handler
    assert "if error.status is not None and error.status >= 500:\n            raise ServerError(" in handler
    assert "if error.status == 418:\n            raise ClientError418(" in handler
    assert [f.where for f in result.findings if f.code == "FW317"] == ["DELETE /x/{id}"]
    assert "FW310" not in [f.code for f in result.findings]


def test_every_documented_status_is_mapped_by_its_meaning_or_its_words_never_by_default_to_invalid_input(
    tmp_path: Path,
) -> None:
    """Issue 41 point 3: a status outside the built-in table gets the class its number's HTTP meaning gives, else
    its description's words say, else a refusal (conflict); invalid_input only when the status or the words say
    the input is wrong; each mapped by words or guess is noted (FW317), and the handler raises each one."""
    described = {
        "200": "ok",
        "402": "Payment required",
        "405": "Invalid input",
        "406": "Not acceptable",
        "413": "Too big",
        "415": "Unsupported media type",
        "418": "IP has been auto-banned for extensive sending of requests after usage limit has been reached",
        "423": "Locked",
        "425": "Mempool is full, please resubmit later",
        "449": "Retry with",
        "451": "Unavailable for legal reasons",
        "499": "Client closed request",
        "4XX": "The project is archived",
    }
    responses = {status: {"description": words} for status, words in described.items()}
    path = document(tmp_path, {"/tx": {"post": op("submit", responses=responses)}})
    spec, result = spec_of(tmp_path, path)
    classes = {name: f["class"] for name, f in spec["tools"]["submit"]["failures"].items()}
    assert classes == {
        "payment_required": "permission_denied",
        "client_error_405": "invalid_input",
        "not_acceptable": "invalid_input",
        "content_too_large": "invalid_input",
        "unsupported_media_type": "invalid_input",
        "client_error_418": "permission_denied",
        "locked": "conflict",
        "too_early": "upstream_unavailable",
        "client_error_449": "conflict",
        "unavailable_for_legal_reasons": "permission_denied",
        "client_error_499": "conflict",
        "client_error": "conflict",
    }
    notes = {f.message.split(" ")[1]: f.message for f in result.findings if f.code == "FW317"}
    assert set(notes) == {"405", "418", "449", "499", "4XX"}, notes
    assert "by its description's words" in notes["418"] and "by guess" in notes["449"]
    handler = result.handlers["src/dest_mcp/handlers/submit.py"]
    for status in (402, 405, 418, 425, 449, 451, 499):
        assert f"if error.status == {status}:" in handler
    assert handler.index("error.status == 499") < handler.index("400 <= error.status < 500"), "4XX before 499"
    # the range takes no status the upstream client classes by its number: rclone's 4XX "Any error response" is no
    # reason to call a 422 a conflict
    own = handler.split("OWN_CLASS = ", 1)[1].split("]", 1)[0]
    assert {int(n) for n in re.findall(r"\d+", own)} == {400, 401, 403, 404, 408, 409, 410, 412, 422, 429}


def test_the_not_found_step_names_a_list_of_the_same_records_and_never_the_root(tmp_path: Path) -> None:
    """Issue 41 point 4: GET / (a tool named `get`) lists nothing; a 404's next step names the GET of the item path's
    collection, or a GET listing the same $ref, else asks the user."""
    missing = {"200": {"description": "ok"}, "404": {"description": "Not found"}}
    pet = {"$ref": "#/components/schemas/Pet"}

    def answering(schema: dict[str, Any], operation_id: str, **extra: Any) -> dict[str, Any]:
        ok = {"description": "ok", "content": {"application/json": {"schema": schema}}}
        return op(operation_id, responses={"200": ok, "404": {"description": "Not found"}}, **extra)

    path = document(
        tmp_path,
        {
            "/": {"get": {"responses": {"200": {"description": "The API's root"}}}},
            "/bookings": {"get": op("list_bookings")},
            "/bookings/{bookingId}": {"get": op("get_booking", responses=missing)},
            "/bookings/{bookingId}/payment": {"post": op("pay_booking", responses=missing)},
            "/stations/{stationId}": {"get": op("get_station", responses=missing)},
            "/pets/{petId}": {"get": answering(pet, "get_pet")},
            "/search/pets": {"get": answering({"type": "array", "items": pet}, "search_pets")},
        },
        components={"schemas": {"Pet": {"type": "object", "properties": {"id": {"type": "integer"}}}}},
    )
    spec, _ = spec_of(tmp_path, path)
    assert "get" in spec["tools"], "GET / is a tool named get"
    words = {
        name: tool["failures"]["not_found"]["message"] for name, tool in spec["tools"].items() if "failures" in tool
    }
    assert "Call list_bookings to find" in words["get_booking"]
    assert "Call list_bookings to find" in words["pay_booking"]
    assert "Call search_pets to find" in words["get_pet"]
    assert "Ask the user for the right value" in words["get_station"]
    assert not any("Call get " in text for text in words.values()), words


def test_the_drafts_name_the_operation_not_a_method_glued_to_a_tool(tmp_path: Path) -> None:
    """Issue 41 point 11 (and point 1's wording): a 5xx names `DELETE /x/{id}`, never `DELETE x`; a 403 names the
    operation and whose credentials were judged, as fields shown verbatim (a path is no internal here)."""
    responses = {s: {"description": w} for s, w in (("204", "ok"), ("403", "Forbidden"), ("500", "Server error"))}
    path = document(tmp_path, {"/x/{id}": {"delete": op("x", responses=responses)}})
    spec, result = spec_of(tmp_path, path)
    failures = spec["tools"]["x"]["failures"]
    assert failures["server_error_500"]["message"].startswith('The API failed to answer DELETE /x/{{id}} ("Server')
    forbidden = failures["forbidden"]
    assert forbidden["message"].startswith('The API refused {permission} ("Forbidden"): {role} may not do it.')
    assert forbidden["fields"] == {name: {"type": "string", "verbatim": True} for name in ("permission", "role")}
    handler = result.handlers["src/dest_mcp/handlers/x.py"]
    assert 'permission="DELETE /x/{id}", role="the credentials this server uses"' in handler
    test = result.handlers["tests/test_x.py"]  # the handler's own test: a recorded answer, no xfail
    assert "xfail" not in test and 'with FakeUpstream(Reply(204, b"")) as api:' in test
    assert 'assert (method, unquote(path.split("?")[0])) == ("DELETE", "/x/{id}")' in test
    written = tmp_path / "failwell.yaml"
    written.write_text(result.spec_text)
    rows = {(row.tool, row.failure): row for row in review(written)}
    assert rows[("x", "server_error_500")].text.startswith('The API failed to answer DELETE /x/{id} ("Server error").')
    assert not [code for row in rows.values() for code, _ in row.problems if code == "FW204"], "a path as internals"


def test_a_required_body_property_the_document_never_describes_is_still_an_input(tmp_path: Path) -> None:
    """Figma's webhook body requires `team_id` and describes no such property: dropping it made every call one the
    API refuses (the corpus's request_valid check)."""
    schema = {"type": "object", "properties": {"endpoint": {"type": "string"}}, "required": ["endpoint", "team_id"]}
    body = {"required": True, "content": {"application/json": {"schema": schema}}}
    spec, result = spec_of(tmp_path, document(tmp_path, {"/hooks": {"post": op("hook", requestBody=body)}}))
    fields = spec["tools"]["hook"]["input"]
    assert "team_id" in fields and fields["team_id"].get("required", True) is True, fields
    said = "required team_id not described by the document: still an input"
    assert any(said in note for note in result.notes), result.notes
