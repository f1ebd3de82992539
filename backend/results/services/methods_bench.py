"""The methods paragraphs of the benchmark kinds (cipher bench, throughput): what was
measured, with what, on which devices; the messaging paragraph is in methods.py."""

from __future__ import annotations

from typing import Any

from iotsecbench_contract.cryptolibs import OPENSSL_CLI

from experiments.models import (
    Run,
    RunDevice,
)
from measurements.models import BenchSample
from results.services.cryptolib_methods import cli_timing_sentence, library_of, library_sentence
from results.services.methods import (
    _MECHANISM_LABELS,
    _UNKNOWN,
    AddressWords,
    _count,
    _provenance,
    address_as_stored,
)

_BYTE_UNITS = ("B", "KiB", "MiB", "GiB")
_N_MINUS_ONE = "n\u22121"  # with a minus sign, as a paper typesets it


def _data_size(size: Any) -> str:
    """An exact size in the largest binary unit that divides it: 16 B, 8 KiB, 1536 B."""
    if not isinstance(size, int) or size < 0:
        return str(size)
    unit = 0
    while size >= 1024 and size % 1024 == 0 and unit < len(_BYTE_UNITS) - 1:
        size //= 1024
        unit += 1
    return f"{size:,} {_BYTE_UNITS[unit]}"


def _listing(items: list[str]) -> str:
    """`a`, `a and b`, `a, b and c`."""
    if len(items) <= 1:
        return "".join(items) or "none"
    return f"{', '.join(items[:-1])} and {items[-1]}"


def _mechanisms(spec: dict[str, Any]) -> str:
    names = spec.get("mechanisms") or []
    return _listing([_MECHANISM_LABELS.get(name, str(name)) for name in names])


def _sizes(spec: dict[str, Any]) -> str:
    return _listing([_data_size(size) for size in spec.get("data_sizes") or []])


def _stored(planned: int, stored: int, what: str) -> str:
    """The counts; a run whose planned total was not recorded states what was stored only."""
    if not planned:
        return f"{stored:,} {what} were stored."
    return f"Of {planned:,} {what} planned, {stored:,} were stored."


def _sample_counts(run: Run) -> tuple[list[RunDevice], int, int]:
    """A sample kind's devices, its planned samples and those stored."""
    devices = list(run.run_devices.all())
    stored = BenchSample.objects.filter(run_device__run=run).count()
    return devices, sum(rd.total for rd in devices), stored


def throughput_methods_paragraph(*, run: Run, addresses: AddressWords = address_as_stored) -> str:
    """The methods paragraph of a throughput run: platform and agent versions, devices and
    their facts, mechanisms, payloads and windows, how each window was counted (device-agent
    throughput.py), the counts, and the statistics reported; its receiver named by
    `addresses`."""
    spec = run.spec
    devices, planned, stored = _sample_counts(run)
    repetitions = _count(spec.get("repetitions", _UNKNOWN))
    target = spec.get("target")
    sink = (
        # The design's receiver (target_url; the MQTT-SN paper's client Pi to gateway Pi).
        f"to {addresses('target', str(target))} (the design's target_url), not to a sink on the "
        "device's own loopback interface"
        if target
        else "to a sink on the device itself (127.0.0.1; the MQTT-SN paper's loopback mode)"
    )
    body = [
        f"Each device counted the packets it completed in windows of "
        f"{_count(spec.get('window_ms', _UNKNOWN))} ms with {_mechanisms(spec)} at "
        f"payloads of {_sizes(spec)}: {repetitions} windows per mechanism and payload "
        "securing each packet only (nothing sent), and as many securing it and sending it "
        f"over UDP {sink}, in the agent's process with the garbage collector off; a "
        "window's rate is the packets completed divided by its wall time "
        "(perf_counter_ns), and its CPU time is the process's (process_time_ns).",
        library_sentence(spec, devices),
        _stored(planned, stored, "windows"),
        "Per device, mechanism, payload and mode we report the mean rate in packets per "
        f"second with its sample standard deviation ({_N_MINUS_ONE}) over the windows.",
    ]
    return " ".join([*_provenance(run, "Packet rates", devices), *body])


def cipher_bench_methods_paragraph(*, run: Run, addresses: AddressWords = address_as_stored) -> str:
    """The methods paragraph of a cipher-benchmark run: platform and agent versions, devices
    and their facts, mechanisms, data sizes and repetitions, the crypto library, how each
    sample was timed (device-agent cipherbench.py, or opensslcli.py for ``openssl-cli``),
    the counts, and the statistics reported (the summary export holds their values).
    `addresses` as for every kind's paragraph: a cipher bench sends nothing, names none."""
    spec = run.spec
    devices, planned, stored = _sample_counts(run)
    repetitions = _count(spec.get("repetitions", _UNKNOWN))
    if library_of(spec) == OPENSSL_CLI:
        timing = cli_timing_sentence(_mechanisms(spec), _sizes(spec), repetitions)
    else:
        timing = (
            f"Each device timed {_mechanisms(spec)} on {_sizes(spec)} of pseudo-random data, "
            f"{repetitions} repetitions of each mechanism, size and direction (encrypt and "
            "decrypt, or sign and verify), in a fresh child process per mechanism and size "
            "after an unrecorded warm-up, with the garbage collector off; each repetition's "
            "wall time (perf_counter_ns) and CPU time (process_time_ns) were taken around the "
            "mechanism's calls only (a repetition of an operation shorter than 1 ms timed up "
            "to 1 ms of back-to-back calls, their number stored with each sample, and reports "
            "their mean per call), and the peak memory is the child's resident high-water "
            "mark (VmHWM)."
        )
    body = [
        timing,
        library_sentence(spec, devices),
        _stored(planned, stored, "samples"),
        "Per device, mechanism, data size and direction we report the mean wall time with its "
        f"sample variance and standard deviation ({_N_MINUS_ONE}), the mean CPU time, the peak "
        "memory and "
        "the throughput (data size divided by the mean wall time).",
    ]
    return " ".join([*_provenance(run, "Cipher timings", devices), *body])
