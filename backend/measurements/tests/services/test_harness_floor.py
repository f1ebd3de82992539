"""The harness floor of messaging records: ingested by COPY, averaged in the run summary,
and the securing costs net of it (device-agent/docs/security-mechanisms.md)."""

from __future__ import annotations

import importlib
import statistics

import pytest
from django.db import connection
from django.db.models import Avg

from measurements.models import MessageRecord, RunStatistic, Stream
from measurements.services import STREAMS, csv_copy, run_summarize
from measurements.tests.conftest import HEADER, HEADER_BEFORE_FLOOR, T0, csv_chunk

# As an agent writes them (§6): a lost message has secure_ns and floor_secure_ns but
# nothing unsecured, so neither unsecure_ns nor floor_unsecure_ns.
LINES = [
    f"0,{T0},{T0 + 90_000},66,105,ok,5200,7400,310,690",
    f"1,{T0 + 1_000},{T0 + 91_000},66,105,ok,5800,7900,290,720",
    f"2,{T0 + 2_000},,66,105,lost,6100,,330,",
    f"3,{T0 + 3_000},{T0 + 93_000},66,105,decrypt_error,5500,8200,300,700",
]


def _copy(run_device_id: int, body: bytes) -> int:
    return csv_copy(stream=STREAMS[Stream.RECORDS], run_device_id=run_device_id, body=body)


@pytest.mark.django_db
def test_ingest_stores_each_records_floors_and_the_summary_nets_them_out(running_run):
    part_a, part_b = running_run.parts
    _copy(part_a.pk, ("\n".join([HEADER, *LINES]) + "\n").encode())
    _copy(part_b.pk, csv_chunk([(0, T0, 95_000, "ok"), (1, T0 + 1_000, 96_000, "ok")]))

    run_summarize(run_id=running_run.run.pk)

    stored = MessageRecord.objects.filter(run_device=part_a).order_by("seq")
    assert [(r.floor_secure_ns, r.floor_unsecure_ns) for r in stored] == [
        (310, 690),
        (290, 720),
        (330, None),
        (300, 700),
    ]
    for part in (part_a, part_b, None):
        rows = MessageRecord.objects.filter(run_device__run=running_run.run)
        if part is not None:
            rows = rows.filter(run_device=part)
        means = rows.aggregate(
            secure=Avg("secure_ns"),
            unsecure=Avg("unsecure_ns"),
            floor_secure=Avg("floor_secure_ns"),
            floor_unsecure=Avg("floor_unsecure_ns"),
        )
        stat = RunStatistic.objects.get(run=running_run.run, run_device=part)
        assert stat.floor_secure_mean_ns == pytest.approx(means["floor_secure"])
        assert stat.floor_unsecure_mean_ns == pytest.approx(means["floor_unsecure"])
        assert stat.net_secure_mean_ns == pytest.approx(means["secure"] - means["floor_secure"])
        assert stat.net_unsecure_mean_ns == pytest.approx(
            means["unsecure"] - means["floor_unsecure"]
        )
    stat_a = RunStatistic.objects.get(run=running_run.run, run_device=part_a)
    # Securing over all four messages, unsecuring over the three that came back.
    assert stat_a.net_secure_mean_ns == pytest.approx((5200 + 5800 + 6100 + 5500) / 4 - 307.5)
    assert stat_a.net_unsecure_mean_ns == pytest.approx((7400 + 7900 + 8200) / 3 - 2110 / 3)


