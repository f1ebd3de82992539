"""The Content-Security-Policy (config/settings/csp.py) on the pages Django serves. That the
SPA and its Plotly charts work under it is checked in the browser (e2e/test_browser.py)."""

from __future__ import annotations

import re

import pytest


def _directives(header: str) -> dict[str, list[str]]:
    parts = (p.split() for p in header.split(";") if p.strip())
    return {name: values for name, *values in parts}


@pytest.mark.django_db
@pytest.mark.parametrize("path", ["/", "/runs/some-run", "/api/health/"])
def test_responses_carry_a_policy_that_allows_only_own_scripts(anonymous_client, path):
    response = anonymous_client.get(path)
    policy = _directives(response["Content-Security-Policy"])
    assert policy["default-src"] == ["'self'"]
    assert policy["script-src"] == ["'self'"]
    assert policy["object-src"] == ["'none'"]
    assert policy["frame-ancestors"] == ["'none'"]


@pytest.mark.django_db
def test_swagger_docs_page_loads_its_start_up_script_from_a_url_not_inline(owner_client):
    page = owner_client.get("/api/docs/").content.decode()
    inline = re.findall(r"<script>(.*?)</script>", page, flags=re.S)
    assert [body for body in inline if body.strip()] == []
    script = re.search(r'<script src="([^"]*script=[^"]*)"', page)
    assert script is not None
    response = owner_client.get(script.group(1).replace("&amp;", "&"))
    assert response.status_code == 200
    assert b"SwaggerUIBundle" in response.content


@pytest.mark.django_db
def test_nginx_sends_the_spa_the_same_policy_as_django(anonymous_client, settings):
    conf = (settings.REPO_DIR / "deploy" / "nginx.conf").read_text()
    nginx = re.search(r'add_header Content-Security-Policy "([^"]+)" always;', conf)
    assert nginx is not None
    django = anonymous_client.get("/")["Content-Security-Policy"]
    assert _directives(nginx.group(1)) == _directives(django)
