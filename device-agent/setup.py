"""Builds the native cipher extension; all other metadata lives in pyproject.toml."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import sysconfig

from setuptools import Extension, setup

NATIVE = "native"
SOURCES = [
    f"{NATIVE}/_lwcmodule.c",
    f"{NATIVE}/lwc_ascon.c",
    f"{NATIVE}/lwc_klein.c",
    f"{NATIVE}/lwc_lblock.c",
    f"{NATIVE}/lwc_present.c",
    f"{NATIVE}/lwc_registry.c",
    f"{NATIVE}/lwc_tea.c",
]
HEADERS = [f"{NATIVE}/lwc.h", f"{NATIVE}/lwc_util.h"]

# gcc/clang (Debian, Raspberry Pi OS armhf/arm64): plain -O2, no -march, no intrinsics.
# The last -O on the command line wins over the interpreter's own CFLAGS.
COMPILE_ARGS = [] if sys.platform == "win32" else ["-O2"]


def libcrypto() -> tuple[list[str], list[str]] | None:
    """(include dirs, library dirs) of OpenSSL's libcrypto headers, or None where there are
    none (no libssl-dev / openssl-devel): pkg-config first, then the compiler's usual places."""
    pkg_config = shutil.which("pkg-config")
    if pkg_config:
        try:
            cflags = subprocess.run(  # noqa: S603 (a fixed pkg-config query)
                [pkg_config, "--cflags-only-I", "--libs-only-L", "libcrypto"],
                capture_output=True,
                text=True,
                check=True,
            ).stdout.split()
        except subprocess.CalledProcessError:
            cflags = None
        if cflags is not None:
            return [f[2:] for f in cflags if f.startswith("-I")], [
                f[2:] for f in cflags if f.startswith("-L")
            ]
    places = [sysconfig.get_config_var("INCLUDEDIR") or "", "/usr/include", "/usr/local/include"]
    if any(os.path.exists(os.path.join(p, "openssl", "evp.h")) for p in places if p):
        return [], []
    return None


ext_modules = [
    Extension(
        "iotsecbench_agent._lwc",
        sources=SOURCES,
        depends=HEADERS,
        include_dirs=[NATIVE],
        extra_compile_args=COMPILE_ARGS,
    )
]
# The EVP extension: the openssl crypto library's CBC in one native call per frame
# (native/_evpmodule.c). Optional: without libcrypto's headers the agent builds without it
# and that library's CBC runs through the cryptography binding alone (slower at small
# blocks, the same bytes); `iotsecbench-agent selftest` and the cipher bench name which.
found = libcrypto()
if found is None:
    print(
        "iotsecbench-agent: OpenSSL headers not found (apt install libssl-dev), building "
        "without the EVP extension",
        file=sys.stderr,
    )
else:
    include_dirs, library_dirs = found
    ext_modules.append(
        Extension(
            "iotsecbench_agent._evp",
            sources=[f"{NATIVE}/_evpmodule.c"],
            include_dirs=include_dirs,
            library_dirs=library_dirs,
            libraries=["crypto"],
            extra_compile_args=COMPILE_ARGS,
        )
    )

setup(ext_modules=ext_modules)
