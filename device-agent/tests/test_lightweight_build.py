"""The portable cipher core stays strict C99 without the interpreter's headers."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

NATIVE = Path(__file__).resolve().parent.parent / "native"
CORE = sorted(NATIVE.glob("lwc_*.c"))


def test_native_core_compiles_as_strict_c99() -> None:
    # gcc is required anyway: the package's install builds the C extension with it.
    gcc = shutil.which("gcc")
    assert gcc is not None, "gcc not on PATH (apt-get install gcc)"
    assert CORE, NATIVE
    flags = ["-std=c99", "-pedantic-errors", "-Wall", "-Wextra", "-Werror", "-O2", "-fsyntax-only"]
    result = subprocess.run(
        [gcc, *flags, f"-I{NATIVE}", *map(str, CORE)],
        capture_output=True,
        text=True,
        check=False,
        timeout=60,
    )
    assert result.returncode == 0, result.stderr


def test_extension_is_built_from_the_native_sources_when_installed() -> None:
    from iotsecbench_agent import _lwc

    assert Path(_lwc.__file__).suffix in {".so", ".pyd"}
    assert _lwc.BlockCipher.__module__ == "iotsecbench_agent._lwc"
