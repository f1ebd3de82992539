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
# How each note of a preset begins: what is as in the paper, and what differs here and
# why (a "Differs here" note says "because"); practical advice is neither.
AS_IN_PAPER = "As in the paper"
DIFFERS_HERE = "Differs here:"
BEFORE_YOU_RUN = "Before you run it:"


@dataclass(frozen=True)
class Preset:
    slug: str
    title: str
    paper: str
    source_url: str
    tables: str
    devices: int
    cells: int  # how many cells the design expands to, as the preset states it
    notes: list[str]
    as_in_paper: list[str]
    differs_here: list[str]
    document: dict[str, Any] = field(repr=False)


@cache
def presets() -> tuple[Preset, ...]:
    """Every preset file, checked against the design schema (a broken file is a bug: it
    raises, and a test loads them all)."""
    found = []
    for path in sorted(PRESETS_DIR.glob("*.yaml")):
        document = design_file.load(path.read_text())
        meta = document["preset"]
        notes = [" ".join(n.split()) for n in meta.get("notes", [])]
        found.append(
            Preset(
                slug=meta["slug"],
                title=meta["title"],
                paper=" ".join(meta["paper"].split()),
                source_url=meta.get("source_url", ""),
                tables=meta.get("tables", ""),
                devices=int(meta.get("devices", 1)),
                cells=int(meta.get("cells", 1)),
                notes=notes,
                as_in_paper=[n for n in notes if n.startswith(AS_IN_PAPER)],
                differs_here=[n for n in notes if n.startswith(DIFFERS_HERE)],
                document=document,
            )
        )
    return tuple(found)


def preset_design(preset: Preset, *, workspace: Workspace) -> dict[str, Any]:
    """The preset as the API's experiment input (profiles as ids), without devices."""
    design = design_file.to_input(preset.document, workspace=workspace, require_devices=False)
    design.pop("device_ids", None)
    return design
