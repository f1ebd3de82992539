"""Helpers for the parsing tests: pure functions, files in tmp_path, no database."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from power.parsing import HEAD_BYTES, Detection, detect

FIXTURES = Path(__file__).resolve().parents[4] / "fixtures" / "power-traces"


def fixture_path(name: str) -> Path:
    return FIXTURES / name


def detect_fixture(name: str, filename: str | None = None) -> Detection:
    """Detect a fixture the way the upload service does: its first HEAD_BYTES bytes."""
    with fixture_path(name).open("rb") as handle:
        return detect(handle.read(HEAD_BYTES), filename or name)


@pytest.fixture
def write(tmp_path: Path) -> Callable[..., Path]:
    """Write text (UTF-8) or bytes to a file in tmp_path and return its path."""

    def run(content: str | bytes, name: str = "trace.csv") -> Path:
        path = tmp_path / name
        path.write_bytes(content.encode() if isinstance(content, str) else content)
        return path

    return run
