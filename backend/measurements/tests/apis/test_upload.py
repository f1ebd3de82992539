"""Upload → COPY ingestion → summary, through the API with Celery in eager mode."""

from __future__ import annotations

import statistics

import numpy as np
import pytest

from experiments.models import RunDevice, RunStatus
from measurements.models import ChunkStatus, MessageRecord, RunStatistic, UploadChunk
from measurements.services import HEADER_MESSAGE, RECORD_HEADER
from measurements.tests.conftest import T0, csv_chunk, running_run_in, upload
from results.models import RoundTripCache

RTTS_A = [41_000 + 37 * i for i in range(100)]


def _rows(
    rtts: list[int], lost: frozenset[int] = frozenset()
) -> list[tuple[int, int, int | None, str]]:
    return [
        (i, T0 + i * 1_000_000, None if i in lost else rtt, "lost" if i in lost else "ok")
        for i, rtt in enumerate(rtts)
    ]


@pytest.mark.django_db(transaction=True)
def test_upload_in_chunks_ingests_every_record_once_and_completes_the_run(
    running_run, owner_client, django_capture_on_commit_callbacks
):
    run, (part_a, part_b), (agent_a, agent_b) = (
        running_run.run,
        running_run.parts,
        running_run.agents,
    )
    rows_a = _rows(RTTS_A, lost=frozenset({7, 8}))
    rtts_b = [90_000 + (i * 7919) % 5000 for i in range(100)]
    with django_capture_on_commit_callbacks(execute=True):
        first = upload(
            agent_a, run, csv_chunk(rows_a[:60]), index=0, final=False, total=None, key="a0"
        )
        again = upload(
            agent_a, run, csv_chunk(rows_a[:60]), index=0, final=False, total=None, key="a0"
        )
        upload(agent_a, run, csv_chunk(rows_a[60:]), index=1, final=True, total=100, key="a1")
        upload(agent_b, run, csv_chunk(_rows(rtts_b)), index=0, final=True, total=100, key="b0")

    assert first.status_code == 201
    assert first.json() == {"chunk": 0, "records": 60, "duplicate": False}
    assert again.status_code == 200
    assert again.json()["duplicate"] is True
    assert UploadChunk.objects.filter(run_device=part_a).count() == 2
    assert MessageRecord.objects.filter(run_device=part_a).count() == 100
    assert MessageRecord.objects.filter(run_device=part_b).count() == 100
    stored = MessageRecord.objects.get(run_device=part_a, seq=3)
    assert (stored.t_send_ns, stored.t_recv_ns) == (T0 + 3_000_000, T0 + 3_000_000 + RTTS_A[3])
    assert (stored.app_bytes, stored.wire_bytes, stored.outcome) == (66, 70, "ok")

    run.refresh_from_db()
    assert run.status == RunStatus.DONE
    assert set(RunDevice.objects.filter(run=run).values_list("status", flat=True)) == {
        RunStatus.DONE
    }
    delivered_a = [r for i, r in enumerate(RTTS_A) if i not in {7, 8}]
    stat_a = RunStatistic.objects.get(run=run, run_device=part_a)
    assert (stat_a.n, stat_a.lost) == (98, 2)
    assert stat_a.mean_ns == pytest.approx(statistics.fmean(delivered_a))
    assert stat_a.median_ns == pytest.approx(statistics.median(delivered_a))
    assert stat_a.std_ns == pytest.approx(statistics.stdev(delivered_a))
    assert (stat_a.min_ns, stat_a.max_ns) == (min(delivered_a), max(delivered_a))
    # percentile_cont is the "inclusive" linear interpolation.
    expected_p95 = statistics.quantiles(delivered_a, n=100, method="inclusive")[94]
    assert stat_a.p95_ns == pytest.approx(expected_p95)
    # The conftest's rows carry secure_ns = 1000 + seq and unsecure_ns = 2000 + seq.
    delivered_seqs = [i for i in range(100) if i not in {7, 8}]
    assert stat_a.secure_mean_ns == pytest.approx(1000 + statistics.fmean(delivered_seqs))
    detail = owner_client.get(f"/api/runs/{run.pk}/").json()
    row_a = next(r for r in detail["summary"] if r["device_name"] == "pi-a")
    assert row_a["unsecure_mean_us"] == pytest.approx(
        (2000 + statistics.fmean(delivered_seqs)) / 1000
    )
    # ... and their harness floors 300 + seq and 400 + seq: net 700 and 1600 ns each.
    assert row_a["floor_secure_mean_us"] == pytest.approx(
        (300 + statistics.fmean(delivered_seqs)) / 1000
    )
    assert row_a["net_secure_mean_us"] == pytest.approx(0.7)
    assert row_a["net_unsecure_mean_us"] == pytest.approx(1.6)
    assert row_a["median_ms"] == pytest.approx(statistics.median(delivered_a) / 1e6)
    overall = RunStatistic.objects.get(run=run, run_device=None)
    assert (overall.n, overall.lost) == (198, 2)
    assert overall.mean_ns == pytest.approx(statistics.fmean(delivered_a + rtts_b))
    # The results pages' cache of the completed run was filled at completion, not on a view.
    cached = RoundTripCache.objects.filter(run_device__run=run).order_by("run_device_id")
    assert [np.frombuffer(c.rtt_ns, "<i8").size for c in cached] == [98, 100]


