"""Refunds for an online shop. Refund an order with refund_order; if it times out, call it again with the same idempotency_key, and read a refund with refund_status."""
