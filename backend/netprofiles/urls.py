from django.urls import path

from netprofiles import apis

urlpatterns = [
    path("", apis.NetworkProfilesApi.as_view(), name="list"),
    path("<uuid:profile_id>/", apis.NetworkProfileDetailApi.as_view(), name="detail"),
    path("<uuid:profile_id>/copy/", apis.NetworkProfileCopyApi.as_view(), name="copy"),
]
