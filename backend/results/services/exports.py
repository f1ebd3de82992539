"""Exports of a run: raw records and summaries, as CSV and Parquet.

Messaging runs export their message records and round-trip statistics; cipher-benchmark and
throughput runs their samples (one row per repetition or window, `BenchSample`) and the
benchmark summary (`BenchStatistic`). Every row carries the run's parameters as columns
(docs/results.md, "Exports"), so files of many runs can be concatenated and grouped without
a join: the run and experiment, the device, and every key of the frozen spec but `ca_cert`
(a PEM blob) and `broker_url` (a deployment address that may carry credentials). Summaries
also carry the device facts. Parquet files also hold the spec and the devices' facts as
JSON in the schema metadata (key `iotsecbench`).
"""

from __future__ import annotations

import csv
import io
import json
import tempfile
from collections.abc import Iterator
from dataclasses import dataclass
from typing import IO, Any

# pyarrow ships no type information (pyproject may or may not list it as ignored)
import pyarrow as pa  # type: ignore[import-untyped, unused-ignore]
import pyarrow.csv as pacsv  # type: ignore[import-untyped, unused-ignore]
import pyarrow.parquet as pq  # type: ignore[import-untyped, unused-ignore]
from django.db import connection, models
from psycopg import sql

from devices.models import Device
from experiments.models import SAMPLE_KINDS, Run, RunDevice
from measurements.models import BenchSample, BenchStatistic, MessageRecord, RunStatistic
from measurements.selectors import NS_PER_US, BenchBaselines, bench_statistics, run_statistics
from results.services.summaries import DeviceStatistics, RunStatistics, run_statistics_compute

EXPORT_SPEC_EXCLUDED = frozenset({"ca_cert", "broker_url"})
IDENTITY_COLUMNS = ("run_id", "run_status", "experiment_id", "experiment_name", "kind")
DEVICE_COLUMNS = ("device_id", "device_name")
RECORD_COLUMNS = {  # name -> Arrow type of the Parquet column
    "seq": pa.int32(),
    "t_send_ns": pa.int64(),
    "t_recv_ns": pa.int64(),
    "rtt_ms": pa.float64(),
    "app_bytes": pa.int32(),
    "wire_bytes": pa.int32(),
    "outcome": pa.string(),
    "secure_ns": pa.int64(),
    "unsecure_ns": pa.int64(),
    # the harness floor beside the message (the null mechanism, same size, same timing)
    "floor_secure_ns": pa.int64(),
    "floor_unsecure_ns": pa.int64(),
}
SAMPLE_COLUMNS = {  # cipher-benchmark and throughput samples
    "mechanism": pa.string(),
    "operation": pa.string(),
    "data_bytes": pa.int64(),
    "repetition": pa.int32(),
    "wall_ns": pa.int64(),
    "cpu_ns": pa.int64(),
    "peak_rss_kb": pa.int64(),
    "packets": pa.int64(),  # throughput windows only
    "calls": pa.int32(),  # cipher bench: calls timed in the repetition (times are per call)
}
FACT_COLUMNS = (
    "hardware_model",
    "cpu_model",
    "cpu_cores",
    "ram_bytes",
    "kernel",
    "os",
    "python_version",
    "agent_version",
)
# COPY hands over one row per read; rows are gathered into blocks of about this size before
# they are sent, so a million-row download is ~1,300 writes, not a million.
CSV_BLOCK_BYTES = 64 * 1024
PARQUET_METADATA_KEY = b"iotsecbench"
PARQUET_MEDIA_TYPE = "application/vnd.apache.parquet"


def run_parameters(*, run: Run) -> dict[str, Any]:
    """The columns every exported row of the run carries, in order: the run, then its spec
    (sorted keys; a key that collides with another column gets a `spec_` prefix; lists
    and objects as JSON text)."""
    params: dict[str, Any] = {
        "run_id": str(run.pk),
        # done, or partial / cancelled / failed: a partial run's rows say so (_metadata has why).
        "run_status": run.status,
        "experiment_id": str(run.experiment_id),
        "experiment_name": run.experiment.name,
        "kind": run.experiment.kind,
    }
    taken = {*IDENTITY_COLUMNS, *DEVICE_COLUMNS, *RECORD_COLUMNS, *SAMPLE_COLUMNS}
    for key in sorted(run.spec):
        if key in EXPORT_SPEC_EXCLUDED:
            continue
        value = run.spec[key]
        if isinstance(value, list | dict):
            value = json.dumps(value, sort_keys=True)
        params[f"spec_{key}" if key in taken else key] = value
    return params


def _arrow_type(value: Any) -> Any:
    if isinstance(value, bool):
        return pa.bool_()
    if isinstance(value, int):
        return pa.int64()
    if isinstance(value, float):
        return pa.float64()
    return pa.string()


