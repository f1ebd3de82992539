"""Load the built-in network-profile catalogue from the contract's package data (idempotent)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from django.core.management.base import BaseCommand

from netprofiles.services import CATALOGUE_DIR, catalogue_load


class Command(BaseCommand):
    help = (
        "Make the built-in network profiles (SRUP conditions, measured tables) match "
        "the contract's package data (network-profiles/); running it again changes nothing."
    )

    def add_arguments(self, parser: Any) -> None:
        parser.add_argument("--directory", type=Path, default=CATALOGUE_DIR)

    def handle(self, *args: Any, directory: Path, **options: Any) -> None:
        result = catalogue_load(directory=directory)
        self.stdout.write(
            f"tables: {result.tables_created} created, {result.tables_updated} updated; "
            f"profiles: {result.profiles_created} created, {result.profiles_updated} updated, "
            f"{result.profiles_removed} removed"
        )
