import json
import re
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import pytest


@dataclass
class PaymentsAPI:
    """A real payments API on 127.0.0.1 that deduplicates by Idempotency-Key, as real ones do.

    `slow_once_s` makes the next refund apply at once but answer late (the timeout story);
    `fail_next` answers the next request with a 500 before doing anything.
    """

    refundable: dict[str, int] = field(default_factory=lambda: {"ord_8813ab": 10_000, "ord_77aa01": 2_500})
    refunds: dict[str, dict[str, Any]] = field(default_factory=dict)
    replies: dict[str, tuple[int, dict[str, Any]]] = field(default_factory=dict)
    keys: list[str | None] = field(default_factory=list)
    slow_once_s: float = 0.0
    fail_next: int = 0
    lock: threading.Lock = field(default_factory=threading.Lock)

    def refund(self, key: str | None, body: dict[str, Any]) -> tuple[int, dict[str, Any], float]:
        with self.lock:
            self.keys.append(key)
            if self.fail_next:
                self.fail_next -= 1
                return 500, {"error": "ledger write failed on 10.0.4.7"}, 0.0
            if key is None:
                return 400, {"error": "Idempotency-Key is required"}, 0.0
            if key in self.replies:
                status, reply = self.replies[key]
                return status, reply, 0.0
            order, amount = body["order_id"], int(body["amount_cents"])
            if order not in self.refundable:
                status, reply = 404, {"error": f"no order {order}"}
            elif amount > self.refundable[order]:
                status, reply = 409, {"refundable_cents": self.refundable[order]}
            else:
                self.refundable[order] -= amount
                refund_id = f"re_{len(self.refunds) + 1:06d}"
                reply = {"refund_id": refund_id, "order_id": order, "amount_cents": amount, "status": "succeeded"}
                self.refunds[refund_id] = reply
                status = 201
            self.replies[key] = (status, reply)
            delay, self.slow_once_s = self.slow_once_s, 0.0
            return status, reply, delay


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


@pytest.fixture
def payments_api(monkeypatch: pytest.MonkeyPatch) -> Iterator[PaymentsAPI]:
    api = PaymentsAPI()

    class Handler(BaseHTTPRequestHandler):
        def _send(self, status: int, body: dict[str, Any]) -> None:
            payload = json.dumps(body).encode()
            try:
                self.send_response(status)
                self.send_header("content-type", "application/json")
                self.send_header("content-length", str(len(payload)))
                self.end_headers()
                self.wfile.write(payload)
            except (BrokenPipeError, ConnectionResetError):
                pass

        def do_POST(self) -> None:
            body = json.loads(self.rfile.read(int(self.headers.get("content-length") or 0)) or b"{}")
            status, reply, delay = api.refund(self.headers.get("idempotency-key"), body)
            time.sleep(delay)
            self._send(status, reply)

        def do_GET(self) -> None:
            found = re.fullmatch(r"/refunds/(re_[0-9a-z]+)", self.path)
            refund = api.refunds.get(found.group(1)) if found else None
            self._send(200, refund) if refund else self._send(404, {"error": "no such refund"})

        def log_message(self, format: str, *args: Any) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    server.daemon_threads = True
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    monkeypatch.setenv("PAYMENTS_API_URL", f"http://127.0.0.1:{server.server_address[1]}")
    try:
        yield api
    finally:
        server.shutdown()
        server.server_close()
        thread.join(timeout=5)
