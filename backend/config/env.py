"""Strict, typed environment helpers (after healthchecks' hc/settings.py).

Every variable the platform reads is listed in `.env.example`. A variable `X` may also be
given as `X_FILE`, the path of a file holding the value (Docker/Kubernetes secrets).
Missing required values and malformed values raise ImproperlyConfigured with the variable's
name, so a misconfigured deployment fails at start-up with a message that says what to fix.
"""

from __future__ import annotations

import os
from pathlib import Path

from django.core.exceptions import ImproperlyConfigured

BASE_DIR = Path(__file__).resolve().parent.parent  # backend/
REPO_DIR = BASE_DIR.parent

_MISSING = object()


def _raw(name: str) -> str | None:
    file_path = os.environ.get(f"{name}_FILE")
    if file_path:
        try:
            return Path(file_path).read_text().strip()
        except OSError as exc:
            raise ImproperlyConfigured(f"{name}_FILE={file_path!r} cannot be read: {exc}") from exc
    return os.environ.get(name)


def envstr(name: str, default: str | None = None) -> str:
    value = _raw(name)
    if value is None or value == "":
        if default is None:
            raise ImproperlyConfigured(f"Set the environment variable {name} (see .env.example).")
        return default
    return value


def envsecret(name: str) -> str:
    """A secret has no default: it must be given, as NAME or NAME_FILE."""
    return envstr(name)


def envbool(name: str, default: bool) -> bool:
    value = _raw(name)
    if value is None or value == "":
        return default
    lowered = value.lower()
    if lowered in ("1", "true", "yes", "on"):
        return True
    if lowered in ("0", "false", "no", "off"):
        return False
    raise ImproperlyConfigured(f"{name}={value!r} is not a boolean: use true or false.")


def envint(name: str, default: int) -> int:
    value = _raw(name)
    if value is None or value == "":
        return default
    try:
        return int(value)
    except ValueError as exc:
        raise ImproperlyConfigured(f"{name}={value!r} is not an integer.") from exc


def envlist(name: str, default: list[str]) -> list[str]:
    value = _raw(name)
    if value is None or value == "":
        return default
    return [item.strip() for item in value.split(",") if item.strip()]
