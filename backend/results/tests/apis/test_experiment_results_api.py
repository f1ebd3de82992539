"""GET /api/experiments/<id>/results/: cells of a matrix experiment with run-level intervals
and their overheads against a baseline cell (issue #20, points 1 and 2)."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
from conftest import client_for

from core.testing.factories import ExperimentFactory
from experiments.models import Run, RunStatus
from results.tests.conftest import MS, messaging_spec

pytestmark = pytest.mark.django_db

# Round trips per mechanism (ms): a run draws its offset, then its messages around it.
MECHANISMS = {"none": 1.0, "aes-128-cbc": 3.0, "chacha20-poly1305": 2.0}


def _messages(rng: np.random.Generator, centre_ms: float, count: int = 60) -> list[int]:
    offset = centre_ms + rng.normal(0, 0.02)
    return [int((offset + rng.exponential(0.05)) * MS) for _ in range(count)]


def _matrix(make_run: Any, repeats: int = 2, *, failed: str | None = None) -> Any:
    """A 3-mechanism x `repeats` experiment, run in the order a matrix queues them."""
    rng = np.random.default_rng(5)
    experiment = None
    for repeat in range(1, repeats + 1):
        for security, centre in MECHANISMS.items():
            made = make_run(
                {"pi-a": _messages(rng, centre), "pi-b": _messages(rng, centre)},
                spec=messaging_spec(security=security),
                experiment=experiment,
            )
            experiment = made.run.experiment
            Run.objects.filter(pk=made.run.pk).update(repeat=repeat)
    if failed:
        make_run(
            {"pi-a": [1 * MS]},
            spec=messaging_spec(security=failed),
            experiment=experiment,
            status=RunStatus.FAILED,
        )
    return experiment


def _get(client: Any, experiment: Any, query: str = "") -> Any:
    return client.get(f"/api/experiments/{experiment.pk}/results/{query}")


def _by_label(body: dict[str, Any]) -> dict[str, dict[str, Any]]:
    return {cell["label"]: cell for cell in body["cells"]}


def test_cells_are_one_per_mechanism_with_their_repeats_and_run_level_intervals(
    make_run, owner_client
):
    experiment = _matrix(make_run)
    response = _get(owner_client, experiment)
    assert response.status_code == 200
    cells = _by_label(response.json())
    assert set(cells) == set(MECHANISMS)
    for security, centre in MECHANISMS.items():
        cell = cells[security]
        run_specs = Run.objects.filter(pk__in=[r["run_id"] for r in cell["runs"]])
        assert {r.spec["security"] for r in run_specs} == {security}
        assert sorted(r["repeat"] for r in cell["runs"]) == [1, 2]
        assert cell["parameters"] == {"security": security}
        assert cell["interval_level"] == "runs"
        assert cell["messages"] == 2 * 2 * 60
        assert cell["lost"] == 0
        low, high = cell["mean_ci_ms"]
        assert low < cell["mean_ms"] < high
        assert abs(cell["mean_ms"] - (centre + 0.05)) < 0.1
        assert cell["median_ci_ms"][0] < cell["median_ms"] < cell["median_ci_ms"][1]
        run_means = [r["mean_ms"] for r in cell["runs"]]
        assert cell["mean_ms"] == pytest.approx(sum(run_means) / 2)


def test_overheads_pair_each_mechanism_with_security_none_never_across_repeats(
    make_run, owner_client
):
    experiment = _matrix(make_run)
    body = _get(owner_client, experiment).json()
    keys = {cell["label"]: cell["key"] for cell in body["cells"]}
    overheads = {o["label"]: o for o in body["overheads"]}
    assert set(overheads) == {"aes-128-cbc", "chacha20-poly1305"}
    for security, o in overheads.items():
        assert (o["cell"], o["baseline"], o["baseline_label"]) == (
            keys[security],
            keys["none"],
            "none",
        )
        expected = MECHANISMS[security] - MECHANISMS["none"]
        assert o["overhead_ms"] == pytest.approx(expected, abs=0.1)  # never reversed
        assert o["ci_ms"][0] < o["overhead_ms"] < o["ci_ms"][1]
        assert o["relative_percent"] == pytest.approx(100 * expected / 1.05, rel=0.1)
        assert o["interval_level"] == "runs"
        assert o["verdict"] == "slower"
        assert "beyond run-to-run variation" in o["verdict_text"]
        assert o["max_rate_per_s"] == pytest.approx(1000 / o["overhead_ms"])
        assert o["max_rate_ci_per_s"][0] <= o["max_rate_per_s"] <= o["max_rate_ci_per_s"][1]


def test_a_chosen_baseline_compares_every_other_cell_against_it(make_run, owner_client):
    experiment = _matrix(make_run)
    keys = {c["label"]: c["key"] for c in _get(owner_client, experiment).json()["cells"]}
    body = _get(owner_client, experiment, f"?baseline={keys['aes-128-cbc']}").json()
    assert body["baseline"] == keys["aes-128-cbc"]
    overheads = {o["label"]: o for o in body["overheads"]}
    assert set(overheads) == {"none", "chacha20-poly1305"}
    faster = overheads["none"]
    assert faster["overhead_ms"] == pytest.approx(-2.0, abs=0.1)
    assert faster["verdict"] == "faster"
    assert (faster["max_rate_per_s"], faster["max_rate_ci_per_s"]) == (None, None)


def test_an_unknown_baseline_is_refused_with_the_cells_to_choose_from(make_run, owner_client):
    experiment = _matrix(make_run, repeats=1)
    response = _get(owner_client, experiment, "?baseline=nope")
    assert response.status_code == 400
    body = response.json()
    assert body["code"] == "unknown_baseline_cell"
    assert "aes-128-cbc" in body["message"]
    assert "nope" in body["message"]


def test_one_run_per_cell_gives_message_level_intervals_and_says_so(make_run, owner_client):
    experiment = _matrix(make_run, repeats=1)
    body = _get(owner_client, experiment).json()
    assert {c["interval_level"] for c in body["cells"]} == {"messages"}
    assert {o["interval_level"] for o in body["overheads"]} == {"messages"}
    for o in body["overheads"]:
        assert "run-to-run variation is not measured" in o["verdict_text"]


def test_only_completed_runs_count_and_the_others_are_reported(make_run, owner_client):
    experiment = _matrix(make_run, failed="aes-128-cbc")
    cells = _by_label(_get(owner_client, experiment).json())
    assert len(cells["aes-128-cbc"]["runs"]) == 2
    assert cells["aes-128-cbc"]["other_runs"] == {"failed": 1}
    assert cells["none"]["other_runs"] == {}


def test_a_cell_with_runs_close_together_shows_no_difference_beyond_run_variation(
    make_run, owner_client
):
    rng = np.random.default_rng(9)
    experiment = None
    for _ in range(2):
        for security in ("none", "aes-128-cbc"):
            made = make_run(
                {"pi-a": _messages(rng, 1.0)},
                spec=messaging_spec(security=security),
                experiment=experiment,
            )
            experiment = made.run.experiment
    (overhead,) = _get(owner_client, experiment).json()["overheads"]
    assert overhead["ci_ms"][0] < 0 < overhead["ci_ms"][1]
    assert overhead["verdict"] == "no_difference"
    assert overhead["verdict_text"] == "no detectable difference beyond run-to-run variation"


def test_a_baseline_for_a_benchmark_experiment_is_refused_as_overheads_are_of_round_trips(
    make_bench_run, owner_client
):
    made = make_bench_run({"pi-a": [("aes-128-cbc", "encrypt", 16, 1000, 900, 100, None)]})
    key = _get(owner_client, made.run.experiment).json()["cells"][0]["key"]
    response = _get(owner_client, made.run.experiment, f"?baseline={key}")
    assert (response.status_code, response.json()["code"]) == (
        400,
        "experiment_has_no_round_trips",
    )


@pytest.mark.parametrize("persona", ["owner", "teammate"])
def test_workspace_members_read_an_experiments_results(make_run, personas, persona):
    experiment = _matrix(make_run, repeats=1)
    response = _get(client_for(getattr(personas, persona)), experiment)
    assert response.status_code == 200
    assert len(response.json()["cells"]) == 3


def test_outsider_gets_404_for_an_experiments_results(make_run, outsider_client):
    experiment = _matrix(make_run, repeats=1)
    response = _get(outsider_client, experiment)
    assert (response.status_code, response.json()["code"]) == (404, "not_found")


def test_an_experiment_without_runs_has_no_cells(personas, owner_client):
    experiment = ExperimentFactory.create(workspace=personas.workspace)
    body = _get(owner_client, experiment).json()
    assert (body["cells"], body["overheads"]) == ([], [])


def test_cells_follow_the_matrix_order_whatever_order_the_runs_were_shuffled_into(
    make_run, owner_client
):
    experiment = _matrix(make_run)
    experiment.axes = [
        {"name": "payload security", "values": [{"security": s} for s in MECHANISMS]}
    ]
    experiment.save(update_fields=["axes"])
    # Queued in reverse of the matrix within each repeat block, as a shuffle may give.
    runs = list(Run.objects.filter(experiment=experiment).order_by("repeat", "-created_at"))
    assert [r.spec["security"] for r in runs[:3]] == list(MECHANISMS)[::-1]
    for position, run in enumerate(runs):
        Run.objects.filter(pk=run.pk).update(
            cell={"security": run.spec["security"]}, position=position
        )
    body = _get(owner_client, experiment).json()
    assert [cell["label"] for cell in body["cells"]] == list(MECHANISMS)


def test_a_network_profile_axis_labels_its_cells_by_the_profiles_names(make_run, owner_client):
    """A run's spec holds its profile whole (id, name, shaping); its cell shows the name, and
    the run without a profile says so."""
    rng = np.random.default_rng(9)
    slow = {"id": "5e1f0000-0000-4000-8000-000000000001", "name": "3G poor", "spec": {}}
    experiment = None
    for profile, centre in ((None, 1.0), (slow, 40.0)):
        made = make_run(
            {"pi-a": _messages(rng, centre)},
            spec=messaging_spec(network_profile=profile),
            experiment=experiment,
        )
        experiment = made.run.experiment
    cells = _get(owner_client, experiment).json()["cells"]
    assert [c["label"] for c in cells] == ["no network profile", "3G poor"]
    assert [c["parameters"] for c in cells] == [
        {"network_profile": None},
        {"network_profile": "3G poor"},
    ]


def test_a_run_completing_after_a_view_is_in_the_next_view(make_run, owner_client):
    """The payload is cached under the experiment's runs and their statuses."""
    experiment = _matrix(make_run)
    late = make_run(
        {"pi-a": [5 * MS, 5 * MS]},
        spec=messaging_spec(security="none"),
        experiment=experiment,
        status=RunStatus.RUNNING,
    )
    before = _by_label(_get(owner_client, experiment).json())
    assert before["none"]["other_runs"] == {"running": 1}
    assert len(before["none"]["runs"]) == 2

    Run.objects.filter(pk=late.run.pk).update(status=RunStatus.DONE, repeat=3)
    after = _by_label(_get(owner_client, experiment).json())

    assert after["none"]["other_runs"] == {}
    assert [r["repeat"] for r in after["none"]["runs"]] == [1, 2, 3]
    assert after["none"]["mean_ms"] > before["none"]["mean_ms"] + 1  # the 5 ms run counts


