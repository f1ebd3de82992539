"""A link profile: what an emulated link does to packets, per direction, with netem's
meaning for every field (tc-netem(8); docs/network-emulation.md lists where we differ).

Directions are named from the device's side, as netem on the device's interface would be:
``egress`` is device → platform (packets leaving the device's namespace), ``ingress`` is
platform → device. A JSON profile gives either ``both`` or ``egress``/``ingress``; a
direction left out is not shaped.

    {"both": {"rate_kbit": 384, "delay_ms": 115.6}}
    {"egress": {"delay_ms": 122.65, "jitter_ms": 40.36, "distribution": "table",
                "table": "TIM.bad.3G.no_roaming"}}
"""

from __future__ import annotations

import math
import re
from collections.abc import Mapping
from dataclasses import dataclass, fields
from typing import Any, Literal, cast

from iotsecbench_contract.errors import ProfileError

Distribution = Literal["uniform", "normal", "pareto", "paretonormal", "table"]
DISTRIBUTIONS: tuple[Distribution, ...] = ("uniform", "normal", "pareto", "paretonormal", "table")
# tcconfig's tcset (which the SRUP paper used) and the tc-netem man page default to normal;
# tc itself sends no table without ``distribution``, and the kernel then draws uniformly:
# ``uniform`` is there to reproduce that.
DEFAULT_DISTRIBUTION: Distribution = "normal"
DIRECTIONS = ("egress", "ingress")
# netem's default ``limit``: packets held (delayed or queued) before tail drop.
DEFAULT_LIMIT = 1000
# A Python forwarder moves tens of thousands of packets/s; 10 Gbit/s is far above what it
# can shape, so larger figures are typos (units), not intentions.
MAX_RATE_KBIT = 10_000_000.0
# A minute each way is beyond any measured profile (the worst table's tail is < 1.5 s) and
# keeps the packets a full queue holds for bounded time.
MAX_DELAY_MS = 60_000.0
MAX_LIMIT = 100_000
# Table names are file names in a table directory: no path separators, no dot files.
TABLE_NAME = re.compile(r"^[A-Za-z0-9_][A-Za-z0-9_.+-]{0,127}$")

PERCENT = "a number from 0 to 100 (percent)"


@dataclass(frozen=True)
class GilbertElliott:
    """netem's ``loss gemodel p r 1-h 1-k``, in percent: a good and a bad state;
    ``p`` = good → bad, ``r`` = bad → good, ``one_minus_h`` = loss in the bad state,
    ``one_minus_k`` = loss in the good state (defaults as tc-netem(8): r = 100 − p,
    1-h = 100, 1-k = 0, which is Bernoulli loss of p)."""

    p_pct: float
    r_pct: float
    one_minus_h_pct: float = 100.0
    one_minus_k_pct: float = 0.0

    @property
    def mean_loss(self) -> float:
        """The stationary loss probability (0–1)."""
        p, r = self.p_pct / 100, self.r_pct / 100
        if p + r == 0:  # never leaves the good state
            return self.one_minus_k_pct / 100
        bad = p / (p + r)
        return bad * self.one_minus_h_pct / 100 + (1 - bad) * self.one_minus_k_pct / 100


@dataclass(frozen=True)
class DirectionProfile:
    """What one direction of the link does; the defaults do nothing (an unshaped LAN)."""

    rate_kbit: float = 0.0  # 0 = unlimited; kbit = 1000 bit/s, as tc
    delay_ms: float = 0.0
    jitter_ms: float = 0.0  # σ of the distribution (half-width for uniform)
    distribution: Distribution = DEFAULT_DISTRIBUTION
    table: str | None = None  # the measured table's name, for distribution "table"
    loss_pct: float = 0.0
    loss_gemodel: GilbertElliott | None = None
    duplicate_pct: float = 0.0
    reorder_pct: float = 0.0
    corrupt_pct: float = 0.0
    limit: int = DEFAULT_LIMIT

    @property
    def shaped(self) -> bool:
        """True when this direction changes anything."""
        return self != DirectionProfile(limit=self.limit)

    @property
    def mean_loss(self) -> float:
        """The expected fraction of packets lost (0–1), from either loss model."""
        if self.loss_gemodel is not None:
            return self.loss_gemodel.mean_loss
        return self.loss_pct / 100

    def to_dict(self) -> dict[str, Any]:
        """The JSON form, only the fields that differ from the defaults."""
        out: dict[str, Any] = {}
        for f in fields(self):
            value = getattr(self, f.name)
            if value == f.default:
                continue
            if isinstance(value, GilbertElliott):
                value = {g.name: getattr(value, g.name) for g in fields(value)}
            out[f.name] = value
        return out


