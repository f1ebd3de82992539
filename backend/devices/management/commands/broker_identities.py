"""The broker's identities (devices/broker.py): make its files, or bring a running broker in
step with the database."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from django.core.management.base import BaseCommand, CommandError

from devices.broker import BrokerAdminFailed, broker_sync, identities_enabled
from devices.broker_setup import broker_setup


class Command(BaseCommand):
    help = (
        "`setup PKI_DIR --broker-dir DIR --host NAME…`: make (or keep) the CA in PKI_DIR and "
        "the broker's TLS files and dynamic-security starting file in DIR "
        "(devices/broker_setup.py); `sync`: grant every enrolled device and remove every "
        "revoked one on the running broker."
    )

    def add_arguments(self, parser: Any) -> None:
        parser.add_argument("action", choices=["setup", "sync"])
        parser.add_argument("pki_dir", nargs="?", help="setup: where the CA is kept")
        parser.add_argument("--broker-dir", help="setup: the broker's own directory")
        parser.add_argument(
            "--host",
            action="append",
            default=[],
            help="setup: a name or address agents reach the broker by (repeat; the first is "
            "the certificate's CN)",
        )

    def handle(
        self,
        *args: Any,
        action: str,
        pki_dir: str | None,
        broker_dir: str | None,
        host: list[str],
        **options: Any,
    ) -> None:
        if action == "setup":
            if not (pki_dir and broker_dir and host):
                raise CommandError(
                    "setup needs PKI_DIR, --broker-dir DIR and at least one --host NAME"
                )
            files = broker_setup(Path(pki_dir), Path(broker_dir), host)
            self.stdout.write(f"broker files in {files.broker_dir} for {', '.join(host)}")
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
