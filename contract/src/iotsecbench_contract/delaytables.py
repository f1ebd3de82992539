"""netem delay distribution tables: iproute2's ``maketable`` format, the built-in normal,
pareto and paretonormal tables, measured tables with their µ and σ, and sampling as the
kernel's ``tabledist`` does.

A table holds values of (x − µ)/σ · 8192 (NETEM_DIST_SCALE); a draw is
µ + σ · table[random] / 8192. netem's correlated draws (``delay µ σ ρ``) are not
implemented: every draw is independent (the kernel's correlation does not produce the
stated correlation either, and no profile of ours uses it).
"""

from __future__ import annotations

import functools
import math
import random
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from importlib import resources
from pathlib import Path

from iotsecbench_contract.errors import TableError
from iotsecbench_contract.netprofile import DirectionProfile, parse_direction

NETEM_DIST_SCALE = 8192
# maketable writes 4096 values; tc accepts up to MAX_DIST = 16384 (tc/q_netem.c).
MAX_TABLE_SIZE = 16_384
# Where iproute2 installs its tables (Debian: multiarch; others: /usr/lib{,64}/tc).
SYSTEM_TABLE_DIRS = (
    "/usr/lib/x86_64-linux-gnu/tc",
    "/usr/lib/aarch64-linux-gnu/tc",
    "/usr/lib/arm-linux-gnueabihf/tc",
    "/usr/lib/tc",
    "/usr/lib64/tc",
    "/usr/share/tc",
)
BUILTIN = ("normal", "pareto", "paretonormal")
# mobile-latency-emulator's file of "<name> <µ ms> <σ ms>" lines, beside its tables.
PROFILE_INFO = "profile_info.txt"
# The network-profile catalogue's data, package data of this package (pyproject.toml's
# package-data): the measured tables, their profile_info.txt, profiles_summary.csv and the
# SRUP paper's conditions, so an agent or a backend installed without the repository has them.
CATALOGUE_DIR = "network-profiles"


def catalogue_dir() -> Path:
    """The directory of the catalogue's data (measured tables, ``PROFILE_INFO``,
    ``profiles_summary.csv``, ``srup-conditions.json``) in the installed package.

    A directory on disk, as every pip install (wheel or editable) unpacks one; TableError
    if this package was imported from somewhere that has none (a zip file)."""
    found = resources.files("iotsecbench_contract") / CATALOGUE_DIR
    if not isinstance(found, Path) or not found.is_dir():
        raise TableError(
            f"iotsecbench_contract has no {CATALOGUE_DIR}/ directory on disk ({found}): "
            "install the package with pip (pip install ./contract)"
        )
    return found


@dataclass(frozen=True)
class DistTable:
    """A distribution table: signed 16-bit values of (x − µ)/σ · 8192."""

    name: str
    values: tuple[int, ...]

    @property
    def mean(self) -> float:
        """Mean of the standardised values (≈ 0 for a well-made table)."""
        return sum(self.values) / len(self.values) / NETEM_DIST_SCALE

    @property
    def stdev(self) -> float:
        """Population σ of the standardised values (≈ 1 for a well-made table)."""
        m = self.mean * NETEM_DIST_SCALE
        var = sum((v - m) ** 2 for v in self.values) / len(self.values)
        return math.sqrt(var) / NETEM_DIST_SCALE

    def quantile_ms(self, q: float, mu_ms: float, sigma_ms: float) -> float:
        """The q-quantile (0–1) of the delay this table gives with µ and σ."""
        ordered = sorted(self.values)
        index = min(len(ordered) - 1, max(0, math.ceil(q * len(ordered)) - 1))
        return mu_ms + sigma_ms * ordered[index] / NETEM_DIST_SCALE


def parse_table(text: str, name: str) -> DistTable:
    """A table from ``maketable`` output: whitespace-separated integers, ``#`` comments."""
    values: list[int] = []
    for number, line in enumerate(text.splitlines(), start=1):
        for word in line.split("#", 1)[0].split():
            try:
                value = int(word)
            except ValueError:
                raise TableError(f"{name}, line {number}: {word!r} is not an integer") from None
            if not -32768 <= value <= 32767:
                raise TableError(f"{name}, line {number}: {value} is outside -32768…32767")
            values.append(value)
    if not values:
        raise TableError(f"{name}: no values (expected maketable output, 4096 integers)")
    if len(values) > MAX_TABLE_SIZE:
        raise TableError(f"{name}: {len(values)} values; netem takes at most {MAX_TABLE_SIZE}")
    return DistTable(name, tuple(values))


def load_table(path: Path | str) -> DistTable:
    """The table in a file (a ``.dist`` of iproute2 or a measured profile)."""
    path = Path(path)
    try:
        text = path.read_text(encoding="ascii")
    except (OSError, UnicodeDecodeError) as exc:
        raise TableError(f"cannot read table {path}: {exc}") from exc
    return parse_table(text, path.name)


@functools.cache
def builtin_table(kind: str) -> DistTable:
    """iproute2's own normal/pareto/paretonormal table when installed, else the same table
    computed by the algorithm of iproute2's netem/{normal,pareto,paretonormal}.c."""
    if kind not in BUILTIN:
        raise TableError(f"{kind!r} is not a built-in distribution ({', '.join(BUILTIN)})")
    for directory in SYSTEM_TABLE_DIRS:
        path = Path(directory, f"{kind}.dist")
        if path.is_file():
            return load_table(path)
    return generate_table(kind)


