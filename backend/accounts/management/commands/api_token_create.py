"""Create a personal API token for a user from the server's shell and print its key once
(for provisioning scripts; users create their own under Account → API tokens)."""

from __future__ import annotations

from typing import Any

from django.contrib.auth import get_user_model
from django.core.management.base import BaseCommand, CommandError, CommandParser

from accounts.services import api_token_create


class Command(BaseCommand):
    help = "Create a personal API token for USERNAME and print its key (shown once)."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("username")
        parser.add_argument("--name", default="created with manage.py")

    def handle(self, *args: Any, **options: Any) -> None:
        user = get_user_model().objects.filter(username=options["username"]).first()
        if user is None:
            raise CommandError(f"No user named {options['username']!r}.")
        issued = api_token_create(user=user, name=options["name"])
        self.stdout.write(issued.key)