@dataclass(frozen=True)
class LinkProfile:
    """Both directions of a link."""

    egress: DirectionProfile = DirectionProfile()
    ingress: DirectionProfile = DirectionProfile()

    @classmethod
    def parse(cls, data: object) -> LinkProfile:
        """The profile of a JSON-compatible dict, or ProfileError naming the field."""
        if not isinstance(data, Mapping):
            raise ProfileError("profile", f"{type(data).__name__} is not an object", _TOP)
        unknown = sorted(str(k) for k in data if k not in ("both", *DIRECTIONS))
        if unknown:
            raise ProfileError(unknown[0], "unknown key", _TOP)
        if "both" in data and any(d in data for d in DIRECTIONS):
            raise ProfileError("both", "given together with egress/ingress", _TOP)
        if "both" in data:
            both = parse_direction(data["both"], "both")
            return cls(egress=both, ingress=both)
        return cls(
            egress=parse_direction(data.get("egress", {}), "egress"),
            ingress=parse_direction(data.get("ingress", {}), "ingress"),
        )

    def to_dict(self) -> dict[str, Any]:
        if self.egress == self.ingress:
            return {"both": self.egress.to_dict()}
        return {"egress": self.egress.to_dict(), "ingress": self.ingress.to_dict()}

    def direction(self, name: str) -> DirectionProfile:
        if name not in DIRECTIONS:
            raise ValueError(f"direction {name!r} is not one of {DIRECTIONS}")
        return cast(DirectionProfile, getattr(self, name))

    def tables(self) -> set[str]:
        """The names of the measured tables this profile needs."""
        return {d.table for d in (self.egress, self.ingress) if d.table is not None}


_TOP = 'an object with "both", or with "egress" and/or "ingress"'
_DIRECTION_KEYS = tuple(f.name for f in fields(DirectionProfile))
_GE_KEYS = tuple(f.name for f in fields(GilbertElliott))


