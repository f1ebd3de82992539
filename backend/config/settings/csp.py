"""Content-Security-Policy (django-csp; Django 5.2 has none built in, 6.0 does).

Set on every response Django makes, the single-page app's index.html (core.views.spa_index)
above all; in docker-compose nginx serves that file itself and sends the same policy
(deploy/nginx.conf: keep the two equal). Checked in the browser by e2e/test_browser.py,
which fails on any violation while the run page draws its Plotly charts.
"""

from csp.constants import NONE, SELF, UNSAFE_INLINE

CONTENT_SECURITY_POLICY = {
    # ReDoc's page (drf-spectacular) starts itself with an inline script and loads web
    # fonts from a CDN; it is a third-party UI behind login and gets no policy rather than a
    # hollow one. Swagger UI's start-up script is a file (SpectacularSwaggerSplitView), so
    # its page needs no inline script.
    "EXCLUDE_URL_PREFIXES": ["/api/redoc/"],
    "DIRECTIVES": {
        "default-src": [SELF],
        "script-src": [SELF],
        # Plotly.js injects <style> elements for its own CSS at run time.
        "style-src": [SELF, UNSAFE_INLINE],
        # Plotly's image export and its logo are data: and blob: URLs.
        "img-src": [SELF, "data:", "blob:"],
        "font-src": [SELF, "data:"],
        "connect-src": [SELF],
        "worker-src": [SELF, "blob:"],
        "object-src": [NONE],
        "base-uri": [SELF],
        "form-action": [SELF],
        "frame-ancestors": [NONE],
    },
}
