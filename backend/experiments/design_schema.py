"""The JSON Schema of experiment design files (experiments.design_file): what a file may
hold, each parameter's type and range, published at GET /api/experiments/design-schema.json.
Split from design_file.py, which loads, translates and dumps files against it."""

from __future__ import annotations

from typing import Any

from iotsecbench_contract.limits import (
    MAX_BENCH_DATA_BYTES,
    MAX_BENCH_REPETITIONS,
    MAX_THROUGHPUT_REPETITIONS,
    MAX_WINDOW_MS,
    MIN_WINDOW_MS,
)
from iotsecbench_contract.mechanisms import NAMES as MECHANISM_NAMES

from experiments.matrix import (
    AXES_MAX,
    AXIS_PARAMETERS,
    AXIS_VALUES_MAX,
    EXCLUSIONS_MAX,
    ORDER_SEED_MAX,
)
from experiments.models import (
    INTERVAL_MS_MAX,
    MESSAGE_COUNT_MAX,
    PAYLOAD_SIZE_MAX,
    REPEATS_MAX,
    CoapMethod,
    CoapType,
    CryptoLibrary,
    ExperimentKind,
    IntervalDistribution,
    Measurement,
    MqttVersion,
    Protocol,
    SrupSignature,
    TopicIdType,
    Transport,
)

FORMAT = "iotsecbench-experiment/1"
SCHEMA_ID = "https://iotsecbench.invalid/schemas/experiment-design-1.json"


def _enum(choices: list[tuple[str, str]]) -> dict[str, Any]:
    return {"enum": [value for value, _ in choices]}


def _int(minimum: int, maximum: int) -> dict[str, Any]:
    return {"type": "integer", "minimum": minimum, "maximum": maximum}


_PROFILE_REF = {
    "type": ["string", "null"],
    "description": "A network profile's slug (built-ins: e.g. srup-4-3g-good) or name; null "
    "for none.",
}
# A messaging design's addressing and targets (experiments/addressing.py): fixed, never on an
# axis; empty (or left out) for the default. The API checks each value and its protocol.
ADDRESS_SCHEMAS: dict[str, dict[str, Any]] = {
    "topic": {"type": "string", "description": "MQTT topic; may hold {device}."},
    "mqttsn_topic_id": {
        **_int(1, 65534),
        "type": ["integer", "null"],
        "description": "MQTT-SN predefined topic id (topic_id_type predefined).",
    },
    "broker_url": {"type": "string", "description": "External MQTT broker: mqtt:// or mqtts://."},
    "coap_url": {
        "type": "string",
        "description": "External CoAP resource: coap://host[:port]/path.",
    },
    "coap_path": {
        "type": "string",
        "description": "CoAP resource path without a leading / (default echo).",
    },
    "mqttsn_gateway": {"type": "string", "description": 'External MQTT-SN gateway: "host:port".'},
    "target_device": {
        "type": ["string", "null"],
        "description": "The name of a device of the workspace serving the run (MQTT-SN "
        "gateway, CoAP server); an id is accepted too.",
    },
    "target_host": {"type": "string", "description": "Host replacing the target's address."},
}
# A throughput design's UDP receiver (experiments.addressing.target_url_errors): fixed,
# never on an axis; empty (or left out) for the device's own loopback sink.
TARGET_URL_SCHEMA: dict[str, dict[str, Any]] = {
    "target_url": {
        "type": "string",
        "description": "Throughput: the UDP receiver of the packets, udp://host:port.",
    },
}
PARAMETER_SCHEMAS: dict[str, dict[str, Any]] = {
    "protocol": _enum(Protocol.choices),
    "mqtt_version": _enum(MqttVersion.choices),
    "transport": _enum(Transport.choices),
    "srup_signature": _enum(SrupSignature.choices),
    "qos": _int(-1, 2),
    "coap_type": _enum(CoapType.choices),
    "coap_method": _enum(CoapMethod.choices),
    "topic_id_type": _enum(TopicIdType.choices),
    "security": {"enum": list(MECHANISM_NAMES)},
    "interleave_mechanisms": {
        "type": "array",
        "items": {"enum": list(MECHANISM_NAMES)},
        "description": "Interleaved mode: 2 to 8 mechanisms alternated message by message.",
    },
    "payload_size": _int(1, PAYLOAD_SIZE_MAX),
    "message_count": _int(1, MESSAGE_COUNT_MAX),
    "interval_ms": _int(0, INTERVAL_MS_MAX),
    "interval_distribution": _enum(IntervalDistribution.choices),
    "measurement": _enum(Measurement.choices),
    "network_profile": _PROFILE_REF,
    **ADDRESS_SCHEMAS,
    "mechanisms": {"type": "array", "items": {"enum": list(MECHANISM_NAMES)}, "minItems": 1},
    "data_sizes": {
        "type": "array",
        "items": _int(1, MAX_BENCH_DATA_BYTES),
        "minItems": 1,
    },
    "repetitions": _int(1, max(MAX_BENCH_REPETITIONS, MAX_THROUGHPUT_REPETITIONS)),
    "window_ms": _int(MIN_WINDOW_MS, MAX_WINDOW_MS),
    **TARGET_URL_SCHEMA,
    "crypto_library": _enum(CryptoLibrary.choices),
    "device_ids": {
        "type": "array",
        "items": {"type": "string"},
        "minItems": 1,
        "description": "Device names (on an axis: the devices of those runs).",
    },
}
FIXED_PARAMETERS = [p for p in PARAMETER_SCHEMAS if p != "device_ids"]


