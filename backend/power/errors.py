from core.exceptions import ApplicationError


class TraceTooLarge(ApplicationError):
    """The uploaded file is larger than the platform accepts (POWER_TRACE_MAX_MB)."""

    code = "power_trace_too_large"
    status_code = 413


class TraceAttachmentInvalid(ApplicationError):
    """The device, run or baseline name given for a trace do not fit together."""

    code = "power_trace_attachment_invalid"
    status_code = 400


class TraceSpecInvalid(ApplicationError):
    """The parse spec (column mapping) is incomplete or contradictory; the message says how."""

    code = "power_trace_spec_invalid"
    status_code = 400


class TraceBusy(ApplicationError):
    """The trace is being parsed; wait for that parse to end before starting another."""

    code = "power_trace_busy"
    status_code = 409


class TraceNotParsed(ApplicationError):
    """The trace has no samples yet (not parsed, or its last parse failed)."""

    code = "power_trace_not_parsed"
    status_code = 409


class WindowInvalid(ApplicationError):
    """The requested time window holds no samples of the trace."""

    code = "power_window_invalid"
    status_code = 400


class BaselineInvalid(ApplicationError):
    """The baseline asked for cannot be used (unknown trace, no voltage for a current, ...)."""

    code = "power_baseline_invalid"
    status_code = 400


class SupplyVoltageNeeded(ApplicationError):
    """The file logs current only; power needs the supply voltage, which the user must give.

    `extra.field` names the spec field to fill (supply_voltage_v).
    """

    code = "power_supply_voltage_needed"
    status_code = 400


class BatteryReadingInvalid(ApplicationError):
    """A battery-gauge reading is out of range or names a device outside the run."""

    code = "power_battery_reading_invalid"
    status_code = 400
