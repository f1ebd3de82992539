"""Write side of power traces: upload, parse requests, the parse itself, alignment."""

from __future__ import annotations

import hashlib
import logging
import time
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import numpy as np
from django.conf import settings
from django.contrib.auth.models import AnonymousUser, User
from django.core.files.uploadedfile import UploadedFile
from django.db import connection, transaction
from django.utils import timezone

from accounts.models import Workspace
from devices.models import Device
from experiments.models import Run
from power.errors import (
    BatteryReadingInvalid,
    SupplyVoltageNeeded,
    TraceAttachmentInvalid,
    TraceBusy,
    TraceSpecInvalid,
    TraceTooLarge,
)
from power.models import BatteryReading, PowerSampleBlock, PowerTrace, TraceKind, TraceStatus
from power.parsing import (
    HEAD_BYTES,
    ParsedTrace,
    TraceParseError,
    detect,
    parse_file,
    spec_from_json,
    spec_to_json,
)

logger = logging.getLogger(__name__)

# Samples per stored block, and per envelope row (min/max/sum of that many samples).
BLOCK_SAMPLES = 1 << 17
ENVELOPE_STRIDE = 256
# A running parse writes its progress at most this often (seconds).
PROGRESS_INTERVAL_S = 0.5

# What a multipart upload adds to the file: boundaries, part headers and the small form
# fields. nginx's client_max_body_size (deploy/nginx.conf) is POWER_TRACE_MAX_MB plus this.
UPLOAD_FORM_ALLOWANCE_BYTES = 2**20
TOO_LARGE_MESSAGE = (
    "The file is {size_mb:.1f} MB; power traces may be at most {max_mb} MB. "
    "Split the recording or export a lower sample rate."
)
RUN_AND_BASELINE_MESSAGE = (
    "A trace is either measured during a run or a named baseline, not both: "
    "leave out the run or the baseline name."
)
DEVICE_NOT_IN_RUN_MESSAGE = (
    "Device {device} took no part in run {run}; pick one of the run's devices."
)
BUSY_MESSAGE = "This trace is being parsed; wait until it is parsed or failed, then try again."
SUPPLY_VOLTAGE_FIELD = "supply_voltage_v"
SUPPLY_VOLTAGE_NEEDED = "supply voltage needed"
SUPPLY_VOLTAGE_NEEDED_MESSAGE = (
    "Supply voltage needed: this file logs current but no voltage or power, so power is "
    "current x the supply voltage. Give supply_voltage_v in volts (e.g. 5.0 for USB)."
)

# A battery gauge's consumed charge: positive, and at most a large power bank's capacity
# (100 Ah); more is a unit slip (µAh or As typed as mAh), not a device's run.
BATTERY_MAX_MAH = 100_000.0
# A battery's nominal voltage: positive, and at most 60 V (the safety extra-low-voltage
# limit, above any IoT pack; 3.7-3.85 V for a Li-ion cell).
BATTERY_MAX_VOLTAGE_V = 60.0
BATTERY_CHARGE_MESSAGE = (
    "charge_mah must be more than 0 and at most {max:g} mAh (the charge the battery gauge "
    "reports as used during the run); got {value:g}."
)
BATTERY_VOLTAGE_MESSAGE = (
    "voltage_v must be more than 0 and at most {max:g} V (the battery's nominal voltage, "
    "e.g. 3.82 for a phone's Li-ion cell); got {value:g}."
)
BATTERY_DEVICE_MESSAGE = (
    "Device {device} took no part in run {run}; record the reading for one of the run's "
    "devices, or leave device out for the run as a whole."
)

UNEXPECTED_MESSAGE = "Parsing failed unexpectedly ({error}); the raw file is kept, try again."


def _kind(*, run: Run | None, baseline_name: str) -> str:
    if baseline_name:
        return TraceKind.BASELINE
    return TraceKind.RUN if run is not None else TraceKind.DEVICE


