"""The broker's identities (devices/broker.py): write the dynamic-security plugin's starting
file, or bring a running broker in step with the database."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

from django.core.management.base import BaseCommand, CommandError

from devices.broker import BrokerAdminFailed, broker_sync, dynsec_initial_config, identities_enabled


class Command(BaseCommand):
    help = (
        "`init FILE`: write the dynamic-security plugin's starting file (the platform's "
        "certificate identity as admin), unless it exists; `sync`: grant every enrolled "
        "device and remove every revoked one on the running broker."
    )

    def add_arguments(self, parser: Any) -> None:
        parser.add_argument("action", choices=["init", "sync"])
        parser.add_argument("file", nargs="?", help="the plugin's config file (init)")
        parser.add_argument("--force", action="store_true", help="init: replace an existing file")

    def handle(
        self, *args: Any, action: str, file: str | None, force: bool, **options: Any
    ) -> None:
        if action == "init":
            if not file:
                raise CommandError(
                    "init needs the plugin's config file: broker_identities init FILE"
                )
            path = Path(file)
            if path.exists() and not force:
                self.stdout.write(f"{path} exists; kept (--force replaces it)")
                return
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(json.dumps(dynsec_initial_config(), indent=2) + "\n")
            os.chmod(path, 0o600)
            self.stdout.write(f"wrote {path}")
            return
        if not identities_enabled():
            raise CommandError(
                "MQTT_BROKER_IDENTITIES is off: the broker has no identities to sync"
            )
        try:
            granted = broker_sync()
        except BrokerAdminFailed as exc:
            raise CommandError(str(exc)) from None
        self.stdout.write(f"broker identities in step: {granted} device(s) granted")
