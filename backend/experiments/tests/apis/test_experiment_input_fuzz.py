"""Whatever JSON a client sends for an experiment, the answer is 201 or a 400 with field
errors — never a 500, and nothing half-created."""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from core.testing.factories import DeviceFactory
from experiments.models import Experiment

JSON_VALUES = st.recursive(
    st.none()
    | st.booleans()
    | st.integers()
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(max_size=30),
    lambda inner: (
        st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=5), inner, max_size=3)
    ),
    max_leaves=5,
)
FIELDS = [
    "name",
    "protocol",
    "qos",
    "security",
    "payload_size",
    "message_count",
    "interval_ms",
    "measurement",
    "device_ids",
]


@pytest.mark.django_db
@settings(
    max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(body=st.fixed_dictionaries({}, optional=dict.fromkeys(FIELDS, JSON_VALUES)))
def test_create_experiment_never_answers_500_for_any_json(personas, owner_client, body):
    before = Experiment.objects.count()
    response = owner_client.post("/api/experiments/", body, format="json")
    assert response.status_code in (201, 400), response.content
    if response.status_code == 400:
        payload = response.json()
        assert payload["code"] in ("validation_error", "device_not_in_workspace")
        assert Experiment.objects.count() == before


@pytest.mark.django_db
@pytest.mark.parametrize(
    ("field", "value"),
    [
        ("payload_size", 65537),
        ("payload_size", "66"),
        ("message_count", 0),
        ("message_count", 10**12),
        ("qos", -1),
        ("interval_ms", -5),
        ("protocol", "http"),
        ("name", ""),
        ("device_ids", ["not-a-uuid"]),
    ],
)
def test_create_experiment_names_the_bad_field(personas, owner_client, field, value):
    device = DeviceFactory.create(workspace=personas.workspace)
    body = {"name": "x", "device_ids": [str(device.pk)], field: value}
    response = owner_client.post("/api/experiments/", body, format="json")
    if field == "payload_size" and value == "66":
        assert response.status_code == 201  # numeric strings are accepted, as DRF does
        return
    assert response.status_code == 400
    assert field in response.json()["extra"]["fields"]
