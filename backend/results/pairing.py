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
keys. Two groups of repeats are paired when they differ in exactly one parameter (a treatment
or a condition: SRUP's signature goes with the protocol, the TLS version with the transport);
one run a side within one repeat, or every run of both sides when each has two or more
(compared over runs, issue #20 point 5). Runs of different kinds or devices never pair.

An interleaved run takes part through its mechanisms' messages (results.services.compare:
one candidate per mechanism of its rotation, ``security`` that mechanism, the rotation
kept). Such a candidate pairs only with the same mechanism of another run (never with
another mechanism: that is the run's own overhead, paired by rotation cycle). The rotation
is a difference of its own only when nothing else differs: two interleaved runs on two
networks, or a plain run against an interleaved run on another network, pair by their
one other parameter, the rotation listed among the differences.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from iotsecbench_contract.interleave import FIELD as INTERLEAVE_KEY

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
# Plainer first: a pair's baseline is the run without payload security (then the no-op
# mechanism `null`), or else without TLS, or else plain MQTT (against SRUP).
_PLAIN = {"security": ("none", "null"), "transport": ("tcp",), "protocol": ("mqtt",)}
# Keys that change with another parameter: one parameter with it.
_PART_OF = {"srup_signature": "protocol", "tls_version": "transport"}
# Keys that follow from others or change every run: never a difference of their own.
_FOLLOWS = frozenset({"broker_url", *PER_RUN_KEYS})


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
    repeat: int = 1


@dataclass(frozen=True)
class Pair:
    """treatment - baseline. One run a side within one repeat (`repeat`), or every run of
    both sides when each has two or more (`repeat` None: aggregated across repeats)."""

    baseline: tuple[Any, ...]
    treatment: tuple[Any, ...]
    parameter: str  # the one parameter in which the two sides differ
    differs_in: dict[str, tuple[Any, Any]]  # key -> (baseline value, treatment value)
    repeat: int | None


def parameter_of(key: str) -> str:
    """The parameter a spec key belongs to (SRUP's signature is part of the protocol)."""
    return _PART_OF.get(key, key)


def differing_parameters(a: Mapping[str, Any], b: Mapping[str, Any]) -> list[str]:
    """The parameters (in first-seen order) in which two specs differ, follow-on keys aside."""
    keys = [k for k in dict.fromkeys([*a, *b]) if k not in _FOLLOWS]
    return list(dict.fromkeys(parameter_of(k) for k in keys if a.get(k) != b.get(k)))


def pairs(candidates: Sequence[Candidate]) -> list[Pair]:
    """Every two groups of repeats (same kind, devices and spec but for the per-run keys)
    that differ in exactly one parameter, in the order given. When both groups have two runs
    or more they make one pair (aggregated over repeats); else each repeat number both have
    makes a pair of one run a side. The baseline side is the plainer one (security `none`,
    then `null`; transport `tcp`; protocol `mqtt`), or the smaller value, or else the one
    given first: never "aes-128-cbc -> null"."""
    groups: dict[tuple[str, frozenset[Any], str], list[Candidate]] = {}
    for c in candidates:
        groups.setdefault((c.kind, c.device_ids, repeat_key(c.spec)), []).append(c)
    cells = list(groups.items())
    out: list[Pair] = []
    for i, ((kind_a, devices_a, _), a) in enumerate(cells):
        for (kind_b, devices_b, _), b in cells[i + 1 :]:
            if (kind_a, devices_a) != (kind_b, devices_b):
                continue
            parameter = pair_parameter(a[0].spec, b[0].spec)
            if parameter is None:
                continue
            base, other = (b, a) if _before(b[0].spec, a[0].spec, parameter) else (a, b)
            out.extend(_group_pairs(base, other, parameter))
    return out


def pair_parameter(a: Mapping[str, Any], b: Mapping[str, Any]) -> str | None:
    """The one parameter in which two specs differ (None: none or several). With an
    interleaved side, the mechanisms must agree and the rotation counts only when nothing
    else differs (module docstring)."""
    differing = differing_parameters(a, b)
    if a.get(INTERLEAVE_KEY) or b.get(INTERLEAVE_KEY):
        if "security" in differing:
            return None
        others = [p for p in differing if p != INTERLEAVE_KEY]
        differing = others or differing
    return differing[0] if len(differing) == 1 else None


def _group_pairs(base: list[Candidate], other: list[Candidate], parameter: str) -> list[Pair]:
    tb, to = base[0].spec, other[0].spec
    differs = {
        k: (tb.get(k), to.get(k))
        for k in dict.fromkeys([*tb, *to])
        if k not in _FOLLOWS
        and parameter_of(k) in (parameter, INTERLEAVE_KEY)
        and tb.get(k) != to.get(k)
    }
    if len(base) > 1 and len(other) > 1:
        keys = (tuple(c.key for c in base), tuple(c.key for c in other))
        return [Pair(keys[0], keys[1], parameter, differs, None)]
    # One run on a side: within one repeat only (the first run of each repeat number).
    by_repeat = {c.repeat: c for c in reversed(other)}
    seen: set[int] = set()
    out = []
    for c in base:
        if c.repeat in by_repeat and c.repeat not in seen:
            seen.add(c.repeat)
            out.append(Pair((c.key,), (by_repeat[c.repeat].key,), parameter, differs, c.repeat))
    return out


def _before(x: Mapping[str, Any], y: Mapping[str, Any], parameter: str) -> bool:
    """Whether spec x is the baseline against y, which differs from it in `parameter`."""
    vx, vy = x.get(parameter), y.get(parameter)
    plain = _PLAIN.get(parameter, ())
    rx = plain.index(vx) if vx in plain else len(plain)
    ry = plain.index(vy) if vy in plain else len(plain)
    if rx != ry:
        return rx < ry
    numeric = (int, float)
    if isinstance(vx, numeric) and isinstance(vy, numeric) and not isinstance(vx, bool):
        return vx < vy
    if (vx is None) != (vy is None):  # a key only one spec has: the other is plainer
        return vx is None
    return False