@dataclass(frozen=True)
class _RecordSource:
    """What the records export of a kind of run reads: the table, its columns as a select
    list over the alias `r` (named as the keys of `columns`, their Arrow types), the order."""

    model: type[models.Model]
    select: str
    columns: dict[str, Any]
    order: str


_MESSAGES = _RecordSource(
    model=MessageRecord,
    select="r.seq, r.t_send_ns, r.t_recv_ns, "
    "CASE WHEN r.outcome = 'ok' THEN (r.t_recv_ns - r.t_send_ns)::float8 / 1e6 END AS rtt_ms, "
    "r.app_bytes, r.wire_bytes, r.outcome, r.secure_ns, r.unsecure_ns, "
    "r.floor_secure_ns, r.floor_unsecure_ns",
    columns=RECORD_COLUMNS,
    order="d.name, r.seq",
)
_SAMPLES = _RecordSource(
    model=BenchSample,
    select=", ".join(f"r.{name}" for name in SAMPLE_COLUMNS),
    columns=SAMPLE_COLUMNS,
    # As the run page's summary: by device, mechanism, size, then operation.
    order="d.name, r.mechanism, r.data_bytes, r.operation, r.repetition",
)


def _record_source(run: Run) -> _RecordSource:
    return _SAMPLES if run.experiment.kind in SAMPLE_KINDS else _MESSAGES


def _records_query(*, run: Run, run_device_id: int | None = None) -> sql.Composed:
    """COPY of the run's records (or one run device's) as CSV with a header: the run
    parameters as constant columns, then the device and the record (a message, or a
    benchmark sample). With `run_device_id` the parameters are left out: the Parquet writer
    adds them as constant Arrow columns, which saves PostgreSQL writing them and pyarrow
    parsing them once per row."""
    source = _record_source(run)
    if run_device_id is None:
        where = sql.SQL("rd.run_id = {}").format(sql.Literal(str(run.pk)))
        constants = [
            sql.SQL("{} AS {}, ").format(sql.Literal(value), sql.Identifier(name))
            for name, value in run_parameters(run=run).items()
        ]
    else:
        where = sql.SQL("rd.id = {}").format(sql.Literal(run_device_id))
        constants = []
    return sql.SQL(
        "COPY (SELECT {constants}d.id AS device_id, d.name AS device_name, {select} "
        "FROM {records} r JOIN {run_devices} rd ON rd.id = r.run_device_id "
        "JOIN {devices} d ON d.id = rd.device_id WHERE {where} ORDER BY {order}"
        ") TO STDOUT WITH (FORMAT csv, HEADER true)"
    ).format(
        constants=sql.SQL("").join(constants),
        select=sql.SQL(source.select),  # type: ignore[arg-type, unused-ignore]  # a constant
        records=sql.Identifier(source.model._meta.db_table),
        run_devices=sql.Identifier(RunDevice._meta.db_table),
        devices=sql.Identifier(Device._meta.db_table),
        where=where,
        order=sql.SQL(source.order),  # type: ignore[arg-type, unused-ignore]  # a constant
    )


def run_records_csv(*, run: Run) -> Iterator[bytes]:
    """The run's records (messages, or benchmark samples) as CSV, made by PostgreSQL (COPY)
    and yielded in blocks as they come: memory stays flat whatever the run's size."""
    query = _records_query(run=run)
    with connection.cursor() as cursor, cursor.copy(query) as copy:
        block = bytearray()
        for row in copy:
            block += row
            if len(block) >= CSV_BLOCK_BYTES:
                yield bytes(block)
                block.clear()
        if block:
            yield bytes(block)


def _metadata(*, run: Run) -> bytes:
    spec = {k: v for k, v in run.spec.items() if k not in EXPORT_SPEC_EXCLUDED}
    devices = [
        {
            "device_id": str(rd.device_id),
            "name": rd.device.name,
            "facts": rd.facts,
            # A partial part says so: its state, why, and how many of its planned records.
            "status": rd.status,
            "error": rd.error,
            "planned": rd.total,
            "stored": rd.records_ingested,
        }
        for rd in run.run_devices.all()
    ]
    outcome = {"status": run.status, "error": run.error}
    return json.dumps(
        {"run": run_parameters(run=run), "outcome": outcome, "spec": spec, "devices": devices},
        default=str,
    ).encode()


