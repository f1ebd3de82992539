"""Command line: ``iotsecbench-agent enroll | run | facts | config-reference | selftest |
encrypt | mechanisms | cipher-bench | throughput | mqttsn-gateway``.

The entry point loads and validates configuration, then runs. Any AgentError ends the
process with one readable ``error: …`` line on stderr and exit status 1; secrets never
reach the log (a formatter redacts them from every line). ``encrypt`` answers a wrong key,
IV or data length with one ``error: …`` line and exit status 2 (a usage error);
``selftest`` exits 1 when any known-answer vector fails.
"""

from __future__ import annotations

import argparse
import json
import logging
import signal
import socket
import sys
from collections.abc import Mapping, Sequence
from pathlib import Path
from types import FrameType

from iotsecbench_contract.brokerurl import REDACTED

from iotsecbench_agent import __version__
from iotsecbench_agent.errors import (
    RUN_ERRORS,
    ConfigError,
    EnrollmentError,
    PlatformRejected,
    PlatformUnavailable,
)
from iotsecbench_agent.jobkinds import KINDS, by_command
from iotsecbench_agent.mqttsn import cli as cli_mqttsn
from iotsecbench_agent.platform import api
from iotsecbench_agent.platform.identity import (
    BrokerIdentity,
    certificate_request,
    new_key,
    save_identity,
)
from iotsecbench_agent.platform.jobs import SEQ_FILE
from iotsecbench_agent.runtime.agent import Agent, AgentOptions
from iotsecbench_agent.runtime.config import (
    ENV_ENROLL_TOKEN,
    ENV_MQTT_URL,
    ENV_NETEM_BACKEND,
    ENV_SERVER,
    ENV_UPLOAD_RETRY,
    NETWORK_BACKENDS,
    STATE_FILE,
    AgentState,
    apply_overrides,
    config_reference_markdown,
    env_value,
    environ,
    load_state,
    network_backend,
    resolve_state_dir,
    save_state,
    upload_retry_seconds,
    validate_http_url,
)
from iotsecbench_agent.runtime.facts import collect_facts
from iotsecbench_agent.security import blockmodes, registry
from iotsecbench_agent.security.base import MechanismError
from iotsecbench_agent.security.lightweight_mechanisms import native_available
from iotsecbench_agent.security.selftest import run_selftest

logger = logging.getLogger("iotsecbench_agent")

LOG_FORMAT = "%(asctime)s %(levelname)s %(name)s %(message)s"
USAGE_ERROR = 2  # exit status of `encrypt` for a wrong key, IV or data (as argparse's)
# `mechanisms` shows each overhead for a payload of this size: a whole number of 8- and
# 16-byte blocks, so the padded modes show their worst case (a full padding block).
MECHANISMS_PAYLOAD_BYTES = 64


class RedactingFormatter(logging.Formatter):
    """Replaces every known secret in the final log line (message, args and traceback)."""

    def __init__(self, fmt: str, secrets: Sequence[str] = ()) -> None:
        super().__init__(fmt)
        self.secrets = [s for s in secrets if s]

    def format(self, record: logging.LogRecord) -> str:
        text = super().format(record)
        for secret in self.secrets:
            text = text.replace(secret, REDACTED)
        return text


