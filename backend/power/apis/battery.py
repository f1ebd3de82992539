"""Battery-gauge readings: the charge a device's battery reports as used during a run."""

from __future__ import annotations

from uuid import UUID

from drf_spectacular.utils import extend_schema, extend_schema_serializer
from rest_framework import serializers, status
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from accounts.selectors import workspace_for_user
from power.apis.serializers import BatteryReadingOutputSerializer
from power.apis.traces import device_or_400, run_or_400
from power.selectors import battery_reading_get, battery_reading_list
from power.services import battery_reading_delete, battery_reading_record


class PowerBatteryReadingsApi(APIView):
    """List a workspace's battery readings (GET, by run) or record one (POST, upsert)."""

    class FilterSerializer(serializers.Serializer[object]):
        run = serializers.UUIDField(required=False)

    @extend_schema_serializer(component_name="PowerBatteryReadingInput")
    class InputSerializer(serializers.Serializer[object]):
        run = serializers.UUIDField()
        device = serializers.UUIDField(required=False, allow_null=True, default=None)
        # Ranges are checked by battery_reading_record, whose messages say what is allowed.
        charge_mah = serializers.FloatField()
        voltage_v = serializers.FloatField()

    @extend_schema(
        operation_id="power_battery_readings_list",
        parameters=[FilterSerializer],
        responses=BatteryReadingOutputSerializer(many=True),
    )
    def get(self, request: Request) -> Response:
        filters = self.FilterSerializer(data=request.query_params)
        filters.is_valid(raise_exception=True)
        readings = battery_reading_list(
            workspace=workspace_for_user(user=request.user), **filters.validated_data
        )
        return Response(BatteryReadingOutputSerializer(readings, many=True).data)

    @extend_schema(
        operation_id="power_battery_readings_record",
        request=InputSerializer,
        responses={201: BatteryReadingOutputSerializer},
    )
    def post(self, request: Request) -> Response:
        serializer = self.InputSerializer(data=request.data)
        serializer.is_valid(raise_exception=True)
        data = serializer.validated_data
        workspace = workspace_for_user(user=request.user)
        run = run_or_400(workspace, data["run"])
        assert run is not None  # the field is required
        reading = battery_reading_record(
            workspace=workspace,
            user=request.user,
            run=run,
            device=device_or_400(workspace, data["device"]),
            charge_mah=data["charge_mah"],
            voltage_v=data["voltage_v"],
        )
        return Response(
            BatteryReadingOutputSerializer(reading).data, status=status.HTTP_201_CREATED
        )


class PowerBatteryReadingDetailApi(APIView):
    @extend_schema(operation_id="power_battery_readings_delete", responses={204: None})
    def delete(self, request: Request, reading_id: UUID) -> Response:
        reading = battery_reading_get(
            workspace=workspace_for_user(user=request.user), reading_id=reading_id
        )
        battery_reading_delete(reading=reading)
        return Response(status=status.HTTP_204_NO_CONTENT)
