"""The papers' presets say what is as in the paper and what differs, and why."""

from __future__ import annotations

import pytest

from experiments.presets import presets

PREFIXES = ("As in the paper:", "Differs here:", "Before you run it:")


@pytest.mark.parametrize("preset", presets(), ids=lambda p: p.slug)
def test_every_note_says_whether_it_is_as_in_the_paper_or_differs_and_why(preset):
    assert preset.notes
    assert any(note.startswith("As in the paper:") for note in preset.notes)
    for note in preset.notes:
        assert note.startswith(PREFIXES), note
        if note.startswith("Differs here:"):
            assert "because" in note, note


def test_openssl_preset_states_the_volume_its_own_parameters_move():
    (preset,) = [p for p in presets() if p.slug == "openssl-pi-paper"]
    parameters = preset.document["parameters"]
    directions = 2  # encrypt and decrypt, sign and verify
    total = (
        len(parameters["mechanisms"])
        * sum(parameters["data_sizes"])
        * parameters["repetitions"]
        * directions
    )
    assert f"{total / 2**30:,.0f} GiB ({total / 1e12:.2f} TB)" in " ".join(preset.notes)
