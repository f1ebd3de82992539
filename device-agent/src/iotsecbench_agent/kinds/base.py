"""The seam of a benchmark kind: what one kind gives the agent (``BenchKind``: its runner
and its CLI subcommand), and the base of the runners of the kinds that log samples
(``SampleRunner``).

A kind is one folder (``cipherbench/``, ``throughput/``) holding its plan, its engine, its
runner (what the runtime runs for a job of that kind), its CLI subcommand (``cli.py``, a
``KindCli``) and a ``kind.py`` that puts the two in one ``BenchKind``;
``jobkinds.py`` lists the kinds, and the runtime and the CLI find them there only.
"""

from __future__ import annotations

import abc
import argparse
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Generic, Protocol, TypeVar

from iotsecbench_agent.kinds.plan import GridPlan, grid_total
from iotsecbench_agent.runners.base import SAMPLES, RunContext, Runner


class KindCli(Protocol):
    """A kind's CLI module: its subcommand ``COMMAND``, how to add its parser, and how to
    run it (the exit status)."""

    @property
    def COMMAND(self) -> str: ...

    def add_parser(self, subparsers: Any) -> argparse.ArgumentParser: ...

    def main(self, args: argparse.Namespace) -> int: ...


@dataclass(frozen=True)
class BenchKind:
    """One benchmark kind as the agent knows it: the runner of its jobs (whose ``kind`` is
    the job kind, e.g. ``cipher_bench``) and its subcommand (e.g. ``cipher-bench``)."""

    runner: type[Runner]
    cli: KindCli


PlanT = TypeVar("PlanT", bound=GridPlan)


class SampleRunner(Runner, Generic[PlanT]):
    """Base of the runners of kinds that emit one ``Sample`` per measurement to the run's
    sample log (§7, §8): the plan is ``parse_plan(spec)``, progress counts two samples per
    mechanism, size and repetition. ``protocol`` (in the run's metadata) is the job kind."""

    log = SAMPLES
    measurements = ()
    plan: PlanT

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        cls.protocol = cls.kind

    def __init__(self, spec: Mapping[str, Any], context: RunContext) -> None:
        super().__init__(spec, context)
        self.plan = self.parse_plan(spec)

    @classmethod
    @abc.abstractmethod
    def parse_plan(cls, spec: Mapping[str, Any]) -> PlanT:
        """The plan of a spec, or UnsupportedJob saying what is wrong with it."""

    @classmethod
    def validate_spec(cls, spec: Mapping[str, Any]) -> None:
        cls.parse_plan(spec)

    @classmethod
    def planned_total(cls, spec: Mapping[str, Any]) -> int:
        return grid_total(cls.parse_plan(spec))

    def setup(self) -> None:
        if self.context.emit_sample is None:
            title = self.kind.replace("_", "-")
            raise RuntimeError(f"a {title} run needs a sample log (context.emit_sample)")

    def started_fields(self) -> str:
        """The plan as the ``…_started`` log line gives it."""
        plan = self.plan
        return (
            f"run_id={self.context.run_id} mechanisms={','.join(plan.mechanisms)} "
            f"sizes={','.join(str(s) for s in plan.data_sizes)} repetitions={plan.repetitions}"
        )
