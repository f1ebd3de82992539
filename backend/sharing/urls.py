from django.urls import path

from sharing import apis, results_api

urlpatterns = [
    path("", apis.SharesApi.as_view(), name="list"),
    path("<uuid:share_id>/", apis.ShareDetailApi.as_view(), name="detail"),
    path("<uuid:share_id>/revoke/", apis.ShareRevokeApi.as_view(), name="revoke"),
]

# Mounted at /api/public/shares/: answered without login (sharing.apis._PublicApi).
public_urlpatterns = [
    path("<str:token>/", apis.PublicShareApi.as_view(), name="content"),
    path(
        "<str:token>/runs/<uuid:run_id>/statistics/",
        apis.PublicRunStatisticsApi.as_view(),
        name="run-statistics",
    ),
    path(
        "<str:token>/runs/<uuid:run_id>/distribution/",
        apis.PublicRunDistributionApi.as_view(),
        name="run-distribution",
    ),
    path(
        "<str:token>/runs/<uuid:run_id>/methods/",
        apis.PublicRunMethodsApi.as_view(),
        name="run-methods",
    ),
    path(
        "<str:token>/runs/<uuid:run_id>/sizes/",
        apis.PublicRunSizesApi.as_view(),
        name="run-sizes",
    ),
    path("<str:token>/compare/", apis.PublicCompareApi.as_view(), name="compare"),
    path(
        "<str:token>/results/",
        results_api.PublicExperimentResultsApi.as_view(),
        name="experiment-results",
    ),
]
