"""Agent state (what enrollment stored) and run settings: dataclasses plus validation.

The state lives in ``<state-dir>/state.json`` (mode 0600). It is loaded and validated once,
then passed around as an object; nothing here reads the environment at import time.
"""

from __future__ import annotations

import base64
import binascii
import json
import os
import uuid
from collections.abc import Mapping
from dataclasses import asdict, dataclass, field, fields
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from iotsecbench_contract.brokerurl import REDACTED, redact_url
from iotsecbench_contract.topics import agent_prefix

from iotsecbench_agent.brokerurl import parse_mqtt_url
from iotsecbench_agent.errors import ConfigError
from iotsecbench_agent.storage.fsutil import atomic_write_text
from iotsecbench_agent.storage.recordlog import HEADER as RECORD_HEADER
from iotsecbench_agent.storage.samplelog import HEADER as SAMPLE_HEADER

STATE_FILE = "state.json"

ENV_STATE_DIR = "IOTSECBENCH_AGENT_STATE_DIR"
ENV_SERVER = "IOTSECBENCH_AGENT_SERVER"
ENV_MQTT_URL = "IOTSECBENCH_AGENT_MQTT_URL"
ENV_ENROLL_TOKEN = "IOTSECBENCH_AGENT_ENROLL_TOKEN"  # noqa: S105 - a variable name, not a secret
ENV_NETEM_BACKEND = "IOTSECBENCH_NETEM_BACKEND"
NETWORK_BACKENDS = ("auto", "netem", "userspace")
ENV_UPLOAD_RETRY = "IOTSECBENCH_AGENT_UPLOAD_RETRY_SECONDS"
# Six hours: a platform or database outage of an afternoon still gets every record.
DEFAULT_UPLOAD_RETRY_S = 21600.0

ENV_VARS: dict[str, str] = {
    ENV_STATE_DIR: "State directory, used when `--state-dir` is not given.",
    ENV_SERVER: "Platform base URL: the default of `enroll --server`, and overrides the "
    "stored `server_url` for `run`.",
    ENV_MQTT_URL: "Control-plane broker URL: the default of `run --mqtt-url`, overriding the "
    "stored `mqtt_url` (e.g. when the platform advertised 127.0.0.1 but the Pi must use a "
    "LAN address).",
    ENV_ENROLL_TOKEN: "One-time enrollment token, the default of `enroll --token` (keeps the "
    "token out of the process list and shell history).",
    ENV_NETEM_BACKEND: "Which backend enforces a run's network profile, the default of "
    "`run --network-backend`: `auto` (the default: the kernel's netem when it works here, "
    "else the userspace emulator), `netem` or `userspace` (forced: a run fails if that "
    "backend cannot work here).",
    ENV_UPLOAD_RETRY: "How long one upload keeps retrying 5xx answers and connection errors "
    "(seconds, backing off to one try a minute), the default of `run --upload-retry-seconds`; "
    f"default {DEFAULT_UPLOAD_RETRY_S:.0f} (6 h). A log whose upload gives up stays on the "
    "device and goes up when the agent starts again.",
}

ED25519_PUBLIC_KEY_BYTES = 32


def _describe(text: str, *, secret: bool = False) -> Any:
    return field(metadata={"description": text, "secret": secret})


