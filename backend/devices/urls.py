from django.urls import path

from devices import apis

urlpatterns = [
    path("", apis.DeviceListApi.as_view(), name="list"),
    path("enrollment-tokens/", apis.EnrollmentTokenCreateApi.as_view(), name="enrollment-token"),
]

agent_urlpatterns = [
    path("enroll/", apis.AgentEnrollApi.as_view(), name="agent-enroll"),
    path("facts/", apis.AgentFactsApi.as_view(), name="agent-facts"),
]
