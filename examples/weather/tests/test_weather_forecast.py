"""The weather example against a real (fake) forecast API on 127.0.0.1."""

from __future__ import annotations

from typing import TYPE_CHECKING

import pytest

from weather_mcp._generated.server import build_server
from weather_mcp._generated.testing import call_tool

if TYPE_CHECKING:
    from conftest import ForecastAPI

pytestmark = pytest.mark.anyio


async def test_forecast(forecast_api: ForecastAPI) -> None:
    outcome = await call_tool("weather_forecast", {"place": "Lisbon"})
    assert not outcome.is_error, outcome.text
    assert outcome.structured["place"] == "Lisbon"
    assert len(outcome.structured["days"]) == 3


async def test_an_unknown_place_says_how_to_find_one(forecast_api: ForecastAPI) -> None:
    outcome = await call_tool("weather_forecast", {"place": "Atlantis", "days": 2})
    assert outcome.is_error
    assert outcome.text.startswith(
        'The forecast service knows no place called "Atlantis". Use a city name such as Lisbon'
    )
    assert outcome.envelope["class"] == "not_found"


async def test_a_forecast_service_that_is_down_trips_the_breaker(forecast_api: ForecastAPI) -> None:
    forecast_api.down = True
    server = build_server()
    first = await call_tool("weather_forecast", {"place": "Lisbon"}, server=server)
    assert first.envelope["class"] == "upstream_unavailable"
    assert first.envelope["retryable"] is True
    assert "it answered HTTP 503" in first.text and "internal" not in first.text
    assert forecast_api.requests == 3, "a read is tried three times in all"
    second = await call_tool("weather_forecast", {"place": "Lisbon"}, server=server)
    assert second.envelope["class"] == "upstream_unavailable"
    assert forecast_api.requests == 5, "the fifth failure in a row opens the circuit"
    third = await call_tool("weather_forecast", {"place": "Lisbon"}, server=server)
    assert "calls to it are paused" in third.text
    assert third.envelope["retry_after_s"] == 30
    assert forecast_api.requests == 5, "nothing reaches the service while the circuit is open"
