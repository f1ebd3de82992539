"""Django (non-API) views of the accounts app."""

from __future__ import annotations

from django.contrib import admin
from django.http import HttpRequest, HttpResponse

from accounts.errors import LoginThrottled
from accounts.login_throttle import (
    client_address,
    login_failure_record,
    login_success_record,
    login_throttle_check,
)


def admin_login(request: HttpRequest) -> HttpResponse:
    """The admin's sign-in page under the same login throttling as POST /api/auth/login/,
    so the admin form is no way around it (config/urls.py routes /admin/login/ here)."""
    if request.method != "POST":
        return admin.site.login(request)
    username = request.POST.get("username", "")
    address = client_address(request)
    try:
        login_throttle_check(username=username, address=address)
    except LoginThrottled as exc:
        return HttpResponse(
            exc.message,
            status=exc.status_code,
            content_type="text/plain",
            headers={"Retry-After": str(exc.retry_after_s)},
        )
    response = admin.site.login(request)
    if request.user.is_authenticated:
        login_success_record(username=username)
    else:
        login_failure_record(username=username, address=address)
    return response
