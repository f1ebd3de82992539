from django.urls import path

from results import apis

# Mounted under /api/runs/ beside experiments' run URLs.
run_urlpatterns = [
    path("<uuid:run_id>/statistics/", apis.RunStatisticsApi.as_view(), name="run-statistics"),
    path("<uuid:run_id>/distribution/", apis.RunDistributionApi.as_view(), name="run-distribution"),
    path("<uuid:run_id>/sizes/", apis.RunSizesApi.as_view(), name="run-sizes"),
    path(
        "<uuid:run_id>/export/records.csv",
        apis.RunRecordsCsvApi.as_view(),
        name="run-export-records-csv",
    ),
    path(
        "<uuid:run_id>/export/records.parquet",
        apis.RunRecordsParquetApi.as_view(),
        name="run-export-records-parquet",
    ),
    path(
        "<uuid:run_id>/export/summary.csv",
        apis.RunSummaryCsvApi.as_view(),
        name="run-export-summary-csv",
    ),
    path(
        "<uuid:run_id>/export/summary.parquet",
        apis.RunSummaryParquetApi.as_view(),
        name="run-export-summary-parquet",
    ),
    path("<uuid:run_id>/methods/", apis.RunMethodsApi.as_view(), name="run-methods"),
]

compare_urlpatterns = [
    path("", apis.CompareApi.as_view(), name="compare"),
]
