from django.urls import path

from experiments.apis import catalogue, design_files, experiments, plan

urlpatterns = [
    path("", experiments.ExperimentsApi.as_view(), name="list"),
    path("plan/", plan.ExperimentPlanApi.as_view(), name="plan"),
    path("import/", design_files.ExperimentImportApi.as_view(), name="import"),
    path("design-schema.json", design_files.DesignSchemaApi.as_view(), name="design-schema"),
    path(
        "<uuid:experiment_id>/design.yaml",
        design_files.ExperimentDesignFileApi.as_view(),
        name="design-file",
    ),
    path("<uuid:experiment_id>/", experiments.ExperimentDetailApi.as_view(), name="detail"),
    path(
        "<uuid:experiment_id>/runs/", experiments.ExperimentRunStartApi.as_view(), name="run-start"
    ),
]

catalogue_urlpatterns = [
    path("", catalogue.CatalogueApi.as_view(), name="catalogue"),
]

preset_urlpatterns = [
    path("", design_files.PresetsApi.as_view(), name="presets"),
]
