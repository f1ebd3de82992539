"""The cost of the relay a run with a network profile goes through (device-agent
``netemu/relay.py``; docs/network-emulation.md, "Enforcing a run's profile"): MQTT QoS 1
round trips to a local Mosquitto, straight and through a relay on 127.0.0.1, no link.

    .venv/bin/python bench/relay.py [--messages 2000] [--blocks 4]

The two ways alternate in blocks, so drift in the machine's load hits both alike. Prints
the medians and p95s and their differences (the relay's added round-trip latency: two
relay hops, one each way), and the relay's own hop times.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import threading
import uuid
from pathlib import Path
from typing import Any

from iotsecbench_agent.jobkinds import runner_for
from iotsecbench_agent.netemu.relay import TcpRelay
from iotsecbench_agent.runners import RunClock, RunContext
from iotsecbench_agent.storage.recordlog import OK, Record

REPO_DIR = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(REPO_DIR)]

from bench.messaging import mosquitto  # noqa: E402

DEVICE = "6f1c1a52-3c1e-4a8e-9a57-1d0c2b7e9f10"


def rtts_ms(port: int, count: int, via: tuple[str, int] | None) -> list[float]:
    spec: dict[str, Any] = {
        "protocol": "mqtt", "mqtt_version": "3.1.1", "qos": 1, "security": "none",
        "payload_size": 66, "message_count": count, "interval_ms": 0,
        "measurement": "round_trip", "timeout_ms": 2000,
        "broker_url": f"mqtt://127.0.0.1:{port}", "topic": f"iotsecbench/bench/{uuid.uuid4()}",
    }  # fmt: skip
    records: list[Record] = []
    context = RunContext(
        run_id=str(uuid.uuid4()), device_id=DEVICE, clock=RunClock(),
        emit=records.append, stop=threading.Event(), broker_via=via,
    )  # fmt: skip
    runner_for("messaging", spec)(spec, context).execute()
    assert {r.outcome for r in records} == {OK}
    return [(r.t_recv_ns - r.t_send_ns) / 1e6 for r in records if r.t_recv_ns is not None]


def p95(values: list[float]) -> float:
    ordered = sorted(values)
    return ordered[int(0.95 * (len(ordered) - 1))]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--messages", type=int, default=2000)
    parser.add_argument("--blocks", type=int, default=4)
    args = parser.parse_args()
    per_block = args.messages // args.blocks
    direct: list[float] = []
    relayed: list[float] = []
    with mosquitto() as broker, TcpRelay("127.0.0.1", ("127.0.0.1", broker.port)) as relay:
        rtts_ms(broker.port, 50, None)  # warm-up: imports, the broker's first sessions
        for _ in range(args.blocks):
            direct += rtts_ms(broker.port, per_block, None)
            relayed += rtts_ms(broker.port, per_block, relay.address)
        stats = relay.stats()
    print(f"MQTT QoS 1, 66-byte payload, {len(direct)} round trips each way of connecting")
    print("| path | median (ms) | p95 (ms) |\n|---|---:|---:|")
    print(f"| straight to the broker | {statistics.median(direct):.3f} | {p95(direct):.3f} |")
    print(f"| through the relay | {statistics.median(relayed):.3f} | {p95(relayed):.3f} |")
    print(
        f"| added by the relay | {statistics.median(relayed) - statistics.median(direct):+.3f}"
        f" | {p95(relayed) - p95(direct):+.3f} |"
    )
    for name in ("up", "down"):
        d = stats[name]
        print(
            f"relay hop {name}: p50 {d['hop_p50_us']} µs, p95 {d['hop_p95_us']} µs, "
            f"max {d['hop_max_us']} µs over {d['chunks']} chunks"
        )


if __name__ == "__main__":
    main()
