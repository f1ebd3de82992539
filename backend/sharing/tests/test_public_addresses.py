"""A shared page reveals none of the lab's addresses (hosts, ports, paths, credentials of
external brokers, CoAP servers, MQTT-SN gateways, UDP receivers, target devices): it says
that a run used one, with a neutral label; the owner's own API still shows them."""

from __future__ import annotations

import re
from typing import Any

import pytest
from iotsecbench_contract.jobspec import BROKER_EXTERNAL

from core.testing.factories import DeviceFactory, ExperimentFactory
from experiments.models import Experiment, ExperimentKind, Run
from results.tests.conftest import bench_spec, messaging_spec
from sharing.addresses import AddressText
from sharing.public import alias
from sharing.tests.test_public_api import PI_A, _everything, _share

pytestmark = pytest.mark.django_db

BROKER = "mqtts://labadmin:s3cretpw@lab-broker.internal:18883"
COAP = "coap://10.9.8.7:15683/labsecretpath"
GATEWAY = "10.9.8.5:11884"
RECEIVER = "udp://10.9.8.6:19999"
TARGET_HOST = "gw-host.lab.internal"
TARGET_ADDRESS = "10.9.8.4:11885"  # what the target device reported it serves at

# Every piece of those addresses that must not reach a visitor: hosts, users, passwords,
# paths, and ports (as numbers of their own: a port could stand inside a random alias).
SECRETS = (
    "lab-broker.internal",
    "labadmin",
    "s3cretpw",
    "10.9.8.7",
    "labsecretpath",
    "10.9.8.5",
    "10.9.8.6",
    "10.9.8.4",
    TARGET_HOST,
)
PORTS = ("18883", "15683", "11884", "19999", "11885")
LABELS = (
    "external MQTT broker",
    "external CoAP server",
    "external MQTT-SN gateway",
    "UDP receiver",
)


def _assert_no_address(text: str) -> None:
    for secret in SECRETS:
        assert secret not in text, secret
    for port in PORTS:
        assert not re.search(rf"(?<![0-9a-f]){port}(?![0-9a-f])", text), port


def _lab_experiment(personas: Any, make_run: Any) -> tuple[Experiment, dict[str, Run]]:
    """A messaging experiment naming every address a design can (built directly: no single
    valid design names all of them), with a run of each protocol that uses one."""
    experiment: Experiment = ExperimentFactory.create(
        workspace=personas.workspace,
        name="Lab targets",
        description="Runs against lab-broker.internal and the gateway at 10.9.8.5:11884.",
        broker_url=BROKER,
        coap_url=COAP,
        mqttsn_gateway=GATEWAY,
        target_host=TARGET_HOST,
        target_url=RECEIVER,
    )
    specs = {
        "mqtt": messaging_spec(broker_url=BROKER, **{BROKER_EXTERNAL: True}),
        "coap": messaging_spec(protocol="coap", coap_url=COAP, coap_type="con"),
        "mqttsn": messaging_spec(protocol="mqttsn", mqttsn_gateway=GATEWAY, qos=1),
        "target": messaging_spec(protocol="mqttsn", target_host=TARGET_HOST),
    }
    runs = {
        name: make_run({"pi-a": PI_A}, spec=spec, experiment=experiment).run
        for name, spec in specs.items()
    }
    # A run served by a target device, which failed naming the address it served at.
    gateway = DeviceFactory.create(workspace=personas.workspace, name="pi-gw")
    Run.objects.filter(pk=runs["target"].pk).update(
        target={
            "device_id": str(gateway.pk),
            "role": "gateway",
            "address": TARGET_ADDRESS,
            "status": "released",
        },
        error=f"pi-a: the MQTT-SN gateway at {TARGET_ADDRESS} stopped answering (pi-gw).",
    )
    Run.objects.filter(pk=runs["mqtt"].pk).update(
        error="pi-a: could not resolve lab-broker.internal"
    )
    return experiment, runs


def test_a_shared_experiment_shows_neutral_labels_and_no_lab_address(
    make_run, personas, owner_client, anonymous_client
):
    experiment, runs = _lab_experiment(personas, make_run)
    share, base = _share(owner_client, kind="experiment", experiment=str(experiment.pk))
    aliases = [str(alias(share, run.pk)) for run in runs.values()]

    text = _everything(anonymous_client, base, aliases)
    results = anonymous_client.get(f"{base}/results/")
    assert results.status_code == 200
    text += results.content.decode()

    _assert_no_address(text)
    design = anonymous_client.get(f"{base}/").json()["experiment"]
    assert (design["broker_url"], design["coap_url"], design["mqttsn_gateway"]) == (
        "external MQTT broker",
        "external CoAP server",
        "external MQTT-SN gateway",
    )
    assert (design["target_url"], design["target_host"]) == ("UDP receiver", "target device's host")
    assert design["coap_path"] == ""  # empty stays empty: nothing was hidden
    shown = {run["id"]: run for run in anonymous_client.get(f"{base}/").json()["runs"]}
    mqtt = shown[str(alias(share, runs["mqtt"].pk))]
    assert mqtt["spec"]["broker_url"] == "external MQTT broker"
    assert mqtt["error"] == "pi-a: could not resolve external MQTT broker"
    target = shown[str(alias(share, runs["target"].pk))]
    assert (target["target"]["name"], target["target"]["address"]) == ("pi-gw", None)
    assert target["error"] == (
        "pi-a: the MQTT-SN gateway at the target device's address stopped answering (pi-gw)."
    )
    # A run on the platform's own broker shows none, not a label.
    assert "broker_url" not in shown[str(alias(share, runs["coap"].pk))]["spec"]
    for label in LABELS[:3]:
        assert label in text, label


