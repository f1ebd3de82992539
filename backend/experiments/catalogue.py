"""What an experiment can ask of an agent: the security mechanisms, as Django choices.

The mechanisms themselves (names, labels, families, kinds, key sizes, overheads) are the
contract's table, ``iotsecbench_contract.mechanisms``, which the agent's registry builds.
"""

from __future__ import annotations

from iotsecbench_contract.mechanisms import KINDS, MECHANISMS

MECHANISM_KINDS = list(KINDS)
MECHANISM_CHOICES = [(m.name, m.label) for m in MECHANISMS]
