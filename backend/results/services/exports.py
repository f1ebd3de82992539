"""Exports of a run: raw records and summaries, as CSV and Parquet.

Every row carries the run's parameters as columns (docs/results.md, "Exports"), so files of
many runs can be concatenated and grouped without a join: the run and experiment, the
device, and every key of the frozen spec but `ca_cert` (a PEM blob) and `broker_url` (a
deployment address that may carry credentials). Summaries also carry the device facts.
Parquet files also hold the spec and the devices' facts as JSON in the schema metadata
(key `iotsecbench`).
"""

from __future__ import annotations

import csv
import io
import json
import tempfile
from collections.abc import Iterator
from typing import IO, Any
from uuid import UUID

# pyarrow ships no type information (pyproject may or may not list it as ignored)
import pyarrow as pa  # type: ignore[import-untyped, unused-ignore]
import pyarrow.csv as pacsv  # type: ignore[import-untyped, unused-ignore]
import pyarrow.parquet as pq  # type: ignore[import-untyped, unused-ignore]
from django.db import connection
from psycopg import sql

from devices.models import Device
from experiments.models import Run, RunDevice
from measurements.models import MessageRecord
from results.services.summaries import DeviceStatistics, RunStatistics

EXPORT_SPEC_EXCLUDED = frozenset({"ca_cert", "broker_url"})
IDENTITY_COLUMNS = ("run_id", "experiment_id", "experiment_name", "kind")
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
        "experiment_id": str(run.experiment_id),
        "experiment_name": run.experiment.name,
        "kind": run.experiment.kind,
    }
    taken = {*IDENTITY_COLUMNS, *DEVICE_COLUMNS, *RECORD_COLUMNS}
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


def _records_query(*, run: Run, run_device_id: int | None = None) -> sql.Composed:
    """COPY of the run's records (or one run device's) as CSV with a header: the run
    parameters as constant columns, then the device and the record. With `run_device_id`
    the parameters are left out: the Parquet writer adds them as constant Arrow columns,
    which saves PostgreSQL writing them and pyarrow parsing them once per row."""
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
        "COPY (SELECT {constants}d.id AS device_id, d.name AS device_name, "
        "r.seq, r.t_send_ns, r.t_recv_ns, "
        "CASE WHEN r.outcome = 'ok' THEN (r.t_recv_ns - r.t_send_ns)::float8 / 1e6 END "
        "AS rtt_ms, r.app_bytes, r.wire_bytes, r.outcome, r.secure_ns, r.unsecure_ns "
        "FROM {records} r JOIN {run_devices} rd ON rd.id = r.run_device_id "
        "JOIN {devices} d ON d.id = rd.device_id WHERE {where} ORDER BY d.name, r.seq"
        ") TO STDOUT WITH (FORMAT csv, HEADER true)"
    ).format(
        constants=sql.SQL("").join(constants),
        records=sql.Identifier(MessageRecord._meta.db_table),
        run_devices=sql.Identifier(RunDevice._meta.db_table),
        devices=sql.Identifier(Device._meta.db_table),
        where=where,
    )


def run_records_csv(*, run: Run) -> Iterator[bytes]:
    """The run's records as CSV, made by PostgreSQL (COPY) and yielded in blocks as they
    come: memory stays flat whatever the run's size."""
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
        {"device_id": str(rd.device_id), "name": rd.device.name, "facts": rd.facts}
        for rd in run.run_devices.all()
    ]
    return json.dumps(
        {"run": run_parameters(run=run), "spec": spec, "devices": devices}, default=str
    ).encode()


def run_records_parquet(*, run: Run) -> IO[bytes]:
    """The run's records as a Parquet file (one row group per device, so memory holds one
    device's records at a time), in a temporary file positioned at its start; closing it
    deletes it. Same columns, in the same order, as the CSV."""
    params = run_parameters(run=run)
    param_types = {name: _arrow_type(value) for name, value in params.items()}
    record_types = {"device_id": pa.string(), "device_name": pa.string(), **RECORD_COLUMNS}
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


def _summary_row(
    params: dict[str, Any],
    facts: dict[str, Any],
    libraries: list[str],
    row: DeviceStatistics,
    statistics: RunStatistics,
) -> dict[str, Any]:
    s = row.summary
    device_libraries = facts.get("libraries") or {}
    return {
        **params,
        "device_id": None if row.device_id is None else str(row.device_id),
        "device_name": row.device_name,
        **{f"device_{k}": facts.get(k) for k in FACT_COLUMNS},
        **{f"device_lib_{name}": device_libraries.get(name) for name in libraries},
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
    }


def run_summary_rows(*, run: Run, statistics: RunStatistics) -> list[dict[str, Any]]:
    """One row per device, then one for all devices (device columns empty)."""
    params = run_parameters(run=run)
    facts: dict[UUID | None, dict[str, Any]] = {
        rd.device_id: rd.facts for rd in run.run_devices.all()
    }
    libraries = sorted({name for f in facts.values() for name in (f.get("libraries") or {})})
    rows = [
        _summary_row(params, facts.get(d.device_id, {}), libraries, d, statistics)
        for d in statistics.devices
    ]
    rows.append(_summary_row(params, {}, libraries, statistics.all_devices, statistics))
    return rows


def run_summary_csv(*, run: Run, statistics: RunStatistics) -> bytes:
    rows = run_summary_rows(run=run, statistics=statistics)
    out = io.StringIO()
    writer = csv.DictWriter(out, fieldnames=list(rows[0]), lineterminator="\n")
    writer.writeheader()
    writer.writerows(rows)
    return out.getvalue().encode()


def run_summary_parquet(*, run: Run, statistics: RunStatistics) -> bytes:
    rows = run_summary_rows(run=run, statistics=statistics)
    table = pa.Table.from_pylist(rows).replace_schema_metadata(
        {PARQUET_METADATA_KEY: _metadata(run=run)}
    )
    out = io.BytesIO()
    pq.write_table(table, out, compression="zstd")
    return out.getvalue()
