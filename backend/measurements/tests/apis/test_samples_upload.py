"""Cipher-benchmark samples: upload → COPY → per-(mechanism, operation, size) statistics."""

from __future__ import annotations

import statistics
from collections.abc import Sequence

import pytest

from experiments.models import ExperimentKind, RunDevice, RunStatus
from measurements.models import BenchSample, BenchStatistic
from measurements.services import SAMPLE_HEADER
from measurements.tests.conftest import upload


def samples_chunk(rows: Sequence[tuple[object, ...]], header: bytes = SAMPLE_HEADER) -> bytes:
    """Rows without the trailing `packets` and `calls` values get them empty."""
    width = header.count(b",") + 1
    lines = [header.decode()]
    lines += [
        ",".join("" if v is None else str(v) for v in (*row, None, None)[:width]) for row in rows
    ]
    return ("\n".join(lines) + "\n").encode()


def upload_samples(
    client, run, body: bytes, *, index: int, final: bool, total: int | None, key: str
):
    return upload(
        client, run, body, index=index, final=final, total=total, key=key, stream="samples"
    )


def plan(running_run, *totals: int) -> None:
    """What each device plans to measure: a part that uploads fewer fails as incomplete."""
    for part, total in zip(running_run.parts, totals, strict=True):
        RunDevice.objects.filter(pk=part.pk).update(total=total)


@pytest.mark.django_db(transaction=True)
def test_samples_are_stored_once_and_summarised_with_sample_variance(
    running_run, owner_client, django_capture_on_commit_callbacks
):
    run, parts, agents = running_run.run, running_run.parts, running_run.agents
    run.experiment.kind = ExperimentKind.CIPHER_BENCH
    run.experiment.save()
    plan(running_run, 20, 20)
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
    assert run.status == RunStatus.DONE
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


@pytest.mark.django_db(transaction=True)
def test_throughput_windows_give_packet_rates_and_cost_relative_to_no_security(
    running_run, owner_client, django_capture_on_commit_callbacks
):
    run, part, agent = running_run.run, running_run.parts[0], running_run.agents[0]
    run.experiment.kind = ExperimentKind.THROUGHPUT
    run.experiment.save()
    plan(running_run, 6, 0)
    window = 2_000_000_000
    rows = [
        (mechanism, "send", 1280, rep, window, window // 2, 20000, packets)
        for mechanism, base in (("none", 100_000), ("present-80-cbc", 25_000))
        for rep, packets in enumerate((base - 1000, base, base + 1000))
    ]
    with django_capture_on_commit_callbacks(execute=True):
        upload_samples(agent, run, samples_chunk(rows), index=0, final=True, total=6, key="t0")
        other = running_run.agents[1]
        upload_samples(other, run, samples_chunk([]), index=0, final=True, total=0, key="t1")
    run.refresh_from_db()
    assert run.status == RunStatus.DONE
    stat = BenchStatistic.objects.get(run_device=part, mechanism="present-80-cbc")
    rates = [p / 2 for p in (24_000, 25_000, 26_000)]
    assert stat.rate_mean == pytest.approx(statistics.mean(rates))
    assert stat.rate_std == pytest.approx(statistics.stdev(rates))
    detail = owner_client.get(f"/api/runs/{run.pk}/").json()
    rows_by_mechanism = {r["mechanism"]: r for r in detail["bench_summary"]}
    assert rows_by_mechanism["none"]["relative_cost"] == pytest.approx(1.0)
    assert rows_by_mechanism["present-80-cbc"]["relative_cost"] == pytest.approx(4.0)
    assert rows_by_mechanism["present-80-cbc"]["packets_per_s_mean"] == pytest.approx(12_500)


@pytest.mark.django_db(transaction=True)
def test_cipher_bench_rows_show_their_cost_net_of_the_null_floor(
    running_run, owner_client, django_capture_on_commit_callbacks
):
    run, agents = running_run.run, running_run.agents
    run.experiment.kind = ExperimentKind.CIPHER_BENCH
    run.experiment.save()
    plan(running_run, 12, 0)
    rows = [
        (mechanism, op, 64, rep, wall, wall, 9000)
        for mechanism, op, wall in (
            ("null", "encrypt", 300),
            ("null", "decrypt", 200),
            ("aes-128-cbc", "encrypt", 3300),
            ("ed25519", "verify", 90200),
        )
        for rep in range(3)
    ]
    with django_capture_on_commit_callbacks(execute=True):
        upload_samples(agents[0], run, samples_chunk(rows), index=0, final=True, total=12, key="n0")
        upload_samples(agents[1], run, samples_chunk([]), index=0, final=True, total=0, key="n1")
    detail = owner_client.get(f"/api/runs/{run.pk}/").json()
    net = {(r["mechanism"], r["operation"]): r["net_mean_us"] for r in detail["bench_summary"]}
    assert net[("aes-128-cbc", "encrypt")] == pytest.approx(3.0)
    assert net[("ed25519", "verify")] == pytest.approx(90.0)  # against null's decrypt
    assert net[("null", "encrypt")] == pytest.approx(0.0)


@pytest.mark.django_db(transaction=True)
def test_calls_timed_per_repetition_are_stored_and_shown_with_the_statistics(
    running_run, owner_client, django_capture_on_commit_callbacks
):
    run, agents = running_run.run, running_run.agents
    run.experiment.kind = ExperimentKind.CIPHER_BENCH
    run.experiment.save()
    plan(running_run, 4, 0)
    rows = [
        ("aes-128-cbc", op, 16, rep, 2950 + rep, 2940, 9000, None, 34)
        for op in ("encrypt", "decrypt")
        for rep in range(2)
    ]
    with django_capture_on_commit_callbacks(execute=True):
        upload_samples(agents[0], run, samples_chunk(rows), index=0, final=True, total=4, key="c0")
        upload_samples(agents[1], run, samples_chunk([]), index=0, final=True, total=0, key="c1")

    assert set(BenchSample.objects.values_list("calls", flat=True)) == {34}
    stat = BenchStatistic.objects.get(run_device=running_run.parts[0], operation="encrypt")
    assert stat.calls == 34
    assert stat.wall_mean_ns == pytest.approx(2950.5)
    detail = owner_client.get(f"/api/runs/{run.pk}/").json()
    assert {r["calls_per_repetition"] for r in detail["bench_summary"]} == {34}


@pytest.mark.django_db(transaction=True)
def test_samples_of_an_agent_from_before_calls_are_still_accepted_with_no_calls(
    running_run, owner_client, django_capture_on_commit_callbacks
):
    run, agents = running_run.run, running_run.agents
    run.experiment.kind = ExperimentKind.CIPHER_BENCH
    run.experiment.save()
    plan(running_run, 2, 0)
    legacy = b"mechanism,operation,data_bytes,repetition,wall_ns,cpu_ns,peak_rss_kb,packets"
    rows = [("aes-128-cbc", op, 8192, 0, 12000, 11900, 9000) for op in ("encrypt", "decrypt")]
    with django_capture_on_commit_callbacks(execute=True):
        response = upload_samples(
            agents[0], run, samples_chunk(rows, legacy), index=0, final=True, total=2, key="l0"
        )
        upload_samples(agents[1], run, samples_chunk([]), index=0, final=True, total=0, key="l1")

    assert response.status_code == 201
    assert list(BenchSample.objects.values_list("wall_ns", "calls")) == [(12000, None)] * 2
    run.refresh_from_db()
    assert run.status == RunStatus.DONE
    detail = owner_client.get(f"/api/runs/{run.pk}/").json()
    assert {r["calls_per_repetition"] for r in detail["bench_summary"]} == {None}