@pytest.mark.django_db(transaction=True)
def test_overlapping_chunk_under_a_new_key_adds_only_the_new_records(
    running_run, django_capture_on_commit_callbacks
):
    run, part_a, agent_a = running_run.run, running_run.parts[0], running_run.agents[0]
    rows = _rows(RTTS_A)
    with django_capture_on_commit_callbacks(execute=True):
        upload(agent_a, run, csv_chunk(rows[:50]), index=0, final=False, total=None, key="k0")
        upload(agent_a, run, csv_chunk(rows[40:100]), index=1, final=True, total=100, key="k1")
    assert MessageRecord.objects.filter(run_device=part_a).count() == 100
    assert list(UploadChunk.objects.order_by("index").values_list("records", flat=True)) == [50, 50]
    part_a.refresh_from_db()
    assert part_a.records_ingested == 100
    assert part_a.status == RunStatus.DONE


@pytest.mark.django_db
def test_upload_answers_400_with_the_expected_header_when_the_header_is_wrong(running_run):
    response = upload(
        running_run.agents[0], running_run.run, b"a,b,c\n1,2,3\n", index=0, final=True, total=1
    )
    assert response.status_code == 400
    assert response.json() == {
        "message": HEADER_MESSAGE.format(expected=RECORD_HEADER.decode(), got="a,b,c"),
        "code": "chunk_format_invalid",
        "extra": {},
    }
    assert UploadChunk.objects.count() == 0


@pytest.mark.django_db(transaction=True)
def test_bad_record_fails_the_chunk_ends_the_part_partial_and_keeps_earlier_chunks(
    running_run, django_capture_on_commit_callbacks
):
    run, (part_a, _), (agent_a, agent_b) = running_run.run, running_run.parts, running_run.agents
    good = csv_chunk(_rows(RTTS_A[:10]))
    bad = csv_chunk(_rows(RTTS_A[:3])).replace(b"\n2,", b"\n2x,")
    with django_capture_on_commit_callbacks(execute=True):
        upload(agent_a, run, good, index=0, final=False, total=None, key="g")
        response = upload(agent_a, run, bad, index=1, final=True, total=13, key="b")
    assert response.status_code == 201  # accepted for ingestion; ingestion then rejects it
    chunk = UploadChunk.objects.get(idempotency_key="b")
    assert chunk.status == ChunkStatus.FAILED
    assert "line 4" in chunk.error
    assert "2x" in chunk.error
    assert MessageRecord.objects.filter(run_device=part_a).count() == 10
    part_a.refresh_from_db()
    assert part_a.status == RunStatus.PARTIAL
    assert part_a.error.startswith("Uploaded records were rejected: chunk 1:")
    run.refresh_from_db()
    assert run.status == RunStatus.RUNNING  # pi-b is still measuring
    with django_capture_on_commit_callbacks(execute=True):
        upload(agent_b, run, csv_chunk(_rows(RTTS_A)), index=0, final=True, total=100)
    run.refresh_from_db()
    assert run.status == RunStatus.PARTIAL
    assert run.error.startswith("pi-a: Uploaded records were rejected: chunk 1:")


