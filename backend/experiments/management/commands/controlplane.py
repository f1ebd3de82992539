"""Long-lived listener for agent status, heartbeats and events (shaped like healthchecks'
`sendalerts`: a SIGTERM flag, short sleeps, one small method per step)."""

from __future__ import annotations

import logging
import signal
import threading
import time
from types import FrameType
from typing import Any

import paho.mqtt.client as mqtt
from django.conf import settings
from django.core.management.base import BaseCommand
from django.db import close_old_connections

from core.mqtt import mqtt_client
from experiments.controlplane import SUBSCRIPTIONS, handle_message

logger = logging.getLogger(__name__)

RECONNECT_MAX_DELAY_S = 10


class Command(BaseCommand):
    help = "Listen to the agents' control-plane topics and apply their messages."

    def add_arguments(self, parser: Any) -> None:
        parser.add_argument(
            "--once-connected", action="store_true", help="exit after subscribing (for tests)"
        )

    def handle(self, *args: Any, **options: Any) -> None:
        self.stopping = threading.Event()
        signal.signal(signal.SIGTERM, self.on_signal)
        signal.signal(signal.SIGINT, self.on_signal)
        self.subscribed = threading.Event()
        client, address = mqtt_client(
            settings.MQTT_URL, client_id_prefix="iotsecbench-controlplane"
        )
        client.on_connect = self.on_connect
        client.on_subscribe = lambda *a: self.subscribed.set()
        client.on_message = self.on_message
        client.reconnect_delay_set(min_delay=1, max_delay=RECONNECT_MAX_DELAY_S)
        client.connect_async(address.host, address.port, keepalive=30)
        client.loop_start()
        self.stdout.write(f"controlplane: listening on {address.host}:{address.port}")
        try:
            while not self.stopping.is_set():
                if options["once_connected"] and self.subscribed.is_set():
                    break
                time.sleep(0.2)
        finally:
            client.disconnect()
            client.loop_stop()

    def on_signal(self, signum: int, frame: FrameType | None) -> None:
        self.stopping.set()

    def on_connect(
        self, client: mqtt.Client, userdata: Any, flags: Any, reason: Any, props: Any
    ) -> None:
        if reason.is_failure:
            logger.error("controlplane.connect_failed reason=%s", reason)
            return
        client.subscribe([(topic, 1) for topic in SUBSCRIPTIONS])
        logger.info("controlplane.connected")

    def on_message(self, client: mqtt.Client, userdata: Any, message: mqtt.MQTTMessage) -> None:
        # Runs on paho's network thread: keep the DB connection healthy between messages.
        close_old_connections()
        try:
            handle_message(message.topic, bytes(message.payload))
        except Exception:
            logger.exception("controlplane.handler_failed topic=%s", message.topic)
