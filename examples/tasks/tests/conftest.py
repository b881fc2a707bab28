from collections.abc import Iterator

import pytest

from tasks_mcp import board


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


@pytest.fixture(autouse=True)
def fresh_board() -> Iterator[None]:
    """Each test starts from the seeded board, whatever the tests before it created or closed."""
    board.BOARD.tasks = board.seeded().tasks
    board.BOARD.recent_creates.clear()
    yield
