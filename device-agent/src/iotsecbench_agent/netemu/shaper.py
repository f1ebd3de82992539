"""netem's per-packet decisions for one direction, without any I/O: what happens to a
packet that arrives at ``now`` (dropped, duplicated, corrupted, reordered) and when each
copy is due to leave. The forwarder (forwarder.py) does the reading, waiting and writing.

The order and formulas follow the kernel's ``netem_enqueue`` (net/sched/sch_netem.c):
1. duplicate? (the copy goes through steps 2–5 on its own, as netem re-enqueues it at the
   root qdisc with duplication off);
2. lost? (random, or the Gilbert-Elliott state machine) → dropped;
3. corrupt? → one random bit flipped;
4. the direction already holds ``limit`` packets → tail drop;
5. reordered? (netem's ``reorder`` with gap 1, tc's default) → due now; otherwise due at
   now + a delay drawn from the distribution, and with a rate set
   max(last due, now + delay) + size / rate, so packets serialise one after another and
   never overtake (the delay already spent waiting counts, as in netem).
"""

from __future__ import annotations

import random
from dataclasses import dataclass, fields

from iotsecbench_contract.delaytables import DelaySampler, DistTable
from iotsecbench_contract.netprofile import DirectionProfile


@dataclass
class Counters:
    """What one direction did: the proof that a profile was enforced."""

    received: int = 0  # packets read from the input side (before any decision)
    forwarded: int = 0  # packets written to the output side, duplicates included
    bytes: int = 0  # IP bytes forwarded
    dropped_loss: int = 0
    dropped_queue: int = 0  # tail drops at ``limit``
    duplicated: int = 0
    reordered: int = 0
    corrupted: int = 0
    write_errors: int = 0  # the kernel refused a write (e.g. the device went down)

    def as_dict(self) -> dict[str, int]:
        return {f.name: getattr(self, f.name) for f in fields(self)}


class DirectionShaper:
    """One direction's netem state: its loss state, the packets it holds, the last due
    time (for the rate), its counters."""

    def __init__(
        self,
        profile: DirectionProfile,
        table: DistTable | None,
        rng: random.Random,
    ) -> None:
        self.profile = profile
        self.counters = Counters()
        self.held = 0  # packets admitted and not yet sent: netem's qlen, for ``limit``
        self._random = rng.random
        self._randrange = rng.randrange
        self._delay = DelaySampler(profile, table, rng)
        self._loss = profile.loss_pct / 100
        ge = profile.loss_gemodel
        self._ge: tuple[float, float, float, float] | None = (
            None
            if ge is None
            else (
                ge.p_pct / 100,
                ge.r_pct / 100,
                ge.one_minus_h_pct / 100,
                ge.one_minus_k_pct / 100,
            )
        )
        self._ge_bad = False
        self._duplicate = profile.duplicate_pct / 100
        self._reorder = profile.reorder_pct / 100
        self._corrupt = profile.corrupt_pct / 100
        # ns per byte: netem's packet_time_ns = len · NSEC_PER_SEC / rate (bytes/s).
        self._ns_per_byte = 8e9 / (profile.rate_kbit * 1000) if profile.rate_kbit else 0.0
        self._limit = profile.limit
        self._last_due = 0
        # Nothing to decide per packet: the forwarder's fast path skips admit().
        self.transparent = not profile.shaped

    def admit(self, packet: bytes, now: int) -> list[tuple[int, bytes]]:
        """The copies of ``packet`` (arrived at ``now``, ns) to send and when they are
        due; an empty list when it was dropped."""
        self.counters.received += 1
        out: list[tuple[int, bytes]] = []
        if self._duplicate and self._random() < self._duplicate:
            self.counters.duplicated += 1
            self._enqueue(packet, now, out)
        self._enqueue(packet, now, out)
        return out

    def sent(self, size: int) -> None:
        """A held packet of ``size`` bytes has been written out."""
        self.held -= 1
        self.counters.forwarded += 1
        self.counters.bytes += size

    def _enqueue(self, packet: bytes, now: int, out: list[tuple[int, bytes]]) -> None:
        if self._lost():
            self.counters.dropped_loss += 1
            return
        if self._corrupt and self._random() < self._corrupt and packet:
            self.counters.corrupted += 1
            flipped = bytearray(packet)
            flipped[self._randrange(len(flipped))] ^= 1 << self._randrange(8)
            packet = bytes(flipped)
        if self.held >= self._limit:
            self.counters.dropped_queue += 1
            return
        self.held += 1
        if self._reorder and self._random() < self._reorder:
            self.counters.reordered += 1
            out.append((now, packet))
            return
        due = now + self._delay.draw()
        if self._ns_per_byte:
            # netem: the last packet in the queue is the reference; time already spent
            # waiting behind it counts towards this packet's delay.
            if self.held > 1 and self._last_due > due:
                due = self._last_due
            due += int(len(packet) * self._ns_per_byte)
            self._last_due = due
        out.append((due, packet))

    def _lost(self) -> bool:
        if self._ge is not None:
            p, r, loss_bad, loss_good = self._ge
            # Loss by the current state, then the transition (tc-netem(8): p = good → bad,
            # r = bad → good, 1-h = loss in bad, 1-k = loss in good).
            if self._ge_bad:
                lost = self._random() < loss_bad
                if self._random() < r:
                    self._ge_bad = False
            else:
                lost = self._random() < loss_good
                if self._random() < p:
                    self._ge_bad = True
            return lost
        return bool(self._loss) and self._random() < self._loss
