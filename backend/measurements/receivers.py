"""measurements' answers to the signals of the apps below it (connected in apps.py)."""

from __future__ import annotations

from typing import Any

from measurements.kinds import summarize


def run_summary_compute(*, run_id: Any, **_: Any) -> None:
    """experiments.signals.run_needs_summary: (re)compute the run's summary."""
    summarize(run_id=run_id)
