"""The run page of an interleaved run (issue #20 point 3): its statistics, plot data, stored
summary, message sizes and methods per mechanism of the rotation, each over that
mechanism's messages only, against numbers computed here independently."""

from __future__ import annotations

import csv
import io
from typing import Any

import numpy as np
import pytest
from iotsecbench_contract import topics

from measurements.models import MessageRecord, RunStatistic
from results.services.sizes import run_address
from results.tests.conftest import MS, messaging_spec

pytestmark = pytest.mark.django_db

ROTATION = ["none", "null", "aes-128-cbc"]
COST_MS = {"none": 0.0, "null": 0.004, "aes-128-cbc": 0.020}
CYCLES = 30
LOST = {"pi-a": {5}, "pi-b": set()}  # seq 5 of pi-a: 5 % 3 = 2, aes-128-cbc


def _messages(rng: np.random.Generator, lost: set[int]) -> list[int | None]:
    out: list[int | None] = []
    for seq in range(CYCLES * 3):
        rtt = 1.0 + seq / 200 + COST_MS[ROTATION[seq % 3]] + rng.normal(0, 0.002)
        out.append(None if seq in lost else int(rtt * MS))
    return out


@pytest.fixture
def interleaved(make_run: Any) -> tuple[Any, dict[str, list[int | None]]]:
    rng = np.random.default_rng(7)
    messages = {name: _messages(rng, lost) for name, lost in LOST.items()}
    made = make_run(messages, spec=messaging_spec(interleave_mechanisms=ROTATION))
    return made.run, messages


def _ms_of(messages: list[int | None], index: int) -> np.ndarray:
    """The delivered round trips (ms) of the mechanism at ``index`` of the rotation."""
    return np.array(
        [m / MS for seq, m in enumerate(messages) if seq % 3 == index and m is not None]
    )


def test_statistics_of_an_interleaved_run_are_per_mechanism_as_numpy_computes_them(
    interleaved, owner_client
):
    run, messages = interleaved
    response = owner_client.get(f"/api/runs/{run.pk}/statistics/")
    assert response.status_code == 200, response.json()
    body = response.json()

    assert [m["mechanism"] for m in body["mechanisms"]] == ROTATION
    for index, part in enumerate(body["mechanisms"]):
        name = ROTATION[index]
        per_device = {d["device_name"]: d for d in part["devices"]}
        for device, values in messages.items():
            expected = _ms_of(values, index)
            got = per_device[device]
            assert got["n"] == expected.size
            assert got["mean_ms"] == pytest.approx(expected.mean())
            assert got["median_ms"] == pytest.approx(np.median(expected))
            assert got["std_ms"] == pytest.approx(expected.std(ddof=1))
            assert got["lost"] == (1 if device == "pi-a" and name == "aes-128-cbc" else 0)
            assert got["records"] == CYCLES
        pooled = np.concatenate([_ms_of(v, index) for v in messages.values()])
        assert part["all_devices"]["n"] == pooled.size
        assert part["all_devices"]["mean_ms"] == pytest.approx(pooled.mean())
        assert part["all_devices"]["p95_ms"] == pytest.approx(np.percentile(pooled, 95))
        assert part["all_devices"]["min_ms"] == pytest.approx(pooled.min())
        device_means = [_ms_of(v, index).mean() for v in messages.values()]
        assert part["mean_of_device_means_ms"] == pytest.approx(np.mean(device_means))

    # Paired against none by rotation cycle, per device, where both were delivered.
    overheads = {m["mechanism"]: m["overhead"] for m in body["mechanisms"]}
    assert overheads["none"] is None
    for index, name in enumerate(ROTATION[1:], start=1):
        diffs = [
            (values[c * 3 + index] - values[c * 3]) / MS
            for values in messages.values()
            for c in range(CYCLES)
            if values[c * 3 + index] is not None and values[c * 3] is not None
        ]
        overhead = overheads[name]
        assert overhead["baseline"] == "none"
        assert overhead["pairs"] == len(diffs)
        assert overhead["overhead_ms"] == pytest.approx(np.mean(diffs))
        assert overhead["ci_low_ms"] < np.mean(diffs) < overhead["ci_high_ms"]
    # The mixed figures stay what they were: every message of the run.
    assert body["all_devices"]["n"] == sum(sum(m is not None for m in v) for v in messages.values())


def test_an_interleaved_runs_stored_summary_has_rows_per_device_and_mechanism(
    interleaved, owner_client
):
    run, messages = interleaved
    rows = RunStatistic.objects.filter(run=run)
    # (2 devices + all devices) x (all messages + 3 mechanisms)
    assert rows.count() == 12
    for index, name in enumerate(ROTATION):
        for device, values in messages.items():
            row = rows.get(run_device__device__name=device, mechanism=name)
            expected = _ms_of(values, index)
            assert row.n == expected.size
            assert row.mean_ns is not None
            assert row.mean_ns / MS == pytest.approx(expected.mean(), abs=1e-6)
        pooled = rows.get(run_device=None, mechanism=name)
        assert pooled.n == sum(_ms_of(v, index).size for v in messages.values())
    assert rows.get(run_device=None, mechanism=None).n == 2 * CYCLES * 3 - 1

    # The run page's securing-times rows: per mechanism only (the mixed rows mean nothing),
    # in the rotation's order.
    summary = owner_client.get(f"/api/runs/{run.pk}/").json()["summary"]
    assert [(r["mechanism"], r["device_name"]) for r in summary] == [
        (name, device) for name in ROTATION for device in ("pi-a", "pi-b", "All devices")
    ]


