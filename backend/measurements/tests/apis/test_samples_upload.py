"""Cipher-benchmark samples: upload → COPY → per-(mechanism, operation, size) statistics."""

from __future__ import annotations

import statistics

import pytest

from experiments.models import ExperimentKind, RunStatus
from measurements.models import BenchSample, BenchStatistic
from measurements.services import SAMPLE_HEADER
from measurements.tests.conftest import upload


def samples_chunk(rows: list[tuple[str, str, int, int, int, int, int]]) -> bytes:
    lines = [SAMPLE_HEADER.decode(), *(",".join(map(str, row)) for row in rows)]
    return ("\n".join(lines) + "\n").encode()


def upload_samples(
    client, run, body: bytes, *, index: int, final: bool, total: int | None, key: str
):
    return upload(
        client, run, body, index=index, final=final, total=total, key=key, stream="samples"
    )


@pytest.mark.django_db(transaction=True)
def test_samples_are_stored_once_and_summarised_with_sample_variance(
    running_run, owner_client, django_capture_on_commit_callbacks
):
    run, parts, agents = running_run.run, running_run.parts, running_run.agents
    run.experiment.kind = ExperimentKind.CIPHER_BENCH
    run.experiment.save()
    walls = [1000 + 37 * i for i in range(10)]
    rows = [
        ("aes-128-cbc", op, 8192, i, w + (5 if op == "decrypt" else 0), w // 2, 10240)
        for op in ("encrypt", "decrypt")
        for i, w in enumerate(walls)
    ]
    with django_capture_on_commit_callbacks(execute=True):
        for agent, part in zip(agents, parts, strict=True):
            first = upload_samples(
                agent,
                run,
                samples_chunk(rows[:10]),
                index=0,
                final=False,
                total=None,
                key=f"{part.pk}:0",
            )
            again = upload_samples(
                agent,
                run,
                samples_chunk(rows[:10]),
                index=0,
                final=False,
                total=None,
                key=f"{part.pk}:0",
            )
            upload_samples(
                agent,
                run,
                samples_chunk(rows[10:]),
                index=1,
                final=True,
                total=20,
                key=f"{part.pk}:1",
            )
            assert (first.status_code, again.status_code) == (201, 200)

    assert BenchSample.objects.count() == 40
    run.refresh_from_db()
    assert run.status == RunStatus.COMPLETED
    stat = BenchStatistic.objects.get(run_device=parts[0], operation="encrypt")
    assert (stat.mechanism, stat.data_bytes, stat.n) == ("aes-128-cbc", 8192, 10)
    assert stat.wall_mean_ns == pytest.approx(statistics.mean(walls))
    assert stat.wall_var_ns2 == pytest.approx(statistics.variance(walls))
    assert stat.wall_std_ns == pytest.approx(statistics.stdev(walls))
    assert stat.peak_rss_kb == 10240
    detail = owner_client.get(f"/api/runs/{run.pk}/").json()
    assert detail["kind"] == "cipher_bench"
    row = next(
        r
        for r in detail["bench_summary"]
        if r["device_name"] == "pi-a" and r["operation"] == "encrypt"
    )
    assert row["mean_us"] == pytest.approx(statistics.mean(walls) / 1000)
    assert row["std_us"] == pytest.approx(statistics.stdev(walls) / 1000)
    assert row["throughput_mb_s"] == pytest.approx(8192 / (statistics.mean(walls) / 1000))


@pytest.mark.django_db
def test_samples_with_the_records_header_are_refused(running_run):
    body = b"seq,t_send_ns,t_recv_ns,app_bytes,wire_bytes,outcome,secure_ns,unsecure_ns\n"
    response = upload_samples(
        running_run.agents[0], running_run.run, body, index=0, final=True, total=0, key="x"
    )
    assert response.status_code == 400
    assert response.json()["code"] == "chunk_format_invalid"
