"""An experiment's results per cell of its matrix, and each cell's overhead against a
baseline cell, with run-level (two-stage bootstrap) intervals (results.hierarchical;
docs/results.md, "Experiment results").

A cell is the runs whose frozen specs agree on everything but the per-run keys
(results.pairing.repeat_key): the repeats of one parameter combination. Only completed runs
(status done) are measured; a cell says how many of its other runs exist, by status.
"""

from __future__ import annotations

import hashlib
import json
import zlib
from collections import Counter, defaultdict
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any
from uuid import UUID

import numpy as np
from django.core.cache import cache
from django.db.models import Prefetch

from core.exceptions import ApplicationError
from experiments.matrix import build as build_matrix
from experiments.models import (
    Experiment,
    ExperimentKind,
    Measurement,
    Run,
    RunDevice,
    RunStatus,
)
from results.hierarchical import (
    LEVEL_RUNS,
    CellDifference,
    Replicates,
    cell_difference,
    hierarchical_replicates,
    stage_one_replicates,
)
from results.services.cells import (
    Cell,
    CellRun,
    Metric,
    cell_label,
    shown_parameters,
    spec_key,
    varying_parameters,
)
from results.services.interleaved import Part, PartRun, paired_differences, part_run_load, run_parts
from results.services.kinds.bench_cells import bench_cells
from results.services.methods_ack import MEASURED, measured_quantity
from results.services.run_replicates import runs_replicates
from results.statistics import BOOTSTRAP_SEED, CONFIDENCE

CELL_MEMO_KEY = "results:experiment-cell:v3:{digest}"
# A day, as the run statistics: a cell of completed runs never changes (its runs' records
# are final); a new completed repeat makes another set of runs, hence another key.
CELL_MEMO_SECONDS = 24 * 3600

VERDICT_SLOWER = "slower"
VERDICT_FASTER = "faster"
VERDICT_NO_DIFFERENCE = "no_difference"
VERDICT_CHOICES = [VERDICT_SLOWER, VERDICT_FASTER, VERDICT_NO_DIFFERENCE]
_VERDICT_TEXT = {
    (VERDICT_NO_DIFFERENCE, True): "no detectable difference beyond run-to-run variation",
    (VERDICT_SLOWER, True): "slower than the baseline beyond run-to-run variation",
    (VERDICT_FASTER, True): "faster than the baseline beyond run-to-run variation",
    (VERDICT_NO_DIFFERENCE, False): "no detectable difference between messages; run-to-run "
    "variation is not measured (a cell has one completed run: repeat it)",
    (VERDICT_SLOWER, False): "slower than the baseline at the message level only; run-to-run "
    "variation is not measured (a cell has one completed run: repeat it)",
    (VERDICT_FASTER, False): "faster than the baseline at the message level only; run-to-run "
    "variation is not measured (a cell has one completed run: repeat it)",
}
UNKNOWN_BASELINE_MESSAGE = (
    "baseline {key!r} is not a cell of this experiment with completed runs; use one of: {keys}."
)
NOT_MESSAGING_MESSAGE = (
    "Experiment {experiment_id} is a {kind} experiment: overheads against a baseline cell "
    "are of round trips, for messaging experiments; its cells give their own figures."
)


class UnknownBaselineCell(ApplicationError):
    code = "unknown_baseline_cell"
    status_code = 400


class ExperimentHasNoRoundTrips(ApplicationError):
    code = "experiment_has_no_round_trips"
    status_code = 400


@dataclass(frozen=True)
class CellFigures:
    """What a cell's completed runs measured (memoized per set of runs)."""

    runs: list[CellRun]
    replicates: Replicates | None = field(repr=False)
    parts: list[PartRun] | None = field(default=None, repr=False)


@dataclass(frozen=True)
class Overhead:
    """A cell against its baseline cell: the difference of their means (ms)."""

    cell: str
    baseline: str
    label: str
    baseline_label: str
    interval_level: str
    overhead_ms: float
    ci_ms: tuple[float, float]
    relative_percent: float
    relative_ci_percent: tuple[float, float]
    verdict: str
    verdict_text: str
    # 1000 / overhead_ms: how many messages a second the added work alone allows; only when
    # the overhead is above zero (the interval's upper end None when it reaches zero).
    max_rate_per_s: float | None
    max_rate_ci_per_s: tuple[float, float | None] | None
    # Both cells are mechanisms of the same interleaved runs: the differences are paired by
    # rotation cycle (results.services.interleaved.paired_differences).
    paired: bool = False


