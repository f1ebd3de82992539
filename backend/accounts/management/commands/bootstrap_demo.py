from __future__ import annotations

from typing import Any

from django.contrib.auth import get_user_model
from django.core.management.base import BaseCommand, CommandError

from accounts.services import user_create_with_workspace


class Command(BaseCommand):
    help = "Create (or update the password of) the demo account with its own workspace."

    def add_arguments(self, parser: Any) -> None:
        parser.add_argument("--username", default="demo")
        parser.add_argument("--password", required=True)

    def handle(self, *args: Any, username: str, password: str, **options: Any) -> None:
        if len(password) < 8:
            raise CommandError("--password must have at least 8 characters.")
        user = get_user_model().objects.filter(username=username).first()
        if user is None:
            user_create_with_workspace(username=username, password=password)
            self.stdout.write(f"created user {username}")
        else:
            user.set_password(password)
            user.save(update_fields=["password"])
            self.stdout.write(f"user {username} exists; password updated")
