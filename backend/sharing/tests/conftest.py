"""Runs with records (results' fixture), and shares of them."""

from __future__ import annotations

from results.tests.conftest import make_bench_run, make_run  # noqa: F401  (fixtures, used by name)