def configure_logging(level: str, secrets: Sequence[str] = ()) -> RedactingFormatter:
    formatter = RedactingFormatter(LOG_FORMAT, secrets)
    handler = logging.StreamHandler(sys.stderr)
    handler.setFormatter(formatter)
    root = logging.getLogger()
    for old in list(root.handlers):
        root.removeHandler(old)
    root.addHandler(handler)
    root.setLevel(level)
    return formatter


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="iotsecbench-agent",
        description="IoTSecBench device agent: runs signed measurement jobs from the platform.",
    )
    parser.add_argument("--version", action="version", version=f"%(prog)s {__version__}")
    parser.add_argument(
        "--log-level",
        default="INFO",
        choices=["DEBUG", "INFO", "WARNING", "ERROR"],
        help="log verbosity (default INFO)",
    )
    commands = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")

    enroll = commands.add_parser("enroll", help="exchange a one-time token for credentials")
    enroll.add_argument("--server", help=f"platform base URL (env {ENV_SERVER})")
    enroll.add_argument("--token", help=f"one-time enrollment token (env {ENV_ENROLL_TOKEN})")
    enroll.add_argument("--name", help="display name (default: the hostname)")
    enroll.add_argument("--state-dir", help="where to store state.json")
    enroll.add_argument(
        "--force", action="store_true", help="replace an existing enrollment in --state-dir"
    )

    run = commands.add_parser("run", help="connect and run jobs until SIGTERM/SIGINT")
    run.add_argument("--state-dir", help="state directory written by `enroll`")
    run.add_argument("--mqtt-url", help=f"override the stored broker URL (env {ENV_MQTT_URL})")
    run.add_argument("--server", help=f"override the stored platform URL (env {ENV_SERVER})")
    run.add_argument(
        "--network-backend",
        choices=NETWORK_BACKENDS,
        help="what enforces a run's network profile: auto (netem if it works here, else the "
        f"userspace emulator; the default), netem or userspace (env {ENV_NETEM_BACKEND})",
    )
    run.add_argument(
        "--upload-retry-seconds",
        metavar="SECONDS",
        help="how long one upload keeps retrying while the platform is down (default 21600, "
        f"6 h; env {ENV_UPLOAD_RETRY})",
    )

    commands.add_parser("facts", help="print this device's facts as JSON")
    commands.add_parser("config-reference", help="print the configuration reference (Markdown)")

    commands.add_parser(
        "selftest", help="check every security mechanism against its published vectors"
    )
    encrypt = commands.add_parser(
        "encrypt",
        help="encrypt hex data with a block cipher (ECB: whole blocks, no padding; "
        "CBC: PKCS#7, needs --iv)",
    )
    encrypt.add_argument(
        "--mechanism",
        required=True,
        metavar="NAME",
        help="block cipher: aes-128|aes-192|aes-256|des|3des|tea|xtea|present-80|"
        "present-128|klein-64|klein-80|klein-96|lblock (a mechanism name like aes-128-cbc "
        "also works)",
    )
    encrypt.add_argument("--mode", required=True, choices=blockmodes.MODES)
    encrypt.add_argument("--key", required=True, metavar="HEX")
    encrypt.add_argument("--iv", metavar="HEX", help="CBC initialisation vector")
    encrypt.add_argument("--hex", required=True, metavar="DATA", help="plaintext, hex")
    commands.add_parser(
        "mechanisms",
        help=f"list the security mechanisms with their overhead for a "
        f"{MECHANISMS_PAYLOAD_BYTES}-byte payload",
    )
    for kind in KINDS:  # cipher-bench, throughput, …: one subcommand per benchmark kind
        kind.cli.add_parser(commands)
    cli_mqttsn.add_parser(commands)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    formatter = configure_logging(args.log_level)
    env = environ()
    try:
        if args.command == "enroll":
            return cmd_enroll(args, env)
        if args.command == "run":
            return cmd_run(args, env, formatter)
        if args.command == "facts":
            print(json.dumps(collect_facts(), indent=2))
            return 0
        if args.command == "config-reference":
            sys.stdout.write(config_reference_markdown())
            return 0
        if args.command == "selftest":
            return 1 if run_selftest(sys.stdout) else 0
        if args.command == "encrypt":
            return cmd_encrypt(args)
        if args.command == "mechanisms":
            return cmd_mechanisms()
        kind = by_command().get(args.command)
        if kind is not None:
            return kind.cli.main(args)
        if args.command == "mqttsn-gateway":
            return cli_mqttsn.main(args)
    except RUN_ERRORS as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        return 130
    raise AssertionError(f"unhandled command {args.command!r}")