@dataclass(frozen=True)
class AgentState:
    """What enrollment returned, as stored in ``state.json``."""

    server_url: str = _describe("Platform base URL used for enrollment, facts and failures.")
    device_id: str = _describe("This device's UUID, assigned by the platform.")
    api_token: str = _describe(
        "Per-device API token, sent as `Authorization: Device <token>`.", secret=True
    )
    mqtt_url: str = _describe(
        "Control-plane broker, `mqtt://[user:password@]host[:port]` or `mqtts://…` for TLS."
    )
    job_public_key: str = _describe(
        "Base64 of the platform's raw 32-byte Ed25519 key that signs jobs."
    )
    topic_prefix: str = _describe("Topic prefix of this agent, `iotsecbench/agents/<device>`.")
    name: str = _describe("Display name sent at enrollment (defaults to the hostname).")

    @property
    def public_key_bytes(self) -> bytes:
        return base64.b64decode(self.job_public_key, validate=True)

    @classmethod
    def from_mapping(cls, data: Mapping[str, Any], *, source: str) -> AgentState:
        """Validate ``data`` and build the state; raise ConfigError naming the bad key."""
        values: dict[str, str] = {}
        for f in fields(cls):
            value = data.get(f.name)
            if (
                f.name == "topic_prefix"
                and value is None
                and isinstance(data.get("device_id"), str)
            ):
                value = agent_prefix(data["device_id"])
            if not isinstance(value, str) or not value:
                raise ConfigError(f"{source}: `{f.name}` is missing or not a non-empty string")
            values[f.name] = value
        state = cls(**values)
        state.validate(source=source)
        return state

    def validate(self, *, source: str) -> None:
        try:
            parsed = uuid.UUID(self.device_id)
        except ValueError:
            raise ConfigError(f"{source}: `device_id` is not a UUID") from None
        if str(parsed) != self.device_id:
            raise ConfigError(f"{source}: `device_id` must be a lower-case dashed UUID")
        validate_http_url(self.server_url, what=f"{source}: `server_url`")
        parse_mqtt_url(self.mqtt_url, what=f"{source}: `mqtt_url`")
        try:
            key = self.public_key_bytes
        except (binascii.Error, ValueError):
            raise ConfigError(f"{source}: `job_public_key` is not valid base64") from None
        if len(key) != ED25519_PUBLIC_KEY_BYTES:
            raise ConfigError(
                f"{source}: `job_public_key` must be {ED25519_PUBLIC_KEY_BYTES} raw bytes, "
                f"got {len(key)}"
            )

    def redacted(self) -> dict[str, str]:
        """The state as a dict with secrets (and any broker password) replaced by ***."""
        out = asdict(self)
        for f in fields(self):
            if f.metadata.get("secret"):
                out[f.name] = REDACTED
        out["mqtt_url"] = redact_url(self.mqtt_url)
        return out

    def secrets(self) -> list[str]:
        """Every secret value in the state, for the log redaction filter."""
        found = [getattr(self, f.name) for f in fields(self) if f.metadata.get("secret")]
        password = parse_mqtt_url(self.mqtt_url).password
        if password:
            found.append(password)
        return found


def validate_http_url(url: str, *, what: str) -> str:
    """Return ``url`` without a trailing slash; ConfigError unless it is http(s)://host…"""
    parts = urlsplit(url)
    if parts.scheme not in ("http", "https") or not parts.hostname:
        raise ConfigError(f"{what} must be an http:// or https:// URL, got {url!r}")
    return url.rstrip("/")


def resolve_state_dir(flag: str | None, env: Mapping[str, str]) -> Path:
    """The state directory from ``--state-dir`` or the environment; ConfigError if neither."""
    value = flag or env.get(ENV_STATE_DIR)
    if not value:
        raise ConfigError(f"no state directory: pass --state-dir DIR or set {ENV_STATE_DIR}")
    return Path(value)


def enroll_hint(state_dir: Path) -> str:
    return (
        f"run `iotsecbench-agent enroll --server URL --token TOKEN --state-dir {state_dir}` first"
    )


def load_state(state_dir: Path) -> AgentState:
    """Load and validate ``<state_dir>/state.json``; ConfigError with a fix-it hint if bad."""
    path = state_dir / STATE_FILE
    try:
        raw = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise ConfigError(
            f"no agent state in {state_dir} ({STATE_FILE} not found) — {enroll_hint(state_dir)}"
        ) from None
    except OSError as exc:
        raise ConfigError(f"cannot read {path}: {exc.strerror}") from None
    try:
        data = json.loads(raw)
    except ValueError:
        raise ConfigError(f"{path} is not valid JSON — {enroll_hint(state_dir)}") from None
    if not isinstance(data, dict):
        raise ConfigError(f"{path} must hold a JSON object — {enroll_hint(state_dir)}")
    return AgentState.from_mapping(data, source=str(path))


def save_state(state_dir: Path, state: AgentState) -> Path:
    """Write ``state.json`` atomically with mode 0600 (it holds the API token)."""
    state_dir.mkdir(parents=True, exist_ok=True, mode=0o700)
    path = state_dir / STATE_FILE
    atomic_write_text(path, json.dumps(asdict(state), indent=2) + "\n", mode=0o600)
    return path