def test_the_distribution_of_an_interleaved_run_has_one_entry_per_device_and_mechanism(
    interleaved, owner_client
):
    run, messages = interleaved
    body = owner_client.get(f"/api/runs/{run.pk}/distribution/").json()
    entries = [(d["mechanism"], d["device_name"], d["n"]) for d in body["devices"]]
    assert entries == [
        (name, device, _ms_of(values, index).size)
        for index, name in enumerate(ROTATION)
        for device, values in messages.items()
    ]
    for entry in body["devices"]:
        assert sum(entry["counts"]) + entry["below"] + entry["above"] == entry["n"]


def _mqtt_publish_bytes(topic: str, body: int) -> int:
    """MQTT 3.1.1 QoS 1 PUBLISH: fixed header, remaining length, topic, packet id, body."""
    remaining = 2 + len(topic.encode()) + 2 + body
    length_bytes = 1 if remaining < 128 else 2
    return 1 + length_bytes + remaining


# Each mechanism's body: the index byte, then the secured 66-byte payload.
BODY = {"none": 1 + 66, "null": 1 + 16 + 66, "aes-128-cbc": 1 + 16 + 80}


def _set_wire_bytes(run: Any, wire: dict[str, int]) -> None:
    for name, size in wire.items():
        MessageRecord.objects.filter(run_device__run=run, mechanism=name).update(wire_bytes=size)


def test_sizes_of_an_interleaved_run_are_per_mechanism_and_agree_with_its_wire_bytes(
    interleaved, owner_client
):
    run, _ = interleaved
    topic = run_address(run=run)
    assert topic == topics.data_topic(run.pk, run.run_devices.order_by("device__name")[0].device_id)
    wire = {name: _mqtt_publish_bytes(topic, body) for name, body in BODY.items()}
    _set_wire_bytes(run, wire)

    body = owner_client.get(f"/api/runs/{run.pk}/sizes/").json()
    parts = {m["mechanism"]: m for m in body["mechanisms"]}
    assert list(parts) == ROTATION
    assert body["mechanism"] == "none"  # the run's own: its first mechanism's
    for name, part in parts.items():
        components = {c["key"]: c["bytes"] for c in part["components"]}
        assert part["model_agrees"], part["warning"]
        assert part["residual_bytes"] == 0
        assert part["wire_bytes_median"] == part["plaintext_bytes"] == wire[name]
        assert part["security"] == name
        assert components["index"] == 1
        assert components["unexplained"] == 0
        assert part["messages"] == (2 * CYCLES - (1 if name == "aes-128-cbc" else 0))
    assert [parts[n]["components"] for n in ROTATION] != [parts["none"]["components"]] * 3


def test_a_mechanism_whose_wire_bytes_the_model_misses_is_judged_on_its_own(
    interleaved, owner_client
):
    run, _ = interleaved
    topic = run_address(run=run)
    wire = {name: _mqtt_publish_bytes(topic, body) for name, body in BODY.items()}
    wire["null"] += 3
    _set_wire_bytes(run, wire)

    body = owner_client.get(f"/api/runs/{run.pk}/sizes/").json()
    parts = {m["mechanism"]: m for m in body["mechanisms"]}
    assert [parts[n]["model_agrees"] for n in ROTATION] == [True, False, True]
    unexplained = {c["key"]: c["bytes"] for c in parts["null"]["components"]}["unexplained"]
    assert unexplained == 3


def test_the_methods_of_an_interleaved_run_give_its_figures_per_mechanism(
    interleaved, owner_client
):
    run, _ = interleaved
    text = owner_client.get(f"/api/runs/{run.pk}/methods/").json()["text"]
    assert "The run was interleaved" in text
    assert "figures are per mechanism" in text
    assert "against none in the same rotation cycles (paired" in text


def test_a_run_that_does_not_interleave_has_no_mechanism_parts(make_run, owner_client):
    run = make_run({"pi-a": [MS, 2 * MS, None]}).run
    assert owner_client.get(f"/api/runs/{run.pk}/statistics/").json()["mechanisms"] == []
    assert owner_client.get(f"/api/runs/{run.pk}/sizes/").json()["mechanisms"] == []
    assert RunStatistic.objects.filter(run=run).exclude(mechanism=None).count() == 0
    assert RunStatistic.objects.filter(run=run).count() == 2


def test_summary_export_of_an_interleaved_run_has_its_rows_per_mechanism_too(
    interleaved, owner_client
):
    run, messages = interleaved
    response = owner_client.get(f"/api/runs/{run.pk}/export/summary.csv")
    assert response.status_code == 200
    rows = list(csv.DictReader(io.StringIO(response.content.decode())))

    # Every message first (mechanism empty), then each mechanism of the rotation: the two
    # devices and all devices each.
    assert [(r["mechanism"], r["device_name"]) for r in rows] == [
        (mechanism, device)
        for mechanism in ["", *ROTATION]
        for device in ["pi-a", "pi-b", "All devices"]
    ]
    by = {(r["mechanism"], r["device_name"]): r for r in rows}
    for index, name in enumerate(ROTATION):
        for device, values in messages.items():
            expected = _ms_of(values, index)
            row = by[(name, device)]
            assert int(row["n"]) == expected.size
            assert float(row["mean_ms"]) == pytest.approx(expected.mean())
            assert float(row["median_ms"]) == pytest.approx(np.median(expected))
        pooled = np.concatenate([_ms_of(v, index) for v in messages.values()])
        assert float(by[(name, "All devices")]["mean_ms"]) == pytest.approx(pooled.mean())
        device_means = [_ms_of(v, index).mean() for v in messages.values()]
        assert float(by[(name, "All devices")]["mean_of_device_means_ms"]) == pytest.approx(
            np.mean(device_means)
        )
    everything = np.concatenate(
        [np.array([m / MS for m in v if m is not None]) for v in messages.values()]
    )
    assert float(by[("", "All devices")]["mean_ms"]) == pytest.approx(everything.mean())
