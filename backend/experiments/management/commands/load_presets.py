"""Create the experiments of fixtures/designs/*.yaml in a user's workspace, on all its
devices (once each, by name): the demo workspace's starting point (make up). The papers'
presets (fixtures/presets/) are offered in the form instead, where the user picks devices."""

from __future__ import annotations

from typing import Any

from django.contrib.auth import get_user_model
from django.core.management.base import BaseCommand, CommandError

from accounts.selectors import workspace_for_user
from config.env import REPO_DIR
from devices.selectors import device_list
from experiments import design_file
from experiments.apis.experiments import ExperimentInputSerializer
from experiments.models import Experiment
from experiments.services.designs import experiment_create

DESIGNS_DIR = REPO_DIR / "fixtures" / "designs"


class Command(BaseCommand):
    help = "Create the designs of fixtures/designs/ in the user's workspace, on all its devices."

    def add_arguments(self, parser: Any) -> None:
        parser.add_argument("--username", required=True)

    def handle(self, *args: Any, username: str, **options: Any) -> None:
        user = get_user_model().objects.filter(username=username).first()
        if user is None:
            raise CommandError(f"No user {username!r}.")
        workspace = workspace_for_user(user=user)
        devices = [d.name for d in device_list(workspace=workspace)]
        if not devices:
            raise CommandError("The workspace has no devices yet; enroll an agent first.")
        for path in sorted(DESIGNS_DIR.glob("*.yaml")):
            document = design_file.load(path.read_text())
            if Experiment.objects.filter(workspace=workspace, name=document["name"]).exists():
                continue
            data = design_file.to_input({**document, "devices": devices}, workspace=workspace)
            serializer = ExperimentInputSerializer(data=data)
            if not serializer.is_valid():
                raise CommandError(f"{path.name}: {serializer.errors}")
            validated = dict(serializer.validated_data)
            validated.pop("matrix")
            experiment_create(workspace=workspace, user=user, **validated)
            self.stdout.write(f"created experiment {document['name']!r}")
