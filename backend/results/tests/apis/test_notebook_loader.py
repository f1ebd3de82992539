"""The notebook loader of docs/results.md, run as written against a live server."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest

from accounts.services import api_token_create
from results.tests.conftest import MS, messaging_spec

DOC = Path(__file__).resolve().parents[4] / "docs" / "results.md"


def _loader() -> dict[str, Any]:
    section = DOC.read_text().split("## Loading exports in a notebook", 1)[1]
    code = re.search(r"```python\n(.*?)```", section, re.DOTALL)
    assert code is not None
    namespace: dict[str, Any] = {}
    exec(compile(code.group(1), str(DOC), "exec"), namespace)  # noqa: S102  # the docs' code
    return namespace


@pytest.mark.django_db(transaction=True)
def test_the_documented_loader_reads_exports_over_http_and_from_files(
    make_run, personas, live_server, tmp_path
):
    loader = _loader()
    token = api_token_create(user=personas.owner, name="notebook").key
    plain = make_run({"pi-a": [1 * MS, None], "pi-b": [2 * MS]}).run
    other = make_run({"pi-a": [3 * MS]}, spec=messaging_spec(network_profile="4g")).run

    records = loader["load_run"](live_server.url, str(plain.pk), token=token)
    assert records.num_rows == 3
    assert records.column("rtt_ms").to_pylist() == [1.0, None, 2.0]
    summary = loader["load_run"](live_server.url, str(plain.pk), what="summary", token=token)
    assert summary.column("device_name").to_pylist() == ["pi-a", "pi-b", "All devices"]
    assert [d["name"] for d in loader["run_info"](summary)["devices"]] == ["pi-a", "pi-b"]

    paths = []
    for run in (plain, other):
        path = tmp_path / f"run-{run.pk}-records.parquet"
        path.write_bytes(
            _download(f"{live_server.url}/api/runs/{run.pk}/export/records.parquet", token)
        )
        paths.append(path)
    both = loader["load_files"](paths)
    assert both.num_rows == 4
    assert both.column("network_profile").to_pylist() == [None, None, None, "4g"]


def _download(url: str, token: str) -> bytes:
    import urllib.request

    # S310: the URL is the test's own live server (http).
    request = urllib.request.Request(url, headers={"Authorization": f"Token {token}"})  # noqa: S310
    with urllib.request.urlopen(request, timeout=60) as response:  # noqa: S310
        body: bytes = response.read()
    return body
