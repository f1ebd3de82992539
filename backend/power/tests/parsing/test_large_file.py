"""A 200,000-line file read in many blocks: every sample lands, errors keep exact lines.

Correctness only; the 10-million-line timing is measured by hand (see the parsing report).
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import numpy as np
import pytest

from power.parsing import ChannelSpec, ParseSpec, TimeSpec, TraceParseError, parse_file, reader

Write = Callable[..., Path]
ROWS = 200_000
SPEC = ParseSpec(
    format="custom",
    skip_lines=1,
    time=TimeSpec(0, "ms"),
    voltage=ChannelSpec(1, "V"),
    current=ChannelSpec(2, "mA"),
)


def rows(count: int = ROWS) -> list[str]:
    """Row i: t = 0.1 i ms, V = 5 + (i mod 7) mV, I = 100 + (i mod 13) mA."""
    return [f"{i * 0.1:.1f},{5 + (i % 7) / 1000:.3f},{100 + i % 13}" for i in range(count)]


def expected_power(count: int = ROWS) -> np.ndarray:
    i = np.arange(count)
    return (5 + (i % 7) / 1000) * (100 + i % 13) / 1000


@pytest.fixture(params=[64 * 1024, reader.BLOCK_BYTES], ids=["64KiB-blocks", "default-blocks"])
def block_bytes(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> int:
    monkeypatch.setattr(reader, "BLOCK_BYTES", request.param)
    return int(request.param)


def test_every_sample_of_a_large_file_is_read_in_order(write: Write, block_bytes: int) -> None:
    path = write("t_ms,v,i_ma\n" + "\n".join(rows()) + "\n")
    progress: list[float] = []

    trace = parse_file(path, SPEC, progress=progress.append)

    assert trace.lines == ROWS
    assert trace.t_s[0] == 0.0
    assert trace.t_s[-1] == pytest.approx((ROWS - 1) * 1e-4)
    assert bool(np.all(np.diff(trace.t_s) > 0))
    np.testing.assert_allclose(trace.power_w, expected_power(), rtol=1e-6)
    assert trace.current_a is not None
    assert trace.current_a[-1] == pytest.approx((100 + (ROWS - 1) % 13) / 1000)
    assert progress == sorted(progress)
    assert progress[-1] == 1.0
    if block_bytes < path.stat().st_size:
        assert len(progress) > 10


def test_bad_cell_in_a_late_block_names_its_exact_line(write: Write, block_bytes: int) -> None:
    lines = rows()
    lines[150_000] = "15000.0,5.000,oops"
    path = write("t_ms,v,i_ma\n" + "\n".join(lines) + "\n")

    with pytest.raises(TraceParseError) as caught:
        parse_file(path, SPEC)

    # Header on line 1, row 0 on line 2.
    assert caught.value.message == (
        'Line 150002, column 3 (i_ma): expected a number, found "oops".'
    )
    assert (caught.value.line, caught.value.column) == (150_002, 3)


def test_time_jump_after_blank_lines_names_its_exact_line(write: Write, block_bytes: int) -> None:
    lines = rows()
    lines[180_000] = "5.0,5.000,100"  # 18000 ms back to 5 ms
    lines.insert(50_000, "")
    lines.insert(1_000, "")
    path = write("t_ms,v,i_ma\n" + "\n".join(lines) + "\n")

    with pytest.raises(TraceParseError) as caught:
        parse_file(path, SPEC)

    # Row 180000 is on line 180002, pushed down by the two blank lines.
    assert caught.value.line == 180_004
    assert caught.value.column == 1


def test_rows_wider_than_the_first_are_read_the_slow_way(write: Write, block_bytes: int) -> None:
    # Arrow wants every row as wide as the first; a logger that appends a comment column part
    # of the way through must still be read, not rejected.
    lines = rows(20_000)
    lines[10_000] += ",note"
    path = write("t_ms,v,i_ma\n" + "\n".join(lines) + "\n")

    trace = parse_file(path, SPEC)

    assert trace.lines == 20_000
    np.testing.assert_allclose(trace.power_w, expected_power(20_000), rtol=1e-6)
