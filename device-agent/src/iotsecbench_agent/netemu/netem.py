"""The netem backend's pure half: a direction's profile as ``tc … netem`` arguments, its
delay table as a ``.dist`` file, and the check of what ``tc -j -s qdisc show`` reads back.
No I/O here (netem_link.py runs the commands), so every rule has a unit test.

Facts taken from iproute2's tc/q_netem.c (the parser and ``netem_print_opt``, iproute2
6.1, the version on this project's machines) and utils.c:

- times are parsed by ``get_time`` into whole microseconds by *truncation* (``115.6ms``
  becomes 115599 µs in double arithmetic), so we pass integer microseconds (``115600us``);
  the kernel keeps them in psched ticks (64 ns), and the JSON read-back prints seconds with
  ``%g`` (6 significant digits);
- percentages are stored as ``rint(p/100 · UINT32_MAX)`` and read back as a fraction (0–1)
  with ``%g``; the next argument counts as a number only if it starts with a digit, so we
  never write ``.5%`` or ``5e-05%``;
- rates are parsed by ``get_rate64`` into bytes/s (bits / 8, truncated) and read back in
  bytes/s;
- ``loss gemodel p r 1-h 1-k``: tc stores the third argument as the kernel's
  ``h = UINT32_MAX − (1-h)`` and prints ``1-h`` back; the kernel (sch_netem.c
  ``loss_gilb_ell``) loses a packet in the bad state when a draw exceeds ``h`` (probability
  1-h) and in the good state with probability ``1-k``: the project's ``one_minus_h_pct`` /
  ``one_minus_k_pct`` are exactly tc's third and fourth arguments;
- ``distribution NAME`` reads ``$TC_LIB_DIR/NAME.dist`` (default ``/usr/lib/…/tc``) into a
  128-byte path: integers read by ``strtol(…, 0)`` (so no leading zeros: they would be
  octal), lines starting with ``#`` skipped, at most 16384 values;
- ``reorder`` without delay is refused by tc, and tc sets ``gap 1`` when none is given.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, NoReturn

from iotsecbench_contract.delaytables import MAX_TABLE_SIZE, DistTable
from iotsecbench_contract.netprofile import DirectionProfile

from iotsecbench_agent.netemu.errors import NetemuError

# The built-in distributions go by their own name (iproute2 ships normal.dist etc.); a
# measured table by a fixed name per direction, since table names may be long (tc builds
# "<TC_LIB_DIR>/<name>.dist" in a 128-byte buffer) and need not be file-name friendly.
MEASURED_DIST = "measured-{direction}"
# Values per line of a .dist file we write (maketable prints 8).
DIST_VALUES_PER_LINE = 8
# Read-back tolerances, from how tc stores and prints the values (module doc): JSON floats
# are printed with %g (6 significant digits, relative error < 5e-6), times live in 64 ns
# ticks, percentages in 1/UINT32_MAX steps, rates in whole bytes/s.
RELATIVE_TOLERANCE = 1e-5
TIME_TOLERANCE_US = 1.0
PERCENT_TOLERANCE = 1e-6  # percentage points
RATE_TOLERANCE_BYTES = 1
# Below these netem stores 0, i.e. nothing: refuse rather than install a different link.
MIN_TIME_US = 1
MIN_RATE_BIT = 8  # one byte per second


class NetemUnexpressible(NetemuError):
    """The profile asks for something netem cannot do (or that could not be read back);
    raised before anything is installed, naming the field."""


class ReadbackMismatch(NetemuError):
    """What the kernel reports for an installed qdisc differs from what was asked."""


@dataclass(frozen=True)
class NetemPlan:
    """One direction's netem: the ``tc`` arguments after ``netem``, and the table file it
    needs in TC_LIB_DIR (None without a table)."""

    direction: str
    args: tuple[str, ...]
    dist_name: str | None
    dist_text: str | None


def plan(direction: str, profile: DirectionProfile, table: DistTable | None) -> NetemPlan:
    """The netem arguments of one direction, or NetemUnexpressible naming the field.
    ``table`` is what tables.resolve() found for it (None: no random delay, or uniform)."""
    args: list[str] = ["limit", str(profile.limit)]
    delay_us = _whole_us(direction, "delay_ms", profile.delay_ms)
    jitter_us = _whole_us(direction, "jitter_ms", profile.jitter_ms)
    if jitter_us and not delay_us:
        # tc refuses a distribution without a delay, and prints no jitter without one, so
        # even a uniform jitter could not be read back.
        raise NetemUnexpressible(
            f"{direction}.jitter_ms: netem needs delay_ms > 0 for a jitter "
            "(tc: 'distribution specified but no latency and jitter values'); "
            "give the direction a delay"
        )
    dist_name: str | None = None
    dist_text: str | None = None
    if delay_us:
        args += ["delay", f"{delay_us}us"]
        if jitter_us:
            args.append(f"{jitter_us}us")
            if table is not None:
                dist_name = (
                    MEASURED_DIST.format(direction=direction)
                    if profile.distribution == "table"
                    else profile.distribution
                )
                dist_text = dist_file_text(table)
                args += ["distribution", dist_name]
    if profile.rate_kbit:
        bits = round(profile.rate_kbit * 1000)
        if bits < MIN_RATE_BIT:
            raise NetemUnexpressible(
                f"{direction}.rate_kbit: {profile.rate_kbit:g} kbit/s is below netem's "
                f"resolution of 1 byte/s ({MIN_RATE_BIT} bit/s)"
            )
        args += ["rate", f"{bits // 1000}kbit" if bits % 1000 == 0 else f"{bits}bit"]
    if profile.loss_gemodel is not None:
        ge = profile.loss_gemodel
        args += ["loss", "gemodel"] + [
            _pct(v) for v in (ge.p_pct, ge.r_pct, ge.one_minus_h_pct, ge.one_minus_k_pct)
        ]
    elif profile.loss_pct:
        args += ["loss", "random", _pct(profile.loss_pct)]
    if profile.duplicate_pct:
        args += ["duplicate", _pct(profile.duplicate_pct)]
    if profile.reorder_pct:
        if not delay_us:  # the profile checks it too; tc: "reordering not possible …"
            raise NetemUnexpressible(f"{direction}.reorder_pct: netem reorders only with a delay")
        args += ["reorder", _pct(profile.reorder_pct)]
    if profile.corrupt_pct:
        args += ["corrupt", _pct(profile.corrupt_pct)]
    return NetemPlan(direction, tuple(args), dist_name, dist_text)


def dist_file_text(table: DistTable) -> str:
    """``table`` in the format tc's ``get_distribution`` reads (maketable's layout)."""
    if not 0 < len(table.values) <= MAX_TABLE_SIZE:
        raise NetemUnexpressible(
            f"table {table.name}: {len(table.values)} values; netem takes 1 to {MAX_TABLE_SIZE}"
        )
    lines = [f"# {table.name}: {len(table.values)} values of (x - mu)/sigma * 8192"]
    for i in range(0, len(table.values), DIST_VALUES_PER_LINE):
        lines.append(" ".join(str(v) for v in table.values[i : i + DIST_VALUES_PER_LINE]))
    return "\n".join(lines) + "\n"


def _whole_us(direction: str, field: str, ms: float) -> int:
    us = round(ms * 1000)
    if ms > 0 and us < MIN_TIME_US:
        raise NetemUnexpressible(
            f"{direction}.{field}: {ms:g} ms is below netem's resolution of 1 µs"
        )
    return us


def _pct(value: float) -> str:
    """A percentage tc parses exactly and that starts with a digit (``0.05%``)."""
    text = f"{value:.10f}".rstrip("0").rstrip(".")
    return f"{text}%"


# -- read-back -------------------------------------------------------------------------------


def find_qdisc(
    qdiscs: Sequence[Mapping[str, Any]], *, kind: str | None = None, root: bool = False,
    handle: str | None = None,
) -> Mapping[str, Any] | None:  # fmt: skip
    """The first entry of ``tc -j qdisc show`` output matching the given properties."""
    for entry in qdiscs:
        if kind is not None and entry.get("kind") != kind:
            continue
        if root and not entry.get("root"):
            continue
        if handle is not None and entry.get("handle") != handle:
            continue
        return entry
    return None


def check_readback(
    direction: str, profile: DirectionProfile, qdisc: Mapping[str, Any] | None
) -> dict[str, Any]:
    """Compare the netem qdisc tc reports (an entry of ``tc -j -s qdisc show``) with the
    direction's profile; return its ``options`` when every field matches, else raise
    ReadbackMismatch naming the first field that does not. JSON shapes: q_netem.c
    ``netem_print_opt`` (module doc)."""
    if qdisc is None or qdisc.get("kind") != "netem":
        found = "nothing" if qdisc is None else f"a {qdisc.get('kind')!r} qdisc"
        raise ReadbackMismatch(f"{direction}: no netem qdisc installed ({found} read back)")
    options = qdisc.get("options")
    if not isinstance(options, Mapping):
        raise ReadbackMismatch(f"{direction}: the netem qdisc reports no options")
    mismatch = _Mismatch(direction)
    mismatch.exact("limit", profile.limit, options.get("limit"))
    delay = options.get("delay")
    delay_us = round(profile.delay_ms * 1000)
    jitter_us = round(profile.jitter_ms * 1000) if delay_us else 0
    if delay_us:
        if not isinstance(delay, Mapping):
            mismatch.fail("delay_ms", f"{profile.delay_ms:g} ms", "no delay")
        else:
            mismatch.seconds("delay_ms", delay_us, delay.get("delay"))
            mismatch.seconds("jitter_ms", jitter_us, delay.get("jitter"))
            mismatch.fraction("delay correlation", 0.0, delay.get("correlation", 0))
    elif delay is not None:
        mismatch.fail("delay_ms", "no delay", _describe(delay))
    rate = options.get("rate")
    if profile.rate_kbit:
        expected_bytes = round(profile.rate_kbit * 1000) // 8
        got = rate.get("rate") if isinstance(rate, Mapping) else None
        if not isinstance(got, int) or abs(got - expected_bytes) > RATE_TOLERANCE_BYTES:
            mismatch.fail("rate_kbit", f"{expected_bytes} bytes/s", _describe(got))
        elif isinstance(rate, Mapping):
            for key in ("packetoverhead", "cellsize", "celloverhead"):
                mismatch.exact(f"rate {key}", 0, rate.get(key, 0))
    elif rate is not None:
        mismatch.fail("rate_kbit", "no rate", _describe(rate))
    _check_loss(mismatch, profile, options)
    for key, value in (
        ("duplicate", profile.duplicate_pct),
        ("reorder", profile.reorder_pct),
        ("corrupt", profile.corrupt_pct),
    ):
        _check_percent_block(mismatch, f"{key}_pct", key, value, options.get(key))
    mismatch.exact("gap", 1 if profile.reorder_pct else 0, options.get("gap", 0))
    if options.get("ecn"):
        mismatch.fail("ecn", "off", "on")
    if "slot" in options or "loss-state" in options:
        mismatch.fail("options", "no slot, no 4-state loss", _describe(options))
    return dict(options)


def _check_loss(mismatch: _Mismatch, profile: DirectionProfile, options: Mapping[str, Any]) -> None:
    ge = profile.loss_gemodel
    got_ge = options.get("loss-gemodel")
    if ge is not None:
        if not isinstance(got_ge, Mapping):
            mismatch.fail("loss_gemodel", "a Gilbert-Elliott model", _describe(got_ge))
        else:
            for key, value in (
                ("p", ge.p_pct),
                ("r", ge.r_pct),
                ("1-h", ge.one_minus_h_pct),
                ("1-k", ge.one_minus_k_pct),
            ):
                mismatch.fraction(f"loss_gemodel {key}", value, got_ge.get(key))
    elif got_ge is not None:
        mismatch.fail("loss_gemodel", "none", _describe(got_ge))
    random_pct = 0.0 if ge is not None else profile.loss_pct
    _check_percent_block(mismatch, "loss_pct", "loss", random_pct, options.get("loss-random"))


def _check_percent_block(
    mismatch: _Mismatch, field: str, key: str, value: float, block: object
) -> None:
    if value:
        if not isinstance(block, Mapping):
            mismatch.fail(field, f"{value:g} %", _describe(block))
        else:
            mismatch.fraction(field, value, block.get(key))
            mismatch.fraction(f"{field} correlation", 0.0, block.get("correlation", 0))
    elif block is not None:
        mismatch.fail(field, "none", _describe(block))


class _Mismatch:
    """Comparisons that raise ReadbackMismatch naming ``<direction>.<field>``."""

    def __init__(self, direction: str) -> None:
        self.direction = direction

    def fail(self, field: str, asked: str, got: str) -> NoReturn:
        raise ReadbackMismatch(f"{self.direction}.{field}: asked {asked}, the kernel reports {got}")

    def exact(self, field: str, asked: int, got: object) -> None:
        if not isinstance(got, int) or isinstance(got, bool) or got != asked:
            self.fail(field, str(asked), _describe(got))

    def seconds(self, field: str, asked_us: int, got: object) -> None:
        number = _number(got)
        if number is None:
            self.fail(field, f"{asked_us / 1000:g} ms", _describe(got))
        got_us = number * 1e6
        if abs(got_us - asked_us) > max(TIME_TOLERANCE_US, RELATIVE_TOLERANCE * asked_us):
            self.fail(field, f"{asked_us / 1000:g} ms", f"{got_us / 1000:g} ms")

    def fraction(self, field: str, asked_pct: float, got: object) -> None:
        number = _number(got)
        if number is None:
            self.fail(field, f"{asked_pct:g} %", _describe(got))
        got_pct = number * 100
        if abs(got_pct - asked_pct) > max(PERCENT_TOLERANCE, RELATIVE_TOLERANCE * asked_pct):
            self.fail(field, f"{asked_pct:g} %", f"{got_pct:g} %")


def _number(value: object) -> float | None:
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return None
    return float(value) if math.isfinite(value) else None


def _describe(value: object) -> str:
    return "nothing" if value is None else repr(value)


# -- counters --------------------------------------------------------------------------------

STAT_KEYS = ("bytes", "packets", "drops", "overlimits", "requeues", "backlog", "qlen")


def qdisc_stats(qdisc: Mapping[str, Any] | None) -> dict[str, int] | None:
    """The statistics ``tc -s`` prints for a qdisc (sent bytes and packets, drops, …)."""
    if qdisc is None:
        return None
    return {key: int(qdisc.get(key, 0)) for key in STAT_KEYS}
