from django.urls import path

from power import apis

urlpatterns = [
    path("", apis.PowerTracesApi.as_view(), name="list"),
    path("projection/", apis.PowerProjectionApi.as_view(), name="projection"),
    path("<uuid:trace_id>/", apis.PowerTraceDetailApi.as_view(), name="detail"),
    path("<uuid:trace_id>/parse/", apis.PowerTraceParseApi.as_view(), name="parse"),
    path("<uuid:trace_id>/raw/", apis.PowerTraceRawApi.as_view(), name="raw"),
    path("<uuid:trace_id>/plot/", apis.PowerTracePlotApi.as_view(), name="plot"),
    path("<uuid:trace_id>/figures/", apis.PowerTraceFiguresApi.as_view(), name="figures"),
]
