from __future__ import annotations

from django.conf import settings
from django.http import FileResponse, HttpRequest, HttpResponse, JsonResponse
from django.views import defaults
from django.views.decorators.csrf import ensure_csrf_cookie

from core.exception_handlers import envelope

FRONTEND_MISSING = (
    "The web UI is not built. Run `make up` (or `make frontend`) to build frontend/dist."
)

API_NOT_FOUND_MESSAGE = "No API endpoint at {path}; the endpoints are listed at /api/docs/."


@ensure_csrf_cookie
def spa_index(request: HttpRequest) -> HttpResponse | FileResponse:
    """Serve the single-page app for every non-API path; the SPA routes on the client."""
    index = settings.FRONTEND_DIST / "index.html"
    if not index.exists():
        return HttpResponse(FRONTEND_MISSING, status=503, content_type="text/plain")
    return FileResponse(index.open("rb"), content_type="text/html")


def not_found(request: HttpRequest, exception: Exception) -> HttpResponse:
    """Django's 404 handler (config.urls.handler404): a path under /api/ that no URL
    matches answers the API's error envelope, like every other API error; any other path
    Django's own page."""
    if request.path.startswith("/api/"):
        message = API_NOT_FOUND_MESSAGE.format(path=request.path)
        return JsonResponse(envelope(message, "not_found"), status=404)
    return defaults.page_not_found(request, exception)