def test_a_shared_runs_methods_paragraph_is_the_owners_with_labels_for_addresses(
    make_run, personas, owner_client, anonymous_client
):
    _, runs = _lab_experiment(personas, make_run)
    owner_words = {
        "mqtt": (
            "the external broker at mqtts://labadmin:***@lab-broker.internal:18883",
            "the external MQTT broker",
        ),
        "coap": (f"the CoAP server at {COAP}", "the external CoAP server"),
        "mqttsn": (f"the MQTT-SN gateway at {GATEWAY}", "the external MQTT-SN gateway"),
    }
    for name, (owners, publics) in owner_words.items():
        run = runs[name]
        share, base = _share(owner_client, kind="run", run=str(run.pk))
        run_alias = str(alias(share, run.pk))
        private = owner_client.get(f"/api/runs/{run.pk}/methods/").json()["text"]
        public = anonymous_client.get(f"{base}/runs/{run_alias}/methods/").json()["text"]

        assert owners in private, (name, private)
        assert public == private.replace(str(run.pk), run_alias).replace(owners, publics)
        _assert_no_address(public)


def test_a_shared_throughput_run_names_its_receiver_udp_receiver(
    make_bench_run, owner_client, anonymous_client
):
    sent = [("none", "send", 16, 2_000_000_000, 1_900_000_000, 40_000, 900)]
    spec = bench_spec(mechanisms=["none"], data_sizes=[16], window_ms=2000, target=RECEIVER)
    made = make_bench_run({"pi-client": sent}, kind=ExperimentKind.THROUGHPUT, spec=spec)
    Experiment.objects.filter(pk=made.run.experiment_id).update(target_url=RECEIVER)
    share, base = _share(owner_client, kind="run", run=str(made.run.pk))
    run_alias = str(alias(share, made.run.pk))

    content = anonymous_client.get(f"{base}/")
    methods = anonymous_client.get(f"{base}/runs/{run_alias}/methods/")

    text = content.content.decode() + methods.content.decode()
    _assert_no_address(text)
    (run,) = content.json()["runs"]
    assert run["spec"]["target"] == "UDP receiver"
    assert "over UDP to the UDP receiver (the design's target_url)" in methods.json()["text"]
    private = owner_client.get(f"/api/runs/{made.run.pk}/methods/").json()["text"]
    assert f"to the receiver at {RECEIVER}" in private


def test_the_owner_still_sees_every_address(make_run, personas, owner_client):
    experiment, runs = _lab_experiment(personas, make_run)
    _share(owner_client, kind="experiment", experiment=str(experiment.pk))

    design = owner_client.get(f"/api/experiments/{experiment.pk}/").json()
    run = owner_client.get(f"/api/runs/{runs['mqtt'].pk}/").json()

    assert (design["broker_url"], design["coap_url"], design["mqttsn_gateway"]) == (
        BROKER,
        COAP,
        GATEWAY,
    )
    assert (design["target_url"], design["target_host"]) == (RECEIVER, TARGET_HOST)
    assert run["spec"]["broker_url"] == BROKER
    assert "lab-broker.internal" in run["error"]


def test_no_public_export_exists_to_leak_addresses(
    make_run, personas, owner_client, anonymous_client
):
    # Downloads are not offered on shared pages (docs/sharing.md): no export path answers.
    _, runs = _lab_experiment(personas, make_run)
    share, base = _share(owner_client, kind="run", run=str(runs["mqtt"].pk))
    run_alias = alias(share, runs["mqtt"].pk)
    for path in (
        f"runs/{run_alias}/export/",
        f"runs/{run_alias}/records.csv",
        f"runs/{run_alias}/summary.parquet",
        "results/table.csv",
    ):
        assert anonymous_client.get(f"{base}/{path}").status_code == 404, path


def test_address_text_replaces_whole_addresses_and_their_hosts_only():
    replace = AddressText([("coap_url", "coap://10.9.8.7:15683/x"), ("topic", "test/d1")])
    assert replace("sent to coap://10.9.8.7:15683/x; 10.9.8.7 timed out") == (
        "sent to external CoAP server; external CoAP server timed out"
    )
    assert replace("110.9.8.71 and test/d1 are no lab addresses") == (
        "110.9.8.71 and test/d1 are no lab addresses"
    )
    local = AddressText([("coap_url", "coap://127.0.0.1:5683/echo")])
    assert local("to coap://127.0.0.1:5683/echo, not the server on 127.0.0.1") == (
        "to external CoAP server, not the server on 127.0.0.1"
    )
