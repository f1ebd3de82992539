from __future__ import annotations

from django.conf import settings
from drf_spectacular.utils import extend_schema, extend_schema_serializer
from rest_framework import serializers, status
from rest_framework.permissions import AllowAny
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from accounts.selectors import workspace_for_user
from devices.authentication import DeviceTokenAuthentication, IsDevice
from devices.models import Device
from devices.selectors import device_list
from devices.services import device_enroll, device_facts_update, enrollment_token_create
from devices.signing import job_public_key_b64


@extend_schema_serializer(component_name="Device")
class DeviceOutputSerializer(serializers.ModelSerializer[Device]):
    facts = serializers.DictField()

    class Meta:
        model = Device
        fields = ["id", "name", "online", "last_seen_at", "enrolled_at", "facts"]
        read_only_fields = fields


class DeviceListApi(APIView):
    @extend_schema(operation_id="devices_list", responses=DeviceOutputSerializer(many=True))
    def get(self, request: Request) -> Response:
        devices = device_list(workspace=workspace_for_user(user=request.user))
        return Response(DeviceOutputSerializer(devices, many=True).data)


class EnrollmentTokenCreateApi(APIView):
    @extend_schema_serializer(component_name="EnrollmentToken")
    class OutputSerializer(serializers.Serializer[object]):
        token = serializers.CharField()
        expires_at = serializers.DateTimeField()

    @extend_schema(
        operation_id="devices_enrollment_token_create",
        request=None,
        responses={201: OutputSerializer},
    )
    def post(self, request: Request) -> Response:
        workspace = workspace_for_user(user=request.user)
        token, secret = enrollment_token_create(workspace=workspace, user=request.user)
        data = self.OutputSerializer({"token": secret, "expires_at": token.expires_at}).data
        return Response(data, status=status.HTTP_201_CREATED)


class AgentEnrollApi(APIView):
    """An agent exchanges a one-time enrollment token for its identity (control-plane §1)."""

    authentication_classes: list[type] = []
    permission_classes = [AllowAny]

    @extend_schema_serializer(component_name="AgentEnrollInput")
    class InputSerializer(serializers.Serializer[object]):
        token = serializers.CharField()
        name = serializers.CharField(max_length=120)
        facts = serializers.DictField(required=False, default=dict)

    @extend_schema_serializer(component_name="AgentEnrollment")
    class OutputSerializer(serializers.Serializer[object]):
        device_id = serializers.UUIDField()
        api_token = serializers.CharField()
        mqtt_url = serializers.CharField()
        job_public_key = serializers.CharField()
        topic_prefix = serializers.CharField()

    @extend_schema(
        operation_id="agent_enroll",
        request=InputSerializer,
        responses={201: OutputSerializer},
        auth=[],
    )
    def post(self, request: Request) -> Response:
        serializer = self.InputSerializer(data=request.data)
        serializer.is_valid(raise_exception=True)
        device, api_token = device_enroll(**serializer.validated_data)
        data = self.OutputSerializer(
            {
                "device_id": device.id,
                "api_token": api_token,
                "mqtt_url": settings.MQTT_URL,
                "job_public_key": job_public_key_b64(),
                "topic_prefix": f"iotsecbench/agents/{device.id}",
            }
        ).data
        return Response(data, status=status.HTTP_201_CREATED)


class AgentFactsApi(APIView):
    authentication_classes = [DeviceTokenAuthentication]
    permission_classes = [IsDevice]

    @extend_schema_serializer(component_name="AgentFactsInput")
    class InputSerializer(serializers.Serializer[object]):
        facts = serializers.DictField()

    @extend_schema(
        operation_id="agent_facts_update",
        request=InputSerializer,
        responses={200: DeviceOutputSerializer},
    )
    def post(self, request: Request) -> Response:
        serializer = self.InputSerializer(data=request.data)
        serializer.is_valid(raise_exception=True)
        assert isinstance(request.auth, Device)
        device = device_facts_update(device=request.auth, facts=serializer.validated_data["facts"])
        return Response(DeviceOutputSerializer(device).data)
