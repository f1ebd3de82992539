"""What a messaging run cost the agent (docs/control-plane.md §6, "Run resources"): its CPU
time, peak memory and the bytes its client socket(s) sent and received over the run's
measured window, sent once on the final upload chunk as the ``X-Run-Resources`` header (a
compact JSON object) and stored per device of the run.

The agent measures (``iotsecbench_agent.runners.resources``); the platform stores. Both
parse with ``RunResources.parse``, so a value one side accepts the other does too. Agents
before this header send none: the device's figures are then "not recorded" (NULL).
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import asdict, dataclass
from typing import Any

from iotsecbench_contract.errors import ContractError

HEADER = "X-Run-Resources"
# Every figure is stored in a PostgreSQL bigint: a larger value is refused here rather than
# failing in the database.
FIGURE_MAX = 2**63 - 1
# The header is one small JSON object; anything longer is not one of ours.
HEADER_MAX_CHARS = 1000

# Where ``peak_rss_kb`` comes from (see RunResources).
PEAK_RSS_RUN = "run"
PEAK_RSS_PROCESS = "process"
PEAK_RSS_SCOPES = (PEAK_RSS_RUN, PEAK_RSS_PROCESS)

_INT_FIELDS = (
    "window_ns",
    "cpu_user_ns",
    "cpu_system_ns",
    "peak_rss_kb",
    "bytes_sent",
    "bytes_received",
)


class ResourcesError(ContractError):
    """The ``X-Run-Resources`` header is not a valid JSON object of run resources; the
    message names the field at fault."""


@dataclass(frozen=True)
class RunResources:
    """One device's figures for one messaging run, over its measured window (the runner's
    ``run``: after connecting and subscribing, before disconnecting).

    - ``window_ns``: the window's length (wall clock, ``perf_counter_ns``).
    - ``cpu_user_ns`` / ``cpu_system_ns``: the agent process's CPU time in the window,
      every thread of it (``getrusage(RUSAGE_SELF)``, microsecond resolution): the
      measuring thread, and the control plane's and heartbeats' beside it.
    - ``peak_rss_kb``: the agent process's peak resident memory in KiB. ``peak_rss_scope``
      ``run``: the peak within the window (Linux: the high-water mark reset when the window
      opened, ``/proc/self/clear_refs``, and read when it closed); ``process``: the
      process's peak since it started (``ru_maxrss``), where the mark cannot be reset.
    - ``bytes_sent`` / ``bytes_received``: every byte the run's client socket(s) handed to
      and took from the kernel in the window: MQTT packets with their headers and
      acknowledgements (PUBACK, PUBREC, PUBREL, PUBCOMP, SUBACK, PINGREQ…), TLS records
      (a reconnect's handshake included) for ``mqtts://``, CoAP messages with their ACKs,
      MQTT-SN messages with their acks. TCP/UDP/IP headers are the kernel's and not
      counted, as for ``wire_bytes``.
    """

    window_ns: int
    cpu_user_ns: int
    cpu_system_ns: int
    peak_rss_kb: int
    peak_rss_scope: str
    bytes_sent: int
    bytes_received: int

    def __post_init__(self) -> None:
        for name in _INT_FIELDS:
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, int):
                raise ResourcesError(f"{name} must be an integer, got {value!r}")
            if not 0 <= value <= FIGURE_MAX:
                raise ResourcesError(f"{name} must be in 0..{FIGURE_MAX}, got {value}")
        if self.peak_rss_scope not in PEAK_RSS_SCOPES:
            raise ResourcesError(
                f"peak_rss_scope must be one of {', '.join(PEAK_RSS_SCOPES)}, "
                f"got {self.peak_rss_scope!r}"
            )

    @property
    def cpu_ns(self) -> int:
        return self.cpu_user_ns + self.cpu_system_ns

    @classmethod
    def parse(cls, data: Mapping[str, Any]) -> RunResources:
        """From the JSON object's fields; ResourcesError if one is missing or invalid
        (fields this version does not know are ignored: a newer agent may send more)."""
        missing = [name for name in (*_INT_FIELDS, "peak_rss_scope") if name not in data]
        if missing:
            raise ResourcesError(f"missing field(s): {', '.join(missing)}")
        return cls(
            window_ns=data["window_ns"],
            cpu_user_ns=data["cpu_user_ns"],
            cpu_system_ns=data["cpu_system_ns"],
            peak_rss_kb=data["peak_rss_kb"],
            peak_rss_scope=data["peak_rss_scope"],
            bytes_sent=data["bytes_sent"],
            bytes_received=data["bytes_received"],
        )

    @classmethod
    def from_header(cls, value: str) -> RunResources:
        """From the header's value; ResourcesError if it is not a valid object."""
        if len(value) > HEADER_MAX_CHARS:
            raise ResourcesError(f"the header is longer than {HEADER_MAX_CHARS} characters")
        try:
            data = json.loads(value)
        except ValueError:
            raise ResourcesError("the header is not JSON") from None
        if not isinstance(data, dict):
            raise ResourcesError("the header is not a JSON object")
        return cls.parse(data)

    def to_json(self) -> dict[str, Any]:
        return asdict(self)

    def to_header(self) -> str:
        return json.dumps(self.to_json(), separators=(",", ":"), sort_keys=True)
