"""Weather forecasts for assistants. Find a place with weather_places, then read its forecast with weather_forecast."""
