"""Experiment design files: a design as YAML, checked against a published JSON Schema.

The file names things the way people share them, not by database ids: network profiles by
slug (built-in slugs are the same on every installation, e.g. ``srup-4-3g-good``), devices
by name. Import turns those into the ids of the importing workspace, then the API's own
checks apply, so a file can never make a design the form could not
(docs/experiment-design.md). The presets in fixtures/presets/ are design files with a
``preset`` block.

    format: iotsecbench-experiment/1
    name: MQTT QoS x payload
    kind: messaging
    parameters: {protocol: mqtt, security: none, message_count: 500}
    axes:
      - {parameter: qos, values: [0, 1, 2]}
      - {parameter: payload_size, values: [66, 1700]}
    exclusions: [{qos: 2, payload_size: 1700}]
    repeats: 1
    devices: [pi-1, pi-2]
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any
from uuid import UUID

import jsonschema
import yaml
from django.db.models import Q

from accounts.models import Workspace
from devices.models import Device
from experiments.design_schema import ADDRESS_SCHEMAS, FIXED_PARAMETERS, FORMAT
from experiments.design_schema import schema as schema  # re-exported: the API serves it
from experiments.matrix import (
    AXIS_FIELDS,
    AXIS_PARAMETERS,
    KIND_AXIS_PARAMETERS,
)
from experiments.models import (
    Experiment,
    ExperimentKind,
)
from netprofiles.models import NetworkProfile

MAX_FILE_BYTES = 1_000_000


class DesignFileError(ValueError):
    """The file is not a usable design: ``messages`` say where (line, or the path of the
    value) and what is wrong; ``field``, the API field they are about (``file`` for the
    file as a whole)."""

    def __init__(self, messages: list[str], field: str = "file") -> None:
        super().__init__("; ".join(messages))
        self.messages = messages
        self.field = field


def load(text: str) -> dict[str, Any]:
    """Parse and check a design file against the schema."""
    if len(text.encode()) > MAX_FILE_BYTES:
        raise DesignFileError([f"The file is over {MAX_FILE_BYTES // 1000} kB; is it a design?"])
    try:
        document = yaml.safe_load(text)
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        where = f"Line {mark.line + 1}, column {mark.column + 1}: " if mark else ""
        problem = getattr(exc, "problem", None) or str(exc)
        raise DesignFileError([f"{where}not valid YAML ({problem})."]) from None
    if not isinstance(document, dict):
        raise DesignFileError(["The file must be a YAML mapping with `format` and `name`."])
    validator = jsonschema.Draft202012Validator(schema())
    errors = sorted(validator.iter_errors(document), key=lambda e: list(e.absolute_path))
    if errors:
        raise DesignFileError([_schema_message(e) for e in errors[:20]])
    return document


def _schema_message(error: jsonschema.ValidationError) -> str:
    path = ".".join(str(p) if isinstance(p, str) else f"[{p}]" for p in error.absolute_path)
    path = path.replace(".[", "[") or "(top level)"
    instance = error.instance if isinstance(error.instance, Mapping) else {}
    if error.validator == "oneOf":
        unknown = _unknown_fields(instance, AXIS_FIELDS)
        if unknown:
            return f"{path}: {unknown}"
        # The branch the axis meant (one naming a parameter is a single axis) says what
        # is wrong with it; only a shape that is neither falls back to the two shapes.
        branch = 0 if "parameter" in instance else 1
        meant = [e for e in error.context or () if list(e.schema_path)[:1] == [branch]]
        if meant and instance:
            return _schema_message(jsonschema.exceptions.best_match(meant))
        return f"{path}: an axis is {{parameter, values}} or {{name, values: [objects]}}."
    if error.validator == "additionalProperties" and isinstance(error.schema, Mapping):
        return f"{path}: {_unknown_fields(instance, tuple(error.schema.get('properties', {})))}"
    return f"{path}: {error.message}"


def _unknown_fields(instance: Mapping[str, Any], known: tuple[str, ...]) -> str:
    """Each key of ``instance`` not in ``known``, named, and the known ones ('' if none)."""
    unknown = [f"`{key}`" for key in instance if key not in known]
    if not unknown:
        return ""
    return f"unknown field {', '.join(unknown)}; known fields: {', '.join(known)}."


def _translate(
    value_map: Callable[[str, Any], Any], assignment: Mapping[str, Any]
) -> dict[str, Any]:
    return {p: value_map(p, v) for p, v in assignment.items()}


def _translate_axes(
    document: Mapping[str, Any], value_map: Callable[[str, Any], Any]
) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    axes = []
    for axis in document.get("axes", []):
        if "parameter" in axis:
            parameter = axis["parameter"]
            values = [value_map(parameter, v) for v in axis["values"]]
            axes.append({**axis, "values": values})
        else:
            values = [_translate(value_map, v) for v in axis["values"]]
            axes.append({**axis, "values": values})
    exclusions = [_translate(value_map, e) for e in document.get("exclusions", [])]
    return axes, exclusions


def to_input(
    document: Mapping[str, Any], *, workspace: Workspace, require_devices: bool = True
) -> dict[str, Any]:
    """The API's experiment input for a checked document: profile slugs/names and device
    names become the workspace's ids. DesignFileError names what cannot be found."""
    missing: list[str] = []
    profiles = NetworkProfile.objects.filter(Q(workspace__isnull=True) | Q(workspace=workspace))
    by_ref: dict[str, str] = {}
    for profile in profiles.only("id", "slug", "name", "workspace_id"):
        # A workspace's own profile wins over a built-in of the same slug or name.
        for ref in (profile.slug, profile.name):
            if ref not in by_ref or profile.workspace_id is not None:
                by_ref[ref] = str(profile.pk)
    devices = {d.name: str(d.pk) for d in Device.objects.filter(workspace=workspace)}

    def value_map(parameter: str, value: Any) -> Any:
        if parameter == "target_device" and value is not None:
            return _target_device_id(value, devices)
        if parameter == "network_profile" and value is not None:
            if value not in by_ref:
                missing.append(f"network profile {value!r}")
                return value
            return by_ref[value]
        if parameter == "device_ids":
            for name in value:
                if name not in devices:
                    missing.append(f"device {name!r}")
            return [devices.get(name, name) for name in value]
        return value

    parameters = _translate(value_map, document.get("parameters", {}))
    axes, exclusions = _translate_axes(document, value_map)
    device_ids = value_map("device_ids", document.get("devices", []))
    if missing:
        raise DesignFileError(
            [
                f"Not in this workspace: {', '.join(dict.fromkeys(missing))}. Use the names "
                "shown on the Devices and Network pages."
            ]
        )
    if require_devices and not device_ids:
        raise DesignFileError(
            ["devices: list the names of the devices to run on (see the Devices page)."]
        )
    data: dict[str, Any] = {
        "name": document["name"],
        "kind": document.get("kind", ExperimentKind.MESSAGING),
        "description": document.get("description", ""),
        **parameters,
        "axes": axes,
        "exclusions": exclusions,
        "repeats": document.get("repeats", 1),
        "order_seed": document.get("order_seed"),
        "device_ids": device_ids,
    }
    preset = document.get("preset")
    if isinstance(preset, Mapping) and isinstance(preset.get("slug"), str):
        data["preset"] = preset["slug"]
    return data


