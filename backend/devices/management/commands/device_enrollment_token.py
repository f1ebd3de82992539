from __future__ import annotations

from typing import Any

from django.contrib.auth import get_user_model
from django.core.management.base import BaseCommand, CommandError

from accounts.selectors import workspace_for_user
from devices.services import enrollment_token_create


class Command(BaseCommand):
    help = "Print a one-time enrollment token for an agent in the user's workspace."

    def add_arguments(self, parser: Any) -> None:
        parser.add_argument("--username", required=True)

    def handle(self, *args: Any, username: str, **options: Any) -> None:
        user = get_user_model().objects.filter(username=username).first()
        if user is None:
            raise CommandError(f"No user {username!r}; create it first (manage.py bootstrap_demo).")
        _, secret = enrollment_token_create(workspace=workspace_for_user(user=user), user=user)
        self.stdout.write(secret)
