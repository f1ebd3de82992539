"""Timings of `make test-deploy`, printed after the results (image builds, stack start,
the whole test); the fixture in test_compose_stack.py fills TIMINGS."""

from __future__ import annotations

import pytest

TIMINGS: list[str] = []


def pytest_terminal_summary(terminalreporter: pytest.TerminalReporter) -> None:
    if TIMINGS:
        terminalreporter.section("test-deploy timings")
        for line in TIMINGS:
            terminalreporter.write_line(line)