def cmd_enroll(args: argparse.Namespace, env: Mapping[str, str]) -> int:
    server = args.server or env_value(env, ENV_SERVER)
    token = args.token or env_value(env, ENV_ENROLL_TOKEN)
    if not server or not token:
        raise ConfigError(
            f"enroll needs --server URL and --token TOKEN (or {ENV_SERVER} and {ENV_ENROLL_TOKEN})"
        )
    server = validate_http_url(server, what="--server")
    state_dir = resolve_state_dir(args.state_dir, env)
    if (state_dir / STATE_FILE).exists() and not args.force:
        raise ConfigError(f"{state_dir} already holds an enrollment; pass --force to replace it")
    name = args.name or socket.gethostname()
    # The broker identity's key is made here and stays here: the platform gets a CSR.
    csr = certificate_request(new_key(state_dir), name=name)
    try:
        answer = api.enroll(server, token=token, name=name, facts=collect_facts(), csr=csr)
    except PlatformRejected as exc:
        raise EnrollmentError(f"enrollment refused: {exc}") from None
    except PlatformUnavailable as exc:
        raise EnrollmentError(f"enrollment failed: {exc}") from None
    state = AgentState.from_mapping(
        {**answer, "server_url": server, "name": name}, source="the platform's enrollment answer"
    )
    path = save_state(state_dir, state)
    with_identity = save_identity(state_dir, answer)
    # A new identity starts a new job sequence; the old device's seq must not block it.
    (state_dir / SEQ_FILE).unlink(missing_ok=True)
    logger.info("agent.enrolled device_id=%s state=%s", state.device_id, path)
    broker = "with its own broker identity" if with_identity else "(the broker is anonymous)"
    print(f"enrolled as {state.device_id} {broker}; state saved to {path}")
    return 0


def cmd_run(args: argparse.Namespace, env: Mapping[str, str], formatter: RedactingFormatter) -> int:
    state_dir = resolve_state_dir(args.state_dir, env)
    state = apply_overrides(
        load_state(state_dir),
        server_url=args.server or env_value(env, ENV_SERVER),
        mqtt_url=args.mqtt_url or env_value(env, ENV_MQTT_URL),
    )
    backend = network_backend(args.network_backend or env_value(env, ENV_NETEM_BACKEND))
    upload_retry_s = upload_retry_seconds(
        args.upload_retry_seconds or env_value(env, ENV_UPLOAD_RETRY)
    )
    identity = BrokerIdentity.load(Path(state_dir))
    formatter.secrets.extend(state.secrets() + identity.secrets())
    logger.info("agent.config %s", json.dumps(state.redacted(), sort_keys=True))
    logger.info("agent.network_backend setting=%s", backend)
    logger.info("agent.upload_retry seconds=%g", upload_retry_s)
    agent = Agent(
        AgentOptions(
            state_dir=Path(state_dir),
            state=state,
            identity=identity,
            network_backend=backend,
            upload_retry_s=upload_retry_s,
        )
    )

    def on_signal(signum: int, frame: FrameType | None) -> None:
        logger.info("agent.signal signal=%s", signal.Signals(signum).name)
        agent.request_stop()

    previous = {sig: signal.signal(sig, on_signal) for sig in (signal.SIGTERM, signal.SIGINT)}
    try:
        agent.run()
    finally:
        for sig, handler in previous.items():
            signal.signal(sig, handler)
    return 0


def cmd_encrypt(args: argparse.Namespace) -> int:
    try:
        key = _hex_arg(args.key, "--key")
        iv = None if args.iv is None else _hex_arg(args.iv, "--iv")
        data = _hex_arg(args.hex, "--hex")
        ciphertext = blockmodes.encrypt(args.mechanism, args.mode, key, data, iv)
    except MechanismError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return USAGE_ERROR
    print(ciphertext.hex())
    return 0


def _hex_arg(value: str, option: str) -> bytes:
    try:
        return bytes.fromhex(value)
    except ValueError:
        raise MechanismError(f"{option} is not hexadecimal: {value!r}") from None


def cmd_mechanisms() -> int:
    native = native_available()
    size = MECHANISMS_PAYLOAD_BYTES
    rows = [("name", "kind", "key bits", f"+bytes@{size}", "available", "wire framing")]
    for info in registry.infos():
        available = "yes" if native or not info.native else "no (native module not built)"
        rows.append(
            (
                info.name,
                info.kind,
                str(info.key_bits),
                str(info.overhead(size)),
                available,
                info.framing,
            )
        )
    widths = [max(len(row[i]) for row in rows) for i in range(len(rows[0]) - 1)]
    for row in rows:
        cells = [cell.ljust(width) for cell, width in zip(row, widths)]
        print("  ".join([*cells, row[-1]]).rstrip())
    return 0
