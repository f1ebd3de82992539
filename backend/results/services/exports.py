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
from typing import IO, Any

# pyarrow ships no type information (pyproject may or may not list it as ignored)
import pyarrow as pa  # type: ignore[import-untyped, unused-ignore]
import pyarrow.csv as pacsv  # type: ignore[import-untyped, unused-ignore]
import pyarrow.parquet as pq  # type: ignore[import-untyped, unused-ignore]
from django.db import connection
from psycopg import sql

from devices.models import Device
from experiments.models import Run, RunDevice
from results.services.kinds import KINDS, RecordSource, results_kind
from results.services.kinds.base import SummaryInput, device_columns
from results.services.summaries import RunStatistics

EXPORT_SPEC_EXCLUDED = frozenset({"ca_cert", "broker_url"})
IDENTITY_COLUMNS = ("run_id", "run_status", "experiment_id", "experiment_name", "kind")
DEVICE_COLUMNS = ("device_id", "device_name")
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
    records = (column for kind in KINDS.values() for column in kind.records.columns)
    taken = {*IDENTITY_COLUMNS, *DEVICE_COLUMNS, *records}
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


def _record_source(run: Run) -> RecordSource:
    return results_kind(run.experiment.kind).records


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


def _facts(run: Run) -> tuple[dict[Any, dict[str, Any]], list[str]]:
    """Each device's facts by device id, and every library any device reported (sorted):
    each gets a column, so every row of the file has the same columns."""
    facts: dict[Any, dict[str, Any]] = {rd.device_id: rd.facts for rd in run.run_devices.all()}
    libraries = sorted({name for f in facts.values() for name in (f.get("libraries") or {})})
    return facts, libraries


def run_summary_rows(*, run: Run, statistics: RunStatistics | None = None) -> list[dict[str, Any]]:
    """The run's summary rows, as its kind makes them (results.services.kinds): messaging
    runs one row per device, then one for all devices (`statistics` are computed when not
    given); benchmark runs one per device, mechanism, data size and operation."""
    facts, libraries = _facts(run)
    kind = results_kind(run.experiment.kind)
    return kind.summary_rows(
        SummaryInput(run, run_parameters(run=run), facts, libraries, statistics)
    )


def _summary_columns(run: Run, rows: list[dict[str, Any]]) -> list[str]:
    """The rows' columns; for a benchmark without a summary yet, those its rows would have."""
    if rows:
        return list(rows[0])
    _, libraries = _facts(run)
    device = device_columns({}, libraries, None, "")
    return [*run_parameters(run=run), *device, *results_kind(run.experiment.kind).summary_columns]


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