def run_records_parquet(*, run: Run) -> IO[bytes]:
    """The run's records as a Parquet file (one row group per device, so memory holds one
    device's records at a time), in a temporary file positioned at its start; closing it
    deletes it. Same columns, in the same order, as the CSV."""
    params = run_parameters(run=run)
    param_types = {name: _arrow_type(value) for name, value in params.items()}
    record_types = {
        "device_id": pa.string(),
        "device_name": pa.string(),
        **_record_source(run).columns,
    }
    schema = pa.schema(
        [*param_types.items(), *record_types.items()],
        metadata={PARQUET_METADATA_KEY: _metadata(run=run)},
    )
    convert = pacsv.ConvertOptions(column_types=record_types, strings_can_be_null=False)
    out = tempfile.TemporaryFile()  # noqa: SIM115  # the response streams and closes it
    with pq.ParquetWriter(out, schema, compression="zstd") as writer:
        for run_device in run.run_devices.all():
            buffer = io.BytesIO()
            with connection.cursor() as cursor:
                query = _records_query(run=run, run_device_id=run_device.pk)
                with cursor.copy(query) as copy:
                    for row in copy:
                        buffer.write(row)
            buffer.seek(0)
            records = pacsv.read_csv(buffer, convert_options=convert)
            if not records.num_rows:
                continue
            constant = [
                pa.repeat(pa.scalar(params[name], type_), records.num_rows)
                for name, type_ in param_types.items()
            ]
            columns = constant + [records.column(name) for name in record_types]
            writer.write_table(pa.Table.from_arrays(columns, schema=schema))
    out.seek(0)
    return out


def _device_columns(
    facts: dict[str, Any], libraries: list[str], device_id: Any, device_name: str
) -> dict[str, Any]:
    """The device and the facts stored with the run (empty for the all-devices row)."""
    device_libraries = facts.get("libraries") or {}
    return {
        "device_id": None if device_id is None else str(device_id),
        "device_name": device_name,
        **{f"device_{k}": facts.get(k) for k in FACT_COLUMNS},
        **{f"device_lib_{name}": device_libraries.get(name) for name in libraries},
    }


def _facts(run: Run) -> tuple[dict[Any, dict[str, Any]], list[str]]:
    """Each device's facts by device id, and every library any device reported (sorted):
    each gets a column, so every row of the file has the same columns."""
    facts: dict[Any, dict[str, Any]] = {rd.device_id: rd.facts for rd in run.run_devices.all()}
    libraries = sorted({name for f in facts.values() for name in (f.get("libraries") or {})})
    return facts, libraries


def _summary_row(
    params: dict[str, Any],
    facts: dict[str, Any],
    libraries: list[str],
    row: DeviceStatistics,
    statistics: RunStatistics,
    stored: RunStatistic | None,
) -> dict[str, Any]:
    """`stored`: the device's (or all devices') summary computed at ingest, which holds the
    securing times and their harness floors (None before it exists: empty columns)."""
    s = row.summary
    return {
        **params,
        **_device_columns(facts, libraries, row.device_id, row.device_name),
        "records": row.records,
        "n": s.n,
        "lost": row.lost,
        "rejected": row.rejected,
        "rejected_signature": row.rejected_signature,
        "rejected_replay": row.rejected_replay,
        "decrypt_error": row.decrypt_error,
        "mean_ms": s.mean,
        "ci_low_ms": s.ci_low,
        "ci_high_ms": s.ci_high,
        "median_ms": s.median,
        "q1_ms": s.q1,
        "q3_ms": s.q3,
        "p95_ms": s.p95,
        "p99_ms": s.p99,
        "min_ms": s.min,
        "max_ms": s.max,
        "variance_ms2": s.variance,
        "std_ms": s.std,
        "mean_of_device_means_ms": statistics.mean_of_device_means_ms,
        **_securing_columns(stored),
    }


def _securing_columns(stored: RunStatistic | None) -> dict[str, float | None]:
    """Securing and unsecuring times in µs: the means raw, of their harness floor and net of
    it (raw - floor), and the medians raw and of each message's net time, as the run page
    shows them."""
    if stored is None:
        return dict.fromkeys(SECURING_COLUMNS)
    return {
        "secure_mean_us": _us(stored.secure_mean_ns),
        "floor_secure_mean_us": _us(stored.floor_secure_mean_ns),
        "net_secure_mean_us": _us(stored.net_secure_mean_ns),
        "secure_median_us": _us(stored.secure_median_ns),
        "net_secure_median_us": _us(stored.net_secure_median_ns),
        "unsecure_mean_us": _us(stored.unsecure_mean_ns),
        "floor_unsecure_mean_us": _us(stored.floor_unsecure_mean_ns),
        "net_unsecure_mean_us": _us(stored.net_unsecure_mean_ns),
        "unsecure_median_us": _us(stored.unsecure_median_ns),
        "net_unsecure_median_us": _us(stored.net_unsecure_median_ns),
    }