@pytest.mark.django_db
def test_upload_answers_404_for_a_run_the_device_is_not_part_of(running_run, personas):
    from core.testing.factories import ExperimentFactory
    from experiments.models import Run

    other = Run.objects.create(experiment=ExperimentFactory.create(workspace=personas.workspace))
    response = upload(running_run.agents[0], other, csv_chunk([]), index=0, final=True, total=0)
    assert response.status_code == 404


@pytest.mark.django_db
def test_upload_answers_400_when_chunk_headers_are_missing(running_run):
    client, run = running_run.agents[0], running_run.run
    response = client.post(
        f"/api/agent/runs/{run.pk}/records/", csv_chunk([]), content_type="text/csv"
    )
    assert response.status_code == 400
    assert set(response.json()["extra"]["fields"]) >= {"idempotency_key", "index", "is_final"}


@pytest.mark.django_db
def test_user_session_cannot_upload_records(running_run, owner_client):
    response = upload(owner_client, running_run.run, csv_chunk([]), index=0, final=True, total=0)
    assert response.status_code == 403


@pytest.mark.django_db(transaction=True)
def test_a_partial_upload_ends_its_part_partial_and_the_other_device_still_completes(
    running_run, owner_client, django_capture_on_commit_callbacks
):
    run, (part_a, part_b), (agent_a, agent_b) = (
        running_run.run,
        running_run.parts,
        running_run.agents,
    )
    # The agent was stopped after 37 of its 100 messages and uploaded those 37.
    with django_capture_on_commit_callbacks(execute=True):
        response = upload(
            agent_a, run, csv_chunk(_rows(RTTS_A[:37])), index=0, final=True, total=37
        )
    assert response.status_code == 201
    assert MessageRecord.objects.filter(run_device=part_a).count() == 37
    part_a.refresh_from_db()
    run.refresh_from_db()
    assert part_a.status == RunStatus.PARTIAL
    assert part_a.error == "37 of 100 planned messages measured and stored"
    assert run.status == RunStatus.RUNNING  # one device's end does not end the others'
    # ... then the agent says why; the part keeps its state and takes the reason.
    reason = "agent stopped during the run: SIGTERM (37 of 100 messages measured)"
    assert agent_a.post(f"/api/agent/runs/{run.pk}/fail/", {"message": reason}).status_code == 204
    with django_capture_on_commit_callbacks(execute=True):
        upload(agent_b, run, csv_chunk(_rows(RTTS_A)), index=0, final=True, total=100)
    part_a.refresh_from_db()
    part_b.refresh_from_db()
    run.refresh_from_db()
    assert (part_a.status, part_a.error) == (RunStatus.PARTIAL, reason)
    assert part_b.status == RunStatus.DONE
    assert run.status == RunStatus.PARTIAL
    assert run.error == f"pi-a: {reason}"
    overall = RunStatistic.objects.get(run=run, run_device=None)
    assert overall.n == 137  # the summary covers what was stored of both devices
    methods = owner_client.get(f"/api/runs/{run.pk}/methods/").json()["text"]
    assert "This run is partial, not complete: pi-a partial, 37 of 100 stored" in methods


@pytest.mark.django_db(transaction=True)
def test_a_failed_run_takes_a_late_upload_and_becomes_partial(
    running_run, django_capture_on_commit_callbacks
):
    from experiments.services.agent_events import run_device_fail

    run, (part_a, part_b), agent_a = running_run.run, running_run.parts, running_run.agents[0]
    # Both agents went silent (killed) before uploading: the run ends failed...
    for part in (part_a, part_b):
        run_device_fail(run_device=part, message="sent no heartbeat")
    run.refresh_from_db()
    assert run.status == RunStatus.FAILED
    # ... then one restarts and uploads the 60 records it had logged.
    with django_capture_on_commit_callbacks(execute=True):
        response = upload(
            agent_a, run, csv_chunk(_rows(RTTS_A[:60])), index=0, final=True, total=60
        )
    assert response.status_code == 201
    run.refresh_from_db()
    part_a.refresh_from_db()
    assert MessageRecord.objects.filter(run_device=part_a).count() == 60
    assert part_a.status == RunStatus.PARTIAL
    assert run.status == RunStatus.PARTIAL
    assert RunStatistic.objects.get(run=run, run_device=None).n == 60
    # The same upload again (the agent lost our answer) stores nothing twice.
    with django_capture_on_commit_callbacks(execute=True):
        again = upload(agent_a, run, csv_chunk(_rows(RTTS_A[:60])), index=0, final=True, total=60)
    assert again.status_code == 200
    assert MessageRecord.objects.filter(run_device=part_a).count() == 60


