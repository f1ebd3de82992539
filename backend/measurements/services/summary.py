"""Summaries of finished runs, computed in SQL in one pass each."""

from __future__ import annotations

from typing import Any

from django.db import connection, transaction
from iotsecbench_contract import interleave

from experiments.models import Run
from measurements.models import BenchSample, BenchStatistic, MessageRecord, RunStatistic

_RECORDS = MessageRecord._meta.db_table
_RTT = "(r.t_recv_ns - r.t_send_ns)"
_OK = "FILTER (WHERE r.outcome = 'ok')"
# {mechanism}: NULL (every run), or r.mechanism with {grouping} the grouping sets of an
# interleaved run: per device and over all devices, each over all messages and per mechanism.
_SUMMARY_SQL = f"""
SELECT r.run_device_id, {{mechanism}},
       count(*) {_OK},
       count(*) FILTER (WHERE r.outcome = 'lost'),
       avg({_RTT}) {_OK},
       percentile_cont(ARRAY[0.5, 0.95, 0.99]) WITHIN GROUP (ORDER BY {_RTT}) {_OK},
       min({_RTT}) {_OK},
       max({_RTT}) {_OK},
       stddev_samp({_RTT}) {_OK},
       avg(r.secure_ns),
       avg(r.unsecure_ns),
       avg(r.floor_secure_ns),
       avg(r.floor_unsecure_ns),
       percentile_cont(0.5) WITHIN GROUP (ORDER BY r.secure_ns),
       percentile_cont(0.5) WITHIN GROUP (ORDER BY r.unsecure_ns),
       percentile_cont(0.5) WITHIN GROUP (ORDER BY r.secure_ns - r.floor_secure_ns),
       percentile_cont(0.5) WITHIN GROUP (ORDER BY r.unsecure_ns - r.floor_unsecure_ns)
FROM {_RECORDS} r
JOIN experiments_rundevice rd ON rd.id = r.run_device_id
WHERE rd.run_id = %s
GROUP BY {{grouping}}
"""
_PLAIN = {"mechanism": "NULL::varchar", "grouping": "ROLLUP (r.run_device_id)"}
# The records of an interleaved run all name their mechanism, so a NULL `r.mechanism` in a
# row is a set grouped over every mechanism.
_INTERLEAVED = {
    "mechanism": "r.mechanism",
    "grouping": "GROUPING SETS ((r.run_device_id), (), "
    "(r.mechanism, r.run_device_id), (r.mechanism))",
}

_BENCH_SQL = f"""
SELECT s.run_device_id, s.mechanism, s.operation, s.data_bytes, count(*),
       avg(s.wall_ns), var_samp(s.wall_ns), stddev_samp(s.wall_ns), avg(s.cpu_ns),
       max(s.peak_rss_kb),
       avg(s.packets * 1e9 / nullif(s.wall_ns, 0)),
       stddev_samp(s.packets * 1e9 / nullif(s.wall_ns, 0)),
       max(s.calls)
FROM {BenchSample._meta.db_table} s
JOIN experiments_rundevice rd ON rd.id = s.run_device_id
WHERE rd.run_id = %s
GROUP BY s.run_device_id, s.mechanism, s.operation, s.data_bytes
"""


@transaction.atomic
def run_summarize(*, run_id: Any) -> list[RunStatistic]:
    """Round-trip summary per device and over all devices (GROUP BY ROLLUP), with the mean
    securing and unsecuring times and the means of their harness floors (the net figures
    are their differences, `RunStatistic.net_secure_mean_ns`), and the medians of the raw
    times and of each message's net time (percentile_cont ignores the NULLs of lost
    messages and of records without a floor). An interleaved run (spec
    `interleave_mechanisms`) gets the same rows again per mechanism (`mechanism` set): its
    rows over all messages mix mechanisms."""
    spec = Run.objects.filter(pk=run_id).values_list("spec", flat=True).first() or {}
    sql = _SUMMARY_SQL.format(**(_INTERLEAVED if spec.get(interleave.FIELD) else _PLAIN))
    with connection.cursor() as cursor:
        cursor.execute(sql, [run_id])
        rows = cursor.fetchall()
    RunStatistic.objects.filter(run_id=run_id).delete()
    statistics = []
    for (
        run_device_id,
        mechanism,
        n,
        lost,
        mean,
        pcts,
        lo,
        hi,
        std,
        secure,
        unsecure,
        floor_secure,
        floor_unsecure,
        secure_median,
        unsecure_median,
        net_secure_median,
        net_unsecure_median,
    ) in rows:
        median, p95, p99 = pcts if pcts is not None else (None, None, None)
        statistics.append(
            RunStatistic(
                run_id=run_id,
                run_device_id=run_device_id,
                mechanism=mechanism,
                n=n,
                lost=lost,
                mean_ns=_float(mean),
                median_ns=_float(median),
                p95_ns=_float(p95),
                p99_ns=_float(p99),
                min_ns=_float(lo),
                max_ns=_float(hi),
                std_ns=_float(std),
                secure_mean_ns=_float(secure),
                unsecure_mean_ns=_float(unsecure),
                floor_secure_mean_ns=_float(floor_secure),
                floor_unsecure_mean_ns=_float(floor_unsecure),
                secure_median_ns=_float(secure_median),
                unsecure_median_ns=_float(unsecure_median),
                net_secure_median_ns=_float(net_secure_median),
                net_unsecure_median_ns=_float(net_unsecure_median),
            )
        )
    return RunStatistic.objects.bulk_create(statistics)


@transaction.atomic
def bench_summarize(*, run_id: Any) -> list[BenchStatistic]:
    """Cipher-benchmark summary per device, mechanism, operation and data size."""
    with connection.cursor() as cursor:
        cursor.execute(_BENCH_SQL, [run_id])
        rows = cursor.fetchall()
    BenchStatistic.objects.filter(run_id=run_id).delete()
    return BenchStatistic.objects.bulk_create(
        BenchStatistic(
            run_id=run_id,
            run_device_id=rd,
            mechanism=mechanism,
            operation=operation,
            data_bytes=data_bytes,
            n=n,
            wall_mean_ns=float(mean),
            wall_var_ns2=_float(var),
            wall_std_ns=_float(std),
            cpu_mean_ns=float(cpu),
            peak_rss_kb=peak,
            rate_mean=_float(rate),
            rate_std=_float(rate_std),
            calls=calls,
        )
        for (
            rd,
            mechanism,
            operation,
            data_bytes,
            n,
            mean,
            var,
            std,
            cpu,
            peak,
            rate,
            rate_std,
            calls,
        ) in rows
    )


def _float(value: Any) -> float | None:
    return None if value is None else float(value)
