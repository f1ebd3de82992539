"""The papers' presets say what is as in the paper and what differs, and why."""

from __future__ import annotations

import pytest

from experiments.presets import presets

PREFIXES = ("As in the paper:", "As in the paper (", "Differs here:", "Before you run it:")


@pytest.mark.parametrize("preset", presets(), ids=lambda p: p.slug)
def test_every_note_says_whether_it_is_as_in_the_paper_or_differs_and_why(preset):
    assert preset.notes
    assert any(note.startswith("As in the paper") for note in preset.notes)
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


@pytest.mark.parametrize("preset", presets(), ids=lambda p: p.slug)
def test_every_preset_note_has_both_sections_as_in_the_paper_and_differs_here_because(preset):
    assert preset.as_in_paper
    assert preset.differs_here
    assert all("because" in note for note in preset.differs_here)
    assert set(preset.as_in_paper).isdisjoint(preset.differs_here)


def _notes(slug: str) -> str:
    (preset,) = [p for p in presets() if p.slug == slug]
    return " ".join(preset.notes)


def test_srup_preset_describes_test_d1_on_an_external_broker_and_names_its_gap_choice():
    notes = _notes("srup-paper")
    assert "topic test/d1 and broker_url naming an external broker" in notes
    assert "payload_size 1" in notes
    assert "80 bytes on the wire, against 430 bytes for the SRUP message" in notes
    assert "are the product's choice, because the paper gives none" in notes


def test_mqttsn_preset_states_the_gateway_topology_klein_wording_and_open_present_key():
    notes = _notes("mqtt-sn-paper")
    assert "client device → gateway → broker" in notes
    assert "mqttsn_gateway" in notes
    assert 'target_url to "udp://<gateway Pi>:<port>"' in notes
    assert "KLEIN-64 as the variant recommended for hashing and message authentication" in notes
    assert "its recommended variant" not in notes
    assert "PRESENT takes 80 or 128-bit keys" in notes
    assert "the paper says which it used for neither" in notes
    assert "sends messages to itself" in notes or "to itself" in notes


def test_openssl_preset_uses_the_openssl_command_and_the_papers_own_figures():
    (preset,) = [p for p in presets() if p.slug == "openssl-pi-paper"]
    notes = " ".join(preset.notes)
    assert preset.document["parameters"]["crypto_library"] == "openssl-cli"
    assert "1.89 TB" in notes
    assert "3.5 TB" not in notes
    assert " dd" not in notes
    # The paper's Table 2 (Raspberry Pi 3), 3DES-CBC: 100 MB and 1 GB, encrypt and decrypt,
    # 100 repetitions each: (16.37 + 17.84 + 216.02 + 220.46) s x 100 = 13.1 hours.
    assert round((16.37 + 17.84 + 216.02 + 220.46) * 100 / 3600) == 13
    assert "3DES alone takes about 13 hours" in notes


def test_mqtt_coap_preset_measures_acknowledgements_and_notes_the_wan_path_and_modes():
    (preset,) = [p for p in presets() if p.slug == "mqtt-coap-paper"]
    notes = " ".join(preset.notes)
    assert preset.document["parameters"]["measurement"] == "ack"
    assert "about 118 ms" in notes
    assert "127 ms" in notes
    assert "which is assumed, because the paper does not say" in notes
