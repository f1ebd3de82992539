from django.urls import path

from experiments import apis

urlpatterns = [
    path("", apis.ExperimentsApi.as_view(), name="list"),
    path("plan/", apis.ExperimentPlanApi.as_view(), name="plan"),
    path("import/", apis.ExperimentImportApi.as_view(), name="import"),
    path("design-schema.json", apis.DesignSchemaApi.as_view(), name="design-schema"),
    path(
        "<uuid:experiment_id>/design.yaml",
        apis.ExperimentDesignFileApi.as_view(),
        name="design-file",
    ),
    path("<uuid:experiment_id>/", apis.ExperimentDetailApi.as_view(), name="detail"),
    path("<uuid:experiment_id>/runs/", apis.ExperimentRunStartApi.as_view(), name="run-start"),
]

catalogue_urlpatterns = [
    path("", apis.CatalogueApi.as_view(), name="catalogue"),
]

run_urlpatterns = [
    path("<uuid:run_id>/", apis.RunDetailApi.as_view(), name="run-detail"),
    path("<uuid:run_id>/cancel/", apis.RunCancelApi.as_view(), name="run-cancel"),
    path("<uuid:run_id>/retry/", apis.RunRetryApi.as_view(), name="run-retry"),
]

preset_urlpatterns = [
    path("", apis.PresetsApi.as_view(), name="presets"),
]
