"""A shared experiment's results (issue #20, point 4): read-only without login, ids aliased,
404 for a run's link and once the link is revoked."""

from __future__ import annotations

from typing import Any

import pytest

from core.testing.factories import ExperimentFactory
from experiments.models import Experiment
from results.tests.conftest import messaging_spec
from sharing.public import alias
from sharing.tests.test_public_api import MS, _share

pytestmark = pytest.mark.django_db


def _experiment(make_run: Any, personas: Any) -> tuple[Experiment, list[Any]]:
    experiment: Experiment = ExperimentFactory.create(workspace=personas.workspace, name="AES")
    made = [
        make_run(
            {"pi-a": [c * MS, (c + 1) * MS]}, spec=messaging_spec(security=s), experiment=experiment
        )
        for s, c in (("none", 1), ("aes-128-cbc", 3))
    ]
    return experiment, made


def test_a_shared_experiments_results_answer_without_login_with_aliased_run_ids(
    make_run, personas, owner_client, anonymous_client
):
    experiment, made = _experiment(make_run, personas)
    share, base = _share(owner_client, kind="experiment", experiment=str(experiment.pk))

    response = anonymous_client.get(f"{base}/results/")

    assert response.status_code == 200
    body = response.json()
    assert body["experiment_id"] == str(alias(share, experiment.pk))
    cells = {c["label"]: c for c in body["cells"]}
    assert set(cells) == {"none", "aes-128-cbc"}
    assert cells["aes-128-cbc"]["runs"][0]["run_id"] == str(alias(share, made[1].run.pk))
    assert cells["aes-128-cbc"]["median_ms"] == pytest.approx(3.5)
    (overhead,) = body["overheads"]
    assert overhead["overhead_ms"] == pytest.approx(2.0)
    assert "AES" in body["methods"]
    text = response.content.decode()
    assert str(experiment.pk) not in text
    assert all(str(m.run.pk) not in text for m in made)


def test_a_runs_link_has_no_experiment_results(make_run, personas, owner_client, anonymous_client):
    _, made = _experiment(make_run, personas)
    _, base = _share(owner_client, kind="run", run=str(made[0].run.pk))
    response = anonymous_client.get(f"{base}/results/")
    assert (response.status_code, response.json()["code"]) == (404, "share_not_found")


def test_a_revoked_experiment_link_stops_showing_its_results(
    make_run, personas, owner_client, anonymous_client
):
    experiment, _ = _experiment(make_run, personas)
    share, base = _share(owner_client, kind="experiment", experiment=str(experiment.pk))
    owner_client.post(f"/api/shares/{share.pk}/revoke/")
    assert anonymous_client.get(f"{base}/results/").status_code == 404
