"""The fake ``tc`` (fake_tc.py) put first on PATH for a test, and what it saw."""

from __future__ import annotations

import json
import os
import shutil
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

FAKE_TC = Path(__file__).resolve().parent / "fake_tc.py"


@dataclass
class FakeTc:
    state: Path

    def calls(self) -> list[dict[str, Any]]:
        """Every command that reached "tc": ``{"argv": [...], "TC_LIB_DIR": str|None}``."""
        log = self.state / "log.jsonl"
        if not log.exists():
            return []
        return [json.loads(line) for line in log.read_text().splitlines()]

    def commands(self) -> list[str]:
        """The commands as text (``-n <netns>`` and all), TC_LIB_DIR first when set."""
        out = []
        for call in self.calls():
            prefix = "TC_LIB_DIR=* " if call["TC_LIB_DIR"] else ""
            out.append(prefix + "tc " + " ".join(call["argv"]))
        return out

    def installed(self) -> dict[str, Any]:
        """``"<netns>|<dev>" -> {"handle", "options", "table"}`` of the netem qdiscs."""
        path = self.state / "state.json"
        return json.loads(path.read_text()) if path.exists() else {}


def install_fake_tc(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> FakeTc:
    """A ``tc`` wrapper running fake_tc.py first on PATH (children inherit it)."""
    real = shutil.which("tc") or "/usr/sbin/tc"
    bin_dir = tmp_path / "fake-bin"
    state = tmp_path / "fake-tc"
    bin_dir.mkdir()
    state.mkdir()
    wrapper = bin_dir / "tc"
    wrapper.write_text(f'#!/bin/sh\nexec "{sys.executable}" "{FAKE_TC}" "$@"\n')
    wrapper.chmod(0o755)
    monkeypatch.setenv("PATH", f"{bin_dir}{os.pathsep}{os.environ.get('PATH', '')}")
    monkeypatch.setenv("FAKE_TC_STATE", str(state))
    monkeypatch.setenv("FAKE_TC_REAL", real)
    return FakeTc(state)
