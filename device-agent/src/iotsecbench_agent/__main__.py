"""``python -m iotsecbench_agent``: the same as the ``iotsecbench-agent`` console script."""

from __future__ import annotations

import sys

from iotsecbench_agent.cli.main import main

if __name__ == "__main__":
    sys.exit(main())
