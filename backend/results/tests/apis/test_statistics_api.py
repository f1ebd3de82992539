"""GET /api/runs/<id>/statistics/ and /distribution/: workspace-scoped, aggregated."""

from __future__ import annotations

import json

import numpy as np
import pytest
from conftest import client_for

from core.exception_handlers import VALIDATION_MESSAGE
from core.testing.factories import ExperimentFactory
from experiments.models import ExperimentKind, Run, RunStatus
from results.apis.statistics import RANGE_ORDER_MESSAGE
from results.models import RoundTripCache
from results.tests.conftest import MS, messaging_spec

PI_A = [4 * MS, 10 * MS, None, 1 * MS, 3 * MS, 2 * MS]  # send order, not sorted
PI_B = [30 * MS, 20 * MS]


@pytest.mark.django_db
def test_statistics_answer_per_device_all_devices_and_repeats(make_run, owner_client):
    made = make_run({"pi-a": PI_A, "pi-b": PI_B})
    response = owner_client.get(f"/api/runs/{made.run.pk}/statistics/")

    assert response.status_code == 200
    body = response.json()
    assert (body["run_id"], body["status"], body["confidence"]) == (
        str(made.run.pk),
        "done",
        0.95,
    )
    a, b = body["devices"]
    assert (a["device_name"], a["n"], a["lost"], a["mean_ms"], a["median_ms"]) == (
        "pi-a",
        5,
        1,
        4.0,
        3.0,
    )
    assert a["variance_ms2"] == pytest.approx(12.5)
    assert a["ci_low_ms"] == pytest.approx(-0.3899452)
    # Five values: too few for the bootstrap, so the interval is the t one, and says so.
    assert (a["ci_method"], a["t_ci_low_ms"]) == ("t", a["ci_low_ms"])
    assert a["median_ci_low_ms"] is None
    assert (b["n"], b["mean_ms"]) == (2, 25.0)
    assert body["all_devices"]["device_id"] is None
    assert (body["all_devices"]["n"], body["all_devices"]["mean_ms"]) == (7, 10.0)
    assert body["mean_of_device_means_ms"] == 14.5
    assert body["repeats"]["n"] == 1
    assert body["repeats"]["runs"][0]["mean_ms"] == 14.5
    assert body["repeats"]["ci_low_ms"] is None  # one run: no interval
    assert body["repeats"]["ci_method"] == "t"
    # The completed run's round trips are cached for the next view.
    assert RoundTripCache.objects.filter(run_device__run=made.run).count() == 2


@pytest.mark.django_db
def test_statistics_of_ten_values_or_more_give_bootstrap_intervals_and_the_t_beside_them(
    make_run, owner_client
):
    # Twelve round trips with one slow one: right-skewed, as measured round trips are.
    trips = [1 * MS, 2 * MS, 1 * MS, 3 * MS, 2 * MS, 1 * MS, 2 * MS, 2 * MS, 1 * MS, 3 * MS]
    made = make_run({"pi-a": [*trips, 2 * MS, 40 * MS]})
    a = owner_client.get(f"/api/runs/{made.run.pk}/statistics/").json()["devices"][0]

    assert (a["n"], a["ci_method"]) == (12, "bootstrap-t")
    assert a["ci_low_ms"] < a["mean_ms"] < a["ci_high_ms"]
    # The bootstrap interval reaches further towards the slow tail than the symmetric t one.
    assert a["ci_high_ms"] > a["t_ci_high_ms"]
    assert a["t_ci_high_ms"] - a["mean_ms"] == pytest.approx(a["mean_ms"] - a["t_ci_low_ms"])
    assert a["median_ci_low_ms"] <= a["median_ms"] <= a["median_ci_high_ms"]


@pytest.mark.django_db
def test_teammate_reads_results_and_outsider_gets_404(make_run, personas, outsider_client):
    made = make_run({"pi-a": PI_A})
    teammate = client_for(personas.teammate)
    for path in ("statistics/", "distribution/"):
        assert teammate.get(f"/api/runs/{made.run.pk}/{path}").status_code == 200
        response = outsider_client.get(f"/api/runs/{made.run.pk}/{path}")
        assert response.status_code == 404
        assert response.json()["code"] == "not_found"
    assert (
        not RoundTripCache.objects.filter(run_device__run=made.run)
        .exclude(run_device__run__experiment__workspace=personas.workspace)
        .exists()
    )


