"""The agent's choice of network-profile backend (``run --network-backend`` /
IOTSECBENCH_NETEM_BACKEND): validated at start, and a forced backend that cannot work
here fails the run with the reason instead of falling back."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from Crypto.PublicKey.ECC import EccKey

from iotsecbench_agent.cli import main as cli
from iotsecbench_agent.errors import ConfigError
from iotsecbench_agent.netemu.link import capability
from iotsecbench_agent.runtime.config import network_backend, save_state
from iotsecbench_agent.storage.recordlog import RunFiles, read_records
from netemu_run_kit import Harness
from testkit import FakePlatform, make_state


@pytest.mark.parametrize("value", ["auto", "netem", "userspace"])
def test_network_backend_setting_is_accepted_when_known(value: str) -> None:
    assert network_backend(value) == value


def test_network_backend_setting_defaults_to_auto() -> None:
    assert network_backend(None) == "auto"


def test_agent_run_exits_1_naming_the_choices_when_backend_is_unknown(
    tmp_path: Path, key: EccKey, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    save_state(tmp_path, make_state(key=key))
    monkeypatch.setattr(cli, "environ", lambda: {"IOTSECBENCH_NETEM_BACKEND": "tc"})

    assert cli.main(["run", "--state-dir", str(tmp_path)]) == 1

    assert capsys.readouterr().err == (
        "error: network backend 'tc' is not one of auto, netem, userspace "
        "(--network-backend or IOTSECBENCH_NETEM_BACKEND)\n"
    )


def test_network_backend_error_is_a_config_error() -> None:
    with pytest.raises(ConfigError, match="'kernel' is not one of"):
        network_backend("kernel")


@pytest.mark.skipif(os.geteuid() != 0, reason="the netem probe needs root")
def test_forced_netem_fails_the_run_with_the_reason_where_netem_does_not_work(
    platform: FakePlatform, tmp_path: Path, key: EccKey
) -> None:
    netem = capability()["netem"]
    if netem.available:
        pytest.skip("this kernel has netem: the forced backend would work")
    harness = Harness(platform, tmp_path, key, network_backend="netem")
    job = harness.job(network_profile={"name": "LAN", "spec": {}})

    harness.executor.execute(job)

    (message,) = harness.failures()
    assert message.startswith(
        "network profile 'LAN' cannot be enforced: the netem backend was asked for but "
        "cannot work here: no netem qdisc (sch_netem): "
    )
    assert message.endswith("; nothing was sent")
    assert harness.events("network_enforced") == []
    assert read_records(RunFiles.of(tmp_path, job.run_id).csv) == []


def test_run_takes_the_backend_from_its_flag() -> None:
    args = cli.build_parser().parse_args(["run", "--network-backend", "userspace"])
    assert args.network_backend == "userspace"
    assert cli.build_parser().parse_args(["run"]).network_backend is None
