from django.urls import path

from power.apis import battery, figures, traces

urlpatterns = [
    path("", traces.PowerTracesApi.as_view(), name="list"),
    path("battery-readings/", battery.PowerBatteryReadingsApi.as_view(), name="battery_list"),
    path(
        "battery-readings/<uuid:reading_id>/",
        battery.PowerBatteryReadingDetailApi.as_view(),
        name="battery_detail",
    ),
    path("projection/", figures.PowerProjectionApi.as_view(), name="projection"),
    path("<uuid:trace_id>/", traces.PowerTraceDetailApi.as_view(), name="detail"),
    path("<uuid:trace_id>/parse/", traces.PowerTraceParseApi.as_view(), name="parse"),
    path("<uuid:trace_id>/raw/", traces.PowerTraceRawApi.as_view(), name="raw"),
    path("<uuid:trace_id>/plot/", figures.PowerTracePlotApi.as_view(), name="plot"),
    path("<uuid:trace_id>/figures/", figures.PowerTraceFiguresApi.as_view(), name="figures"),
]
