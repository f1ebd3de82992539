"""Device facts (§2): every key present, read from /proc, /sys and /etc."""

from __future__ import annotations

import json
import os
import platform
import subprocess
import sys
from pathlib import Path

from iotsecbench_agent import __version__
from iotsecbench_agent.runtime.facts import collect_facts

FACT_KEYS = {
    "network_emulation",
    "hostname",
    "hardware_model",
    "cpu_model",
    "cpu_cores",
    "ram_bytes",
    "kernel",
    "os",
    "python_version",
    "agent_version",
    "libraries",
    "clock_offset_ns",
}

PI_CPUINFO = """processor\t: 0
BogoMIPS\t: 108.00
Features\t: fp asimd evtstrm crc32 cpuid
CPU implementer\t: 0x41
CPU part\t: 0xd08

processor\t: 1
BogoMIPS\t: 108.00

Hardware\t: BCM2835
Revision\t: c03114
Model\t\t: Raspberry Pi 4 Model B Rev 1.4
"""


def fake_root(tmp_path: Path) -> Path:
    (tmp_path / "proc/device-tree").mkdir(parents=True)
    (tmp_path / "proc/device-tree/model").write_bytes(b"Raspberry Pi 4 Model B Rev 1.4\x00")
    (tmp_path / "proc/cpuinfo").write_text(PI_CPUINFO)
    (tmp_path / "proc/meminfo").write_text("MemTotal:        3885396 kB\nMemFree: 1 kB\n")
    (tmp_path / "etc").mkdir()
    (tmp_path / "etc/os-release").write_text(
        'PRETTY_NAME="Debian GNU/Linux 12 (bookworm)"\nNAME="Debian GNU/Linux"\n'
    )
    return tmp_path


def test_facts_read_pi_model_cpu_ram_and_os_when_files_exist(tmp_path: Path) -> None:
    facts = collect_facts(fake_root(tmp_path))

    assert set(facts) == FACT_KEYS
    assert facts["hardware_model"] == "Raspberry Pi 4 Model B Rev 1.4"
    assert facts["cpu_model"] == "ARM Cortex-A72"
    assert facts["ram_bytes"] == 3885396 * 1024
    assert facts["os"] == "Debian GNU/Linux 12 (bookworm)"
    assert facts["python_version"] == platform.python_version()
    assert facts["agent_version"] == __version__
    assert facts["clock_offset_ns"] is None


def test_facts_fall_back_to_dmi_and_model_name_when_not_a_device_tree_board(
    tmp_path: Path,
) -> None:
    (tmp_path / "sys/class/dmi/id").mkdir(parents=True)
    (tmp_path / "sys/class/dmi/id/product_name").write_text("ThinkPad X1\n")
    (tmp_path / "proc").mkdir()
    (tmp_path / "proc/cpuinfo").write_text("model name\t: Intel(R) Core(TM) i7\nmodel name\t: x\n")

    facts = collect_facts(tmp_path)

    assert facts["hardware_model"] == "ThinkPad X1"
    assert facts["cpu_model"] == "Intel(R) Core(TM) i7"


def test_facts_have_every_key_with_nulls_when_files_are_missing(tmp_path: Path) -> None:
    facts = collect_facts(tmp_path)

    assert set(facts) == FACT_KEYS
    assert facts["hardware_model"] is None
    assert facts["ram_bytes"] is None
    assert facts["os"] is None
    assert facts["cpu_model"] == (platform.machine() or None)


def test_facts_report_installed_library_versions_when_collected() -> None:
    from importlib import metadata

    libraries = collect_facts()["libraries"]

    from cryptography.hazmat.backends.openssl import backend

    command = subprocess.run(["/usr/bin/openssl", "version"], capture_output=True, text=True)
    assert libraries == {
        "paho-mqtt": metadata.version("paho-mqtt"),
        "pycryptodome": metadata.version("pycryptodome"),
        "cryptography": metadata.version("cryptography"),
        "openssl": backend.openssl_version_text(),
        # the EVP extension's libcrypto: the system's, the one the openssl command runs on
        "openssl-evp": command.stdout.strip().split("(Library: ")[-1].rstrip(")"),
        "openssl-cli": command.stdout.strip(),
    }


def test_facts_command_prints_json_when_run() -> None:
    out = subprocess.run(
        [sys.executable, "-m", "iotsecbench_agent", "facts"],
        check=True,
        capture_output=True,
        text=True,
        timeout=30,
    ).stdout

    assert set(json.loads(out)) == FACT_KEYS


def test_facts_say_which_network_emulation_backend_works_here_and_why_not(
    tmp_path: Path,
) -> None:
    emulation = collect_facts(tmp_path)["network_emulation"]

    assert set(emulation) == {"netem", "userspace"}
    userspace = emulation["userspace"]
    assert userspace["available"] == (os.geteuid() == 0 and os.path.exists("/dev/net/tun"))
    assert userspace["reason"]
    # This project's CI kernels have no sch_netem: the reason says what failed.
    assert isinstance(emulation["netem"]["available"], bool)
    assert emulation["netem"]["reason"]
