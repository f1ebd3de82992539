"""HTTP calls to the platform (§1, §2, §6 of docs/control-plane.md), with urllib only.

Every call maps urllib's errors onto ours: a 4xx answer becomes PlatformRejected (never
retried: the request itself is wrong), a 5xx answer or a connection error becomes a
retryable failure that ``with_retries`` backs off on and finally turns into
PlatformUnavailable.
"""

from __future__ import annotations

import json
import logging
import socket
import threading
import time
import urllib.error
import urllib.request
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Callable, TypeVar

from iotsecbench_agent import __version__
from iotsecbench_agent.errors import PlatformRejected, PlatformUnavailable, RunAborted

logger = logging.getLogger(__name__)

T = TypeVar("T")

# An upload chunk of 5000 records is ~300 kB; on a Pi over Wi-Fi that is well under this.
HTTP_TIMEOUT_S = 30.0
USER_AGENT = f"iotsecbench-agent/{__version__}"


@dataclass(frozen=True)
class RetryPolicy:
    """Exponential backoff: ``base_delay_s * 2**n`` capped at ``max_delay_s``, ``attempts``
    tries in all. The defaults ride out a platform restart (~1 min) without hammering it.

    With ``deadline_s`` the tries go on, whatever ``attempts`` says, until that many seconds
    have passed since the first one (no wait ends past it): an upload rides out an outage
    of hours (``upload_policy``), while the other calls keep the short default.
    """

    attempts: int = 8
    base_delay_s: float = 0.5
    max_delay_s: float = 15.0
    deadline_s: float | None = None

    def delay(self, attempt: int) -> float:
        return float(min(self.max_delay_s, self.base_delay_s * (2**attempt)))

    def may_retry(self, tries: int, elapsed_s: float, delay_s: float) -> bool:
        """Whether to wait ``delay_s`` and try again after ``tries`` tries in ``elapsed_s``."""
        if self.deadline_s is None:
            return tries < self.attempts
        return elapsed_s + delay_s <= self.deadline_s

    def limit(self) -> str:
        """What ended the retries, for the error message ("" for the attempt count)."""
        return "" if self.deadline_s is None else f" (retry limit {self.deadline_s:g} s)"


# Backoff of an upload under a deadline: at most a minute between tries.
UPLOAD_MAX_DELAY_S = 60.0


def upload_policy(deadline_s: float) -> RetryPolicy:
    """An upload's retries: 5xx answers and connection errors are retried for ``deadline_s``
    seconds (runtime/config.py's upload retry setting), backing off to one try a minute."""
    return RetryPolicy(base_delay_s=0.5, max_delay_s=UPLOAD_MAX_DELAY_S, deadline_s=deadline_s)


class RetryableHttpError(Exception):
    """A 5xx answer or a connection failure: worth another try."""


@dataclass(frozen=True)
class HttpResponse:
    status: int
    body: dict[str, Any]


def request_json(
    method: str,
    url: str,
    *,
    body: bytes,
    headers: Mapping[str, str],
    timeout: float = HTTP_TIMEOUT_S,
) -> HttpResponse:
    """One HTTP request. Returns 2xx answers; raises PlatformRejected on 4xx and
    RetryableHttpError on 5xx or when the server cannot be reached."""
    all_headers = {"User-Agent": USER_AGENT, "Accept": "application/json", **headers}
    req = urllib.request.Request(url, data=body, headers=all_headers, method=method)
    try:
        with urllib.request.urlopen(req, timeout=timeout) as resp:
            return HttpResponse(status=resp.status, body=_decode(resp.read()))
    except urllib.error.HTTPError as exc:
        payload = _decode(exc.read())
        exc.close()
        if 400 <= exc.code < 500:
            message = payload.get("message") if isinstance(payload.get("message"), str) else None
            code = payload.get("code") if isinstance(payload.get("code"), str) else None
            raise PlatformRejected(exc.code, message or exc.reason or "rejected", code) from None
        raise RetryableHttpError(f"HTTP {exc.code} from {url}") from None
    except (urllib.error.URLError, ConnectionError, socket.timeout, TimeoutError, OSError) as exc:
        reason = getattr(exc, "reason", exc)
        raise RetryableHttpError(f"cannot reach {url}: {reason}") from None


