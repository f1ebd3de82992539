"""The list of address fields (sharing.addresses) covers every field of a design and a run
that looks like an address: a field added later fails here until it is classified, shown
with a label on shared pages or shown as it is for a stated reason."""

from __future__ import annotations

import re

from experiments.apis.experiments import ExperimentInputSerializer, ExperimentOutputSerializer
from experiments.apis.runs import RunTargetSerializer
from experiments.matrix import ADDRESS_PARAMETERS
from sharing.addresses import ADDRESS_FIELDS, NOT_ADDRESSES

# What an address field's name looks like: a URL, a host, a gateway, an address, a target.
ADDRESS_LIKE = re.compile(r"(_url|_host|gateway|address|_ip|_port|_path)$|^target")


def _looks_like_an_address(field: str) -> bool:
    return bool(ADDRESS_LIKE.search(field))


def test_every_address_like_field_of_a_design_or_run_is_classified():
    fields = {
        *ExperimentOutputSerializer().fields,
        *ExperimentInputSerializer().fields,
        *RunTargetSerializer().fields,
        *ADDRESS_PARAMETERS,
    }
    address_like = {f for f in fields if _looks_like_an_address(f)}

    unclassified = address_like - set(ADDRESS_FIELDS) - set(NOT_ADDRESSES)

    assert not unclassified, (
        f"{sorted(unclassified)}: add each to sharing.addresses.ADDRESS_FIELDS (with the label "
        "a shared page shows) or to NOT_ADDRESSES (with why it may be shown)"
    )
    # The fields the brief names are among them, labelled.
    for field in ("broker_url", "coap_url", "mqttsn_gateway", "target_url", "target_host"):
        assert field in address_like
        assert ADDRESS_FIELDS[field]


def test_no_field_is_both_an_address_and_not_one():
    assert not set(ADDRESS_FIELDS) & set(NOT_ADDRESSES)


def test_the_pattern_recognises_a_field_added_later():
    for later in ("relay_url", "sink_host", "mqttsn_backup_gateway", "target_port"):
        assert _looks_like_an_address(later)
        assert later not in ADDRESS_FIELDS
        assert later not in NOT_ADDRESSES
