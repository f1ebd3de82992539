"""Repeated wrong passwords lock the account and the address (accounts/login_throttle.py)."""

from __future__ import annotations

import time
from typing import Any

import pytest
import time_machine
from django.test import Client, override_settings
from rest_framework.test import APIClient

from accounts.apis import INVALID_CREDENTIALS_MESSAGE
from accounts.login_throttle import (
    ACCOUNT_FAILURES_MAX,
    ADDRESS_FAILURES_MAX,
    LOCKOUT_SECONDS,
    THROTTLED_MESSAGE,
)

RIGHT = "correct horse battery"
ATTACKER = "203.0.113.7"


def _login(username: str, password: str, address: str) -> Any:  # DRF test response
    return APIClient().post(
        "/api/auth/login/",
        {"username": username, "password": password},
        format="json",
        REMOTE_ADDR=address,
    )


@pytest.mark.django_db
def test_wrong_passwords_lock_the_account_with_retry_after_until_the_lockout_ends(personas):
    with time_machine.travel(time.time(), tick=False) as clock:
        answers = [_login("owner", f"guess {i}", ATTACKER) for i in range(30)]

        early, late = answers[:ACCOUNT_FAILURES_MAX], answers[ACCOUNT_FAILURES_MAX:]
        assert [r.status_code for r in early] == [400] * ACCOUNT_FAILURES_MAX
        assert all(r.json()["code"] == "invalid_credentials" for r in early)
        assert early[0].json()["message"] == INVALID_CREDENTIALS_MESSAGE
        assert [r.status_code for r in late] == [429] * len(late)
        assert late[-1]["Retry-After"] == str(LOCKOUT_SECONDS)
        assert late[-1].json() == {
            "message": THROTTLED_MESSAGE.format(minutes=LOCKOUT_SECONDS // 60),
            "code": "login_throttled",
            "extra": {"retry_after_s": LOCKOUT_SECONDS},
        }

        # The right password is refused too while the account is locked, from anywhere.
        for address in (ATTACKER, "198.51.100.20"):
            refused = _login("owner", RIGHT, address)
            assert refused.status_code == 429
            assert int(refused["Retry-After"]) == LOCKOUT_SECONDS
        # Another account from another address is unaffected.
        assert _login("teammate", RIGHT, "198.51.100.30").status_code == 200

        clock.shift(LOCKOUT_SECONDS - 60)
        waiting = _login("owner", RIGHT, ATTACKER)
        assert waiting.status_code == 429
        assert waiting["Retry-After"] == "60"

        clock.shift(61)
        signed_in = _login("owner", RIGHT, ATTACKER)
        assert signed_in.status_code == 200
        assert signed_in.json()["username"] == "owner"


@pytest.mark.django_db
def test_wrong_passwords_over_many_usernames_lock_the_address_only(personas):
    for i in range(ADDRESS_FAILURES_MAX):
        assert _login(f"nobody{i}", "guess", ATTACKER).status_code == 400

    locked = _login("teammate", RIGHT, ATTACKER)
    assert locked.status_code == 429
    assert locked.json()["code"] == "login_throttled"
    assert int(locked["Retry-After"]) > 0
    assert _login("teammate", RIGHT, "198.51.100.30").status_code == 200


@pytest.mark.django_db
def test_a_right_password_forgives_the_accounts_earlier_typos(personas):
    for _ in range(ACCOUNT_FAILURES_MAX - 1):
        assert _login("owner", "typo", ATTACKER).status_code == 400
    assert _login("owner", RIGHT, ATTACKER).status_code == 200
    for _ in range(ACCOUNT_FAILURES_MAX - 1):
        assert _login("owner", "typo", ATTACKER).status_code == 400
    assert _login("owner", RIGHT, ATTACKER).status_code == 200


@pytest.mark.django_db
@override_settings(CLIENT_ADDRESS_HEADER="X-Real-IP")
def test_behind_a_proxy_the_address_comes_from_its_header(personas):
    proxy = "172.18.0.5"  # every request reaches the backend from nginx
    for i in range(ADDRESS_FAILURES_MAX):
        response = APIClient().post(
            "/api/auth/login/",
            {"username": f"nobody{i}", "password": "guess"},
            format="json",
            REMOTE_ADDR=proxy,
            HTTP_X_REAL_IP=ATTACKER,
        )
        assert response.status_code == 400
    # The attacker's address is locked; another client behind the same proxy is not.
    assert _login("teammate", RIGHT, proxy).status_code == 200


@pytest.mark.django_db
def test_the_admin_sign_in_form_is_throttled_like_the_api(personas):
    personas.owner.is_staff = True
    personas.owner.save()
    for _ in range(ACCOUNT_FAILURES_MAX):
        _login("owner", "guess", ATTACKER)

    client = Client()
    form = {"username": "owner", "password": RIGHT, "next": "/admin/"}
    locked = client.post("/admin/login/", form, REMOTE_ADDR="198.51.100.20")
    assert locked.status_code == 429
    assert int(locked["Retry-After"]) > 0
    assert "_auth_user_id" not in client.session

    for i in range(ACCOUNT_FAILURES_MAX):
        wrong = client.post("/admin/login/", {"username": "teammate", "password": f"g{i}"})
        assert wrong.status_code == 200  # the form again, with its error
    assert _login("teammate", RIGHT, "198.51.100.30").status_code == 429