@pytest.mark.django_db
def test_the_summary_gives_medians_of_raw_times_and_of_each_messages_net_time(running_run):
    part_a, part_b = running_run.parts
    # Five messages of one device, the first one cold: a mean moves, a median hardly.
    lines = [
        f"0,{T0},{T0 + 90_000},66,105,ok,95000,40000,2000,1500",
        f"1,{T0 + 1_000},{T0 + 91_000},66,105,ok,5200,7400,310,690",
        f"2,{T0 + 2_000},{T0 + 92_000},66,105,ok,5800,7900,290,720",
        f"3,{T0 + 3_000},,66,105,lost,6100,,330,",
        f"4,{T0 + 4_000},{T0 + 94_000},66,105,ok,5500,8200,300,700",
    ]
    _copy(part_a.pk, ("\n".join([HEADER, *lines]) + "\n").encode())
    _copy(part_b.pk, csv_chunk([(0, T0, 95_000, "ok"), (1, T0 + 1_000, 96_000, "ok")]))

    run_summarize(run_id=running_run.run.pk)

    for part in (part_a, part_b, None):
        rows = MessageRecord.objects.filter(run_device__run=running_run.run)
        if part is not None:
            rows = rows.filter(run_device=part)
        stat = RunStatistic.objects.get(run=running_run.run, run_device=part)
        for raw, floor, median, net_median in (
            ("secure_ns", "floor_secure_ns", stat.secure_median_ns, stat.net_secure_median_ns),
            (
                "unsecure_ns",
                "floor_unsecure_ns",
                stat.unsecure_median_ns,
                stat.net_unsecure_median_ns,
            ),
        ):
            # As percentile_cont: NULLs (nothing unsecured of a lost message) left out.
            pairs: list[tuple[int | None, int | None]] = list(rows.values_list(raw, floor))
            raws = [r for r, _ in pairs if r is not None]
            nets = [r - f for r, f in pairs if r is not None and f is not None]
            assert median == pytest.approx(statistics.median(raws))
            assert net_median == pytest.approx(statistics.median(nets))
    stat_a = RunStatistic.objects.get(run=running_run.run, run_device=part_a)
    # secure - floor per message: 93000, 4890, 5510, 5770, 5200 -> median 5510; the mean
    # (22874) is four times that because of the one cold call.
    assert stat_a.net_secure_median_ns == pytest.approx(5510)
    assert stat_a.net_secure_mean_ns == pytest.approx(22874)
    # unsecure - floor of the four that came back: 38500, 6710, 7180, 7500 -> 7340
    assert stat_a.net_unsecure_median_ns == pytest.approx(7340)


@pytest.mark.django_db
def test_the_migration_gives_summaries_made_before_it_the_medians_run_summarize_gives(
    running_run,
):
    part_a, part_b = running_run.parts
    _copy(part_a.pk, ("\n".join([HEADER, *LINES]) + "\n").encode())
    _copy(part_b.pk, csv_chunk([(0, T0, 95_000, "ok"), (1, T0 + 1_000, 96_000, "ok")]))
    run_summarize(run_id=running_run.run.pk)
    fields = (
        "secure_median_ns",
        "unsecure_median_ns",
        "net_secure_median_ns",
        "net_unsecure_median_ns",
    )
    stats = RunStatistic.objects.filter(run=running_run.run)
    computed = {s.run_device_id: [getattr(s, f) for f in fields] for s in stats}
    stats.update(**dict.fromkeys(fields))  # a summary made before the medians existed

    migration = importlib.import_module("measurements.migrations.0007_runstatistic_medians")
    with connection.cursor() as cursor:
        cursor.execute(migration.FILL_MEDIANS)

    filled = {s.run_device_id: [getattr(s, f) for f in fields] for s in stats.all()}
    assert set(filled) == {part_a.pk, part_b.pk, None}
    for key, values in computed.items():
        assert None not in values
        assert filled[key] == pytest.approx(values)


@pytest.mark.django_db
def test_records_of_an_agent_before_the_floor_are_stored_without_floor_and_without_net(
    running_run,
):
    part = running_run.parts[0]
    added = _copy(part.pk, csv_chunk([(0, T0, 90_000, "ok"), (1, T0, None, "lost")], floors=False))

    run_summarize(run_id=running_run.run.pk)

    assert added == 2
    assert set(
        MessageRecord.objects.filter(run_device=part).values_list(
            "floor_secure_ns", "floor_unsecure_ns"
        )
    ) == {(None, None)}
    stat = RunStatistic.objects.get(run=running_run.run, run_device=part)
    assert stat.secure_mean_ns == pytest.approx(1000)
    assert (stat.floor_secure_mean_ns, stat.net_secure_mean_ns) == (None, None)
    assert (stat.floor_unsecure_mean_ns, stat.net_unsecure_mean_ns) == (None, None)
    assert stat.secure_median_ns == pytest.approx(1000)
    assert (stat.net_secure_median_ns, stat.net_unsecure_median_ns) == (None, None)


def test_the_record_stream_accepts_the_current_header_and_the_one_before_the_floor():
    stream = STREAMS[Stream.RECORDS]
    # The current agents' header adds the interleaved run's mechanism; the floor's is kept.
    assert stream.header.decode() == HEADER + ",mechanism"
    assert stream.columns_of(stream.header) == (*HEADER.split(","), "mechanism")
    assert stream.columns_of(HEADER.encode()) == tuple(HEADER.split(","))
    assert stream.columns_of(HEADER_BEFORE_FLOOR.encode()) == tuple(HEADER_BEFORE_FLOOR.split(","))
    assert stream.columns_of(b"seq,t_send_ns") is None
