"""GET /api/compare/ with interleaved runs: each side's figures per mechanism, pairs by
mechanism (two interleaved runs; an interleaved run against a plain run of one of its
mechanisms), and a message when no mechanism matches; against numpy on the records."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

from results.services.compare import NO_MATCH_TEXT
from results.tests.apis.test_interleaved_run_api import LOST, ROTATION, _messages, _ms_of
from results.tests.conftest import MS, messaging_spec

pytestmark = pytest.mark.django_db

NETWORK_SHIFT_MS = 3.0  # the second network's extra round trip


def _interleaved(make_run: Any, network: str, seed: int, shift_ms: float = 0.0) -> Any:
    rng = np.random.default_rng(seed)
    messages = {
        device: [None if m is None else m + int(shift_ms * MS) for m in _messages(rng, lost)]
        for device, lost in LOST.items()
    }
    spec = messaging_spec(interleave_mechanisms=ROTATION, network_profile=network)
    return make_run(messages, spec=spec, name=f"Interleaved on {network}").run, messages


def _mean_of_means(messages: dict[str, list[int | None]], index: int) -> float:
    """The SRUP paper's combined mean of one mechanism's messages: every device the same."""
    return float(np.mean([_ms_of(values, index).mean() for values in messages.values()]))


def _plain(make_run: Any, security: str, network: str, name: str) -> Any:
    """A run of ``security`` alone: two devices, two messages each."""
    spec = messaging_spec(security=security, network_profile=network)
    return make_run({"pi-a": [MS, 2 * MS], "pi-b": [3 * MS, 4 * MS]}, spec=spec, name=name).run


def _query(*runs: Any) -> str:
    return "/api/compare/?" + "&".join(f"run={r.pk}" for r in runs)


def test_two_interleaved_runs_compare_per_mechanism_as_numpy_computes_it(make_run, owner_client):
    lan, lan_messages = _interleaved(make_run, "lan", seed=7)
    cellular, cellular_messages = _interleaved(make_run, "4g", seed=8, shift_ms=NETWORK_SHIFT_MS)
    response = owner_client.get(_query(lan, cellular))
    assert response.status_code == 200, response.json()
    body = response.json()

    # Each side's figures per mechanism (the run page's statistics, over its own messages).
    for compared, messages in zip(body["runs"], (lan_messages, cellular_messages), strict=True):
        parts = compared["statistics"]["mechanisms"]
        assert [p["mechanism"] for p in parts] == ROTATION
        for index, part in enumerate(parts):
            pooled = np.concatenate([_ms_of(v, index) for v in messages.values()])
            assert part["all_devices"]["n"] == pooled.size
            assert part["all_devices"]["mean_ms"] == pytest.approx(pooled.mean())
            assert part["all_devices"]["median_ms"] == pytest.approx(np.median(pooled))
            low, high = part["all_devices"]["ci_low_ms"], part["all_devices"]["ci_high_ms"]
            assert low < pooled.mean() < high
        overheads = {p["mechanism"]: p["overhead"] for p in parts}
        assert overheads["none"] is None
        assert overheads["aes-128-cbc"]["baseline"] == "none"

    # One pair per mechanism, that mechanism's messages on each network, never the mix and
    # never two mechanisms against each other.
    assert [p["mechanism"] for p in body["pairs"]] == ROTATION
    for index, pair in enumerate(body["pairs"]):
        name = ROTATION[index]
        assert pair["parameter"] == "network_profile"
        assert (pair["baseline_run_ids"], pair["treatment_run_ids"]) == (
            [str(lan.pk)],
            [str(cellular.pk)],
        )
        base, other = _mean_of_means(lan_messages, index), _mean_of_means(cellular_messages, index)
        assert pair["baseline_mean_ms"] == pytest.approx(base)
        assert pair["treatment_mean_ms"] == pytest.approx(other)
        assert pair["overhead_ms"] == pytest.approx(other - base)
        assert pair["overhead_ms"] == pytest.approx(NETWORK_SHIFT_MS, abs=0.01)
        assert pair["ci_low_ms"] < pair["overhead_ms"] < pair["ci_high_ms"]
        assert (pair["verdict"], pair["interval_level"]) == ("slower", "messages")
        assert pair["baseline_label"].endswith(f" · {name}")
        assert pair["mechanism_text"] == f"Mechanism {name}: both sides' {name} messages only."
    assert body["unmatched"] == []


def test_a_plain_run_is_compared_with_the_interleaved_runs_matching_mechanism(
    make_run, owner_client
):
    interleaved, messages = _interleaved(make_run, "lan", seed=7)
    plain_messages = {"pi-a": [5 * MS, 6 * MS, 7 * MS], "pi-b": [8 * MS, 9 * MS, 10 * MS]}
    plain = make_run(
        plain_messages,
        spec=messaging_spec(security="aes-128-cbc", network_profile="4g"),
        name="AES alone",
    ).run
    body = owner_client.get(_query(plain, interleaved)).json()

    (pair,) = body["pairs"]
    aes = ROTATION.index("aes-128-cbc")
    assert pair["mechanism"] == "aes-128-cbc"
    assert "Matched mechanism aes-128-cbc" in pair["mechanism_text"]
    assert pair["parameter"] == "network_profile"
    assert {
        "key": "interleave_mechanisms",
        "baseline": None,
        "treatment": "none, null, aes-128-cbc",
    } in pair["differs_in"]
    assert (pair["baseline_run_ids"], pair["treatment_run_ids"]) == (
        [str(plain.pk)],
        [str(interleaved.pk)],
    )
    plain_mean = np.mean([np.mean(v) / MS for v in plain_messages.values()])
    assert pair["baseline_mean_ms"] == pytest.approx(plain_mean)
    assert pair["treatment_mean_ms"] == pytest.approx(_mean_of_means(messages, aes))
    assert pair["overhead_ms"] == pytest.approx(_mean_of_means(messages, aes) - plain_mean)
    assert pair["treatment_label"].endswith(" · aes-128-cbc")
    assert body["unmatched"] == []


def test_a_plain_run_on_the_same_network_pairs_by_the_interleaving_itself(make_run, owner_client):
    interleaved, messages = _interleaved(make_run, "lan", seed=7)
    plain = _plain(make_run, "null", "lan", "Null alone")
    body = owner_client.get(_query(interleaved, plain)).json()

    (pair,) = body["pairs"]
    assert (pair["parameter"], pair["mechanism"]) == ("interleave_mechanisms", "null")
    assert pair["baseline_run_ids"] == [str(plain.pk)]  # not interleaved: the plainer side
    assert pair["treatment_mean_ms"] == pytest.approx(
        _mean_of_means(messages, ROTATION.index("null"))
    )


def test_a_plain_run_of_a_mechanism_the_rotation_lacks_is_said_to_have_no_match(
    make_run, owner_client
):
    interleaved, _ = _interleaved(make_run, "lan", seed=7)
    plain = _plain(make_run, "ed25519", "4g", "Ed25519 alone")
    body = owner_client.get(_query(plain, interleaved)).json()

    assert body["pairs"] == []
    (unmatched,) = body["unmatched"]
    labels = {r["run_id"]: r["label"] for r in body["runs"]}
    assert unmatched["run_ids"] == [str(plain.pk), str(interleaved.pk)]
    assert unmatched["message"] == NO_MATCH_TEXT.format(
        plain=labels[str(plain.pk)],
        security="ed25519",
        interleaved=labels[str(interleaved.pk)],
        rotation="none, null, aes-128-cbc",
    )
