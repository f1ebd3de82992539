"""Send intervals between messages: fixed, uniform random or exponential (Poisson arrivals).

The SRUP paper sent at random intervals; a fixed interval is the MQTT/CoAP paper's setting.
A seeded generator makes a run's schedule reproducible: the platform puts the seed in the
job, and the same seed gives the same gaps on any device.
"""

from __future__ import annotations

import random
from collections.abc import Callable

FIXED = "fixed"
UNIFORM = "uniform"  # uniform on [0, 2 × mean]: same mean as fixed, maximal spread
EXPONENTIAL = "exponential"  # memoryless: the gaps of a Poisson process with that mean
DISTRIBUTIONS = (FIXED, UNIFORM, EXPONENTIAL)
NS_PER_MS = 1_000_000


def interval_sampler(distribution: str, mean_ms: float, seed: int | None) -> Callable[[], int]:
    """A function giving the next gap in ns. ValueError for an unknown distribution."""
    if distribution not in DISTRIBUTIONS:
        raise ValueError(
            f"interval distribution {distribution!r} is not one of {', '.join(DISTRIBUTIONS)}"
        )
    mean_ns = mean_ms * NS_PER_MS
    if distribution == FIXED or mean_ns == 0:
        fixed = int(mean_ns)
        return lambda: fixed
    rng = random.Random(seed)  # noqa: S311 (a schedule, not a secret)
    if distribution == UNIFORM:
        return lambda: int(rng.uniform(0.0, 2.0 * mean_ns))
    return lambda: int(rng.expovariate(1.0 / mean_ns))