def _check_attachment(*, device: Device | None, run: Run | None, baseline_name: str) -> None:
    if run is not None and baseline_name:
        raise TraceAttachmentInvalid(RUN_AND_BASELINE_MESSAGE)
    if (
        run is not None
        and device is not None
        and not run.run_devices.filter(device=device).exists()
    ):
        raise TraceAttachmentInvalid(
            DEVICE_NOT_IN_RUN_MESSAGE.format(device=device.name, run=run.pk)
        )


def trace_size_check(*, size: int, allowance: int = 0) -> None:
    """Raise TraceTooLarge, naming the limit, when `size` bytes are over POWER_TRACE_MAX_MB
    (MB here are MiB, as the UI counts them) plus `allowance`."""
    max_mb = settings.POWER_TRACE_MAX_MB
    if size > max_mb * 2**20 + allowance:
        raise TraceTooLarge(TOO_LARGE_MESSAGE.format(size_mb=size / 2**20, max_mb=max_mb))


@transaction.atomic
def trace_upload(
    *,
    workspace: Workspace,
    user: User | AnonymousUser | None,
    file: UploadedFile[bytes],
    name: str = "",
    device: Device | None = None,
    run: Run | None = None,
    baseline_name: str = "",
) -> PowerTrace:
    """Store an uploaded file as received and detect its format.

    A file that cannot be a trace (empty, binary, ...) is stored too, as `failed` with the
    reason, so the user sees what was wrong with exactly the file they sent.
    """
    size = file.size or 0
    trace_size_check(size=size)
    _check_attachment(device=device, run=run, baseline_name=baseline_name)
    digest = hashlib.sha256()
    for chunk in file.chunks():
        digest.update(chunk)
    file.seek(0)
    head = file.read(HEAD_BYTES)
    file.seek(0)
    filename = Path(file.name or "trace.csv").name
    trace = PowerTrace(
        workspace=workspace,
        created_by=user if isinstance(user, User) else None,
        name=name or filename,
        kind=_kind(run=run, baseline_name=baseline_name),
        device=device,
        run=run,
        baseline_name=baseline_name,
        original_filename=filename,
        size_bytes=size,
        sha256=digest.hexdigest(),
    )
    try:
        detection = detect(head, filename)
    except TraceParseError as exc:
        trace.status = TraceStatus.FAILED
        trace.error = exc.to_json()
    else:
        trace.detection = detection.to_json()
    trace.raw.save(filename, file, save=False)
    # The file is on disk before the row commits; if the row fails, remove the file again.
    try:
        trace.full_clean(exclude=["raw"])
        trace.save()
    except Exception:
        trace.raw.delete(save=False)
        raise
    logger.info("power.trace_uploaded trace=%s size=%s", trace.pk, size)
    return trace


@transaction.atomic
def trace_update(
    *,
    trace: PowerTrace,
    name: str | None = None,
    device: Device | None = None,
    run: Run | None = None,
    baseline_name: str | None = None,
    offset_s: float | None = None,
    fields: set[str],
) -> PowerTrace:
    """Change a trace's name, attachment or alignment offset (only the given `fields`)."""
    if "name" in fields and name:
        trace.name = name
    if "device" in fields:
        trace.device = device
    if "run" in fields:
        trace.run = run
    if "baseline_name" in fields:
        trace.baseline_name = baseline_name or ""
    if "offset_s" in fields:
        trace.offset_s = offset_s
    _check_attachment(device=trace.device, run=trace.run, baseline_name=trace.baseline_name)
    trace.kind = _kind(run=trace.run, baseline_name=trace.baseline_name)
    trace.full_clean(exclude=["raw"])
    trace.save()
    return trace


@transaction.atomic
def trace_delete(*, trace: PowerTrace) -> None:
    raw = trace.raw
    trace.delete()
    transaction.on_commit(lambda: raw.delete(save=False))


