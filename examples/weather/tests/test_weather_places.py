"""The weather example's place search."""

from __future__ import annotations

from typing import TYPE_CHECKING

import pytest

from weather_mcp._generated.testing import call_tool

if TYPE_CHECKING:
    from conftest import ForecastAPI

pytestmark = pytest.mark.anyio


async def test_places_by_prefix(forecast_api: ForecastAPI) -> None:
    outcome = await call_tool("weather_places", {"query": "Ly"})
    assert not outcome.is_error, outcome.text
    assert [place["name"] for place in outcome.structured["places"]] == ["Lyon"]
    found = await call_tool("weather_places", {"query": "Po"})
    assert found.structured == {"places": [{"name": "Porto", "country": "PT"}]}


async def test_no_places(forecast_api: ForecastAPI) -> None:
    outcome = await call_tool("weather_places", {"query": "Zz"})
    assert outcome.is_error
    assert 'No place name starts with "Zz"' in outcome.text