def _assignment(min_properties: int = 1) -> dict[str, Any]:
    return {
        "type": "object",
        "properties": {p: PARAMETER_SCHEMAS[p] for p in AXIS_PARAMETERS},
        "additionalProperties": False,
        "minProperties": min_properties,
    }


def schema() -> dict[str, Any]:
    """The JSON Schema of a design file (GET /api/experiments/design-schema.json)."""
    single_axis = {
        "type": "object",
        "required": ["parameter", "values"],
        "properties": {
            "parameter": {"enum": list(AXIS_PARAMETERS)},
            "name": {"type": "string"},
            "values": {"type": "array", "minItems": 1, "maxItems": AXIS_VALUES_MAX},
        },
        "additionalProperties": False,
    }
    linked_axis = {
        "type": "object",
        "required": ["values"],
        "properties": {
            "name": {"type": "string"},
            "values": {
                "type": "array",
                "minItems": 1,
                "maxItems": AXIS_VALUES_MAX,
                "items": _assignment(),
            },
        },
        "additionalProperties": False,
    }
    return {
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "$id": SCHEMA_ID,
        "title": "IoTSecBench experiment design",
        "description": "An experiment's fixed parameters, axes, exclusions and repeats "
        "(docs/experiment-design.md).",
        "type": "object",
        "required": ["format", "name"],
        "properties": {
            "format": {"const": FORMAT},
            "name": {"type": "string", "minLength": 1, "maxLength": 200},
            "kind": _enum(ExperimentKind.choices),
            "description": {"type": "string", "maxLength": 5000},
            "parameters": {
                "type": "object",
                "properties": {p: PARAMETER_SCHEMAS[p] for p in FIXED_PARAMETERS},
                "additionalProperties": False,
            },
            "axes": {
                "type": "array",
                "maxItems": AXES_MAX,
                "items": {"oneOf": [single_axis, linked_axis]},
            },
            "exclusions": {"type": "array", "maxItems": EXCLUSIONS_MAX, "items": _assignment()},
            "repeats": _int(1, REPEATS_MAX),
            "order_seed": {
                **_int(0, ORDER_SEED_MAX),
                "description": "The seed that shuffles the runs within each repeat block; "
                "omit it for a fresh order at every start.",
            },
            "devices": {
                "type": "array",
                "items": {"type": "string", "minLength": 1},
                "description": "Names of devices of the importing workspace.",
            },
            "preset": {
                "type": "object",
                "description": "Set in the platform's presets: where the design comes from.",
                "properties": {
                    "slug": {"type": "string", "minLength": 1},
                    "title": {"type": "string"},
                    "paper": {"type": "string"},
                    "source_url": {"type": "string"},
                    "tables": {"type": "string"},
                    "devices": {"type": "integer", "minimum": 1},
                    "cells": {
                        "type": "integer",
                        "minimum": 1,
                        "description": "How many cells (runs per repeat) the design expands to.",
                    },
                    "notes": {"type": "array", "items": {"type": "string"}},
                },
                "additionalProperties": False,
            },
        },
        "additionalProperties": False,
    }