def parse_direction(data: object, path: str) -> DirectionProfile:
    """One direction's profile, validated as netem would (and a little stricter)."""
    if not isinstance(data, Mapping):
        raise ProfileError(path, f"{type(data).__name__} is not an object", "an object")
    for key in data:
        if key not in _DIRECTION_KEYS:
            raise ProfileError(f"{path}.{key}", "unknown key", ", ".join(_DIRECTION_KEYS))
    rate = _number(data, path, "rate_kbit", 0.0, MAX_RATE_KBIT, "kbit/s, 0 = unlimited")
    delay = _number(data, path, "delay_ms", 0.0, MAX_DELAY_MS, "milliseconds")
    jitter = _number(data, path, "jitter_ms", 0.0, MAX_DELAY_MS, "milliseconds")
    loss = _number(data, path, "loss_pct", 0.0, 100.0, PERCENT)
    duplicate = _number(data, path, "duplicate_pct", 0.0, 100.0, PERCENT)
    reorder = _number(data, path, "reorder_pct", 0.0, 100.0, PERCENT)
    corrupt = _number(data, path, "corrupt_pct", 0.0, 100.0, PERCENT)
    limit = data.get("limit", DEFAULT_LIMIT)
    if not isinstance(limit, int) or isinstance(limit, bool) or not 1 <= limit <= MAX_LIMIT:
        raise ProfileError(
            f"{path}.limit", f"{limit!r} is not a whole number of packets", f"1 to {MAX_LIMIT}"
        )
    distribution = data.get("distribution", DEFAULT_DISTRIBUTION)
    if distribution not in DISTRIBUTIONS:
        raise ProfileError(
            f"{path}.distribution", f"{distribution!r} is not known", ", ".join(DISTRIBUTIONS)
        )
    if "distribution" in data and jitter == 0:
        # tc refuses it too: "distribution specified but no latency and jitter values".
        raise ProfileError(
            f"{path}.distribution", "given without jitter_ms", "a distribution with jitter_ms > 0"
        )
    table = data.get("table")
    if distribution == "table":
        if not isinstance(table, str) or not TABLE_NAME.match(table):
            raise ProfileError(
                f"{path}.table",
                f"{table!r} is not a table name",
                "the file name of a measured table (letters, digits, _ . + -)",
            )
        if delay == 0:
            raise ProfileError(
                f"{path}.delay_ms", "0 with a measured table", "the table's mean µ in ms (> 0)"
            )
    elif table is not None:
        raise ProfileError(
            f"{path}.table", 'given without "distribution": "table"', "a table only with it"
        )
    if reorder > 0 and delay == 0:
        # tc: "reordering not possible without specifying some delay": reordered packets
        # are the ones sent at once while the rest wait.
        raise ProfileError(f"{path}.reorder_pct", "set without delay_ms", "reorder with delay")
    gemodel = _gemodel(data.get("loss_gemodel"), f"{path}.loss_gemodel")
    if gemodel is not None and loss > 0:
        raise ProfileError(
            f"{path}.loss_gemodel", "given together with loss_pct", "one loss model per direction"
        )
    return DirectionProfile(
        rate_kbit=rate,
        delay_ms=delay,
        jitter_ms=jitter,
        distribution=cast(Distribution, distribution),
        table=table,
        loss_pct=loss,
        loss_gemodel=gemodel,
        duplicate_pct=duplicate,
        reorder_pct=reorder,
        corrupt_pct=corrupt,
        limit=limit,
    )


def _gemodel(data: object, path: str) -> GilbertElliott | None:
    if data is None:
        return None
    allowed = "an object with p_pct and optional r_pct, one_minus_h_pct, one_minus_k_pct"
    if not isinstance(data, Mapping):
        raise ProfileError(path, f"{type(data).__name__} is not an object", allowed)
    for key in data:
        if key not in _GE_KEYS:
            raise ProfileError(f"{path}.{key}", "unknown key", ", ".join(_GE_KEYS))
    if "p_pct" not in data:
        raise ProfileError(f"{path}.p_pct", "missing", PERCENT)
    p = _number(data, path, "p_pct", 0.0, 100.0, PERCENT)
    return GilbertElliott(
        p_pct=p,
        r_pct=_number(data, path, "r_pct", 0.0, 100.0, PERCENT, default=100.0 - p),
        one_minus_h_pct=_number(data, path, "one_minus_h_pct", 0.0, 100.0, PERCENT, 100.0),
        one_minus_k_pct=_number(data, path, "one_minus_k_pct", 0.0, 100.0, PERCENT, 0.0),
    )


def _number(
    data: Mapping[str, Any],
    path: str,
    key: str,
    low: float,
    high: float,
    unit: str,
    default: float = 0.0,
) -> float:
    value = data.get(key, default)
    field = f"{path}.{key}"
    allowed = f"{unit}, from {low:g} to {high:g}"
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise ProfileError(field, f"{value!r} is not a number", allowed)
    if not math.isfinite(value):
        raise ProfileError(field, f"{value!r} is not finite", allowed)
    if value < low:
        raise ProfileError(field, f"{value:g} is below {low:g}", allowed)
    if value > high:
        raise ProfileError(field, f"{value:g} is above {high:g}", allowed)
    return float(value)
