from django.contrib import admin
from django.urls import URLPattern, URLResolver, include, path, re_path
from drf_spectacular.views import (
    SpectacularAPIView,
    SpectacularRedocView,
    SpectacularSwaggerSplitView,
)

from accounts.urls import invitation_urlpatterns, workspace_urlpatterns
from accounts.views import admin_login
from core.apis import HealthApi
from core.views import spa_index
from devices.urls import agent_urlpatterns as device_agent_urls
from experiments.urls import catalogue_urlpatterns, preset_urlpatterns
from measurements.urls import agent_urlpatterns as measurement_agent_urls
from results.urls import compare_urlpatterns as results_compare_urls
from results.urls import experiment_urlpatterns as results_experiment_urls
from results.urls import run_page_urlpatterns
from results.urls import run_urlpatterns as results_run_urls
from sharing.urls import public_urlpatterns as sharing_public_urls

agent_urlpatterns: list[URLPattern | URLResolver] = [*device_agent_urls, *measurement_agent_urls]

api_urlpatterns: list[URLPattern | URLResolver] = [
    path("health/", HealthApi.as_view(), name="health"),
    path("auth/", include(("accounts.urls", "auth"))),
    path("workspace/", include((workspace_urlpatterns, "workspace"))),
    path("invitations/", include((invitation_urlpatterns, "invitations"))),
    path("devices/", include(("devices.urls", "devices"))),
    path("experiments/", include(("experiments.urls", "experiments"))),
    path("experiments/", include((results_experiment_urls, "experiment-results"))),
    path("runs/", include((run_page_urlpatterns, "runs"))),
    path("runs/", include((results_run_urls, "results"))),
    path("compare/", include((results_compare_urls, "compare"))),
    path("power-traces/", include(("power.urls", "power"))),
    path("shares/", include(("sharing.urls", "shares"))),
    path("public/shares/", include((sharing_public_urls, "public-shares"))),
    path("network-profiles/", include(("netprofiles.urls", "network-profiles"))),
    path("catalogue/", include((catalogue_urlpatterns, "catalogue"))),
    path("presets/", include((preset_urlpatterns, "presets"))),
    path("agent/", include((agent_urlpatterns, "agent"))),
    path("schema/", SpectacularAPIView.as_view(), name="schema"),
    # The split view serves its start-up script as a file, not inline: it works under the
    # Content-Security-Policy (config/settings/csp.py).
    path("docs/", SpectacularSwaggerSplitView.as_view(url_name="schema"), name="docs"),
    path("redoc/", SpectacularRedocView.as_view(url_name="schema"), name="redoc"),
]

urlpatterns = [
    # Before the admin's own URLs: its sign-in form is throttled like the API's.
    path("admin/login/", admin_login, name="admin-login"),
    path("admin/", admin.site.urls),
    path("api/", include(api_urlpatterns)),
    # Everything else is a route of the single-page app.
    re_path(r"^(?!api/|admin/|static/).*$", spa_index, name="spa"),
]

# Unmatched /api/ paths answer the JSON error envelope (wrong methods already do: DRF).
handler404 = "core.views.not_found"
