"""Every benchmark kind is plugged into each layer's seam (experiments.kinds,
measurements.kinds, results.services.kinds), and they agree on which kinds store samples."""

from iotsecbench_contract.jobspec import SAMPLES as UPLOAD_SAMPLES

from experiments.kinds import KINDS as EXPERIMENT_KINDS
from experiments.models import ExperimentKind
from experiments.services.jobs import BENCHMARK_KINDS
from measurements.kinds import SUMMARIES
from measurements.services.summary import bench_summarize
from results.services.kinds import KINDS as RESULTS_KINDS
from results.services.kinds.samples import SAMPLES


def test_every_kind_has_every_seam():
    kinds = set(ExperimentKind.values)
    assert set(EXPERIMENT_KINDS) == kinds
    assert set(SUMMARIES) == kinds
    assert set(RESULTS_KINDS) == kinds
    for name in kinds:
        assert EXPERIMENT_KINDS[name].name == name
        assert RESULTS_KINDS[name].name == name


def test_the_seams_agree_on_sample_kinds():
    samples = {name for name, kind in EXPERIMENT_KINDS.items() if kind.samples}
    assert {name for name, k in BENCHMARK_KINDS.items() if k.upload == UPLOAD_SAMPLES} == samples
    assert {name for name, kind in EXPERIMENT_KINDS.items() if kind.spec is not None} == samples
    assert {name for name, f in SUMMARIES.items() if f is bench_summarize} == samples
    assert {name for name, k in RESULTS_KINDS.items() if k.records is SAMPLES} == samples
