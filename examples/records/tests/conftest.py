from collections.abc import Iterator

import pytest

from records_mcp import store


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


@pytest.fixture(autouse=True)
def fresh_records() -> Iterator[None]:
    store.RECORDS.contacts.clear()
    store.RECORDS.balances = {"acct-1": 100, "acct-2": 50, "acct-3": 0}
    yield
