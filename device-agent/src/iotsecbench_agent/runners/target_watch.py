"""A named target that stops answering while it stays online (docs/mqttsn.md and docs/coap.md
"A target that stops answering").

A run's target (the MQTT-SN gateway of ``mqttsn_gateway`` or the CoAP server of
``coap_url``: an external one, or another enrolled device serving the run) can stop
answering without going offline: its process stalled (SIGSTOP, a deadlock), its port
blocked by a firewall, its upstream broker gone while it keeps listening. The platform
sees its agent online and its serve thread alive; only the clients see it: every message
after that is ``lost`` at its timeout, to the end of the run. So a client that has had no
answer from its named target for ``TARGET_SILENT_MESSAGES`` messages in a row AND for at
least ``TARGET_SILENT_S`` seconds ends the run with ``TargetSilent``, a DataPlaneError
naming the target: the records logged until then (the silent ones ``lost``) are kept and
uploaded, the part fails with that message, and the run ends saying so.

Why both limits: a lossy network profile loses messages in a row by chance (at 50 % loss,
20 in a row has a probability of about 1e-6 per message), and a short timeout would reach
20 messages in well under the time a restarting peer needs; a dead target passes both.
Runs without a named target (the agent's own local gateway or echo server) are not
watched: their peer is in this process and ends the run itself when it fails.
"""

from __future__ import annotations

import time
from typing import Callable

from iotsecbench_agent.errors import DataPlaneError

# Messages in a row without an answer from the target, and the least time without one,
# before a client gives up on it (see the module's docstring for why both).
TARGET_SILENT_MESSAGES = 20
TARGET_SILENT_S = 10.0

TARGET_SILENT_MESSAGE = (
    "the run's {what} at {target} stopped answering: no answer to the last {count} "
    "messages in a row, for {seconds:.1f} s (is it stalled, or its port blocked?); the "
    "records logged until then are kept"
)


class TargetSilent(DataPlaneError):
    """The run's named target stopped answering (see the module's docstring)."""


class TargetWatch:
    """Counts a client's unanswered messages in a row to its named target; ``target`` None
    watches nothing."""

    def __init__(
        self,
        what: str,
        target: str | None,
        *,
        messages: int = TARGET_SILENT_MESSAGES,
        seconds: float = TARGET_SILENT_S,
        now: Callable[[], float] = time.monotonic,
    ) -> None:
        self.what = what
        self.target = target
        self.messages = messages
        self.seconds = seconds
        self._now = now
        self._silent = 0
        self._since = now()

    def answered(self) -> None:
        self._silent = 0
        self._since = self._now()

    def unanswered(self) -> None:
        """One more message without an answer; raises TargetSilent once both limits are
        passed."""
        if self.target is None:
            return
        self._silent += 1
        silent_s = self._now() - self._since
        if self._silent >= self.messages and silent_s >= self.seconds:
            raise TargetSilent(
                TARGET_SILENT_MESSAGE.format(
                    what=self.what, target=self.target, count=self._silent, seconds=silent_s
                )
            )

    def record(self, *, lost: bool) -> None:
        if lost:
            self.unanswered()
        else:
            self.answered()
