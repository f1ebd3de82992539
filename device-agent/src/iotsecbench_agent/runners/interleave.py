"""Interleaved runs (iotsecbench_contract.interleave; docs/control-plane.md §5): one
round-trip run secures message ``seq`` with mechanism ``rotation[seq % k]`` on its one
connection, so the k mechanisms share every condition of the run, message by message.

``Rotation`` is a Mechanism that a round-trip runner uses in place of its one mechanism:

- ``select(seq)`` (before ``time_secure``, outside the measured window) picks the
  mechanism of the message about to be sent;
- ``secure(payload)`` is ``index || mechanism.secure(payload)``: ``index`` one byte in the
  clear, the mechanism's place in the rotation (it names which mechanism unsecures the
  message and nothing about any key); every mechanism of the rotation, ``none`` too,
  carries it, so what it costs (a one-byte concatenation, one more byte on the wire) is
  the same for all of them and cancels out of their differences;
- ``unsecure(data)`` reads the index and unsecures the rest with that mechanism: the
  receiving side needs no state shared with the sender beyond the rotation and its keys.
  An index outside the rotation is a ``DecryptError`` (a stray or corrupted message).

Each mechanism is built once, in the runner's ``setup``, with its own key (the runner is
both ends of its round trip, so the keys never leave it).
"""

from __future__ import annotations

from dataclasses import replace

from iotsecbench_contract.interleave import INDEX_BYTES
from iotsecbench_contract.mechanisms import NONE
from iotsecbench_contract.mechanisms import describe as mechanism_info

from iotsecbench_agent.errors import UnsupportedJob
from iotsecbench_agent.runners.timing import HarnessFloor
from iotsecbench_agent.security import registry
from iotsecbench_agent.security.base import DecryptError, Mechanism

INTERLEAVED = "interleaved"


class Rotation(Mechanism):
    """The mechanisms of an interleaved run, in rotation (see the module doc)."""

    def __init__(self, names: tuple[str, ...]) -> None:
        super().__init__(replace(mechanism_info(NONE), name=INTERLEAVED))
        self.names = names
        mechanisms = [registry.create(name) for name in names]
        self._mechanisms = mechanisms
        self._secures = [m.secure for m in mechanisms]
        self._unsecures = [m.unsecure for m in mechanisms]
        self._prefixes = [i.to_bytes(INDEX_BYTES, "big") for i in range(len(names))]
        self._index = 0
        # The harness floor beside the messages of every mechanism but ``none`` (as a run
        # of that one mechanism alone would have it).
        self._floor = HarnessFloor() if any(n != NONE for n in names) else None
        self.secure = self._secure
        self.unsecure = self._unsecure

    def select(self, seq: int) -> str:
        """Make message ``seq``'s mechanism the one ``secure`` uses; its name."""
        self._index = seq % len(self.names)
        return self.names[self._index]

    def floor(self) -> HarnessFloor | None:
        """The harness floor of the selected mechanism's message (None for ``none``)."""
        return None if self.names[self._index] == NONE else self._floor

    def overhead(self, payload_len: int) -> int:
        """What ``secure`` adds with the selected mechanism: its own overhead and the index."""
        return INDEX_BYTES + self._mechanisms[self._index].overhead(payload_len)

    def _secure(self, payload: bytes) -> bytes:
        index = self._index
        return self._prefixes[index] + self._secures[index](payload)

    def _unsecure(self, data: bytes) -> bytes:
        index = data[0] if data else len(self.names)
        if index >= len(self.names):
            raise DecryptError(f"mechanism index {index} is not in the rotation")
        return self._unsecures[index](data[INDEX_BYTES:])


def rotation_of(names: tuple[str, ...] | None) -> tuple[str, ...] | None:
    """A job's rotation (iotsecbench_contract.interleave.parse_interleave) whose every
    mechanism this agent has; UnsupportedJob naming the first it does not."""
    if names is None:
        return None
    known = set(registry.names())
    for name in names:
        if name not in known:
            raise UnsupportedJob(
                f"interleave_mechanisms: {name!r} is not supported by this agent "
                "(see `iotsecbench-agent mechanisms`)"
            )
    return names
