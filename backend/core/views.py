from __future__ import annotations

from django.conf import settings
from django.http import FileResponse, HttpRequest, HttpResponse
from django.views.decorators.csrf import ensure_csrf_cookie

FRONTEND_MISSING = (
    "The web UI is not built. Run `make up` (or `make frontend`) to build frontend/dist."
)


@ensure_csrf_cookie
def spa_index(request: HttpRequest) -> HttpResponse | FileResponse:
    """Serve the single-page app for every non-API path; the SPA routes on the client."""
    index = settings.FRONTEND_DIST / "index.html"
    if not index.exists():
        return HttpResponse(FRONTEND_MISSING, status=503, content_type="text/plain")
    return FileResponse(index.open("rb"), content_type="text/html")