SECURING_COLUMNS = (
    "secure_mean_us",
    "floor_secure_mean_us",
    "net_secure_mean_us",
    "secure_median_us",
    "net_secure_median_us",
    "unsecure_mean_us",
    "floor_unsecure_mean_us",
    "net_unsecure_mean_us",
    "unsecure_median_us",
    "net_unsecure_median_us",
)


def _us(value_ns: float | None) -> float | None:
    return None if value_ns is None else value_ns / NS_PER_US


def _bench_row(
    params: dict[str, Any],
    facts: dict[str, Any],
    libraries: list[str],
    row: BenchStatistic,
    baselines: BenchBaselines,
) -> dict[str, Any]:
    """One (device, mechanism, data size, operation) of a benchmark, in the run page's units
    (experiments.apis.runs `bench_summary`), with its cost net of the null floor and relative to
    no security where the run has those rows."""
    return {
        **params,
        **_device_columns(facts, libraries, row.run_device.device_id, row.run_device.device.name),
        "mechanism": row.mechanism,
        "operation": row.operation,
        "data_bytes": row.data_bytes,
        "n": row.n,
        "mean_us": _us(row.wall_mean_ns),
        "variance_us2": None if row.wall_var_ns2 is None else row.wall_var_ns2 / NS_PER_US**2,
        "std_us": _us(row.wall_std_ns),
        "cpu_mean_us": _us(row.cpu_mean_ns),
        "peak_rss_kb": row.peak_rss_kb,
        "calls_per_repetition": row.calls,
        # bytes per µs = MB/s (decimal megabytes), as the run page's throughput
        "throughput_mb_s": (
            row.data_bytes / (row.wall_mean_ns / NS_PER_US) if row.wall_mean_ns else None
        ),
        "packets_per_s_mean": row.rate_mean,
        "packets_per_s_std": row.rate_std,
        "net_mean_us": baselines.net_mean_us(row),
        "relative_cost": baselines.relative_cost(row),
    }


BENCH_SUMMARY_COLUMNS = (
    "mechanism",
    "operation",
    "data_bytes",
    "n",
    "mean_us",
    "variance_us2",
    "std_us",
    "cpu_mean_us",
    "peak_rss_kb",
    "calls_per_repetition",
    "throughput_mb_s",
    "packets_per_s_mean",
    "packets_per_s_std",
    "net_mean_us",
    "relative_cost",
)


def run_summary_rows(*, run: Run, statistics: RunStatistics | None = None) -> list[dict[str, Any]]:
    """Messaging runs: one row per device, then one for all devices (device columns empty);
    `statistics` are computed when not given. Benchmark runs: one row per device, mechanism,
    data size and operation (their summary has no all-devices row)."""
    params = run_parameters(run=run)
    facts, libraries = _facts(run)
    if run.experiment.kind in SAMPLE_KINDS:
        bench = list(bench_statistics(run=run))
        baselines = BenchBaselines.of(bench)
        return [
            _bench_row(params, facts.get(b.run_device.device_id, {}), libraries, b, baselines)
            for b in bench
        ]
    statistics = statistics or run_statistics_compute(run=run)
    stored = {
        (s.run_device.device_id if s.run_device else None): s for s in run_statistics(run=run)
    }
    rows = [
        _summary_row(
            params, facts.get(d.device_id, {}), libraries, d, statistics, stored.get(d.device_id)
        )
        for d in statistics.devices
    ]
    rows.append(
        _summary_row(params, {}, libraries, statistics.all_devices, statistics, stored.get(None))
    )
    return rows


def _summary_columns(run: Run, rows: list[dict[str, Any]]) -> list[str]:
    """The rows' columns; for a benchmark without a summary yet, those its rows would have."""
    if rows:
        return list(rows[0])
    _, libraries = _facts(run)
    device = _device_columns({}, libraries, None, "")
    return [*run_parameters(run=run), *device, *BENCH_SUMMARY_COLUMNS]


def run_summary_csv(*, run: Run, statistics: RunStatistics | None = None) -> bytes:
    rows = run_summary_rows(run=run, statistics=statistics)
    out = io.StringIO()
    writer = csv.DictWriter(out, fieldnames=_summary_columns(run, rows), lineterminator="\n")
    writer.writeheader()
    writer.writerows(rows)
    return out.getvalue().encode()


def run_summary_parquet(*, run: Run, statistics: RunStatistics | None = None) -> bytes:
    rows = run_summary_rows(run=run, statistics=statistics)
    if rows:
        table = pa.Table.from_pylist(rows)
    else:  # no summary yet: the columns, no rows
        table = pa.table({name: pa.array([], pa.null()) for name in _summary_columns(run, rows)})
    table = table.replace_schema_metadata({PARQUET_METADATA_KEY: _metadata(run=run)})
    out = io.BytesIO()
    pq.write_table(table, out, compression="zstd")
    return out.getvalue()
