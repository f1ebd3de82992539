"""The web server as scripted clients meet it: one keep-alive connection polled slowly."""

from __future__ import annotations

import http.client
import time
from urllib.parse import urlsplit

from e2e.conftest import Product

# Gunicorn's default keep-alive is 2 s: a client idle for longer found its connection
# closed and its next request failed ("Remote end closed connection without response").
IDLE_S = 3.0


def test_a_polling_client_keeps_its_connection_when_idle_longer_than_gunicorns_default(
    product: Product,
) -> None:
    connection = http.client.HTTPConnection(urlsplit(product.url).netloc, timeout=10)
    try:
        connection.request("GET", "/api/health/")
        first = connection.getresponse()
        first.read()
        socket_before = connection.sock
        time.sleep(IDLE_S)
        connection.request("GET", "/api/health/")
        second = connection.getresponse()
        second.read()
        reused = socket_before is not None and connection.sock is socket_before
    finally:
        connection.close()
    assert (first.status, second.status) == (200, 200)
    # The same TCP connection answered both: the server kept it open while idle.
    assert reused
