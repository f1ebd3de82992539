"""The public side of sharing: /api/public/shares/<token>/… answers without login, shows
exactly what was shared, and answers 404 once a link is revoked or has expired."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

import pytest
from django.utils import timezone

from core.testing.factories import ExperimentFactory
from experiments.models import Experiment
from results.tests.conftest import messaging_spec
from sharing.models import Share
from sharing.public import alias
from sharing.selectors import SHARE_NOT_FOUND_MESSAGE


def _numbers(value: Any) -> list[float]:
    """Every number in a JSON answer, however deep."""
    if isinstance(value, dict):
        return [n for item in value.values() for n in _numbers(item)]
    if isinstance(value, list):
        return [n for item in value for n in _numbers(item)]
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        return [value]
    return []


MS = 1_000_000
PI_A = [4 * MS, 10 * MS, None, 1 * MS, 3 * MS, 2 * MS]
PI_B = [30 * MS, 20 * MS]


def _share(owner_client: Any, **body: Any) -> tuple[Share, str]:
    response = owner_client.post("/api/shares/", body, format="json")
    assert response.status_code == 201, response.content
    share = Share.objects.get(pk=response.json()["id"])
    return share, f"/api/public/shares/{share.token}"


def _everything(client: Any, base: str, run_aliases: list[str]) -> str:
    """Every public answer of a share, as text (what a visitor can read)."""
    bodies = [client.get(f"{base}/")]
    for run_alias in run_aliases:
        for path in (
            "statistics/",
            "distribution/",
            "distribution/?range=whiskers",
            "methods/",
            "sizes/",
        ):
            bodies.append(client.get(f"{base}/runs/{run_alias}/{path}"))
    if len(run_aliases) >= 2:
        bodies.append(client.get(f"{base}/compare/?" + "&".join(f"run={a}" for a in run_aliases)))
    for body in bodies:
        assert body.status_code == 200, (body.request["PATH_INFO"], body.content)
    return "\n".join(b.content.decode() for b in bodies)


@pytest.mark.django_db
def test_a_shared_run_answers_without_login_with_the_owners_figures(
    make_run, owner_client, anonymous_client
):
    made = make_run({"pi-a": PI_A, "pi-b": PI_B})
    share, base = _share(owner_client, kind="run", run=str(made.run.pk), title="RTT on LAN")

    content = anonymous_client.get(f"{base}/")

    assert content.status_code == 200
    body = content.json()
    assert (body["kind"], body["title"], body["experiment"]) == ("run", "RTT on LAN", None)
    (run,) = body["runs"]
    run_alias = str(alias(share, made.run.pk))
    assert run["id"] == run_alias != str(made.run.pk)
    assert [d["name"] for d in run["devices"]] == ["pi-a", "pi-b"]
    # The same figures as the signed-in run page, under the share's ids.
    public = anonymous_client.get(f"{base}/runs/{run_alias}/statistics/").json()
    private = owner_client.get(f"/api/runs/{made.run.pk}/statistics/").json()
    assert public["run_id"] == run_alias
    assert public["all_devices"]["mean_ms"] == private["all_devices"]["mean_ms"] == 10.0
    assert [d["n"] for d in public["devices"]] == [5, 2]
    distribution = anonymous_client.get(f"{base}/runs/{run_alias}/distribution/?bins=10").json()
    assert len(distribution["edges_ms"]) == 11
    assert sum(distribution["devices"][0]["counts"]) == 5
    methods = anonymous_client.get(f"{base}/runs/{run_alias}/methods/").json()["text"]
    assert f"run {run_alias}" in methods
    assert str(made.run.pk) not in methods
    sizes = anonymous_client.get(f"{base}/runs/{run_alias}/sizes/").json()
    private_sizes = owner_client.get(f"/api/runs/{made.run.pk}/sizes/").json()
    assert sizes["run_id"] == run_alias
    assert sizes["components"] == private_sizes["components"]
    assert Share.objects.get().views == 1  # the page itself counts, not each of its parts


@pytest.mark.django_db
def test_public_answers_are_neither_cached_nor_indexed(make_run, owner_client, anonymous_client):
    made = make_run({"pi-a": PI_A})
    _, base = _share(owner_client, kind="run", run=str(made.run.pk))
    response = anonymous_client.get(f"{base}/")
    assert response["Cache-Control"] == "no-store"
    assert response["X-Robots-Tag"] == "noindex, nofollow"


def _assert_not_found(client: Any, base: str, run_alias: object) -> None:
    for path in ("/", f"/runs/{run_alias}/statistics/", f"/runs/{run_alias}/distribution/"):
        response = client.get(base + path)
        assert response.status_code == 404, path
        assert response.json() == {
            "message": SHARE_NOT_FOUND_MESSAGE,
            "code": "share_not_found",
            "extra": {},
        }


@pytest.mark.django_db
def test_a_revoked_link_answers_404_like_a_link_that_never_existed(
    make_run, owner_client, anonymous_client
):
    made = make_run({"pi-a": PI_A})
    share, base = _share(owner_client, kind="run", run=str(made.run.pk))
    run_alias = alias(share, made.run.pk)
    assert anonymous_client.get(f"{base}/").status_code == 200

    owner_client.post(f"/api/shares/{share.pk}/revoke/")

    _assert_not_found(anonymous_client, base, run_alias)
    _assert_not_found(anonymous_client, "/api/public/shares/" + "x" * 43, run_alias)
    # Changing the expiry does not bring a revoked link back.
    later = (timezone.now() + timedelta(days=1)).isoformat()
    owner_client.patch(f"/api/shares/{share.pk}/", {"expires_at": later}, format="json")
    _assert_not_found(anonymous_client, base, run_alias)


@pytest.mark.django_db
def test_an_expired_link_answers_404(make_run, owner_client, anonymous_client):
    made = make_run({"pi-a": PI_A})
    soon = (timezone.now() + timedelta(hours=1)).isoformat()
    share, base = _share(owner_client, kind="run", run=str(made.run.pk), expires_at=soon)
    assert anonymous_client.get(f"{base}/").json()["expires_at"] is not None

    Share.objects.filter(pk=share.pk).update(expires_at=timezone.now() - timedelta(seconds=1))

    _assert_not_found(anonymous_client, base, alias(share, made.run.pk))


@pytest.mark.django_db
def test_a_shared_run_leaks_no_other_data(make_run, personas, owner_client, anonymous_client):
    spec = messaging_spec()
    shared = make_run({"pi-a": PI_A, "pi-b": PI_B}, spec=spec, name="Shared experiment")
    # A repeat of the same spec in the same experiment, not shared: its figures stay out.
    repeat = make_run({"pi-a": [500 * MS, 700 * MS]}, spec=spec, experiment=shared.run.experiment)
    other = make_run({"pi-c": [8 * MS]}, name="Unshared experiment")
    theirs = make_run({"pi-x": [9 * MS]}, workspace=personas.outsider_workspace, name="Theirs")
    share, base = _share(owner_client, kind="run", run=str(shared.run.pk))
    run_alias = str(alias(share, shared.run.pk))

    text = _everything(anonymous_client, base, [run_alias])

    real_ids = {
        personas.workspace.pk,
        personas.outsider_workspace.pk,
        share.pk,
        share.alias_key,
        *(made.run.pk for made in (shared, repeat, other, theirs)),
        *(made.run.experiment_id for made in (shared, repeat, other, theirs)),
        *(part.device_id for made in (shared, repeat, other, theirs) for part in made.parts),
        *(part.job_id for made in (shared, repeat, other, theirs) for part in made.parts),
    }
    for real in real_ids:
        assert str(real) not in text, real
    for secret in (
        share.token,
        "owner",
        "Unshared experiment",
        "Theirs",
        "pi-c",
        "pi-x",
        "127.0.0.1",
        "broker_url",
        "hostname",
    ):
        assert secret not in text, secret
    statistics = anonymous_client.get(f"{base}/runs/{run_alias}/statistics/").json()
    assert statistics["repeats"]["n"] == 1
    assert [r["run_id"] for r in statistics["repeats"]["runs"]] == [run_alias]
    # The unshared repeat's mean (600 ms) is no figure of the answer. (Numbers, not text:
    # "600" can stand inside a random alias.)
    assert 600 not in _numbers(statistics)
    # Neither the real id nor the alias an unshared run would have leads anywhere.
    for other_id in (shared.run.pk, alias(share, repeat.run.pk), alias(share, other.run.pk)):
        response = anonymous_client.get(f"{base}/runs/{other_id}/statistics/")
        assert response.status_code == 404
    compare = anonymous_client.get(
        f"{base}/compare/?run={run_alias}&run={alias(share, repeat.run.pk)}"
    )
    assert compare.status_code == 404


@pytest.mark.django_db
def test_a_shared_comparison_compares_its_runs_and_nothing_else(
    make_run, owner_client, anonymous_client
):
    baseline = make_run({"pi-a": PI_A}, spec=messaging_spec(security="none"))
    secured = make_run({"pi-a": [12 * MS, 14 * MS]}, spec=messaging_spec(security="aes-128-cbc"))
    unshared = make_run({"pi-a": [5 * MS]})
    share, base = _share(
        owner_client, kind="comparison", runs=[str(baseline.run.pk), str(secured.run.pk)]
    )
    aliases = [str(alias(share, baseline.run.pk)), str(alias(share, secured.run.pk))]

    content = anonymous_client.get(f"{base}/").json()
    assert [r["id"] for r in content["runs"]] == aliases
    text = _everything(anonymous_client, base, aliases)
    assert str(unshared.run.pk) not in text
    assert str(baseline.run.pk) not in text
    compared = anonymous_client.get(f"{base}/compare/?run={aliases[0]}&run={aliases[1]}").json()
    assert [r["run_id"] for r in compared["runs"]] == aliases
    (pair,) = compared["pairs"]
    assert (pair["baseline_run_id"], pair["treatment_run_id"]) == (aliases[0], aliases[1])
    assert pair["overhead_ms"] == pytest.approx(13.0 - 4.0)
    outsider_alias = alias(share, unshared.run.pk)
    assert (
        anonymous_client.get(f"{base}/compare/?run={aliases[0]}&run={outsider_alias}").status_code
        == 404
    )


@pytest.mark.django_db
def test_a_shared_experiment_shows_its_design_and_every_run(
    make_run, personas, owner_client, anonymous_client
):
    experiment: Experiment = ExperimentFactory.create(workspace=personas.workspace, name="QoS 1")
    first = make_run({"pi-a": PI_A}, experiment=experiment)
    share, base = _share(owner_client, kind="experiment", experiment=str(experiment.pk))
    second = make_run({"pi-a": PI_B}, experiment=experiment)  # runs added later are shown too

    body = anonymous_client.get(f"{base}/").json()

    assert body["experiment"]["name"] == "QoS 1"
    assert body["experiment"]["id"] == str(alias(share, experiment.pk))
    assert [r["id"] for r in body["runs"]] == [
        str(alias(share, first.run.pk)),
        str(alias(share, second.run.pk)),
    ]
    assert {r["id"] for r in body["experiment"]["runs"]} == {r["id"] for r in body["runs"]}
    second_alias = body["runs"][1]["id"]
    statistics = anonymous_client.get(f"{base}/runs/{second_alias}/statistics/").json()
    assert statistics["all_devices"]["mean_ms"] == 25.0


@pytest.mark.django_db
def test_the_catalogue_answers_without_login_for_a_shared_pages_labels(anonymous_client):
    response = anonymous_client.get("/api/catalogue/")
    assert response.status_code == 200
    labels = {m["name"]: m["label"] for m in response.json()["mechanisms"]}
    assert labels["aes-128-cbc"] == "AES-128-CBC"


@pytest.mark.django_db
def test_a_shared_cipher_benchmark_shows_its_summary_and_methods_but_no_round_trips(
    make_bench_run, owner_client, anonymous_client
):
    made = make_bench_run(
        {
            "pi-a": [
                ("aes-128-cbc", "encrypt", 16, 1000, 500, 5000, None),
                ("aes-128-cbc", "encrypt", 16, 3000, 700, 5200, None),
            ]
        }
    )
    share, base = _share(owner_client, kind="run", run=str(made.run.pk))
    run_alias = alias(share, made.run.pk)

    (run,) = anonymous_client.get(f"{base}/").json()["runs"]
    assert run["kind"] == "cipher_bench"
    (row,) = run["bench_summary"]
    assert (row["mechanism"], row["n"], row["mean_us"]) == ("aes-128-cbc", 2, 2.0)
    methods = anonymous_client.get(f"{base}/runs/{run_alias}/methods/")
    assert methods.status_code == 200
    assert str(made.run.pk) not in methods.json()["text"]
    statistics = anonymous_client.get(f"{base}/runs/{run_alias}/statistics/")
    assert (statistics.status_code, statistics.json()["code"]) == (400, "run_has_no_round_trips")
    # The error's message names the run: by its alias, as everything public.
    assert str(run_alias) in statistics.json()["message"]
    assert str(made.run.pk) not in statistics.content.decode()