def generate_table(kind: str) -> DistTable:
    """The table iproute2's generator for ``kind`` prints (same loops, same rounding)."""
    if kind == "normal":
        values = [_clip(round(x * NETEM_DIST_SCALE)) for x in _normal_inverse()[::4]]
    elif kind == "pareto":
        values = [_pareto_value(i) for i in range(65536, 0, -16)]
    elif kind == "paretonormal":
        normal = _normal_inverse()
        values = []
        for i in range(0, _TABLESIZE, 4):
            norm = round(normal[i] * NETEM_DIST_SCALE)
            par = _pareto_value(65536 - 4 * i)
            values.append(_clip(int((norm + 3 * par) / 4)))  # C integer division: truncates
    else:
        raise TableError(f"{kind!r} is not a built-in distribution ({', '.join(BUILTIN)})")
    return DistTable(kind, tuple(values))


_TABLESIZE = 16384
_PARETO_A = 3.0


@functools.lru_cache(maxsize=1)
def _normal_inverse() -> tuple[float, ...]:
    # netem/normal.c: walk x over [-10, 10.05) in steps of 5e-5 and keep, for each rounded
    # CDF index, the last x that lands there: an inverse CDF on 16384 points.
    table = [0.0] * (_TABLESIZE + 1)
    x = -10.0
    sqrt2 = math.sqrt(2.0)
    while x < 10.05:
        table[round(_TABLESIZE * (0.5 + 0.5 * math.erf(x / sqrt2)))] = x
        x += 0.00005
    return tuple(table[:_TABLESIZE])


def _pareto_value(i: int) -> int:
    # netem/pareto.c: the inverse CDF of a Pareto with a = 3, shifted by its mean (1.5)
    # and scaled by 1/σ (3/4): (1/u^(1/a) − 1.5) · 4/3 · 8192, capped at 32767.
    value: float = (1.0 / (i / 65536) ** (1.0 / _PARETO_A) - 1.5) * (4.0 / 3.0) * NETEM_DIST_SCALE
    return round(min(value, 32767.0))


def _clip(value: int) -> int:
    return max(-32768, min(32767, value))


# -- measured tables -------------------------------------------------------------------------


@dataclass(frozen=True)
class MeasuredTable:
    """A measured delay table with the µ and σ (ms) it was made from."""

    table: DistTable
    mu_ms: float
    sigma_ms: float

    def direction(self, **extra: object) -> DirectionProfile:
        """A direction that draws its delay from this table (extra fields: rate, loss…)."""
        return parse_direction(
            {
                "delay_ms": self.mu_ms,
                "jitter_ms": self.sigma_ms,
                "distribution": "table",
                "table": self.table.name,
                **extra,
            },
            self.table.name,
        )


def read_profile_info(path: Path | str) -> dict[str, tuple[float, float]]:
    """``<name> <µ ms> <σ ms>`` per line → {name: (µ, σ)}."""
    path = Path(path)
    try:
        lines = path.read_text(encoding="utf-8").splitlines()
    except OSError as exc:
        raise TableError(f"cannot read {path}: {exc}") from exc
    info: dict[str, tuple[float, float]] = {}
    for number, line in enumerate(lines, start=1):
        words = line.split("#", 1)[0].split()
        if not words:
            continue
        try:
            name, mu, sigma = words[0], float(words[1]), float(words[2])
        except (IndexError, ValueError):
            raise TableError(f"{path}, line {number}: expected '<name> <µ ms> <σ ms>'") from None
        info[name] = (mu, sigma)
    return info


def find_measured(name: str, directories: Iterable[Path | str]) -> MeasuredTable:
    """The measured table ``name`` and its µ/σ from the first directory holding both."""
    searched: list[str] = []
    for directory in directories:
        path = Path(directory, name)
        searched.append(str(directory))
        if not path.is_file():
            continue
        info = read_profile_info(Path(directory, PROFILE_INFO))
        if name not in info:
            raise TableError(f"{name}: no µ/σ line in {Path(directory, PROFILE_INFO)}")
        mu, sigma = info[name]
        return MeasuredTable(load_table(path), mu, sigma)
    raise TableError(f"measured table {name!r} not found in {', '.join(searched) or 'no dir'}")


def resolve(
    direction: DirectionProfile, directories: Sequence[Path | str] = ()
) -> DistTable | None:
    """The table a direction draws from: None when it draws no random delay or draws
    uniformly (netem with no table), a built-in table, or a measured one found in
    ``directories``."""
    if direction.jitter_ms == 0 or direction.distribution == "uniform":
        return None
    if direction.distribution == "table":
        assert direction.table is not None  # the profile checked it
        for directory in directories:
            path = Path(directory, direction.table)
            if path.is_file():
                return load_table(path)
        raise TableError(
            f"measured table {direction.table!r} not found in "
            f"{', '.join(str(d) for d in directories) or 'no table directory'}"
        )
    return builtin_table(direction.distribution)


class DelaySampler:
    """Per-packet delays (ns) of one direction, drawn as the kernel's ``tabledist``."""

    def __init__(
        self, direction: DirectionProfile, table: DistTable | None, rng: random.Random
    ) -> None:
        self._mu = direction.delay_ms * 1e6
        self._sigma = direction.jitter_ms * 1e6
        self._scale = self._sigma / NETEM_DIST_SCALE
        self._values = table.values if table is not None else None
        self._random = rng.random
        self._randrange = rng.randrange
        self._size = len(table.values) if table is not None else 0

    def draw(self) -> int:
        """One delay in ns; may be negative with a large jitter (the packet then leaves
        at once, as in netem)."""
        if self._sigma == 0:
            return int(self._mu)
        if self._values is None:  # netem without a table: uniform in [µ − σ, µ + σ)
            return int(self._mu + self._sigma * (2.0 * self._random() - 1.0))
        return int(self._mu + self._scale * self._values[int(self._random() * self._size)])