@pytest.mark.django_db
def test_results_require_login(make_run, anonymous_client):
    made = make_run({"pi-a": PI_A})
    for path in ("statistics/", "distribution/"):
        response = anonymous_client.get(f"/api/runs/{made.run.pk}/{path}")
        assert response.status_code == 401
        assert response.json()["code"] == "not_authenticated"


@pytest.mark.django_db
def test_a_benchmark_run_answers_run_has_no_round_trips(personas, owner_client):
    experiment = ExperimentFactory.create(
        workspace=personas.workspace, kind=ExperimentKind.CIPHER_BENCH
    )
    run = Run.objects.create(experiment=experiment, status=RunStatus.DONE)
    # Exports and methods answer every kind (tests/apis/test_exports_api.py).
    for path in ("statistics/", "distribution/", "sizes/"):
        response = owner_client.get(f"/api/runs/{run.pk}/{path}")
        assert response.status_code == 400
        assert response.json()["code"] == "run_has_no_round_trips"


@pytest.mark.django_db
def test_distribution_answers_shared_bins_boxes_densities_and_series(make_run, owner_client):
    made = make_run({"pi-a": PI_A, "pi-b": PI_B})
    response = owner_client.get(f"/api/runs/{made.run.pk}/distribution/?bins=29")

    assert response.status_code == 200
    body = response.json()
    assert (body["low_ms"], body["high_ms"]) == (1.0, 30.0)
    assert len(body["edges_ms"]) == 30
    assert "Silverman" in body["density_method"]
    a, b = body["devices"]
    assert sum(a["counts"]) == 5
    assert sum(b["counts"]) == 2
    assert a["box"]["median_ms"] == 3.0
    assert a["box"]["outliers"] == 1  # 10 ms beyond 4 + 1.5 * (4 - 2)
    assert a["box"]["outlier_sample_ms"] == [10.0]
    assert len(a["density"]) == len(body["grid_ms"])
    assert a["series"]["mean_ms"] == [4.0, 10.0, 1.0, 3.0, 2.0]
    assert a["series"]["seq_first"] == [0, 1, 3, 4, 5]


@pytest.mark.django_db
@pytest.mark.parametrize(
    ("query", "field"),
    [
        ("bins=0", "bins"),
        ("bins=1001", "bins"),
        ("bins=ten", "bins"),
        ("min_ms=5&max_ms=5", "max_ms"),
    ],
)
def test_distribution_rejects_bad_query_parameters(make_run, owner_client, query, field):
    made = make_run({"pi-a": PI_A})
    response = owner_client.get(f"/api/runs/{made.run.pk}/distribution/?{query}")
    assert response.status_code == 400
    body = response.json()
    assert (body["code"], body["message"]) == ("validation_error", VALIDATION_MESSAGE)
    assert list(body["extra"]["fields"]) == [field]
    if field == "max_ms":
        assert body["extra"]["fields"]["max_ms"] == [RANGE_ORDER_MESSAGE]


@pytest.mark.django_db
def test_distribution_of_a_large_run_never_ships_its_records(make_run, owner_client):
    rtts = (np.random.default_rng(5).gamma(3.0, 1.0, 40_000) * MS).astype(int).tolist()
    made = make_run({"pi-a": rtts})
    response = owner_client.get(f"/api/runs/{made.run.pk}/distribution/")
    assert response.status_code == 200
    assert len(response.content) < 20_000  # 40,000 raw values would be ~400 kB
    device = json.loads(response.content)["devices"][0]
    assert device["n"] == 40_000
    assert sum(device["counts"]) == 40_000


@pytest.mark.django_db
@pytest.mark.parametrize(
    ("spec", "measurement", "quantity"),
    [
        ({}, "round_trip", "round-trip time"),
        ({"measurement": "ack", "qos": 1}, "ack", "acknowledgement time (publish → PUBACK)"),
        (
            {"measurement": "ack", "protocol": "coap", "coap_type": "con"},
            "ack",
            "acknowledgement time (CON → ACK)",
        ),
    ],
)
def test_statistics_name_the_measured_quantity_of_the_run(
    make_run, owner_client, spec, measurement, quantity
):
    made = make_run({"pi-a": PI_A}, spec=messaging_spec(**spec))
    body = owner_client.get(f"/api/runs/{made.run.pk}/statistics/").json()

    assert (body["measurement"], body["quantity"]) == (measurement, quantity)
