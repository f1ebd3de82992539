"""GET /api/compare/?run=<id>&run=<id>: side by side, with automatic pairs."""

from __future__ import annotations

import uuid

import pytest
from conftest import client_for

from results.apis.compare import DUPLICATE_RUNS_MESSAGE
from results.tests.conftest import MS, messaging_spec

BASE = {"pi-1": [1 * MS, 2 * MS, 3 * MS], "pi-2": [11 * MS, 12 * MS, 13 * MS]}
SIGNED = {name: [v + 56_100_000 for v in values] for name, values in BASE.items()}


def _query(*runs) -> str:
    return "/api/compare/?" + "&".join(f"run={r.pk}" for r in runs)


@pytest.mark.django_db
def test_compare_answers_runs_side_by_side_and_their_pair(make_run, personas):
    plain = make_run(BASE).run
    signed = make_run(SIGNED, spec=messaging_spec(security="rsa-2048-pkcs1v15")).run
    response = client_for(personas.teammate).get(_query(signed, plain))

    assert response.status_code == 200
    body = response.json()
    assert [r["run_id"] for r in body["runs"]] == [str(signed.pk), str(plain.pk)]
    assert body["runs"][1]["statistics"]["mean_of_device_means_ms"] == pytest.approx(7)
    assert body["runs"][0]["treatment"]["security"] == "rsa-2048-pkcs1v15"
    assert body["runs"][0]["conditions"]["qos"] == 1
    (pair,) = body["pairs"]
    assert (pair["baseline_run_id"], pair["treatment_run_id"]) == (str(plain.pk), str(signed.pk))
    assert pair["differs_in"] == [
        {"key": "security", "baseline": "none", "treatment": "rsa-2048-pkcs1v15"}
    ]
    assert pair["overhead_ms"] == pytest.approx(56.1)
    assert pair["max_rate_hz"] == pytest.approx(17.825, abs=0.001)
    assert pair["ci_low_ms"] <= 56.1 <= pair["ci_high_ms"]
    assert "p_value" not in pair  # no message-level test across runs (issue #20)
    assert (pair["repeat"], pair["interval_level"], pair["verdict"]) == (1, "messages", "slower")
    assert pair["parameter"] == "security"
    assert pair["treatment_label"] == body["runs"][0]["label"]
    assert body["runs"][0]["label"].startswith("MQTT baseline · run of ")
    assert body["bootstrap"] == {"resamples": 2000, "draw_max": 1000, "seed": 2021}


@pytest.mark.django_db
@pytest.mark.parametrize("case", ["one", "duplicate", "too_many", "not_a_uuid"])
def test_compare_rejects_a_bad_list_of_runs(make_run, owner_client, case):
    run = make_run(BASE).run
    query = {
        "one": f"run={run.pk}",
        "duplicate": f"run={run.pk}&run={run.pk}",
        "too_many": "&".join(f"run={uuid.uuid4()}" for _ in range(9)),
        "not_a_uuid": f"run={run.pk}&run=abc",
    }[case]
    response = owner_client.get(f"/api/compare/?{query}")
    assert response.status_code == 400
    assert response.json()["code"] == "validation_error"
    assert "run" in response.json()["extra"]["fields"]
    if case == "duplicate":
        assert response.json()["extra"]["fields"]["run"] == [DUPLICATE_RUNS_MESSAGE]


@pytest.mark.django_db
def test_compare_answers_404_when_a_run_is_in_another_workspace(make_run, personas):
    mine = make_run(BASE).run
    theirs = make_run({"pi-x": [MS]}, workspace=personas.outsider_workspace).run
    response = client_for(personas.outsider).get(_query(mine, theirs))
    assert response.status_code == 404
    assert client_for(personas.owner).get(_query(mine, theirs)).status_code == 404


@pytest.mark.django_db
def test_compare_requires_login(make_run, anonymous_client):
    a, b = make_run(BASE).run, make_run(BASE).run
    assert anonymous_client.get(_query(a, b)).status_code == 401


@pytest.mark.django_db
def test_a_pair_over_repeats_lists_every_run_of_each_side_with_its_device_means(
    make_run, owner_client
):
    """The compare page's per-device overhead chart reads every run of each side (its ids in
    the pair, its per-device means in `runs`), not the first one only."""
    from experiments.models import Run

    experiment = None
    made = {}
    for repeat, shift in ((1, 0), (2, 4 * MS)):
        for security, extra in (("none", 0), ("aes-128-cbc", 2 * MS)):
            messages = {name: [v + shift + extra for v in values] for name, values in BASE.items()}
            run = make_run(
                messages, spec=messaging_spec(security=security), experiment=experiment
            ).run
            experiment = run.experiment
            Run.objects.filter(pk=run.pk).update(repeat=repeat)
            made[(security, repeat)] = run
    response = owner_client.get(_query(*made.values()))

    assert response.status_code == 200
    body = response.json()
    (pair,) = body["pairs"]
    assert pair["repeat"] is None
    assert set(pair["baseline_run_ids"]) == {str(made[("none", r)].pk) for r in (1, 2)}
    assert set(pair["treatment_run_ids"]) == {str(made[("aes-128-cbc", r)].pk) for r in (1, 2)}
    device_means = {
        run["run_id"]: {d["device_name"]: d["mean_ms"] for d in run["statistics"]["devices"]}
        for run in body["runs"]
    }
    for device, base_mean in (("pi-1", 2.0), ("pi-2", 12.0)):
        sides = [
            sum(device_means[i][device] for i in ids) / len(ids)
            for ids in (pair["baseline_run_ids"], pair["treatment_run_ids"])
        ]
        # Each side over both repeats (shifted 0 and 4 ms): base + 2, and 2 ms more.
        assert sides == pytest.approx([base_mean + 2, base_mean + 4])
    assert pair["overhead_ms"] == pytest.approx(2.0)
