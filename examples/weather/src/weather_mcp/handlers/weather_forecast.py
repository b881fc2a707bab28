"""`weather_forecast`: The daily forecast for a place, for one to seven days from today."""

from .._generated.runtime.upstreams.upstream import UpstreamError
from .._generated.tools.weather_forecast import Context, Input, Output, OutputDaysItem, PlaceUnknown


async def handle(params: Input, ctx: Context) -> Output:
    """Ask the forecast API; a place it does not know is the spec's `place_unknown`."""
    try:
        response = await ctx.upstreams.forecast_api.get(
            "/forecast", params={"place": params.place, "days": params.days}
        )
    except UpstreamError as error:
        if error.status == 404:
            raise PlaceUnknown() from None
        raise
    data = response.json()
    return Output(place=data["place"], days=[OutputDaysItem.model_validate(day) for day in data["days"]])
