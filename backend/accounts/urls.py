from django.urls import path

from accounts import apis, token_apis, workspace_apis

urlpatterns = [
    path("csrf/", apis.CsrfApi.as_view(), name="csrf"),
    path("login/", apis.LoginApi.as_view(), name="login"),
    path("logout/", apis.LogoutApi.as_view(), name="logout"),
    path("me/", apis.MeApi.as_view(), name="me"),
    path("password/", token_apis.PasswordChangeApi.as_view(), name="password"),
    path("tokens/", token_apis.ApiTokenListApi.as_view(), name="tokens"),
    path("tokens/<uuid:token_id>/", token_apis.ApiTokenRevokeApi.as_view(), name="token"),
]

# Mounted at /api/workspace/: the current workspace's team.
workspace_urlpatterns = [
    path("", workspace_apis.WorkspaceListApi.as_view(), name="list"),
    path("<uuid:workspace_id>/select/", workspace_apis.WorkspaceSelectApi.as_view(), name="select"),
    path("members/", workspace_apis.MemberListApi.as_view(), name="members"),
    path("members/<int:membership_id>/", workspace_apis.MemberRemoveApi.as_view(), name="member"),
    path("invitations/", workspace_apis.InvitationListApi.as_view(), name="invitations"),
    path(
        "invitations/<uuid:invitation_id>/",
        workspace_apis.InvitationRevokeApi.as_view(),
        name="invitation",
    ),
]

# Mounted at /api/invitations/: answered without login (the invitee may have no account).
invitation_urlpatterns = [
    path("<str:token>/", workspace_apis.InvitationPublicApi.as_view(), name="preview"),
    path("<str:token>/accept/", workspace_apis.InvitationAcceptApi.as_view(), name="accept"),
]