@dataclass(frozen=True)
class ExperimentResults:
    experiment_id: UUID
    kind: str
    confidence: float
    baseline: str | None  # the cell asked for, None: each cell's security-none twin
    cells: list[Cell]
    overheads: list[Overhead]
    # What a messaging experiment's figures are ("round-trip time", "one-way delay",
    # "acknowledgement time (CON → ACK)"); "" for a benchmark's.
    quantity: str = ""


def experiment_runs(*, experiment: Experiment) -> list[Run]:
    """Every run of the experiment, in queue order, with its devices."""
    return list(
        Run.objects.filter(experiment=experiment)
        .order_by("position", "created_at")
        .prefetch_related(
            Prefetch("run_devices", queryset=RunDevice.objects.select_related("device"))
        )
    )


def _in_matrix_order(experiment: Experiment, runs: list[Run]) -> list[Run]:
    """The runs sorted by their cell's place in the matrix (first axis outermost), queue
    order within a cell: runs are queued shuffled within each repeat block
    (experiments.matrix.run_order), cells are shown in the order the design lists them."""
    cells = build_matrix(experiment.axes, experiment.exclusions, lambda _p, v: v).cells
    index = {json.dumps(c, sort_keys=True): n for n, c in enumerate(cells)}
    return sorted(runs, key=lambda r: index.get(json.dumps(r.cell, sort_keys=True), len(index)))


def _memo_key(runs: Sequence[Run], part: Part | None) -> tuple[str, int]:
    """A cell's memo key and its stage-1 seed, both from its set of runs (and part)."""
    ids = ",".join(sorted(str(r.pk) for r in runs))
    if part is not None:
        ids += f"|{part.index}/{part.k}"
    digest = hashlib.sha256(ids.encode()).hexdigest()
    # Each cell its own stage-1 seed (from its runs), each run its own stage-2 seed: two
    # cells' resamples are independent.
    return CELL_MEMO_KEY.format(digest=digest), BOOTSTRAP_SEED + zlib.crc32(digest.encode())


def _cells_figures(
    done: dict[str, list[Run]], parts: dict[str, Part | None]
) -> dict[str, CellFigures]:
    """Each cell's figures (its completed runs'): from the memos (one cache read for all
    cells), else computed: every missing run's figures at once (results.services.
    run_replicates, one query for all runs' round trips when those are missing too), then
    each cell's bootstrap over them; of ``part``'s mechanism only for an interleaved run
    (its messages split here, so bootstrapped whole)."""
    keys = {key: _memo_key(runs, parts[key]) for key, runs in done.items() if runs}
    memos = cache.get_many([memo for memo, _seed in keys.values()])
    figures = {key: CellFigures([], None) for key, runs in done.items() if not runs}
    missing = []
    for key, (memo, _seed) in keys.items():
        found = memos.get(memo)
        if isinstance(found, CellFigures):
            figures[key] = found
        else:
            missing.append(key)
    whole = {r.pk: r for key in missing if parts[key] is None for r in done[key]}
    per_run = {r.run_id: r for r in runs_replicates(runs=list(whole.values()))} if whole else {}
    fresh = {}
    for key in missing:
        memo, seed = keys[key]
        part = parts[key]
        if part is None:
            replicates = [per_run[run.pk] for run in done[key]]
            cell_runs = [
                CellRun(run.pk, run.repeat, r.messages, r.lost, r.mean_ms, r.median_ms)
                for run, r in zip(done[key], replicates, strict=True)
            ]
            stage_two = [r.stage_two for r in replicates]
            stage_one = stage_one_replicates(stage_two, seed=seed, positive=True)
            figures[key] = CellFigures(cell_runs, stage_one)
        else:
            figures[key] = _part_figures(done[key], part, seed)
        fresh[memo] = figures[key]
    if fresh:
        cache.set_many(fresh, timeout=CELL_MEMO_SECONDS)
    return figures


