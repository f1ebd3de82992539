"""``iotsecbench-agent mqttsn-gateway``: the agent's transparent MQTT-SN 1.2 gateway as a
standalone process, next to a broker, for devices whose jobs name it in
``spec.mqttsn_gateway``.

    iotsecbench-agent mqttsn-gateway --broker mqtt://127.0.0.1:1883 --port 1884 \\
        [--host 0.0.0.0] [--predefined 1=sensors/temp ...] [--gw-id 1] \\
        [--reconnect-budget 30]

It serves until SIGTERM or SIGINT, then closes every broker connection. A broker URL,
port or predefined topic it cannot use is one ``error: …`` line and exit status 1.
"""

from __future__ import annotations

import argparse
import logging
import signal
from types import FrameType
from typing import Any

from iotsecbench_contract.jobspec import DEFAULT_RECONNECT_BUDGET_S

from iotsecbench_agent.brokerurl import parse_mqtt_url
from iotsecbench_agent.errors import ConfigError
from iotsecbench_agent.mqttsn.gateway import (
    DEFAULT_GW_ID,
    DEFAULT_PORT,
    Gateway,
)

logger = logging.getLogger(__name__)


def add_parser(subparsers: Any) -> argparse.ArgumentParser:
    """Add the ``mqttsn-gateway`` subcommand to the CLI's subparsers."""
    parser: argparse.ArgumentParser = subparsers.add_parser(
        "mqttsn-gateway",
        help="run a transparent MQTT-SN 1.2 gateway (UDP) in front of an MQTT broker",
        description=__doc__.split("\n\n")[0] if __doc__ else None,
    )
    parser.add_argument("--broker", required=True, metavar="URL", help="mqtt://host[:port]")
    parser.add_argument(
        "--host",
        # A gateway serves the devices of the LAN, as the broker beside it does.
        default="0.0.0.0",  # noqa: S104
        help="UDP address to listen on (default 0.0.0.0: all)",
    )
    parser.add_argument(
        "--port", type=int, default=DEFAULT_PORT, help=f"UDP port (default {DEFAULT_PORT})"
    )
    parser.add_argument(
        "--predefined",
        action="append",
        default=[],
        metavar="ID=TOPIC",
        help="a predefined topic id and its topic name (repeat for several)",
    )
    parser.add_argument(
        "--gw-id", type=int, default=DEFAULT_GW_ID, help="GwId in GWINFO (default 1)"
    )
    parser.add_argument(
        "--reconnect-budget",
        type=float,
        default=DEFAULT_RECONNECT_BUDGET_S,
        metavar="SECONDS",
        help="how long a client's lost broker connection is tried again before its "
        f"session ends (default {DEFAULT_RECONNECT_BUDGET_S:g}; 0: at once)",
    )
    return parser


def main(args: argparse.Namespace) -> int:
    broker = parse_mqtt_url(args.broker, what="--broker")
    if not 0 <= args.port <= 65535:
        raise ConfigError(f"--port must be 0..65535, got {args.port}")
    if not 0 <= args.gw_id <= 255:
        raise ConfigError(f"--gw-id must be 0..255, got {args.gw_id}")
    if not 0 <= args.reconnect_budget <= 3600:
        raise ConfigError(f"--reconnect-budget must be 0..3600 s, got {args.reconnect_budget}")
    gateway = Gateway(
        broker,
        host=args.host,
        port=args.port,
        predefined=_predefined(args.predefined),
        gw_id=args.gw_id,
        reconnect_budget_s=args.reconnect_budget,
    )

    def on_signal(signum: int, frame: FrameType | None) -> None:
        gateway.stop()

    previous = {sig: signal.signal(sig, on_signal) for sig in (signal.SIGTERM, signal.SIGINT)}
    host, port = gateway.address
    logger.info(
        "mqttsn.gateway_listening udp=%s:%d broker=%s:%d predefined=%d",
        host,
        port,
        broker.host,
        broker.port,
        len(gateway.predefined),
    )
    try:
        gateway.serve()
    finally:
        for sig, handler in previous.items():
            signal.signal(sig, handler)
    logger.info("mqttsn.gateway_stopped")
    return 0


def _predefined(values: list[str]) -> dict[int, str]:
    table: dict[int, str] = {}
    for value in values:
        topic_id, sep, topic = value.partition("=")
        if not sep or not topic_id.isdigit() or not topic:
            raise ConfigError(f"--predefined takes ID=TOPIC, got {value!r}")
        table[int(topic_id)] = topic
    return table
