"""The cells of a cipher-benchmark or throughput experiment (issue #20, point 1).

A benchmark run measures every mechanism on every data size, so a cell is one (spec, per-run
keys aside; mechanism; data size; operation): its completed runs' repetitions (cipher bench)
or windows (throughput), every device of a run pooled as messaging pools them. Its figures,
each the mean of its runs' means (every run weighs the same) with a two-stage bootstrap
interval over runs then repetitions when it has two runs or more, else over its one run's
repetitions (level `repetitions`, blind to run-to-run variation; results.hierarchical):

- cipher bench: seconds per operation (`wall_ns` is per call) and MB/s (data bytes per µs);
- throughput: packets/s (packets over the window's wall time) and MB/s (packets x size);
- both: the peak resident memory, the largest any repetition reported (no interval).
"""

from __future__ import annotations

import zlib
from collections import Counter, defaultdict
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from experiments.models import ExperimentKind, Run, RunStatus
from measurements.models import BenchSample
from results.hierarchical import LEVEL_MESSAGES, Replicates, hierarchical_replicates
from results.services.cells import (
    LEVEL_REPETITIONS,
    Cell,
    CellRun,
    Metric,
    cell_label,
    shown_parameters,
    spec_key,
    varying_parameters,
)
from results.statistics import BOOTSTRAP_SEED

NS_PER_S = 1e9
# One sample: (wall_ns, packets or None, data_bytes); -> the metric's value (None: skip it).
SampleValue = Callable[[int, int | None, int], float | None]


def _seconds(wall_ns: int, packets: int | None, data_bytes: int) -> float | None:
    return wall_ns / NS_PER_S


def _cipher_mb_s(wall_ns: int, packets: int | None, data_bytes: int) -> float | None:
    # bytes per µs = MB/s (decimal megabytes), as the run page's throughput
    return data_bytes * 1e3 / wall_ns if wall_ns else None


def _packets_per_s(wall_ns: int, packets: int | None, data_bytes: int) -> float | None:
    return packets * NS_PER_S / wall_ns if wall_ns and packets is not None else None


def _window_mb_s(wall_ns: int, packets: int | None, data_bytes: int) -> float | None:
    return packets * data_bytes * 1e3 / wall_ns if wall_ns and packets is not None else None


# kind -> (metric name, unit, value of a sample), in the order the table shows them; the
# first is the figure's default.
BENCH_METRICS: dict[str, tuple[tuple[str, str, SampleValue], ...]] = {
    ExperimentKind.CIPHER_BENCH: (("seconds", "s", _seconds), ("mb_s", "MB/s", _cipher_mb_s)),
    ExperimentKind.THROUGHPUT: (
        ("packets_per_s", "packets/s", _packets_per_s),
        ("mb_s", "MB/s", _window_mb_s),
    ),
}
PEAK_MEMORY = ("peak_rss_kb", "kB")

SubKey = tuple[str, int, str]  # (mechanism, data_bytes, operation)
# run id -> sub-cell -> its samples (wall_ns, packets, peak_rss_kb)
Samples = dict[Any, dict[SubKey, list[tuple[int, int | None, int]]]]


def _samples(runs: Sequence[Run]) -> Samples:
    samples: Samples = defaultdict(lambda: defaultdict(list))
    rows = BenchSample.objects.filter(run_device__run__in=runs).values_list(
        "run_device__run_id",
        "mechanism",
        "data_bytes",
        "operation",
        "wall_ns",
        "packets",
        "peak_rss_kb",
    )
    for run_id, mechanism, data_bytes, operation, wall, packets, rss in rows.iterator():
        samples[run_id][(mechanism, data_bytes, operation)].append((wall, packets, rss))
    return samples


def _metric(
    name: str, unit: str, value: SampleValue, size: int, per_run: list[list[Any]], seed: int
) -> tuple[Metric, Replicates | None]:
    arrays = [
        np.array([v for w, p, _ in run if (v := value(w, p, size)) is not None]) for run in per_run
    ]
    # Seconds, MB/s and packets/s are strictly positive: intervals clipped at 0 like delays.
    reps = hierarchical_replicates(arrays, seed=seed, positive=True)
    if reps is None:
        return Metric(name, unit, None, None), None
    return Metric(name, unit, reps.mean, reps.mean_interval()), reps


def _cell(
    kind: str,
    key: str,
    parameters: dict[str, Any],
    done: list[Run],
    others: dict[str, int],
    samples: Samples,
) -> Cell:
    sub: SubKey = (parameters["mechanism"], parameters["data_bytes"], parameters["operation"])
    measured = [(run, samples[run.pk][sub]) for run in done if samples[run.pk].get(sub)]
    per_run = [s for _, s in measured]
    # Each cell its own seed: two cells' resamples are independent.
    seed = BOOTSTRAP_SEED + zlib.crc32(key.encode())
    metrics = []
    first: Replicates | None = None
    clipped = False
    for name, unit, value in BENCH_METRICS[kind]:
        metric, reps = _metric(name, unit, value, sub[1], per_run, seed)
        metrics.append(metric)
        first = first or reps
        clipped = clipped or (reps is not None and reps.clipped())
    peak = max((rss for s in per_run for _, _, rss in s), default=None)
    metrics.append(Metric(*PEAK_MEMORY, None if peak is None else float(peak), None))
    level = None
    if first is not None:
        level = first.level if first.level != LEVEL_MESSAGES else LEVEL_REPETITIONS
    return Cell(
        key=key,
        label=cell_label(parameters),
        parameters=parameters,
        runs=[
            CellRun(run.pk, run.repeat, len(s), 0, mean_ms=None, median_ms=None)
            for run, s in measured
        ],
        other_runs=others,
        interval_level=level,
        messages=sum(len(s) for s in per_run),
        lost=0,
        mean_ms=None,
        mean_ci_ms=None,
        median_ms=None,
        median_ci_ms=None,
        replicates=first,
        ci_clipped=clipped,
        metrics=tuple(metrics),
    )


def bench_cells(*, kind: str, runs: Sequence[Run]) -> list[Cell]:
    """The cells of a benchmark experiment's runs: by spec in queue order of each spec's
    first run, then by mechanism (in the spec's order), data size and operation; labelled
    by the parameters in which the specs differ, then mechanism, size and operation."""
    groups: dict[str, list[Run]] = defaultdict(list)
    for run in runs:
        groups[spec_key(run.spec)].append(run)
    shown = {key: shown_parameters(group[0].spec) for key, group in groups.items()}
    varying = [
        p for p in varying_parameters(list(shown.values())) if p not in ("mechanisms", "data_sizes")
    ]
    done_runs = [r for r in runs if r.status == RunStatus.DONE]
    samples = _samples(done_runs)
    cells = []
    for key, group in groups.items():
        done = [r for r in group if r.status == RunStatus.DONE]
        others = Counter(r.status for r in group if r.status != RunStatus.DONE)
        found = {sub for run in done for sub in samples[run.pk]}
        order = {m: i for i, m in enumerate(group[0].spec.get("mechanisms", []))}
        for mechanism, size, operation in sorted(
            found, key=lambda s: (order.get(s[0], len(order)), s[0], s[1], s[2])
        ):
            parameters = {
                **{p: shown[key].get(p) for p in varying},
                "mechanism": mechanism,
                "data_bytes": size,
                "operation": operation,
            }
            sub_key = spec_key({"cell": key, "sub": [mechanism, size, operation]})
            cells.append(
                _cell(kind, sub_key, parameters, done, dict(sorted(others.items())), samples)
            )
    return cells