def _part_figures(runs: Sequence[Run], part: Part, seed: int) -> CellFigures:
    """One mechanism's share of interleaved runs (results.services.interleaved)."""
    cell_runs: list[CellRun] = []
    values: list[np.ndarray] = []
    parts: list[PartRun] = []
    for run in runs:
        part_run = part_run_load(run, part)
        parts.append(part_run)
        delivered = part_run.rtt_ms
        has = bool(delivered.size)
        cell_runs.append(
            CellRun(
                run_id=run.pk,
                repeat=run.repeat,
                messages=int(delivered.size),
                lost=part_run.lost,
                mean_ms=float(delivered.mean()) if has else None,
                median_ms=float(np.median(delivered)) if has else None,
            )
        )
        values.append(delivered)
    reps = hierarchical_replicates(values, seed=seed, positive=True)
    return CellFigures(cell_runs, reps, parts)


def _cell(
    key: str, label: str, parameters: dict[str, Any], runs: list[Run], figures: CellFigures
) -> Cell:
    others = Counter(r.status for r in runs if r.status != RunStatus.DONE)
    reps = figures.replicates
    median_ci = reps.median_interval() if reps else None
    mean_ci = reps.mean_interval() if reps else None
    return Cell(
        key=key,
        label=label,
        parameters=parameters,
        runs=figures.runs,
        other_runs=dict(sorted(others.items())),
        interval_level=reps.level if reps else None,
        ci_clipped=reps.clipped() if reps else False,
        messages=sum(r.messages for r in figures.runs),
        lost=sum(r.lost for r in figures.runs),
        mean_ms=reps.mean if reps else None,
        mean_ci_ms=mean_ci,
        median_ms=reps.median if reps else None,
        median_ci_ms=median_ci,
        replicates=reps,
        metrics=(
            Metric("median_ms", "ms", reps.median if reps else None, median_ci),
            Metric("mean_ms", "ms", reps.mean if reps else None, mean_ci),
        ),
        parts=figures.parts,
    )


def _cells(runs: Sequence[Run]) -> list[Cell]:
    """Runs grouped by spec (per-run keys aside), in the order of each cell's first run;
    labelled by the parameters in which cells differ. An interleaved run is in one cell per
    mechanism of its rotation (results.services.interleaved)."""
    groups: dict[str, list[Run]] = defaultdict(list)
    specs: dict[str, dict[str, Any]] = {}
    parts: dict[str, Part | None] = {}
    for run in runs:
        for spec, part in run_parts(run.spec):
            key = spec_key(spec)
            groups[key].append(run)
            specs.setdefault(key, spec)
            parts[key] = part
    shown = {key: shown_parameters(specs[key]) for key in groups}
    varying = varying_parameters(list(shown.values()))
    done = {key: [r for r in group if r.status == RunStatus.DONE] for key, group in groups.items()}
    figures = _cells_figures(done, parts)
    cells = []
    for key, group in groups.items():
        parameters = {p: shown[key].get(p) for p in varying}
        cells.append(_cell(key, cell_label(parameters), parameters, group, figures[key]))
    return cells


def _security_none_twins(cells: Sequence[Cell], runs: Sequence[Run]) -> dict[str, str]:
    """cell key -> the key of the cell that differs from it only in security = none."""
    specs = {spec_key(s): s for r in runs for s, _part in run_parts(r.spec)}
    keys = {c.key for c in cells}
    twins = {}
    for cell in cells:
        spec = specs[cell.key]
        if spec.get("security", "none") == "none":
            continue
        twin = spec_key({**spec, "security": "none"})
        if twin in keys:
            twins[cell.key] = twin
    return twins


