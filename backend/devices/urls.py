from django.urls import path

from devices import apis

urlpatterns = [
    path("", apis.DeviceListApi.as_view(), name="list"),
    path("enrollment-tokens/", apis.EnrollmentTokenCreateApi.as_view(), name="enrollment-token"),
    path("<uuid:device_id>/", apis.DeviceDetailApi.as_view(), name="detail"),
    path(
        "<uuid:device_id>/health-check/", apis.DeviceHealthCheckApi.as_view(), name="health-check"
    ),
    path("<uuid:device_id>/revoke/", apis.DeviceRevokeApi.as_view(), name="revoke"),
]

agent_urlpatterns = [
    path("enroll/", apis.AgentEnrollApi.as_view(), name="agent-enroll"),
    path("facts/", apis.AgentFactsApi.as_view(), name="agent-facts"),
    path("time/", apis.AgentTimeApi.as_view(), name="agent-time"),
]
