"""A generated description follows the design; a typed one is kept verbatim (issue #21 pt 7)."""

from __future__ import annotations

from typing import Any

import pytest
from rest_framework.test import APIClient

from core.testing.factories import DeviceFactory
from experiments.models import Experiment

# The cipher-bench preset's words, written for its own design (100 repetitions up to 1 GiB).
PRESET_TEXT = "AES and ChaCha20 timed over 100 repetitions on data from 1 KiB to 1 GiB."

CIPHER_BENCH = {
    "name": "Cipher timings on the Pi",
    "kind": "cipher_bench",
    "mechanisms": ["aes-128-cbc"],
    "data_sizes": [1 << 20],
    "repetitions": 3,
}


def _create(client: APIClient, personas: Any, **fields: Any) -> tuple[dict[str, Any], Experiment]:
    device = DeviceFactory.create(workspace=personas.workspace)
    response = client.post(
        "/api/experiments/",
        {**CIPHER_BENCH, "device_ids": [str(device.pk)], **fields},
        format="json",
    )
    assert response.status_code == 201, response.json()
    return response.json(), Experiment.objects.get(pk=response.json()["id"])


@pytest.mark.django_db
def test_preset_description_is_regenerated_from_the_edited_design_when_marked_generated(
    personas, owner_client
):
    body, experiment = _create(
        owner_client,
        personas,
        description=PRESET_TEXT,
        description_generated=True,
        preset="openssl-pi-paper",
    )
    assert experiment.description_generated is True
    assert "3 repetitions" in experiment.description
    assert "1 MiB" in experiment.description
    assert "100 repetitions" not in experiment.description
    assert "1 GiB" not in experiment.description
    assert body["description"] == experiment.description
    assert body["description_generated"] is True


@pytest.mark.django_db
def test_typed_description_is_kept_verbatim_when_not_marked_generated(personas, owner_client):
    typed = "My own words: 100 repetitions, on purpose."
    body, experiment = _create(owner_client, personas, description=typed)
    assert experiment.description == typed
    assert experiment.description_generated is False
    assert body["description_generated"] is False


@pytest.mark.django_db
def test_blank_description_is_generated_with_axes_as_axes_not_as_fixed_values(
    personas, owner_client
):
    _, experiment = _create(
        owner_client,
        personas,
        kind="messaging",
        protocol="mqtt",
        qos=1,
        security="none",
        payload_size=66,
        message_count=50,
        interval_ms=0,
        measurement="round_trip",
        axes=[{"parameter": "security", "values": ["none", "aes-128-cbc"]}],
        repeats=2,
    )
    text = experiment.description
    assert experiment.description_generated is True
    assert "QoS 1" in text
    assert "50 messages" in text
    assert "66 B" in text
    # security varies: named once, with the axis, not as a fixed "No security".
    fixed_part, _, axis_part = text.partition("Varies")
    assert "AES-128-CBC" in axis_part
    assert "AES-128-CBC" not in fixed_part
    assert "Every combination 2 times." in text


@pytest.mark.django_db
def test_exported_design_file_leaves_a_generated_description_out(personas, owner_client):
    _, experiment = _create(owner_client, personas)
    exported = owner_client.get(f"/api/experiments/{experiment.pk}/design.yaml")
    assert exported.status_code == 200
    assert "3 repetitions" not in exported.content.decode()
