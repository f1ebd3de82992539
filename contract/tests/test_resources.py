"""The run-resources header (resources.py): what the agent sends is what the platform reads,
and a bad value is refused naming its field."""

from __future__ import annotations

import pytest

from iotsecbench_contract.resources import (
    FIGURE_MAX,
    HEADER_MAX_CHARS,
    PEAK_RSS_RUN,
    ResourcesError,
    RunResources,
)

FIGURES = RunResources(
    window_ns=2_500_000_000,
    cpu_user_ns=310_000_000,
    cpu_system_ns=90_000_000,
    peak_rss_kb=41_236,
    peak_rss_scope=PEAK_RSS_RUN,
    bytes_sent=37_000,
    bytes_received=37_000,
)


def test_header_round_trips_every_figure() -> None:
    assert RunResources.from_header(FIGURES.to_header()) == FIGURES
    assert FIGURES.cpu_ns == 400_000_000


def test_unknown_fields_are_ignored_for_newer_agents() -> None:
    data = {**FIGURES.to_json(), "gpu_ns": 5}
    assert RunResources.parse(data) == FIGURES


@pytest.mark.parametrize(
    ("field", "value", "message"),
    [
        ("bytes_sent", -1, "bytes_sent must be in 0.."),
        ("cpu_user_ns", FIGURE_MAX + 1, "cpu_user_ns must be in 0.."),
        ("peak_rss_kb", 1.5, "peak_rss_kb must be an integer"),
        ("window_ns", True, "window_ns must be an integer"),
        ("peak_rss_scope", "lifetime", "peak_rss_scope must be one of run, process"),
    ],
)
def test_invalid_figure_is_refused_naming_it(field: str, value: object, message: str) -> None:
    with pytest.raises(ResourcesError, match=message):
        RunResources.parse({**FIGURES.to_json(), field: value})


def test_missing_field_is_named() -> None:
    data = FIGURES.to_json()
    del data["bytes_received"]
    with pytest.raises(ResourcesError, match="missing field\\(s\\): bytes_received"):
        RunResources.parse(data)


@pytest.mark.parametrize(
    ("value", "message"),
    [
        ("not json", "not JSON"),
        ("[1, 2]", "not a JSON object"),
        ("x" * (HEADER_MAX_CHARS + 1), "longer"),
    ],
)
def test_header_that_is_not_an_object_is_refused(value: str, message: str) -> None:
    with pytest.raises(ResourcesError, match=message):
        RunResources.from_header(value)
