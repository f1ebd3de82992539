"""Builds the native cipher extension; all other metadata lives in pyproject.toml."""

from __future__ import annotations

import sys

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

setup(
    ext_modules=[
        Extension(
            "iotsecbench_agent._lwc",
            sources=SOURCES,
            depends=HEADERS,
            include_dirs=[NATIVE],
            extra_compile_args=COMPILE_ARGS,
        )
    ]
)
