"""The network-profile catalogue's data ships in the contract's wheel: an agent installed
with ``pip install ./contract ./device-agent`` (or the backend image) has every measured
table without the repository's ``fixtures/``."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

from iotsecbench_contract.delaytables import CATALOGUE_DIR, PROFILE_INFO, catalogue_dir

CONTRACT_DIR = Path(__file__).resolve().parents[1]
TIM = "TIM.bad.3G.no_roaming"


def test_the_wheel_holds_every_file_of_the_catalogue_and_finds_them_unpacked(
    tmp_path: Path,
) -> None:
    # pip wheel, as `pip install ./contract` does in both Dockerfiles (build isolation), on
    # a copy: setuptools builds in the source tree and would leave build/ in the repository.
    source = tmp_path / "contract"
    shutil.copytree(
        CONTRACT_DIR,
        source,
        ignore=shutil.ignore_patterns("build", "*.egg-info", "__pycache__", ".*_cache", "tests"),
    )
    wheel_dir = tmp_path / "dist"
    subprocess.run(  # noqa: S603 - this interpreter's pip on a copy of contract/
        [sys.executable, "-m", "pip", "wheel", "--no-deps", "-q", "-w", str(wheel_dir), "."],
        cwd=source,
        check=True,
        capture_output=True,
    )
    (wheel,) = wheel_dir.glob("iotsecbench_contract-*.whl")
    in_wheel = {
        name.rsplit("/", 1)[1]
        for name in zipfile.ZipFile(wheel).namelist()
        if name.startswith(f"iotsecbench_contract/{CATALOGUE_DIR}/")
    }
    in_source = {path.name for path in catalogue_dir().iterdir()}
    assert in_wheel == in_source
    assert {PROFILE_INFO, "srup-conditions.json", "LICENSE", TIM} <= in_wheel

    # Unpacked (what pip installs), with the repository off sys.path (-I): the tables and
    # their µ/σ are found through importlib.resources in the installed copy.
    site = tmp_path / "site"
    zipfile.ZipFile(wheel).extractall(site)
    probe = (
        "import json, sys; sys.path.insert(0, sys.argv[1]);"
        "from iotsecbench_contract.delaytables import catalogue_dir, find_measured;"
        "t = find_measured(sys.argv[2], [catalogue_dir()]);"
        "print(json.dumps([str(catalogue_dir()), len(t.table.values), t.mu_ms, t.sigma_ms]))"
    )
    out = subprocess.run(  # noqa: S603 - this interpreter on a fixed probe
        [sys.executable, "-I", "-c", probe, str(site), TIM],
        check=True,
        capture_output=True,
        text=True,
    ).stdout
    where, values, mu_ms, sigma_ms = json.loads(out)
    assert where == str(site / "iotsecbench_contract" / CATALOGUE_DIR)
    assert values == 4096
    # profile_info.txt's line for the table (the SRUP paper's condition 5).
    assert (mu_ms, sigma_ms) == (122.649579, 40.359329)