def test_a_renamed_experiments_methods_paragraph_names_it_at_the_next_view(make_run, owner_client):
    experiment = _matrix(make_run)
    _get(owner_client, experiment)
    experiment.name = "Renamed after the first view"
    experiment.save(update_fields=["name"])
    assert "Renamed after the first view" in _get(owner_client, experiment).json()["methods"]


@pytest.mark.parametrize(
    ("specs", "quantity"),
    [
        ([{}], "round-trip time"),
        ([{"measurement": "one_way"}], "one-way delay"),
        ([{"measurement": "ack", "protocol": "coap"}], "acknowledgement time (CON → ACK)"),
        (
            [{"measurement": "ack", "qos": 1}, {"measurement": "ack", "qos": 2}],
            "acknowledgement time",
        ),
        ([{}, {"measurement": "one_way", "security": "null"}], "delay"),
    ],
)
def test_the_results_name_the_quantity_their_runs_measured(make_run, owner_client, specs, quantity):
    experiment = None
    for overrides in specs:
        made = make_run(
            {"pi-a": [1 * MS, 2 * MS]}, spec=messaging_spec(**overrides), experiment=experiment
        )
        experiment = made.run.experiment
    assert _get(owner_client, experiment).json()["quantity"] == quantity


def test_a_linked_axis_labels_what_a_protocol_has_not_with_a_dash_and_names_the_quantity(
    make_run, owner_client
):
    """SRUP vs MQTT (the SRUP paper's axis): MQTT has no TLS version nor SRUP signature; the
    methods paragraph names the one-way delay the runs measured."""
    experiment = None
    for protocol, signature in (("srup", "rsa-2048"), ("mqtt", None)):
        made = make_run(
            {"pi-a": [1 * MS, 2 * MS]},
            spec=messaging_spec(protocol=protocol, srup_signature=signature, measurement="one_way"),
            experiment=experiment,
        )
        experiment = made.run.experiment
    body = _get(owner_client, experiment).json()
    assert [c["label"] for c in body["cells"]] == ["srup · rsa-2048", "mqtt · —"]
    assert "the one-way delay of each delivered message, in ms" in body["methods"]
    assert "round-trip" not in body["methods"]
