"""A shared experiment's results (issue #20, point 4): the cells, overheads and methods
paragraph the signed-in results page shows, read-only through the share's link."""

from __future__ import annotations

from drf_spectacular.utils import extend_schema
from rest_framework.request import Request
from rest_framework.response import Response

from results.apis.experiment_results import ExperimentResultsSerializer, results_payload_cached
from sharing.apis import _TOKEN, _PublicApi  # the public pages' one base and token parameter
from sharing.errors import ShareNotFound
from sharing.selectors import SHARE_NOT_FOUND_MESSAGE


class PublicExperimentResultsApi(_PublicApi):
    @extend_schema(
        operation_id="public_share_experiment_results",
        parameters=[_TOKEN],
        responses=ExperimentResultsSerializer,
        auth=[],
    )
    def get(self, request: Request, token: str) -> Response:
        share = self.public_share(token)
        experiment = share.experiment
        if experiment is None:  # a run's or a comparison's link has no experiment results
            raise ShareNotFound(SHARE_NOT_FOUND_MESSAGE)
        return Response(results_payload_cached(experiment=experiment))
