"""Which runs are repeats of each other, and which differ only in what is being compared.

A run's frozen spec (experiments.services.designs._experiment_spec) holds every parameter it ran
with. Its keys fall in three groups (docs/results.md, "Pairing"):

- *treatment*: what a comparison is about — the protocol and the security mechanism
  (`protocol`, `mqtt_version`, `srup_signature`, `security`, `transport`, `tls_version`;
  SRUP's signature and MQTT over TLS are security mechanisms too). `broker_url` and
  `ca_cert` follow from the transport (the TLS listener and its CA), so they belong here
  as well.
- *per run*: `interval_seed` is drawn afresh for every run, and `ca_cert` is the local CA
  of the session, which `make up` may regenerate: neither changes what is measured.
- *conditions*: every other key (QoS, payload size, message count, interval and its
  distribution, measurement, timeout, and any key added later, e.g. a network profile),
  plus the experiment kind and the set of devices, which are not in the spec but are
  conditions all the same.

Repeats are completed runs of one experiment whose specs agree on everything but the per-run
keys. Two runs are paired when their conditions agree and their treatments differ.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

TREATMENT_KEYS = frozenset(
    {
        "protocol",
        "mqtt_version",
        "srup_signature",
        "security",
        "transport",
        "tls_version",
        "broker_url",
        "ca_cert",
    }
)
PER_RUN_KEYS = frozenset({"interval_seed", "ca_cert"})
# The treatment keys shown to users (the rest follow from these).
TREATMENT_SHOWN = ("protocol", "srup_signature", "mqtt_version", "transport", "security")
# Plainer first: a pair's baseline is the run without payload security, or else without
# TLS, or else plain MQTT (against SRUP).
_PLAIN = {"security": "none", "transport": "tcp", "protocol": "mqtt"}


def _canonical(value: Mapping[str, Any]) -> str:
    return json.dumps(value, sort_keys=True, default=str)


def repeat_key(spec: Mapping[str, Any]) -> str:
    """Equal for two specs that are repeats of each other."""
    return _canonical({k: v for k, v in spec.items() if k not in PER_RUN_KEYS})


def conditions(spec: Mapping[str, Any]) -> dict[str, Any]:
    """The spec's condition keys and their values."""
    return {k: v for k, v in spec.items() if k not in TREATMENT_KEYS | PER_RUN_KEYS}


def treatment(spec: Mapping[str, Any]) -> dict[str, Any]:
    """What a comparison is about, as shown to users."""
    return {k: spec[k] for k in TREATMENT_SHOWN if k in spec}


@dataclass(frozen=True)
class Candidate:
    """A run as pairing sees it."""

    key: Any  # the caller's handle on the run (its id)
    kind: str
    spec: Mapping[str, Any]
    device_ids: frozenset[Any]


@dataclass(frozen=True)
class Pair:
    baseline: Any
    treatment: Any
    differs_in: dict[str, tuple[Any, Any]]  # key -> (baseline value, treatment value)


def pairs(candidates: Sequence[Candidate]) -> list[Pair]:
    """Every two runs with equal conditions (kind, devices, condition keys) and different
    treatments, in the order given. The baseline is the plainer run (security `none`, then
    transport `tcp`, then protocol `mqtt`), or else the one given first."""
    out: list[Pair] = []
    for i, a in enumerate(candidates):
        for b in candidates[i + 1 :]:
            if (a.kind, a.device_ids) != (b.kind, b.device_ids):
                continue
            if _canonical(conditions(a.spec)) != _canonical(conditions(b.spec)):
                continue
            ta, tb = treatment(a.spec), treatment(b.spec)
            if ta == tb:
                continue  # repeats, not a comparison
            base, other = (b, a) if _plainer(tb, ta) else (a, b)
            tbase, tother = treatment(base.spec), treatment(other.spec)
            differs = {
                k: (tbase.get(k), tother.get(k))
                for k in TREATMENT_SHOWN
                if tbase.get(k) != tother.get(k)
            }
            out.append(Pair(baseline=base.key, treatment=other.key, differs_in=differs))
    return out


def _plainer(x: Mapping[str, Any], y: Mapping[str, Any]) -> bool:
    """Whether x is plainer than y (decided by the first key where they differ)."""
    for key, plain in _PLAIN.items():
        if x.get(key) != y.get(key) and plain in (x.get(key), y.get(key)):
            return x.get(key) == plain
    return False