def _overhead(cell: Cell, baseline: Cell) -> Overhead | None:
    if cell.replicates is None or baseline.replicates is None:
        return None
    paired = _paired(cell, baseline)
    diff = paired or cell_difference(baseline.replicates, cell.replicates)
    if diff.ci_low > 0:
        verdict = VERDICT_SLOWER
    elif diff.ci_high < 0:
        verdict = VERDICT_FASTER
    else:
        verdict = VERDICT_NO_DIFFERENCE
    rate = rate_ci = None
    if diff.estimate > 0:
        rate = 1000 / diff.estimate
        rate_ci = (1000 / diff.ci_high, 1000 / diff.ci_low if diff.ci_low > 0 else None)
    return Overhead(
        cell=cell.key,
        baseline=baseline.key,
        label=cell.label,
        baseline_label=baseline.label,
        interval_level=diff.level,
        overhead_ms=diff.estimate,
        ci_ms=(diff.ci_low, diff.ci_high),
        relative_percent=diff.relative_percent,
        relative_ci_percent=(diff.relative_ci_low, diff.relative_ci_high),
        verdict=verdict,
        verdict_text=_VERDICT_TEXT[(verdict, diff.level == LEVEL_RUNS)],
        max_rate_per_s=rate,
        max_rate_ci_per_s=rate_ci,
        paired=paired is not None,
    )


def _paired(cell: Cell, baseline: Cell) -> CellDifference | None:
    """Two mechanisms of the same interleaved runs: their difference paired by rotation
    cycle, relative to the baseline's mean (None for any other two cells)."""
    if cell.parts is None or baseline.parts is None or baseline.mean_ms is None:
        return None
    if [r.run_id for r in cell.runs] != [r.run_id for r in baseline.runs]:
        return None
    seed = BOOTSTRAP_SEED + zlib.crc32(f"{cell.key}-{baseline.key}".encode())
    reps = paired_differences(cell.parts, baseline.parts, seed=seed)
    if reps is None:
        return None
    low, high = reps.mean_interval()
    base = baseline.mean_ms
    return CellDifference(
        reps.level,
        reps.mean,
        low,
        high,
        100 * reps.mean / base,
        100 * low / base,
        100 * high / base,
    )


def experiment_results_compute(
    *, experiment: Experiment, baseline: str | None = None
) -> ExperimentResults:
    """The cells of the experiment and their overheads: against `baseline` (a cell key) when
    given, else each cell against the cell that differs from it only in security = none.
    Benchmark experiments: their cells (kinds.bench_cells), no overheads (a baseline is
    refused)."""
    runs = _in_matrix_order(experiment, experiment_runs(experiment=experiment))
    if experiment.kind != ExperimentKind.MESSAGING:
        if baseline is not None:
            raise ExperimentHasNoRoundTrips(
                NOT_MESSAGING_MESSAGE.format(experiment_id=experiment.pk, kind=experiment.kind)
            )
        return ExperimentResults(
            experiment_id=experiment.pk,
            kind=experiment.kind,
            confidence=CONFIDENCE,
            baseline=None,
            cells=bench_cells(kind=experiment.kind, runs=runs),
            overheads=[],
        )
    cells = _cells(runs)
    by_key = {c.key: c for c in cells}
    if baseline is not None:
        measured = [c.key for c in cells if c.replicates is not None]
        if baseline not in measured:
            keys = ", ".join(f"{k} ({by_key[k].label})" for k in measured) or "none yet"
            raise UnknownBaselineCell(UNKNOWN_BASELINE_MESSAGE.format(key=baseline, keys=keys))
        pairs = {c.key: baseline for c in cells if c.key != baseline}
    else:
        pairs = _security_none_twins(cells, runs)
    overheads = [
        o
        for cell_key, base_key in pairs.items()
        if (o := _overhead(by_key[cell_key], by_key[base_key])) is not None
    ]
    return ExperimentResults(
        experiment_id=experiment.pk,
        kind=experiment.kind,
        confidence=CONFIDENCE,
        baseline=baseline,
        cells=cells,
        overheads=overheads,
        quantity=_quantity(runs),
    )


def _quantity(runs: Sequence[Run]) -> str:
    """The runs' measured quantity; runs that measured different ones (a measurement axis, or
    ack runs of different exchanges) share the most the labels can say."""
    quantities = {measured_quantity(r.spec) for r in runs}
    if len(quantities) == 1:
        return quantities.pop()
    measurements = {r.spec.get("measurement", Measurement.ROUND_TRIP) for r in runs}
    if len(measurements) == 1:
        return MEASURED[measurements.pop()][0]
    return "delay"
