"""Login throttling: repeated wrong passwords lock the account, and the address they come
from, for a while (docs/api.md, "Login throttling").

Counts and locks live in the Django cache, Redis (config/settings/cache.py), so every
gunicorn worker and host sees the same ones. Times are compared with `time.time()` here,
not left to Redis key expiry, which only cleans up: a lock ends when its stored end passes.
"""

from __future__ import annotations

import hashlib
import math
import time

from django.conf import settings
from django.core.cache import cache
from django.http import HttpRequest

from accounts.errors import LoginThrottled

# Wrong passwords for one username before it is locked: enough for a few typos, far too few
# to guess a password.
ACCOUNT_FAILURES_MAX = 5
# Wrong passwords from one address, over any usernames, before it is locked: a lab behind
# one NAT address shares it, so it is higher than one account's.
ADDRESS_FAILURES_MAX = 20
# Failures are counted in fixed windows of this length (so at a window's edge up to twice a
# limit can pass, which still makes guessing hopeless) ...
FAILURE_WINDOW_SECONDS = 15 * 60
# ... and a reached limit refuses every login of that account or address this long.
LOCKOUT_SECONDS = 15 * 60

THROTTLED_MESSAGE = (
    "Too many wrong passwords for this account or from this address; "
    "try again in {minutes} minute(s)."
)


def _key(kind: str, scope: str, ident: str) -> str:
    # Hashed: usernames and addresses are personal data and may hold any characters.
    digest = hashlib.sha256(ident.encode()).hexdigest()
    return f"login-{kind}:{scope}:{digest}"


def _scopes(*, username: str, address: str) -> list[tuple[str, str, int]]:
    return [
        ("account", username.casefold(), ACCOUNT_FAILURES_MAX),
        ("address", address, ADDRESS_FAILURES_MAX),
    ]


def client_address(request: HttpRequest) -> str:
    """The client's address: CLIENT_ADDRESS_HEADER when a proxy in front sets it, else the
    socket's peer."""
    header = settings.CLIENT_ADDRESS_HEADER
    if header and request.headers.get(header):
        return str(request.headers[header]).strip()
    return str(request.META.get("REMOTE_ADDR", ""))


def login_throttle_check(*, username: str, address: str) -> None:
    """Raise LoginThrottled (429, with Retry-After) while the account or the address is
    locked, before the password is even checked."""
    now = time.time()
    for scope, ident, _ in _scopes(username=username, address=address):
        until = cache.get(_key("lock", scope, ident))
        if until is not None and until > now:
            wait = math.ceil(until - now)
            raise LoginThrottled(
                THROTTLED_MESSAGE.format(minutes=math.ceil(wait / 60)),
                extra={"retry_after_s": wait},
                retry_after_s=wait,
            )


def login_failure_record(*, username: str, address: str) -> None:
    """Count a wrong password against the account and the address; lock whichever reached
    its limit."""
    now = time.time()
    window = int(now // FAILURE_WINDOW_SECONDS)
    for scope, ident, limit in _scopes(username=username, address=address):
        key = f"{_key('failures', scope, ident)}:{window}"
        cache.add(key, 0, timeout=FAILURE_WINDOW_SECONDS)
        try:
            failures = cache.incr(key)  # atomic in Redis: concurrent workers each count
        except ValueError:  # the key expired between add and incr
            cache.set(key, 1, timeout=FAILURE_WINDOW_SECONDS)
            failures = 1
        if failures >= limit:
            cache.set(_key("lock", scope, ident), now + LOCKOUT_SECONDS, timeout=LOCKOUT_SECONDS)


def login_success_record(*, username: str) -> None:
    """A right password forgives the account's earlier typos (not the address's)."""
    window = int(time.time() // FAILURE_WINDOW_SECONDS)
    cache.delete(f"{_key('failures', 'account', username.casefold())}:{window}")
