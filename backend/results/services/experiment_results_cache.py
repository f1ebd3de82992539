"""The cache of an experiment's results payload (GET /api/experiments/<id>/results/ and the
shared results page): computing it bootstraps every cell (results.hierarchical), reading it
back is one cache get (docs/results.md, "Experiment results", Speed).

The key is a digest of everything the payload is computed from: the experiment's own fields
(design, name, description: the methods paragraph reads them), each run's id, status,
repeat, position, end, matrix cell and spec, and the baseline asked for. A run that
completes, fails, is cancelled, queued or deleted changes the digest, so the next view
computes afresh: no signal to miss. A completed run's records never change (uploads to a
finished run are refused), and only completed runs are measured, so a run in progress
changes nothing the payload shows until its status does.
"""

from __future__ import annotations

import hashlib
from typing import Any

from django.core.cache import cache

from experiments.models import Experiment, Run

# v: bump when the payload's shape or statistics change (old entries are then never read).
PAYLOAD_KEY = "results:experiment-payload:v3:{experiment_id}:{digest}"
# A day: an experiment whose runs are all finished is read from here until it changes.
PAYLOAD_SECONDS = 24 * 3600


def experiment_results_cache_key(*, experiment: Experiment, baseline: str | None) -> str:
    runs = (
        Run.objects.filter(experiment=experiment)
        .order_by("pk")
        .values_list("pk", "status", "repeat", "position", "finished_at", "cell", "spec")
    )
    fields = [(f.attname, getattr(experiment, f.attname)) for f in Experiment._meta.concrete_fields]
    material = repr((fields, list(runs), baseline)).encode()
    digest = hashlib.sha256(material).hexdigest()
    return PAYLOAD_KEY.format(experiment_id=experiment.pk, digest=digest)


def experiment_results_cache_get(*, key: str) -> dict[str, Any] | None:
    payload = cache.get(key)
    return payload if isinstance(payload, dict) else None


def experiment_results_cache_set(*, key: str, payload: dict[str, Any]) -> None:
    cache.set(key, payload, timeout=PAYLOAD_SECONDS)
