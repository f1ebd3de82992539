from __future__ import annotations

import time
from dataclasses import asdict
from typing import Any
from uuid import UUID

from django.conf import settings
from drf_spectacular.utils import extend_schema, extend_schema_field, extend_schema_serializer
from iotsecbench_contract import topics
from rest_framework import serializers, status
from rest_framework.permissions import AllowAny
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from accounts.selectors import workspace_for_user
from devices.authentication import DeviceTokenAuthentication, IsDevice
from devices.models import Device
from devices.selectors import device_get, device_list
from devices.services import (
    device_enroll,
    device_facts_update,
    device_health_check,
    device_revoke,
    enrollment_token_create,
)
from devices.signing import job_public_key_b64

CSR_MAX_CHARS = 16_384


@extend_schema_serializer(component_name="HealthCheck")
class HealthCheckItemSerializer(serializers.Serializer[object]):
    name = serializers.CharField()
    ok = serializers.BooleanField()
    detail = serializers.CharField()
    value = serializers.FloatField(allow_null=True)


@extend_schema_serializer(component_name="DeviceHealth")
class DeviceHealthSerializer(serializers.Serializer[object]):
    status = serializers.ChoiceField(choices=["pending", "passed", "failed"])
    requested_at = serializers.DateTimeField()
    checked_at = serializers.DateTimeField(required=False)
    checks = HealthCheckItemSerializer(many=True, required=False)
    error = serializers.CharField(required=False)


@extend_schema_serializer(component_name="Device")
class DeviceOutputSerializer(serializers.ModelSerializer[Device]):
    facts = serializers.DictField()
    health = serializers.SerializerMethodField(
        help_text="The latest health check; null before the first."
    )

    class Meta:
        model = Device
        fields = ["id", "name", "online", "last_seen_at", "enrolled_at", "facts", "health"]
        read_only_fields = fields

    @extend_schema_field(DeviceHealthSerializer(allow_null=True))
    def get_health(self, device: Device) -> dict[str, Any] | None:
        return DeviceHealthSerializer(device.health).data if device.health else None


class DeviceDetailApi(APIView):
    @extend_schema(operation_id="devices_retrieve", responses=DeviceOutputSerializer)
    def get(self, request: Request, device_id: UUID) -> Response:
        device = device_get(workspace=workspace_for_user(user=request.user), device_id=device_id)
        return Response(DeviceOutputSerializer(device).data)


class DeviceHealthCheckApi(APIView):
    """Check the device now: broker round trip, clock offset, crypto self-test and
    network-profile capability, measured by its agent; the answer arrives in `health`."""

    @extend_schema(
        operation_id="devices_health_check", request=None, responses={202: DeviceOutputSerializer}
    )
    def post(self, request: Request, device_id: UUID) -> Response:
        device = device_get(workspace=workspace_for_user(user=request.user), device_id=device_id)
        device = device_health_check(device=device)
        return Response(DeviceOutputSerializer(device).data, status=status.HTTP_202_ACCEPTED)


class DeviceRevokeApi(APIView):
    """Revoke the agent: its token stops working and it gets no more runs."""

    @extend_schema(operation_id="devices_revoke", request=None, responses={204: None})
    def post(self, request: Request, device_id: UUID) -> Response:
        device = device_get(workspace=workspace_for_user(user=request.user), device_id=device_id)
        device_revoke(device=device)
        return Response(status=status.HTTP_204_NO_CONTENT)


class AgentTimeApi(APIView):
    """The platform's clock for an agent's NTP-style offset probes (health checks)."""

    authentication_classes = [DeviceTokenAuthentication]
    permission_classes = [IsDevice]

    @extend_schema_serializer(component_name="AgentTime")
    class OutputSerializer(serializers.Serializer[object]):
        received_ns = serializers.IntegerField(help_text="Wall clock when the request came in.")
        sent_ns = serializers.IntegerField(help_text="Wall clock just before answering.")

    @extend_schema(operation_id="agent_time", request=None, responses=OutputSerializer)
    def post(self, request: Request) -> Response:
        received_ns = time.time_ns()
        return Response({"received_ns": received_ns, "sent_ns": time.time_ns()})


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


@extend_schema_serializer(component_name="AgentBrokerIdentity")
class AgentBrokerIdentitySerializer(serializers.Serializer[object]):
    ca_cert = serializers.CharField(help_text="CA of the broker's TLS listener (PEM).")
    client_cert = serializers.CharField(
        help_text="The device's client certificate for the CSR's key, CN = device id."
    )
    data_username = serializers.CharField(help_text="User on the plain listener.")
    data_password = serializers.CharField(
        help_text="Its password: grants this device's data topics only."
    )


class AgentEnrollApi(APIView):
    """An agent exchanges a one-time enrollment token for its identity (control-plane §1)."""

    authentication_classes: list[type] = []
    permission_classes = [AllowAny]

    @extend_schema_serializer(component_name="AgentEnrollInput")
    class InputSerializer(serializers.Serializer[object]):
        token = serializers.CharField()
        name = serializers.CharField(max_length=120)
        facts = serializers.DictField(required=False, default=dict)
        csr = serializers.CharField(
            required=False,
            max_length=CSR_MAX_CHARS,
            help_text="PEM certificate signing request for the broker key the agent made "
            "(required when the platform's broker gives devices identities).",
        )

    @extend_schema_serializer(component_name="AgentEnrollment")
    class OutputSerializer(serializers.Serializer[object]):
        device_id = serializers.UUIDField()
        api_token = serializers.CharField()
        mqtt_url = serializers.CharField()
        job_public_key = serializers.CharField()
        topic_prefix = serializers.CharField()
        mqtt_identity = AgentBrokerIdentitySerializer(
            allow_null=True, help_text="The device's broker identity; null: an anonymous broker."
        )

    @extend_schema(
        operation_id="agent_enroll",
        request=InputSerializer,
        responses={201: OutputSerializer},
        auth=[],
    )
    def post(self, request: Request) -> Response:
        serializer = self.InputSerializer(data=request.data)
        serializer.is_valid(raise_exception=True)
        device, api_token, identity = device_enroll(**serializer.validated_data)
        data = self.OutputSerializer(
            {
                "device_id": device.id,
                "api_token": api_token,
                "mqtt_url": settings.MQTT_URL,
                "job_public_key": job_public_key_b64(),
                "topic_prefix": topics.agent_prefix(str(device.id)),
                "mqtt_identity": None if identity is None else asdict(identity),
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
