"""The sample kinds' job specs: what each parses, what it gives back, and the field each
refusal names (the platform answers its 400 under that field)."""

from __future__ import annotations

from typing import Any

import pytest

from iotsecbench_contract import limits
from iotsecbench_contract.benchspec import CipherBenchSpec, ThroughputSpec, udp_target
from iotsecbench_contract.errors import JobSpecError
from iotsecbench_contract.mechanisms import NAMES

BENCH = {"mechanisms": ["aes-128-cbc", "null"], "data_sizes": [16, 4096], "repetitions": 3}
THROUGHPUT = {**BENCH, "window_ms": 100}


def test_cipher_bench_spec_round_trips_its_job_fields() -> None:
    spec = CipherBenchSpec.parse(BENCH)

    assert spec == CipherBenchSpec(("aes-128-cbc", "null"), (16, 4096), 3)
    assert spec.to_dict() == BENCH
    assert list(spec.to_dict()) == ["mechanisms", "data_sizes", "repetitions"]


def test_throughput_spec_round_trips_with_and_without_a_target() -> None:
    assert ThroughputSpec.parse(THROUGHPUT).to_dict() == THROUGHPUT
    with_target = {**THROUGHPUT, "target": "udp://192.0.2.1:9999"}
    assert ThroughputSpec.parse(with_target).to_dict() == with_target


def test_throughput_spec_window_defaults_to_the_papers_two_seconds() -> None:
    assert ThroughputSpec.parse(BENCH).window_ms == 2000


@pytest.mark.parametrize(
    ("parse", "field", "maximum"),
    [
        (CipherBenchSpec.parse, "repetitions", limits.MAX_BENCH_REPETITIONS),
        (ThroughputSpec.parse, "repetitions", limits.MAX_THROUGHPUT_REPETITIONS),
        (ThroughputSpec.parse, "window_ms", limits.MAX_WINDOW_MS),
    ],
)
def test_spec_takes_the_limit_and_refuses_one_more_naming_field_and_range(
    parse: Any, field: str, maximum: int
) -> None:
    assert getattr(parse({**THROUGHPUT, field: maximum}), field) == maximum

    with pytest.raises(JobSpecError) as refused:
        parse({**THROUGHPUT, field: maximum + 1})

    assert refused.value.field == field
    low = limits.MIN_WINDOW_MS if field == "window_ms" else 1
    assert f"spec.{field} must be an integer in {low}..{maximum}, got {maximum + 1}" == str(
        refused.value
    )


@pytest.mark.parametrize(
    ("parse", "maximum"),
    [
        (CipherBenchSpec.parse, limits.MAX_BENCH_DATA_BYTES),
        (ThroughputSpec.parse, limits.MAX_UDP_PAYLOAD),
    ],
)
def test_spec_takes_the_largest_size_and_refuses_one_byte_more(parse: Any, maximum: int) -> None:
    assert parse({**BENCH, "data_sizes": [maximum]}).data_sizes == (maximum,)

    with pytest.raises(
        JobSpecError, match=rf"{maximum + 1} is out of range \(1 to {maximum} "
    ) as e:
        parse({**BENCH, "data_sizes": [maximum + 1]})
    assert e.value.field == "data_sizes"


@pytest.mark.parametrize(
    ("change", "field", "message"),
    [
        ({"mechanisms": "aes-128-cbc"}, "mechanisms", "must be a list of mechanism names"),
        ({"mechanisms": []}, "mechanisms", f"give 1 to {limits.MAX_MECHANISMS}, got 0"),
        ({"mechanisms": ["rot13"]}, "mechanisms", "unknown mechanism 'rot13'"),
        ({"mechanisms": ["null", "null"]}, "mechanisms", "must not repeat"),
        ({"mechanisms": ["none"]}, "mechanisms", "does nothing to measure"),
        ({"data_sizes": [True]}, "data_sizes", "must be a list of integers"),
        ({"data_sizes": list(range(1, limits.MAX_DATA_SIZES + 2))}, "data_sizes", "give 1 to 16"),
        ({"data_sizes": [0]}, "data_sizes", "data size 0 is out of range"),
        ({"data_sizes": [16, 16]}, "data_sizes", "must not repeat"),
        ({"repetitions": "3"}, "repetitions", "must be an integer in 1..10000"),
    ],
)
def test_cipher_bench_spec_names_the_field_it_refuses(
    change: dict[str, Any], field: str, message: str
) -> None:
    with pytest.raises(JobSpecError, match=message) as refused:
        CipherBenchSpec.parse({**BENCH, **change})
    assert refused.value.field == field


def test_throughput_measures_none_as_its_baseline() -> None:
    assert ThroughputSpec.parse({**BENCH, "mechanisms": ["none"]}).mechanisms == ("none",)


def test_both_specs_know_every_contract_mechanism() -> None:
    benchable = [name for name in NAMES if name != "none"][: limits.MAX_MECHANISMS]
    assert CipherBenchSpec.parse({**BENCH, "mechanisms": benchable}).mechanisms == tuple(benchable)


@pytest.mark.parametrize(
    "url", ["udp://host", "tcp://x:1", "udp://x:0", "udp://x:1/path", "udp://u@x:1", "udp://x:1?q"]
)
def test_udp_target_refuses_anything_but_udp_host_port(url: str) -> None:
    with pytest.raises(JobSpecError, match="is not udp://host:port") as refused:
        ThroughputSpec.parse({**THROUGHPUT, "target": url})
    assert refused.value.field == "target"


def test_udp_target_gives_host_and_port() -> None:
    assert udp_target("udp://[2001:db8::1]:9999") == ("2001:db8::1", 9999)


def test_crypto_library_is_left_out_of_the_job_when_it_is_the_default() -> None:
    spec = {"mechanisms": ["aes-128-cbc"], "data_sizes": [16], "repetitions": 1}

    assert CipherBenchSpec.parse(spec).to_dict() == spec
    assert CipherBenchSpec.parse({**spec, "crypto_library": "pycryptodome"}).to_dict() == spec
    assert CipherBenchSpec.parse({**spec, "crypto_library": "openssl-cli"}).to_dict() == {
        **spec,
        "crypto_library": "openssl-cli",
    }
    throughput = {**spec, "window_ms": 2000}
    assert ThroughputSpec.parse(throughput).to_dict() == throughput
    assert ThroughputSpec.parse({**throughput, "crypto_library": "openssl"}).to_dict() == {
        **throughput,
        "crypto_library": "openssl",
    }


def test_crypto_library_refuses_a_mechanism_it_does_not_provide_and_unknown_libraries() -> None:
    spec = {"mechanisms": ["aes-128-cbc", "ed25519"], "data_sizes": [16], "repetitions": 1}

    with pytest.raises(
        JobSpecError, match="'ed25519' is not available in crypto library 'openssl'"
    ) as exc:
        CipherBenchSpec.parse({**spec, "crypto_library": "openssl"})
    assert exc.value.field == "mechanisms"
    with pytest.raises(
        JobSpecError, match="must be one of pycryptodome, openssl, got 'openssl-cli'"
    ) as exc:
        ThroughputSpec.parse({**spec, "window_ms": 100, "crypto_library": "openssl-cli"})
    assert exc.value.field == "crypto_library"
