import json
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any
from urllib.parse import parse_qs, urlparse

import pytest

PLACES = {"Lisbon": "PT", "Lyon": "FR", "Oslo": "NO", "Porto": "PT"}


class ForecastAPI:
    """A real forecast API on 127.0.0.1, with switches to make it misbehave."""

    def __init__(self) -> None:
        self.down = False
        self.requests = 0
        api = self

        class Handler(BaseHTTPRequestHandler):
            def do_GET(self) -> None:
                api.requests += 1
                url = urlparse(self.path)
                query = {key: values[0] for key, values in parse_qs(url.query).items()}
                status, body = api.answer(url.path, query)
                payload = json.dumps(body).encode()
                self.send_response(status)
                self.send_header("content-type", "application/json")
                self.send_header("content-length", str(len(payload)))
                self.end_headers()
                self.wfile.write(payload)

            def log_message(self, format: str, *args: Any) -> None:
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}"

    def answer(self, path: str, query: dict[str, str]) -> tuple[int, Any]:
        if self.down:
            return 503, {"error": "maintenance at db-3.forecast.internal"}
        if path == "/forecast":
            place = query.get("place", "")
            if place not in PLACES:
                return 404, {"error": f"unknown place {place}"}
            days = [
                {"date": f"2026-12-0{day + 1}", "summary": "sunny", "high_c": 17.0 + day, "low_c": 9.0}
                for day in range(int(query.get("days", "3")))
            ]
            return 200, {"place": place, "days": days}
        if path == "/places":
            prefix = query.get("prefix", "").lower()
            found = [
                {"name": name, "country": country}
                for name, country in PLACES.items()
                if name.lower().startswith(prefix)
            ]
            return 200, {"places": found}
        return 404, {"error": "no such endpoint"}


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


@pytest.fixture
def forecast_api(monkeypatch: pytest.MonkeyPatch) -> Iterator[ForecastAPI]:
    api = ForecastAPI()
    thread = threading.Thread(target=api.server.serve_forever, daemon=True)
    thread.start()
    monkeypatch.setenv("FORECAST_API_URL", api.url)
    try:
        yield api
    finally:
        api.server.shutdown()
        api.server.server_close()
        thread.join(timeout=5)
