"""A throughput run sent to a receiver (the design's target_url, the job spec's ``target``)
says so in its methods paragraph, instead of the device's own loopback sink."""

from __future__ import annotations

import pytest

from experiments.models import ExperimentKind
from results.services import run_methods
from results.services.summaries import RunStatistics
from results.tests.conftest import bench_spec

# Two 2 s windows sending 16-byte packets with no mechanism: 900 and 1100 packets.
SENT = [
    ("none", "send", 16, 2_000_000_000, 1_900_000_000, 40_000, 900),
    ("none", "send", 16, 2_000_000_000, 1_900_000_000, 40_000, 1100),
]


def _no_statistics() -> RunStatistics:
    raise AssertionError("a sample kind's methods paragraph reads no round-trip statistics")


@pytest.mark.django_db
def test_throughput_methods_paragraph_names_the_receiver_instead_of_the_loopback_sink(
    make_bench_run,
):
    spec = bench_spec(
        mechanisms=["none"], data_sizes=[16], window_ms=2000, target="udp://192.168.4.1:9999"
    )
    made = make_bench_run({"pi-client": SENT}, kind=ExperimentKind.THROUGHPUT, spec=spec)

    text = run_methods(run=made.run, statistics=_no_statistics)

    assert (
        "over UDP to the receiver at udp://192.168.4.1:9999 (the design's target_url), not to "
        "a sink on the device's own loopback interface" in text
    )
    assert "127.0.0.1" not in text
