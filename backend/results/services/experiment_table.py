"""An experiment's results as a table and a methods paragraph (issue #20, point 4): one row per
cell, what the results page shows under its figure, as CSV and Parquet; and the paragraph
describing the whole experiment's design, repeats, interval method and baseline."""

from __future__ import annotations

import csv
import io
from collections.abc import Mapping
from typing import Any

# pyarrow ships no type information (pyproject may or may not list it as ignored)
import pyarrow as pa  # type: ignore[import-untyped, unused-ignore]
import pyarrow.parquet as pq  # type: ignore[import-untyped, unused-ignore]

from experiments.models import Experiment, ExperimentKind
from results.hierarchical import LEVEL_RUNS
from results.services.cells import describe
from results.services.experiment_results import ExperimentResults
from results.statistics import BOOTSTRAP_RESAMPLES

_FIGURES = {
    ExperimentKind.MESSAGING: "round-trip times (ms) of delivered messages",
    ExperimentKind.CIPHER_BENCH: "seconds per operation, MB/s and peak resident memory",
    ExperimentKind.THROUGHPUT: "packets per second, MB/s and peak resident memory",
}
_SAMPLES = {
    ExperimentKind.MESSAGING: "messages",
    ExperimentKind.CIPHER_BENCH: "repetitions",
    ExperimentKind.THROUGHPUT: "windows",
}


def experiment_table_rows(*, payload: Mapping[str, Any]) -> list[dict[str, Any]]:
    """One row per cell of the results payload (the results endpoint's body, as cached:
    results.apis.experiment_results.results_payload_cached, so the table is the page's
    figures, never computed again): its key and label, each parameter, its completed runs and
    samples, the interval's level, then each metric's value and interval; messaging cells
    also their overhead against their baseline cell (empty without one)."""
    cells = payload["cells"]
    parameters = list(dict.fromkeys(p for c in cells for p in c["parameters"]))
    overheads = {o["cell"]: o for o in payload["overheads"]}
    messaging = payload["kind"] == ExperimentKind.MESSAGING
    rows = []
    for cell in cells:
        row: dict[str, Any] = {
            "cell": cell["key"],
            "label": cell["label"],
            **{p: _value(cell["parameters"].get(p)) for p in parameters},
            "runs": len(cell["runs"]),
            "samples": cell["messages"],
            "interval_level": cell["interval_level"],
            "ci_clipped": cell["ci_clipped"],
        }
        for metric in cell["metrics"]:
            low, high = metric["ci"] or (None, None)
            row[metric["name"]] = metric["value"]
            row[f"{metric['name']}_ci_low"] = low
            row[f"{metric['name']}_ci_high"] = high
        if messaging:
            row["lost"] = cell["lost"]
            o = overheads.get(cell["key"])
            row["baseline_label"] = o["baseline_label"] if o else None
            row["overhead_ms"] = o["overhead_ms"] if o else None
            row["overhead_ci_low_ms"] = o["ci_ms"][0] if o else None
            row["overhead_ci_high_ms"] = o["ci_ms"][1] if o else None
            row["overhead_relative_percent"] = o["relative_percent"] if o else None
            row["verdict"] = o["verdict"] if o else None
        rows.append(row)
    return rows


def _value(value: Any) -> Any:
    """Lists (a spec's mechanisms) as their text: every column one scalar type."""
    return ", ".join(str(v) for v in value) if isinstance(value, list) else value


def experiment_table_csv(*, payload: Mapping[str, Any]) -> bytes:
    rows = experiment_table_rows(payload=payload)
    out = io.StringIO()
    writer = csv.DictWriter(out, fieldnames=list(rows[0]) if rows else ["cell", "label"])
    writer.writeheader()
    writer.writerows(rows)
    return out.getvalue().encode()


def experiment_table_parquet(*, payload: Mapping[str, Any]) -> bytes:
    rows = experiment_table_rows(payload=payload)
    table = pa.Table.from_pylist(rows) if rows else pa.table({"cell": [], "label": []})
    out = io.BytesIO()
    pq.write_table(table, out, compression="zstd")
    return out.getvalue()


INTERLEAVED_METHODS = (
    "Interleaved runs alternated their mechanisms message by message on one connection "
    "(message seq secured with the rotation's mechanism seq mod k, a one-byte clear "
    "mechanism index before every payload, none included); each mechanism is a cell of "
    "its messages. Overheads between two mechanisms of the same runs are paired by rotation "
    "cycle: the mean of the differences between the two mechanisms' messages of each cycle "
    "(both delivered), its interval the two-stage bootstrap of those differences (runs, then "
    "cycles within runs); the relative overhead divides by the baseline cell's mean."
)


def _figures(results: ExperimentResults) -> str:
    """What the cells report: a messaging experiment's own measured quantity."""
    if results.kind == ExperimentKind.MESSAGING and results.quantity:
        return f"the {results.quantity} of each delivered message, in ms"
    return _FIGURES[ExperimentKind(results.kind)]


def experiment_methods_paragraph(*, experiment: Experiment, results: ExperimentResults) -> str:
    """The design (cells over the parameters that vary), the repeats measured, how intervals
    were computed and against what overheads were taken."""
    cells = results.cells
    if not cells:
        return f"Experiment “{experiment.name}” has no completed runs yet."
    axes = list(dict.fromkeys(p for c in cells for p in c.parameters))
    values = {
        p: list(dict.fromkeys(describe(p, c.parameters[p]) for c in cells if p in c.parameters))
        for p in axes
    }
    design = (
        " \u00d7 ".join(f"{p} ({', '.join(v)})" for p, v in values.items())
        if axes
        else "a single condition"
    )
    runs = [len(c.runs) for c in cells]
    repeats = f"{min(runs)}" if min(runs) == max(runs) else f"{min(runs)} to {max(runs)}"
    confidence = f"{results.confidence:.0%}"
    sentences = [
        f"Experiment “{experiment.name}” ({experiment.kind.replace('_', ' ')}) measured "
        f"{len(cells)} cell{'s' if len(cells) != 1 else ''} over {design}, with {repeats} "
        f"completed run{'s' if max(runs) != 1 else ''} per cell; each cell reports "
        f"{_figures(results)}.",
        f"A cell's estimate is the mean over its runs of each run's mean (or median), every "
        f"run weighing the same. {confidence} intervals come from a two-stage bootstrap "
        f"({BOOTSTRAP_RESAMPLES:,} resamples: runs with replacement, then the "
        f"{_SAMPLES[ExperimentKind(results.kind)]} of each drawn run), widened for the few "
        "runs (expanded percentile), when a cell has two completed runs or more; a cell with "
        "one run has an interval over its own "
        f"{_SAMPLES[ExperimentKind(results.kind)]}, which cannot see run-to-run variation.",
    ]
    single = sum(1 for c in cells if c.runs and c.interval_level != LEVEL_RUNS)
    if single:
        sentences.append(f"{single} of the {len(cells)} cells had one completed run.")
    if results.kind == ExperimentKind.MESSAGING and results.overheads:
        against = (
            f"the cell {results.overheads[0].baseline_label}"
            if results.baseline
            else "the cell that differs from it only in security = none"
        )
        sentences.append(
            f"Overheads are each cell's mean minus that of {against}, with the interval of "
            "the difference of the two cells' resamples; a verdict is drawn only from that "
            "interval, never from a message-level test across runs."
        )
        if any(o.paired for o in results.overheads):
            sentences.append(INTERLEAVED_METHODS)
    return " ".join(sentences)
