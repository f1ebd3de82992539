"""The Pi path stays tested (#16): deploy/agent.Dockerfile builds for linux/arm64 and
linux/arm/v7 and the agent's `iotsecbench-agent selftest` passes in both.

The images run under qemu-user-static's binfmt handlers (`make test-deploy` installs and enables
them), on a python stand-in of the same architecture (e2e_deploy/standins.py). Each image
keeps one tag, iotsecbench/agent:<arch>; the image a rebuild replaces is removed, so runs do not
pile images up while podman's layer cache keeps warm runs fast. Build and selftest times per
architecture are printed at the end with the other test-deploy timings.
"""

from __future__ import annotations

import re
import subprocess
import time

import pytest

from e2e_deploy.conftest import TIMINGS
from e2e_deploy.stack import REPO_DIR, run
from e2e_deploy.standins import ARCHES, Arch, python_standin

# Cold, armv7 alone takes about 10 min (a Debian root, then pycryptodome and cffi built from
# source, as PyPI has no armv7l wheel of them), all emulated; the default 120 s is for unit tests.
pytestmark = pytest.mark.timeout(2400)

# Emulated, armv7's image build (pip compiling pycryptodome and cffi) took about 6 min here on
# 2 shared cores; the limit leaves room for a busier machine.
BUILD_TIMEOUT_S = 1800
SELFTEST_TIMEOUT_S = 600


def image_id(tag: str) -> str | None:
    result = subprocess.run(
        ["podman", "image", "inspect", "--format", "{{.Id}}", tag],
        capture_output=True,
        text=True,
        check=False,
    )
    return result.stdout.strip() if result.returncode == 0 else None


def agent_image(arch: Arch) -> str:
    """Build deploy/agent.Dockerfile for `arch` on its python stand-in; answer the tag."""
    started = time.monotonic()
    python = python_standin(arch, TIMINGS)
    TIMINGS.append(f"{arch.name}: python stand-in ready in {time.monotonic() - started:.0f} s")
    tag = f"localhost/iotsecbench/agent:{arch.name}"
    before = image_id(tag)
    started = time.monotonic()
    run(
        [
            "podman",
            "build",
            "--platform",
            arch.platform,
            # pip and apt inside the build reach the registries only this way here
            "--network=host",
            f"--build-arg=PYTHON_IMAGE={python}",
            "-f",
            "deploy/agent.Dockerfile",
            "-t",
            tag,
            str(REPO_DIR),
        ],
        timeout=BUILD_TIMEOUT_S,
    )
    TIMINGS.append(f"{arch.name}: image {tag} built in {time.monotonic() - started:.0f} s")
    after = image_id(tag)
    if before and before != after:
        # The image the tag named before; a container still using it keeps it (rmi fails).
        subprocess.run(["podman", "rmi", before], capture_output=True, check=False)
    return tag


def agent_run(arch: Arch, tag: str, entrypoint: str, *args: str) -> str:
    # The image's ENTRYPOINT enrolls and runs the agent; these runs call a command directly.
    return run(
        [
            "podman",
            "run",
            "--rm",
            "--platform",
            arch.platform,
            "--network=none",
            f"--entrypoint={entrypoint}",
            tag,
            *args,
        ],
        timeout=SELFTEST_TIMEOUT_S,
    )


@pytest.mark.parametrize("arch", ARCHES, ids=[a.name for a in ARCHES])
def test_agent_image_passes_selftest_when_built_for(arch: Arch) -> None:
    # A failure, not a skip: `make test-deploy` enables the handlers, so CI always has them.
    assert arch.emulated(), f"binfmt handler {arch.binfmt} not enabled: run `make qemu`"
    tag = agent_image(arch)

    assert agent_run(arch, tag, "uname", "-m").strip() == arch.uname

    started = time.monotonic()
    out = agent_run(arch, tag, "iotsecbench-agent", "selftest")
    TIMINGS.append(f"{arch.name}: selftest in {time.monotonic() - started:.0f} s")
    last = out.strip().splitlines()[-1]
    TIMINGS.append(f"{arch.name}: {last}")
    # "selftest: 90 passed, 0 failed, 0 skipped"; a skip would be a mechanism (e.g. the C
    # extension) missing from the image, so none is allowed either.
    summary = re.fullmatch(r"selftest: (\d+) passed, (\d+) failed, (\d+) skipped", last)
    assert summary, out[-2000:]
    passed, failed, skipped = (int(n) for n in summary.groups())
    assert passed > 0, out[-2000:]
    assert failed == 0, out[-2000:]
    assert skipped == 0, out[-2000:]
