"""records_import: a partial batch writes what it can and names what failed."""

import pytest

from records_mcp._generated.testing import call_tool
from records_mcp.store import RECORDS

pytestmark = pytest.mark.anyio


async def test_some_rows_fail_and_the_others_are_written() -> None:
    RECORDS.contacts["grace@example.com"] = "c-0"
    rows = [
        {"email": "ada@example.com", "name": "Ada Lovelace"},
        {"email": "grace@example.com", "name": "Grace Hopper"},
        {"email": "linus@example.com", "name": "Linus"},
    ]
    outcome = await call_tool("records_import", {"rows": rows, "idempotency_key": "import-2026-11-29-0001"})
    assert not outcome.is_error, "a partial success is not an error"
    assert outcome.text.startswith("2 of 3 rows were written; 1 failed and were not:\n- rows[1]: grace@example.com is")
    assert "Send only the failed rows again" in outcome.text
    assert [entry["index"] for entry in outcome.structured["succeeded"]] == [0, 2]
    assert outcome.structured["failed"][0]["failure"] == "duplicate_email"
    assert set(RECORDS.contacts) == {"ada@example.com", "grace@example.com", "linus@example.com"}


async def test_when_every_row_fails_it_is_an_error() -> None:
    RECORDS.contacts["ada@example.com"] = "c-0"
    rows = [{"email": "ada@example.com", "name": "Ada"}]
    outcome = await call_tool("records_import", {"rows": rows, "idempotency_key": "import-2026-11-29-0002"})
    assert outcome.is_error
    assert outcome.text.startswith("None of the 1 rows was written; each failed:")
    assert outcome.envelope["failure"] == "batch_failed"
