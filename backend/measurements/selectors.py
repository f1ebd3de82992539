from __future__ import annotations

from django.db import connection
from django.db.models import F, QuerySet

from experiments.models import Run
from measurements.models import BenchStatistic, MessageRecord, Outcome, RunStatistic

NS_PER_MS = 1_000_000.0
NS_PER_US = 1_000.0


def run_statistics(*, run: Run) -> QuerySet[RunStatistic]:
    """Per-device rows first (by device name), then the all-devices row."""
    return (
        RunStatistic.objects.filter(run=run)
        .select_related("run_device__device")
        .order_by(F("run_device__device__name").asc(nulls_last=True))
    )


def bench_statistics(*, run: Run) -> QuerySet[BenchStatistic]:
    return (
        BenchStatistic.objects.filter(run=run)
        .select_related("run_device__device")
        .order_by("run_device__device__name", "mechanism", "data_bytes", "operation")
    )


def run_rtt_ms(*, run: Run) -> dict[int, list[float]]:
    """Round-trip times (ms) of the delivered messages, per run device, in send order."""
    sql = (
        f"SELECT r.run_device_id, array_agg(r.t_recv_ns - r.t_send_ns ORDER BY r.seq) "
        f"FROM {MessageRecord._meta.db_table} r "
        "JOIN experiments_rundevice rd ON rd.id = r.run_device_id "
        "WHERE rd.run_id = %s AND r.outcome = %s GROUP BY r.run_device_id"
    )
    with connection.cursor() as cursor:
        cursor.execute(sql, [run.pk, Outcome.OK.value])
        return {rd_id: [ns / NS_PER_MS for ns in values] for rd_id, values in cursor.fetchall()}