def apply_overrides(
    state: AgentState,
    *,
    server_url: str | None,
    mqtt_url: str | None,
) -> AgentState:
    """Return ``state`` with the run-time server / broker overrides applied and validated."""
    changes: dict[str, str] = {}
    if server_url:
        changes["server_url"] = validate_http_url(server_url, what="server URL override")
    if mqtt_url:
        parse_mqtt_url(mqtt_url, what="MQTT URL override")
        changes["mqtt_url"] = mqtt_url
    if not changes:
        return state
    values = asdict(state)
    values.update(changes)
    return AgentState(**values)


def network_backend(value: str | None) -> str:
    """The ``--network-backend`` / IOTSECBENCH_NETEM_BACKEND setting, validated."""
    if value is None:
        return NETWORK_BACKENDS[0]
    if value not in NETWORK_BACKENDS:
        raise ConfigError(
            f"network backend {value!r} is not one of {', '.join(NETWORK_BACKENDS)} "
            f"(--network-backend or {ENV_NETEM_BACKEND})"
        )
    return value


def upload_retry_seconds(value: str | None) -> float:
    """The ``--upload-retry-seconds`` / IOTSECBENCH_AGENT_UPLOAD_RETRY_SECONDS setting."""
    if value is None:
        return DEFAULT_UPLOAD_RETRY_S
    try:
        seconds = float(value)
    except ValueError:
        seconds = -1.0
    if not 0 <= seconds < float("inf"):
        raise ConfigError(
            f"upload retry time {value!r} is not a number of seconds >= 0 "
            f"(--upload-retry-seconds or {ENV_UPLOAD_RETRY})"
        )
    return seconds


def env_value(env: Mapping[str, str], name: str) -> str | None:
    value = env.get(name, "").strip()
    return value or None


def config_reference_markdown() -> str:
    """The config reference page, generated from the dataclass field descriptions.

    `docs/config-reference.md` is this output; regenerate it with
    `iotsecbench-agent config-reference > docs/config-reference.md`.
    """
    lines = [
        "<!-- Generated by `iotsecbench-agent config-reference`; do not edit by hand. -->",
        "# Device agent configuration reference",
        "",
        "## State directory",
        "",
        f"`<state-dir>/{STATE_FILE}` (mode 0600) is written by `iotsecbench-agent enroll` and "
        "read by `run`:",
        "",
        "| key | secret | description |",
        "|---|---|---|",
    ]
    for f in fields(AgentState):
        secret = "yes" if f.metadata.get("secret") else ""
        lines.append(f"| `{f.name}` | {secret} | {f.metadata['description']} |")
    lines += [
        "",
        "Other files in the state directory:",
        "",
        "| path | description |",
        "|---|---|",
        "| `job_seq.json` | Highest accepted job `seq`; a job at or below it is rejected as "
        "`replayed`, also after a restart. |",
        f"| `runs/<run_id>.csv` | Append-only record log of a run (`{RECORD_HEADER}`). |",
        "| `runs/<run_id>.uploaded` | Index of the last chunk the platform acknowledged. |",
        "| `runs/<run_id>.samples.csv` | Append-only sample log of a cipher-bench or throughput "
        f"run (`{SAMPLE_HEADER}`; `packets` is empty for cipher benchmarks), instead of "
        "`<run_id>.csv`. |",
        "| `runs/<run_id>.samples.uploaded` | Index of the last samples chunk the platform "
        "acknowledged. |",
        "| `runs/<run_id>.json` | The run's upload target and status "
        "(`running`, `measured`, `uploaded`, `failed`), used to resume after a restart. |",
        "",
        "## Environment",
        "",
        "| variable | description |",
        "|---|---|",
    ]
    for name, text in ENV_VARS.items():
        lines.append(f"| `{name}` | {text} |")
    lines += [
        "",
        "Precedence: command-line flag, then environment, then `state.json`.",
        "",
    ]
    return "\n".join(lines)


def environ() -> Mapping[str, str]:
    """The process environment (a seam for tests)."""
    return os.environ
