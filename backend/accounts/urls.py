from django.urls import path

from accounts import apis

urlpatterns = [
    path("csrf/", apis.CsrfApi.as_view(), name="csrf"),
    path("login/", apis.LoginApi.as_view(), name="login"),
    path("logout/", apis.LogoutApi.as_view(), name="logout"),
    path("me/", apis.MeApi.as_view(), name="me"),
]