@transaction.atomic
def trace_parse_request(*, trace: PowerTrace, spec: object) -> PowerTrace:
    """Check the spec and queue the parse; the trace shows `parsing` until it ends."""
    trace = PowerTrace.objects.select_for_update().get(pk=trace.pk)
    if trace.status == TraceStatus.PARSING:
        raise TraceBusy(BUSY_MESSAGE)
    try:
        parsed_spec = spec_from_json(spec)
    except TraceParseError as exc:
        if exc.expected == SUPPLY_VOLTAGE_FIELD:
            # Not a broken spec: a value the file cannot carry; the UI asks for it.
            raise SupplyVoltageNeeded(
                SUPPLY_VOLTAGE_NEEDED_MESSAGE,
                extra={"field": SUPPLY_VOLTAGE_FIELD, "needed": SUPPLY_VOLTAGE_NEEDED},
            ) from exc
        raise TraceSpecInvalid(exc.message) from exc
    token = uuid.uuid4()
    trace.spec = spec_to_json(parsed_spec)
    trace.supply_voltage_v = parsed_spec.supply_voltage_v
    trace.status = TraceStatus.PARSING
    trace.progress = 0.0
    trace.parse_token = token
    trace.error = None
    trace.save()

    from power.tasks import trace_parse_task  # tasks import services

    transaction.on_commit(lambda: trace_parse_task.delay(str(trace.pk), str(token)))
    return trace


@transaction.atomic
def battery_reading_record(
    *,
    workspace: Workspace,
    user: User | AnonymousUser | None,
    run: Run,
    device: Device | None,
    charge_mah: float,
    voltage_v: float,
) -> BatteryReading:
    """Record (or replace) the battery-gauge charge of a run's device; `device` None: the run.

    Raises BatteryReadingInvalid naming the field when a number is out of range or the
    device took no part in the run.
    """
    if not 0 < charge_mah <= BATTERY_MAX_MAH:
        raise BatteryReadingInvalid(
            BATTERY_CHARGE_MESSAGE.format(max=BATTERY_MAX_MAH, value=charge_mah),
            extra={"field": "charge_mah"},
        )
    if not 0 < voltage_v <= BATTERY_MAX_VOLTAGE_V:
        raise BatteryReadingInvalid(
            BATTERY_VOLTAGE_MESSAGE.format(max=BATTERY_MAX_VOLTAGE_V, value=voltage_v),
            extra={"field": "voltage_v"},
        )
    if device is not None and not run.run_devices.filter(device=device).exists():
        raise BatteryReadingInvalid(
            BATTERY_DEVICE_MESSAGE.format(device=device.name, run=run.pk),
            extra={"field": "device"},
        )
    values = {
        "created_by": user if isinstance(user, User) else None,
        "charge_mah": charge_mah,
        "voltage_v": voltage_v,
    }
    BatteryReading(workspace=workspace, run=run, device=device, **values).full_clean(
        validate_unique=False,
        validate_constraints=False,  # the range checks above say more
    )
    # One statement-level upsert (locks the row, or creates it and falls back to the update
    # when a concurrent request created it first): two requests at once never answer 500.
    reading, _ = BatteryReading.objects.update_or_create(
        run=run, device=device, defaults=values, create_defaults={"workspace": workspace, **values}
    )
    logger.info("power.battery_reading_recorded run=%s device=%s", run.pk, device and device.pk)
    return reading


@transaction.atomic
def battery_reading_delete(*, reading: BatteryReading) -> None:
    reading.delete()


def _attempt(trace_id: uuid.UUID | str, token: uuid.UUID | str) -> Any:
    return PowerTrace.objects.filter(pk=trace_id, parse_token=token, status=TraceStatus.PARSING)


def trace_parse(*, trace_id: uuid.UUID | str, token: uuid.UUID | str) -> bool:
    """Parse the raw file with the trace's spec and store its samples, all or nothing.

    Runs in the worker. Returns False when this attempt is no longer the current one (a
    newer request replaced it, or it already ended): then it changes nothing.
    """
    trace = _attempt(trace_id, token).first()
    if trace is None:
        return False
    last = 0.0

    def progress(fraction: float) -> None:
        nonlocal last
        now = time.monotonic()
        if now - last >= PROGRESS_INTERVAL_S:
            last = now
            _attempt(trace_id, token).update(progress=min(max(fraction, 0.0), 0.99))

    try:
        spec = spec_from_json(trace.spec)
        parsed = parse_file(Path(trace.raw.path), spec, progress=progress)
    except TraceParseError as exc:
        _attempt(trace_id, token).update(
            status=TraceStatus.FAILED, error=exc.to_json(), progress=0.0
        )
        logger.info("power.trace_parse_failed trace=%s error=%s", trace_id, exc.message)
        return True
    except (OSError, ValueError, MemoryError) as exc:
        message = UNEXPECTED_MESSAGE.format(error=exc)
        _attempt(trace_id, token).update(
            status=TraceStatus.FAILED, error={"message": message, "line": None, "column": None}
        )
        logger.exception("power.trace_parse_crashed trace=%s", trace_id)
        return True
    return _store(trace_id=trace_id, token=token, parsed=parsed)


