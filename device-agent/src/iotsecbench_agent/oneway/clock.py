"""The device's clock offset to the platform's (the controller's) clock: NTP-style
four-timestamp probes against ``POST /api/agent/time/`` (docs/control-plane.md, §4
health_check), kept by the minimum-RTT filter.

Each probe: ``t0`` sent and ``t3`` received on the device's clock, ``t1`` received and
``t2`` sent on the platform's (its answer's ``received_ns`` and ``sent_ns``). Its offset
is ``((t1 - t0) + (t2 - t3)) / 2`` (platform minus device) and its round trip
``(t3 - t0) - (t2 - t1)`` (RFC 5905 §8). The probe with the smallest round trip is kept:
its offset is wrong by at most half its round trip (the whole round trip spent on one
leg), which is the uncertainty reported.

No runner imports here: the health check and the one-way receiver both use it.
"""

from __future__ import annotations

import json
import time
import urllib.request
from dataclasses import dataclass
from typing import Callable

from iotsecbench_agent.errors import PlatformError

CLOCK_PROBES = 8
PROBE_TIMEOUT_S = 5.0


class ClockProbeError(PlatformError):
    """The platform's clock could not be read (unreachable, refused, bad answer)."""


@dataclass(frozen=True)
class ClockOffset:
    """Platform clock minus device clock, from the probe with the smallest round trip."""

    offset_ns: int
    uncertainty_ns: int  # half that probe's round trip: the offset is within ± this
    round_trip_ns: int
    probes: int

    @property
    def offset_ms(self) -> float:
        return self.offset_ns / 1e6

    @property
    def uncertainty_ms(self) -> float:
        return self.uncertainty_ns / 1e6


def probe_clock_offset(
    time_url: str,
    token: str,
    *,
    probes: int = CLOCK_PROBES,
    now: Callable[[], int] = time.time_ns,
) -> ClockOffset:
    """Probe ``time_url`` ``probes`` times (device token ``token``) and keep the probe with
    the smallest round trip. ``now`` is the device clock being compared (a run passes its
    ``RunClock``, so the offset applies to the timestamps it records). ClockProbeError if
    any probe fails."""
    best: tuple[int, int] | None = None  # (round trip ns, 2 × offset ns)
    for _ in range(probes):
        request = urllib.request.Request(
            time_url,
            data=b"{}",
            method="POST",
            headers={"Authorization": f"Device {token}", "Content-Type": "application/json"},
        )
        try:
            t0 = now()
            with urllib.request.urlopen(request, timeout=PROBE_TIMEOUT_S) as response:
                body = json.loads(response.read())
            t3 = now()
            t1, t2 = int(body["received_ns"]), int(body["sent_ns"])
        except (OSError, ValueError, KeyError, TypeError) as exc:
            raise ClockProbeError(f"the platform's clock cannot be read: {exc}") from None
        round_trip = (t3 - t0) - (t2 - t1)
        if best is None or round_trip < best[0]:
            best = (round_trip, (t1 - t0) + (t2 - t3))
    if best is None:
        raise ValueError("probes must be at least 1")
    round_trip, twice_offset = best
    return ClockOffset(
        offset_ns=twice_offset // 2,
        uncertainty_ns=max(round_trip, 0) // 2,
        round_trip_ns=round_trip,
        probes=probes,
    )