@pytest.mark.django_db(transaction=True)
def test_another_devices_upload_under_the_victims_key_does_not_shadow_the_victims_chunk(
    running_run, personas, django_capture_on_commit_callbacks
):
    victim_run, victim_part, victim = running_run.run, running_run.parts[0], running_run.agents[0]
    attacker_run = running_run_in(personas.outsider_workspace, ("pi-x",))
    victim_key = f"{victim_run.pk}:{victim_part.device_id}:0"
    with django_capture_on_commit_callbacks(execute=True):
        # The attacker posts the victim's key first, to a run of its own workspace...
        planted = upload(
            attacker_run.agents[0],
            attacker_run.run,
            csv_chunk(_rows(RTTS_A[:5])),
            index=0,
            final=False,
            total=None,
            key=victim_key,
        )
        # ... then the victim uploads its real chunk 0 under that key.
        real = upload(
            victim,
            victim_run,
            csv_chunk(_rows(RTTS_A)),
            index=0,
            final=True,
            total=100,
            key=victim_key,
        )
    assert planted.status_code == 201
    assert real.status_code == 201
    assert real.json() == {"chunk": 0, "records": 100, "duplicate": False}
    stored = UploadChunk.objects.get(run_device=victim_part, idempotency_key=victim_key)
    assert stored.status == ChunkStatus.INGESTED
    assert MessageRecord.objects.filter(run_device=victim_part).count() == 100
    assert MessageRecord.objects.filter(run_device=attacker_run.parts[0]).count() == 5
    victim_part.refresh_from_db()
    assert victim_part.records_ingested == 100


@pytest.mark.django_db(transaction=True)
def test_a_chunk_left_received_by_a_dead_worker_is_requeued_and_ingested_once(
    running_run, settings, django_capture_on_commit_callbacks
):
    from datetime import timedelta

    from django.utils import timezone

    from measurements.services import chunks_requeue_stale

    part_a = running_run.parts[0]
    # What a worker killed mid-ingest leaves: the chunk stored, its task gone.
    chunk = UploadChunk.objects.create(
        run_device=part_a,
        idempotency_key="lost",
        index=0,
        is_final=True,
        record_total=100,
        body=csv_chunk(_rows(RTTS_A)),
    )
    RunDevice.objects.filter(pk=part_a.pk).update(record_total=100, status=RunStatus.INGESTING)
    assert chunks_requeue_stale() == 0  # too fresh: its task may still be on its way
    old = timezone.now() - timedelta(seconds=settings.CHUNK_REQUEUE_AFTER_SECONDS + 1)
    UploadChunk.objects.filter(pk=chunk.pk).update(received_at=old)
    with django_capture_on_commit_callbacks(execute=True):
        assert chunks_requeue_stale() == 1
        assert chunks_requeue_stale() == 0  # ingested: nothing left to queue
    chunk.refresh_from_db()
    part_a.refresh_from_db()
    assert chunk.status == ChunkStatus.INGESTED
    assert MessageRecord.objects.filter(run_device=part_a).count() == 100
    assert (part_a.records_ingested, part_a.status) == (100, RunStatus.DONE)


@pytest.mark.django_db(transaction=True)
def test_a_cancelled_run_keeps_what_its_agents_upload_and_summarises_it(
    running_run, django_capture_on_commit_callbacks
):
    from experiments.services.scheduling import run_cancel

    run, (part_a, _), (agent_a, _) = running_run.run, running_run.parts, running_run.agents
    run_cancel(run=run, by="alice")
    with django_capture_on_commit_callbacks(execute=True):
        response = upload(
            agent_a, run, csv_chunk(_rows(RTTS_A[:40])), index=0, final=True, total=40
        )
    assert response.status_code == 201
    run.refresh_from_db()
    part_a.refresh_from_db()
    assert (run.status, run.error) == (RunStatus.CANCELLED, "Cancelled by alice.")
    assert (part_a.status, part_a.records_ingested) == (RunStatus.PARTIAL, 40)
    assert RunStatistic.objects.get(run=run, run_device=None).n == 40
