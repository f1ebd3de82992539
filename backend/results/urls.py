from django.urls import path

from results.apis import compare, experiment_results, exports, runs, sizes, statistics

# A run's page, cancel and retry: mounted under /api/runs/ in the `runs` namespace.
run_page_urlpatterns = [
    path("<uuid:run_id>/", runs.RunDetailApi.as_view(), name="run-detail"),
    path("<uuid:run_id>/cancel/", runs.RunCancelApi.as_view(), name="run-cancel"),
    path("<uuid:run_id>/retry/", runs.RunRetryApi.as_view(), name="run-retry"),
]

# Mounted under /api/runs/ beside the run page's URLs.
run_urlpatterns = [
    path("<uuid:run_id>/statistics/", statistics.RunStatisticsApi.as_view(), name="run-statistics"),
    path(
        "<uuid:run_id>/distribution/",
        statistics.RunDistributionApi.as_view(),
        name="run-distribution",
    ),
    path("<uuid:run_id>/sizes/", sizes.RunSizesApi.as_view(), name="run-sizes"),
    path(
        "<uuid:run_id>/export/records.csv",
        exports.RunRecordsCsvApi.as_view(),
        name="run-export-records-csv",
    ),
    path(
        "<uuid:run_id>/export/records.parquet",
        exports.RunRecordsParquetApi.as_view(),
        name="run-export-records-parquet",
    ),
    path(
        "<uuid:run_id>/export/summary.csv",
        exports.RunSummaryCsvApi.as_view(),
        name="run-export-summary-csv",
    ),
    path(
        "<uuid:run_id>/export/summary.parquet",
        exports.RunSummaryParquetApi.as_view(),
        name="run-export-summary-parquet",
    ),
    path("<uuid:run_id>/methods/", exports.RunMethodsApi.as_view(), name="run-methods"),
]

compare_urlpatterns = [
    path("", compare.CompareApi.as_view(), name="compare"),
]

# Mounted under /api/experiments/ beside the experiments' own URLs.
experiment_urlpatterns = [
    path(
        "<uuid:experiment_id>/results/",
        experiment_results.ExperimentResultsApi.as_view(),
        name="experiment-results",
    ),
    path(
        "<uuid:experiment_id>/results/table.csv",
        experiment_results.ExperimentResultsTableCsvApi.as_view(),
        name="experiment-results-table-csv",
    ),
    path(
        "<uuid:experiment_id>/results/table.parquet",
        experiment_results.ExperimentResultsTableParquetApi.as_view(),
        name="experiment-results-table-parquet",
    ),
]
