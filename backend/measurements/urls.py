from django.urls import path

from measurements import apis

agent_urlpatterns = [
    path("runs/<uuid:run_id>/records/", apis.AgentRecordsUploadApi.as_view(), name="agent-records"),
    path("runs/<uuid:run_id>/samples/", apis.AgentSamplesUploadApi.as_view(), name="agent-samples"),
    path("runs/<uuid:run_id>/fail/", apis.AgentRunFailApi.as_view(), name="agent-run-fail"),
]