def trace_parse_give_up(*, trace_id: uuid.UUID | str, token: uuid.UUID | str, error: str) -> None:
    """The worker could not finish the attempt (after its retries): say so on the trace."""
    message = UNEXPECTED_MESSAGE.format(error=error)
    _attempt(trace_id, token).update(
        status=TraceStatus.FAILED, error={"message": message, "line": None, "column": None}
    )


def _envelope(t: np.ndarray, p: np.ndarray) -> bytes:
    starts = np.arange(0, len(t), ENVELOPE_STRIDE)
    counts = np.diff(np.append(starts, len(t))).astype(np.float64)
    p64 = p.astype(np.float64)
    rows = np.column_stack(
        (
            np.add.reduceat(t, starts) / counts,
            np.minimum.reduceat(p64, starts),
            np.maximum.reduceat(p64, starts),
            np.add.reduceat(p64, starts),
            counts,
        )
    )
    return rows.astype("<f8").tobytes()


def _blocks(trace_id: uuid.UUID | str, parsed: ParsedTrace) -> Iterator[tuple[Any, ...]]:
    n = len(parsed.t_s)
    for index, lo in enumerate(range(0, n, BLOCK_SAMPLES)):
        hi = min(lo + BLOCK_SAMPLES, n)
        t = parsed.t_s[lo:hi].astype("<f8")
        p = parsed.power_w[lo:hi].astype("<f4")
        v = (
            parsed.voltage_v[lo:hi].astype("<f4").tobytes()
            if parsed.voltage_v is not None
            else None
        )
        c = (
            parsed.current_a[lo:hi].astype("<f4").tobytes()
            if parsed.current_a is not None
            else None
        )
        yield (
            uuid.UUID(str(trace_id)),
            index,
            float(t[0]),
            float(t[-1]),
            hi - lo,
            t.tobytes(),
            p.tobytes(),
            v,
            c,
            _envelope(t, p),
        )


def _store(*, trace_id: uuid.UUID | str, token: uuid.UUID | str, parsed: ParsedTrace) -> bool:
    table = PowerSampleBlock._meta.db_table
    columns = "trace_id, index, t_start, t_end, n, t, power, voltage, current, envelope"
    with transaction.atomic():
        trace = _attempt(trace_id, token).select_for_update().first()
        if trace is None:
            return False
        PowerSampleBlock.objects.filter(trace=trace).delete()
        if len(parsed.t_s):
            with connection.cursor() as cursor:
                cursor.execute("SET LOCAL synchronous_commit = off")
                copy_sql = f"COPY {table} ({columns}) FROM STDIN (FORMAT BINARY)"
                with cursor.copy(copy_sql) as copy:
                    copy.set_types(["uuid", "int4", "float8", "float8", "int4"] + ["bytea"] * 5)
                    for row in _blocks(trace_id, parsed):
                        copy.write_row(row)
        n = len(parsed.t_s)
        trace.status = TraceStatus.PARSED
        trace.progress = 1.0
        trace.sample_count = n
        trace.duration_s = float(parsed.t_s[-1]) if n else 0.0
        trace.absolute_start = parsed.absolute_start
        trace.has_voltage = parsed.voltage_v is not None
        trace.has_current = parsed.current_a is not None
        trace.notes = list(parsed.notes)
        trace.parsed_at = timezone.now()
        trace.error = None
        trace.save()
    logger.info("power.trace_parsed trace=%s samples=%s", trace_id, n)
    return True
