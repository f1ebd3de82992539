"""The papers' designs as presets (fixtures/presets/*.yaml, design files with a ``preset``
block): GET /api/presets/ serves them as the API's experiment input, ready for the form."""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import cache
from typing import Any

from accounts.models import Workspace
from config.env import REPO_DIR
from experiments import design_file

PRESETS_DIR = REPO_DIR / "fixtures" / "presets"


@dataclass(frozen=True)
class Preset:
    slug: str
    title: str
    paper: str
    source_url: str
    tables: str
    devices: int
    notes: list[str]
    document: dict[str, Any] = field(repr=False)


@cache
def presets() -> tuple[Preset, ...]:
    """Every preset file, checked against the design schema (a broken file is a bug: it
    raises, and a test loads them all)."""
    found = []
    for path in sorted(PRESETS_DIR.glob("*.yaml")):
        document = design_file.load(path.read_text())
        meta = document["preset"]
        found.append(
            Preset(
                slug=meta["slug"],
                title=meta["title"],
                paper=" ".join(meta["paper"].split()),
                source_url=meta.get("source_url", ""),
                tables=meta.get("tables", ""),
                devices=int(meta.get("devices", 1)),
                notes=[" ".join(n.split()) for n in meta.get("notes", [])],
                document=document,
            )
        )
    return tuple(found)


def preset_design(preset: Preset, *, workspace: Workspace) -> dict[str, Any]:
    """The preset as the API's experiment input (profiles as ids), without devices."""
    design = design_file.to_input(preset.document, workspace=workspace, require_devices=False)
    design.pop("device_ids", None)
    return design
