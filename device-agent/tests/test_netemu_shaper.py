"""netem's per-packet decisions without any I/O: serialisation by rate, tail drop at the
limit, reordered packets sent at once, duplicates, corruption of one bit, and random and
Gilbert-Elliott loss rates."""

from __future__ import annotations

import random
from typing import Any

import pytest
from iotsecbench_contract.netprofile import DirectionProfile, GilbertElliott

from iotsecbench_agent.netemu.shaper import DirectionShaper

MS = 1_000_000
PACKET = bytes(1000)


def shaper(seed: int = 0, **fields: Any) -> DirectionShaper:
    rng = random.Random(seed)  # noqa: S311 (emulation draws, not cryptography)
    return DirectionShaper(DirectionProfile(**fields), None, rng)


def through(s: DirectionShaper, packet: bytes = PACKET, now: int = 0) -> list[tuple[int, bytes]]:
    """Admit a packet and send its copies at once (the limit never fills)."""
    copies = s.admit(packet, now)
    for _, copy in copies:
        s.sent(len(copy))
    return copies


def test_rate_serialises_a_burst_one_packet_time_apart() -> None:
    s = shaper(rate_kbit=384, delay_ms=10)
    dues = [s.admit(PACKET, 0)[0][0] for _ in range(5)]
    packet_ns = 1000 * 8 / 384_000 * 1e9  # 20.83 ms
    assert dues[0] == pytest.approx(10 * MS + packet_ns, abs=2)
    assert [b - a for a, b in zip(dues, dues[1:])] == pytest.approx([packet_ns] * 4, abs=2)


def test_rate_time_spent_queued_counts_towards_the_delay() -> None:
    # netem: due = max(last due, now + delay) + size / rate; packets never overtake.
    s = shaper(rate_kbit=80, delay_ms=50, jitter_ms=40, distribution="uniform", seed=3)
    dues = [s.admit(PACKET, i * MS)[0][0] for i in range(50)]
    assert dues == sorted(dues)
    assert all(b - a >= 100 * MS for a, b in zip(dues, dues[1:]))  # 1000 B at 80 kbit/s


def test_packets_beyond_the_limit_are_tail_dropped() -> None:
    s = shaper(delay_ms=100, limit=10)
    admitted = [s.admit(PACKET, 0) for _ in range(15)]
    assert sum(1 for a in admitted if a) == 10
    assert s.counters.dropped_queue == 5
    s.sent(len(PACKET))  # one leaves: room for one more
    assert s.admit(PACKET, 0)
    assert s.counters.dropped_queue == 5


def test_reordered_packets_are_due_at_once_and_the_rest_delayed() -> None:
    s = shaper(delay_ms=20, reorder_pct=30, seed=4)
    dues = [through(s, now=7)[0][0] for _ in range(2000)]
    immediate = sum(1 for d in dues if d == 7)
    assert immediate == s.counters.reordered
    assert 0.25 < immediate / 2000 < 0.35
    assert all(d in (7, 7 + 20 * MS) for d in dues)


def test_duplicates_are_extra_copies_that_count() -> None:
    s = shaper(duplicate_pct=50, seed=5)
    copies = [len(through(s)) for _ in range(2000)]
    assert sum(copies) == 2000 + s.counters.duplicated
    assert 0.45 < s.counters.duplicated / 2000 < 0.55


def test_corruption_flips_exactly_one_bit() -> None:
    s = shaper(corrupt_pct=100, seed=6)
    original = bytes(range(256)) * 4
    ((_, corrupted),) = s.admit(original, 0)
    flipped = sum(bin(a ^ b).count("1") for a, b in zip(original, corrupted))
    assert flipped == 1
    assert s.counters.corrupted == 1


def test_random_loss_rate_is_the_configured_one() -> None:
    s = shaper(loss_pct=10, seed=7)
    kept = sum(1 for _ in range(20_000) if through(s))
    assert s.counters.dropped_loss == 20_000 - kept
    assert s.counters.dropped_loss / 20_000 == pytest.approx(0.10, abs=0.01)


def test_gilbert_elliott_loss_comes_in_bursts_of_mean_length_one_over_r() -> None:
    ge = GilbertElliott(p_pct=2, r_pct=25)  # 1-h = 100 %: every packet in the bad state lost
    s = shaper(loss_gemodel=ge, seed=8)
    lost = [not through(s) for _ in range(100_000)]
    rate = sum(lost) / len(lost)
    bursts = sum(1 for a, b in zip([False, *lost], lost) if b and not a)
    assert rate == pytest.approx(ge.mean_loss, rel=0.1)  # 0.02 / 0.27 = 7.4 %
    assert sum(lost) / bursts == pytest.approx(1 / 0.25, rel=0.1)