def with_retries(
    call: Callable[[], T],
    *,
    policy: RetryPolicy,
    what: str,
    sleep: Callable[[float], None] | None = None,
    stop: threading.Event | None = None,
    clock: Callable[[], float] = time.monotonic,
) -> T:
    """Run ``call`` until it succeeds, retrying only RetryableHttpError with backoff.

    The waits are ``stop.wait`` when a stop is given, so a SIGTERM ends one at once with
    RunAborted (``sleep`` replaces the wait in tests; the stop is checked after it).
    """
    started = clock()
    tries = 0
    while True:
        try:
            return call()
        except RetryableHttpError as exc:
            last = str(exc)
        tries += 1
        delay = policy.delay(tries - 1)
        if not policy.may_retry(tries, clock() - started, delay):
            break
        logger.warning(
            "agent.http_retry what=%s attempt=%d delay_s=%.1f error=%s",
            what,
            tries,
            delay,
            last,
        )
        if _wait(delay, sleep, stop):
            raise RunAborted(f"{what} interrupted by shutdown")
    raise PlatformUnavailable(f"{what} failed after {tries} attempts{policy.limit()}: {last}")


def _wait(
    delay: float, sleep: Callable[[float], None] | None, stop: threading.Event | None
) -> bool:
    """Wait ``delay`` seconds; True when the stop was set (the wait then ends early)."""
    if sleep is not None:
        sleep(delay)
        return stop is not None and stop.is_set()
    if stop is not None:
        return stop.wait(delay)
    time.sleep(delay)
    return False


def post_json(
    url: str, payload: Mapping[str, Any], *, token: str | None, timeout: float = HTTP_TIMEOUT_S
) -> HttpResponse:
    headers = {"Content-Type": "application/json"}
    if token is not None:
        headers["Authorization"] = f"Device {token}"
    body = json.dumps(payload).encode("utf-8")
    return request_json("POST", url, body=body, headers=headers, timeout=timeout)


class PlatformApi:
    """The agent's authenticated calls (everything but enrollment)."""

    def __init__(
        self,
        *,
        server_url: str,
        api_token: str,
        retry: RetryPolicy | None = None,
        sleep: Callable[[float], None] | None = None,
    ) -> None:
        self._server = server_url.rstrip("/")
        self._token = api_token
        self.retry = retry or RetryPolicy()
        self.sleep = sleep

    @property
    def api_token(self) -> str:
        return self._token

    def post_facts(self, facts: Mapping[str, Any], *, policy: RetryPolicy | None = None) -> None:
        url = f"{self._server}/api/agent/facts/"
        self._retrying(
            lambda: post_json(url, {"facts": facts}, token=self._token), "facts", policy=policy
        )

    def report_failure(
        self,
        run_id: str,
        message: str,
        *,
        policy: RetryPolicy | None = None,
        stop: threading.Event | None = None,
    ) -> None:
        """POST the run's failure; a set ``stop`` ends a retry wait (RunAborted)."""
        url = f"{self._server}/api/agent/runs/{run_id}/fail/"
        self._retrying(
            lambda: post_json(url, {"message": message}, token=self._token),
            "run failure report",
            policy=policy,
            stop=stop,
        )

    def post_chunk(self, url: str, body: bytes, headers: Mapping[str, str]) -> HttpResponse:
        """One upload attempt of one chunk (the uploader owns the retry loop)."""
        all_headers = {
            "Content-Type": "text/csv",
            "Authorization": f"Device {self._token}",
            **headers,
        }
        return request_json("POST", url, body=body, headers=all_headers)

    def _retrying(
        self,
        call: Callable[[], HttpResponse],
        what: str,
        policy: RetryPolicy | None = None,
        stop: threading.Event | None = None,
    ) -> HttpResponse:
        return with_retries(
            call, policy=policy or self.retry, what=what, sleep=self.sleep, stop=stop
        )


def enroll(
    server_url: str, *, token: str, name: str, facts: Mapping[str, Any], csr: str
) -> dict[str, Any]:
    """POST /api/agent/enroll/ and return the answer (PlatformRejected on a bad token).

    Tried once: the token is single-use, so a retry after a lost answer would only earn
    "token already used"; the user reruns `enroll` with a fresh token instead.
    """
    url = f"{server_url.rstrip('/')}/api/agent/enroll/"
    response = with_retries(
        lambda: post_json(
            url, {"token": token, "name": name, "facts": facts, "csr": csr}, token=None
        ),
        policy=RetryPolicy(attempts=1),
        what="enrollment",
    )
    return response.body


def _decode(raw: bytes) -> dict[str, Any]:
    if not raw:
        return {}
    try:
        data = json.loads(raw.decode("utf-8"))
    except ValueError:
        return {}
    return data if isinstance(data, dict) else {}
