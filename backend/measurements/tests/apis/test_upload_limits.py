"""Agent uploads are bounded: header integers and body sizes out of range answer 4xx, never
500, and an oversized body is refused from its Content-Length before it is read."""

from __future__ import annotations

import pytest

from core.testing.http import declared_body
from measurements.apis import (
    CHUNK_MAX_BYTES,
    HEADER_INT_MAX,
    HEADER_RANGE_MESSAGE,
    TOO_LARGE_MESSAGE,
)
from measurements.models import UploadChunk
from measurements.tests.conftest import csv_chunk

pytestmark = pytest.mark.django_db

OUT_OF_RANGE = ["2147483648", "9223372036854775808", "-1", "-9223372036854775809"]


def _post(running_run, stream: str = "records", **headers: str):
    client, run = running_run.agents[0], running_run.run
    return client.post(
        f"/api/agent/runs/{run.pk}/{stream}/",
        csv_chunk([]),
        content_type="text/csv",
        headers={"Idempotency-Key": "k", "X-Final-Chunk": "true", **headers},
    )


@pytest.mark.parametrize("stream", ["records", "samples"])
@pytest.mark.parametrize("value", OUT_OF_RANGE)
@pytest.mark.parametrize("header", ["X-Chunk-Index", "X-Record-Total"])
def test_header_integer_out_of_range_answers_chunk_format_invalid_naming_the_range(
    running_run, stream, header, value
):
    response = _post(
        running_run, stream, **{"X-Chunk-Index": "0", "X-Record-Total": "0", header: value}
    )
    assert response.status_code == 400
    assert response.json() == {
        "message": HEADER_RANGE_MESSAGE.format(header=header, max=HEADER_INT_MAX, value=value),
        "code": "chunk_format_invalid",
        "extra": {},
    }
    assert "from 0 to 2147483647" in response.json()["message"]
    assert not UploadChunk.objects.exists()


def test_largest_allowed_header_integers_are_stored(running_run):
    top = str(HEADER_INT_MAX)
    response = _post(running_run, **{"X-Chunk-Index": top, "X-Record-Total": top})
    assert response.status_code == 201
    chunk = UploadChunk.objects.get()
    assert (chunk.index, chunk.record_total) == (HEADER_INT_MAX, HEADER_INT_MAX)


@pytest.mark.parametrize("stream", ["records", "samples"])
def test_chunk_over_the_limit_is_refused_from_content_length_unread(running_run, stream):
    client, run = running_run.agents[0], running_run.run
    size = CHUNK_MAX_BYTES + 1
    response = client.post(
        f"/api/agent/runs/{run.pk}/{stream}/",
        content_type="text/csv",
        headers={"Idempotency-Key": "k", "X-Chunk-Index": "0", "X-Final-Chunk": "false"},
        **declared_body(size),
    )
    assert response.status_code == 413
    assert response.json() == {
        "message": TOO_LARGE_MESSAGE.format(size=size, max=CHUNK_MAX_BYTES, max_mib=16),
        "code": "chunk_too_large",
        "extra": {},
    }
    assert not UploadChunk.objects.exists()
