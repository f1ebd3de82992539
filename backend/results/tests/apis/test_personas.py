"""Owner, teammate and outsider on every results endpoint (issue #18, point 6).

Results are read-only: members of the run's workspace read them, anyone else gets 404."""

from __future__ import annotations

import pytest
from conftest import client_for

from results.tests.conftest import MS

pytestmark = pytest.mark.django_db

MESSAGES = {"pi-a": [1 * MS, None, 3 * MS], "pi-b": [2 * MS]}
RUN_PATHS = [
    "statistics/",
    "distribution/",
    "sizes/",
    "export/records.csv",
    "export/records.parquet",
    "export/summary.csv",
    "export/summary.parquet",
    "methods/",
]


def _accept(path: str) -> str:
    return "text/csv" if path.endswith(".csv") else "*/*"


@pytest.mark.parametrize("path", RUN_PATHS)
@pytest.mark.parametrize("persona", ["owner", "teammate"])
def test_workspace_members_read_every_result_of_a_lab_run(make_run, personas, persona, path):
    made = make_run(MESSAGES)
    client = client_for(getattr(personas, persona))
    response = client.get(f"/api/runs/{made.run.pk}/{path}", HTTP_ACCEPT=_accept(path))
    assert response.status_code == 200


@pytest.mark.parametrize("path", RUN_PATHS)
def test_outsider_gets_404_for_every_result_of_a_lab_run(make_run, outsider_client, path):
    made = make_run(MESSAGES)
    response = outsider_client.get(f"/api/runs/{made.run.pk}/{path}", HTTP_ACCEPT=_accept(path))
    assert (response.status_code, response.json()["code"]) == (404, "not_found")


@pytest.mark.parametrize("persona", ["owner", "teammate"])
def test_workspace_members_compare_two_lab_runs(make_run, personas, persona):
    a, b = make_run(MESSAGES).run, make_run(MESSAGES).run
    response = client_for(getattr(personas, persona)).get(f"/api/compare/?run={a.pk}&run={b.pk}")
    assert response.status_code == 200


def test_outsider_gets_404_comparing_two_lab_runs(make_run, outsider_client):
    a, b = make_run(MESSAGES).run, make_run(MESSAGES).run
    response = outsider_client.get(f"/api/compare/?run={a.pk}&run={b.pk}")
    assert (response.status_code, response.json()["code"]) == (404, "not_found")
