"""The design files docs/papers.md gives for the papers' experiments beyond the presets
import as written (into a workspace with the devices they name)."""

from __future__ import annotations

import re

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile

from config.env import REPO_DIR
from core.testing.factories import DeviceFactory
from experiments.models import Experiment

DEVICES = ("pi-1", "pi-client", "pi-gateway", "pi-3")


@pytest.mark.django_db
def test_every_design_file_in_the_papers_page_imports_as_an_experiment(personas, owner_client):
    for name in DEVICES:
        DeviceFactory.create(workspace=personas.workspace, name=name)
    text = (REPO_DIR / "docs" / "papers.md").read_text()
    blocks = re.findall(r"```yaml\n(.*?)```", text, re.S)
    assert len(blocks) == 5
    for block in blocks:
        upload = SimpleUploadedFile("design.yaml", block.encode())
        response = owner_client.post(
            "/api/experiments/import/", {"file": upload}, format="multipart"
        )
        assert response.status_code == 201, (block.splitlines()[1], response.json())
        assert Experiment.objects.filter(pk=response.json()["id"]).exists()
    # The MQTT-SN paper's network mode (Figures 5-6, Table 3): packets to the gateway Pi.
    network = Experiment.objects.get(name__startswith="MQTT-SN paper, Figures 5-6")
    assert (network.kind, network.target_url) == ("throughput", "udp://192.168.4.1:9999")