TARGET_DEVICE_UNKNOWN = (
    "parameters.target_device: no device named {name!r} in this workspace. Give the name of "
    "one of its devices (see the Devices page), or leave target_device out."
)


def _target_device_id(value: str, devices: Mapping[str, str]) -> str:
    """The id of the target device a file names: by name within the importing workspace
    (files export names, as for ``devices``), or an id as files exported before did (the
    API then checks that it is one of the workspace's)."""
    if value in devices:
        return devices[value]
    try:
        return str(UUID(value))
    except ValueError:
        raise DesignFileError([TARGET_DEVICE_UNKNOWN.format(name=value)], "target_device") from None


def from_experiment(experiment: Experiment) -> dict[str, Any]:
    """The design file of an experiment (ids as slugs and names, defaults included)."""
    profile_ids = {str(experiment.network_profile_id)} if experiment.network_profile_id else set()
    for axis in experiment.axes:
        profile_ids |= {
            str(v["network_profile"]) for v in axis["values"] if v.get("network_profile")
        }
    slugs = {
        str(p.pk): p.slug for p in NetworkProfile.objects.filter(pk__in=profile_ids).only("slug")
    }
    device_ids = {
        str(i) for axis in experiment.axes for v in axis["values"] for i in v.get("device_ids", ())
    }
    devices = {str(d.pk): d.name for d in experiment.devices.all()}
    devices |= {str(d.pk): d.name for d in Device.objects.filter(pk__in=device_ids)}

    def value_map(parameter: str, value: Any) -> Any:
        if parameter == "network_profile" and value is not None:
            return slugs.get(str(value), str(value))
        if parameter == "device_ids":
            return [devices.get(str(i), str(i)) for i in value]
        return value

    parameters = {
        p: value_map(p, getattr(experiment, p if p != "network_profile" else "network_profile_id"))
        for p in FIXED_PARAMETERS
        if p in KIND_AXIS_PARAMETERS[experiment.kind]
    }
    if parameters.get("network_profile") is not None:
        parameters["network_profile"] = slugs.get(str(experiment.network_profile_id))
    # Only the addressing a design sets: a design without it exports as before.
    if experiment.kind == ExperimentKind.MESSAGING:
        for p in ADDRESS_SCHEMAS:
            # The target device by name: another workspace has other ids (to_input).
            value = getattr(experiment, p)
            if value not in ("", None):
                parameters[p] = value.name if p == "target_device" else value
    if experiment.kind == ExperimentKind.THROUGHPUT and experiment.target_url:
        parameters["target_url"] = experiment.target_url
    axes, exclusions = _translate_axes(
        {"axes": [_simple(axis) for axis in experiment.axes], "exclusions": experiment.exclusions},
        value_map,
    )
    document: dict[str, Any] = {
        "format": FORMAT,
        "name": experiment.name,
        "kind": experiment.kind,
        # A generated description is left out: importing the file generates it again, from
        # the design as it then is (and edited).
        "description": "" if experiment.description_generated else experiment.description,
        "parameters": parameters,
        "axes": axes,
        "exclusions": exclusions,
        "repeats": experiment.repeats,
        **({"order_seed": experiment.order_seed} if experiment.order_seed is not None else {}),
        "devices": sorted(d.name for d in experiment.devices.all()),
    }
    return document


def _simple(axis: Mapping[str, Any]) -> dict[str, Any]:
    """A canonical axis of one parameter as ``{parameter, values}`` (the form people write);
    an axis of parameters that change together stays ``{name, values: [objects]}``."""
    keys = {tuple(value) for value in axis["values"]}
    if len(keys) != 1 or len(next(iter(keys))) != 1:
        return dict(axis)
    (parameter,) = next(iter(keys))
    simple = {"parameter": parameter, "values": [value[parameter] for value in axis["values"]]}
    if axis.get("name") and axis["name"] != AXIS_PARAMETERS[parameter]:
        simple["name"] = axis["name"]
    return simple


def dump(document: Mapping[str, Any]) -> str:
    header = (
        f"# IoTSecBench experiment design ({FORMAT}); schema: "
        "/api/experiments/design-schema.json, docs/experiment-design.md\n"
    )
    return header + yaml.safe_dump(dict(document), sort_keys=False, allow_unicode=True, width=100)
