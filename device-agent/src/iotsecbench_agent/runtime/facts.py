"""Facts about this device, stored by the platform with every run (reproducibility).

Every key of the contract is always present; a value the device cannot tell is None.
``root`` lets tests point the /proc, /sys and /etc readers at a fake tree.
"""

from __future__ import annotations

import os
import platform
import socket
from importlib import metadata
from pathlib import Path
from typing import Any

from iotsecbench_agent import __version__

# Distribution names as pip knows them; the keys are what the platform displays.
LIBRARIES = {
    "paho-mqtt": "paho-mqtt",
    "pycryptodome": "pycryptodome",
    "cryptography": "cryptography",
}

Facts = dict[str, Any]


def collect_facts(root: Path = Path("/")) -> Facts:
    """Gather the facts of §2 of docs/control-plane.md."""
    return {
        "hostname": socket.gethostname() or None,
        "hardware_model": hardware_model(root),
        "cpu_model": cpu_model(root),
        "cpu_cores": os.cpu_count(),
        "ram_bytes": ram_bytes(root),
        "kernel": platform.release() or None,
        "os": os_pretty_name(root),
        "python_version": platform.python_version(),
        "agent_version": __version__,
        "libraries": {
            **{name: _dist_version(dist) for name, dist in LIBRARIES.items()},
            **openssl_versions(),
        },
        "clock_offset_ns": None,
        "network_emulation": network_emulation(),
    }


def openssl_versions() -> dict[str, str | None]:
    """The crypto libraries' OpenSSLs (iotsecbench_contract.cryptolibs): ``openssl``, the
    one ``cryptography`` bundles; ``openssl-evp``, the system libcrypto the agent's EVP
    extension runs the ``openssl`` library's timed CBC calls on (None when the agent was
    built without it); and ``openssl-cli``, what ``openssl version`` prints (None when the
    command is not installed)."""
    from iotsecbench_agent.cipherbench import opensslcli
    from iotsecbench_agent.security import openssl_mechanisms

    try:
        from cryptography.hazmat.backends.openssl import backend

        bundled: str | None = backend.openssl_version_text()
    except ImportError:
        bundled = None
    try:
        command: str | None = opensslcli.command_version()
    except OSError:
        command = None
    return {
        "openssl": bundled,
        "openssl-evp": openssl_mechanisms.evp_version(),
        "openssl-cli": command,
    }


def network_emulation() -> dict[str, dict[str, Any]]:
    """Which backends could enforce a run's network profile here, and why not
    (netemu.link.capability: a few hundred ms, once per start): the platform refuses to give
    a run under a profile to a device that cannot enforce it."""
    from iotsecbench_agent.netemu.link import capability

    return {
        name: {"available": backend.available, "reason": backend.reason}
        for name, backend in capability().items()
    }


def hardware_model(root: Path) -> str | None:
    """Raspberry Pi and other device-tree boards name themselves in /proc/device-tree/model;
    PCs and VMs in the DMI product name."""
    for rel in ("proc/device-tree/model", "sys/class/dmi/id/product_name"):
        text = _read(root / rel)
        if text is not None:
            value = text.replace("\x00", "").strip()
            if value:
                return value
    return None


# ARM's part numbers (/proc/cpuinfo `CPU part` with `CPU implementer: 0x41`) of the cores
# in Raspberry Pis and similar boards; 64-bit ARM kernels print no `model name`.
ARM_CORES = {
    "0xb76": "ARM1176",  # Pi 1, Zero
    "0xc07": "Cortex-A7",  # Pi 2
    "0xd03": "Cortex-A53",  # Pi 3, Zero 2
    "0xd08": "Cortex-A72",  # Pi 4, 400, CM4
    "0xd0b": "Cortex-A76",  # Pi 5
    "0xd05": "Cortex-A55",
}


def cpu_model(root: Path) -> str | None:
    """x86 (and some 32-bit ARM) kernels print `model name`; 64-bit ARM kernels only the
    implementer and part numbers. Fall back to the machine type (e.g. aarch64)."""
    text = _read(root / "proc/cpuinfo")
    if text is not None:
        fields = _colon_fields(text)
        if fields.get("model name"):
            return fields["model name"]
        part = fields.get("CPU part", "").lower()
        if fields.get("CPU implementer", "").lower() == "0x41" and part:
            return f"ARM {ARM_CORES.get(part, f'part {part}')}"
        for key in ("Processor", "cpu model", "Hardware"):
            if fields.get(key):
                return fields[key]
    return platform.machine() or None


def ram_bytes(root: Path) -> int | None:
    text = _read(root / "proc/meminfo")
    if text is None:
        return None
    value = _colon_fields(text).get("MemTotal", "")
    parts = value.split()
    if not parts or not parts[0].isdigit():
        return None
    unit = parts[1].lower() if len(parts) > 1 else ""
    return int(parts[0]) * (1024 if unit == "kb" else 1)


def os_pretty_name(root: Path) -> str | None:
    text = _read(root / "etc/os-release")
    if text is None:
        return None
    for line in text.splitlines():
        key, sep, value = line.partition("=")
        if sep and key.strip() == "PRETTY_NAME":
            return value.strip().strip("\"'") or None
    return None


def _colon_fields(text: str) -> dict[str, str]:
    """`key : value` lines (first occurrence wins, as /proc/cpuinfo repeats per core)."""
    out: dict[str, str] = {}
    for line in text.splitlines():
        key, sep, value = line.partition(":")
        if sep:
            out.setdefault(key.strip(), value.strip())
    return out


def _read(path: Path) -> str | None:
    try:
        return path.read_text(encoding="utf-8", errors="replace")
    except OSError:
        return None


def _dist_version(dist: str) -> str | None:
    try:
        return metadata.version(dist)
    except metadata.PackageNotFoundError:
        return None
