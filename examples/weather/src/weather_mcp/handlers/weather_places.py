"""`weather_places`: Find places whose name starts with the query, to pass to weather_forecast."""

from .._generated.tools.weather_places import Context, Input, NoPlaces, Output, OutputPlacesItem


async def handle(params: Input, ctx: Context) -> Output:
    """Ask the forecast API for places; none is the spec's `no_places`."""
    response = await ctx.upstreams.forecast_api.get("/places", params={"prefix": params.query})
    places = [OutputPlacesItem.model_validate(place) for place in response.json()["places"]]
    if not places:
        raise NoPlaces()
    return Output(places=places)
