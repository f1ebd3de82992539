"""Create the experiments of fixtures/presets/*.json in a user's workspace (once each)."""

from __future__ import annotations

import json
from typing import Any

from django.contrib.auth import get_user_model
from django.core.management.base import BaseCommand, CommandError

from accounts.selectors import workspace_for_user
from config.env import REPO_DIR
from devices.selectors import device_list
from experiments.models import Experiment
from experiments.services import experiment_create

PRESETS_DIR = REPO_DIR / "fixtures" / "presets"
DESIGN_KEYS = (
    "protocol",
    "qos",
    "security",
    "payload_size",
    "message_count",
    "interval_ms",
    "measurement",
)


class Command(BaseCommand):
    help = "Create the preset experiments in the user's workspace, on all its devices."

    def add_arguments(self, parser: Any) -> None:
        parser.add_argument("--username", required=True)

    def handle(self, *args: Any, username: str, **options: Any) -> None:
        user = get_user_model().objects.filter(username=username).first()
        if user is None:
            raise CommandError(f"No user {username!r}.")
        workspace = workspace_for_user(user=user)
        device_ids = [d.pk for d in device_list(workspace=workspace)]
        if not device_ids:
            raise CommandError("The workspace has no devices yet; enroll an agent first.")
        for path in sorted(PRESETS_DIR.glob("*.json")):
            preset = json.loads(path.read_text())
            if Experiment.objects.filter(workspace=workspace, name=preset["name"]).exists():
                continue
            experiment_create(
                workspace=workspace,
                user=user,
                name=preset["name"],
                device_ids=device_ids,
                **{key: preset[key] for key in DESIGN_KEYS},
            )
            self.stdout.write(f"created preset experiment {preset['name']!r}")
