"""run_oneway_send around the device-agent's OneWayController (stubbed here; its broker
restarts are tested against a real Mosquitto in device-agent
tests/test_oneway_controller_faults.py): what it logs of the messages skipped while the
broker connection was lost, and the run failing when the controller gives up."""

from __future__ import annotations

import logging
from typing import Any

import pytest
from iotsecbench_agent.errors import DataPlaneError
from iotsecbench_agent.oneway.controller import TargetResult

from core.testing.factories import DeviceFactory, ExperimentFactory
from experiments.models import Run, RunStatus
from experiments.services.oneway import ONE_WAY_SEND_FAILED_MESSAGE, run_oneway_send
from experiments.services.scheduling import experiment_start


@pytest.fixture
def quiet(monkeypatch):
    """No Celery kicks."""
    monkeypatch.setattr("django.db.transaction.on_commit", lambda fn, **kw: None)


def _one_way_run(personas: Any) -> Run:
    devices = [DeviceFactory.create(workspace=personas.workspace) for _ in range(2)]
    experiment = ExperimentFactory.create(
        workspace=personas.workspace, devices=devices, measurement="one_way"
    )
    return experiment_start(experiment=experiment)[0]


class _Controller:
    """Stands in for OneWayController: what it was built with, and a canned outcome."""

    built: dict[str, Any] = {}
    outcome: list[TargetResult] | Exception = []

    def __init__(self, link: Any, targets: Any, **options: Any) -> None:
        type(self).built = {"link": link, "targets": targets, **options}

    def run(self) -> list[TargetResult]:
        if isinstance(self.outcome, Exception):
            raise self.outcome
        return self.outcome


@pytest.mark.django_db
def test_the_messages_skipped_during_a_broker_outage_are_logged_per_device(
    personas, quiet, monkeypatch, caplog
):
    run = _one_way_run(personas)
    skipped = TargetResult(topic="a", sent=7, skipped=[3, 4, 5])
    _Controller.outcome = [skipped, TargetResult(topic="b", sent=10)]
    monkeypatch.setattr("experiments.services.oneway.OneWayController", _Controller)
    caplog.set_level(logging.INFO, logger="experiments.services.oneway")

    assert run_oneway_send(run_id=run.pk) == 17

    assert _Controller.built["run_id"] == str(run.pk)
    messages = [r.getMessage() for r in caplog.records]
    assert f"experiments.oneway_sent run={run.pk} messages=17 skipped=3" in messages
    assert f"experiments.oneway_skipped run={run.pk} topic=a skipped=3" in messages
    assert not [m for m in messages if "topic=b" in m]
    run.refresh_from_db()
    assert run.status != RunStatus.FAILED


@pytest.mark.django_db
def test_a_controller_cut_off_past_its_budget_fails_the_run_saying_so(personas, quiet, monkeypatch):
    run = _one_way_run(personas)
    error = "the data-plane connection was lost for longer than the reconnect budget of 30 s"
    _Controller.outcome = DataPlaneError(error)
    monkeypatch.setattr("experiments.services.oneway.OneWayController", _Controller)

    assert run_oneway_send(run_id=run.pk) == 0

    run.refresh_from_db()
    assert run.status == RunStatus.FAILED
    assert run.error == ONE_WAY_SEND_FAILED_MESSAGE.format(error=error)
