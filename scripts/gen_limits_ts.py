"""Writes frontend/src/types/limits.gen.ts from the contract's limits module.

The frontend checks a design against the same size and count limits as the platform and the
agents (``iotsecbench_contract.limits``), so it takes them from there instead of keeping hand
copies that drift. Every module-level integer constant becomes an exported TypeScript
constant of the same name, with the comment above it.

Usage: python scripts/gen_limits_ts.py [OUTPUT]  (default: frontend/src/types/limits.gen.ts).
``make schema`` runs it; ``make schema-check`` writes to a temporary file and compares.
"""

from __future__ import annotations

import ast
import inspect
import sys
from pathlib import Path
from types import ModuleType

from iotsecbench_contract import limits

DEFAULT_OUTPUT = Path(__file__).resolve().parent.parent / "frontend/src/types/limits.gen.ts"

HEADER = """\
/**
 * GENERATED FILE - DO NOT EDIT BY HAND.
 * Source: contract/src/iotsecbench_contract/limits.py (what the platform and the agents check).
 * Regenerate from the repository root: make schema
 */
"""


def _comment_above(lines: list[str], lineno: int) -> list[str]:
    """The ``#`` comment lines right above line ``lineno`` (1-based), without their ``#``."""
    comment: list[str] = []
    index = lineno - 2
    while index >= 0 and lines[index].lstrip().startswith("#"):
        comment.insert(0, lines[index].lstrip()[1:].strip())
        index -= 1
    return comment


def _ts_number(value: int) -> str:
    # Group the digits as the frontend's hand-written constants do (65_507), from 10,000 up.
    return f"{value:_}" if abs(value) >= 10_000 else str(value)


def render(module: ModuleType) -> str:
    """The TypeScript module of ``module``'s integer constants, in source order."""
    source = inspect.getsource(module)
    lines = source.splitlines()
    parts = [HEADER]
    for node in ast.parse(source).body:
        if not (isinstance(node, ast.Assign) and len(node.targets) == 1):
            continue
        target = node.targets[0]
        if not (isinstance(target, ast.Name) and target.id.isupper()):
            continue
        value = getattr(module, target.id)
        # bool is an int subclass; a flag is not a limit.
        if not isinstance(value, int) or isinstance(value, bool):
            continue
        comment = _comment_above(lines, node.lineno)
        if comment:
            parts.append("\n" + "\n".join(f"// {line}".rstrip() for line in comment))
        parts.append(f"\nexport const {target.id} = {_ts_number(value)};")
    return "".join(parts) + "\n"


def main(argv: list[str]) -> int:
    output = Path(argv[1]) if len(argv) > 1 else DEFAULT_OUTPUT
    output.write_text(render(limits), encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
