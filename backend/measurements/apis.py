"""Agent-facing endpoints of the measurements app (docs/control-plane.md §6)."""

from __future__ import annotations

from uuid import UUID

from drf_spectacular.utils import OpenApiParameter, extend_schema, extend_schema_serializer
from iotsecbench_contract.resources import HEADER as RESOURCES_HEADER
from iotsecbench_contract.resources import ResourcesError, RunResources
from rest_framework import serializers, status
from rest_framework.parsers import BaseParser
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from devices.authentication import DeviceTokenAuthentication, IsDevice
from devices.models import Device
from experiments.models import RunDevice
from experiments.services.agent_events import run_device_fail
from measurements.errors import ChunkFormatError, ChunkTooLarge
from measurements.models import Stream
from measurements.selectors import device_run_part_get
from measurements.services import chunk_receive

# A chunk above this is refused from its Content-Length, before it is read
# (core.middleware.BodyLimitMiddleware); an agent chunk (20,000 records) is a few MB.
CHUNK_MAX_BYTES = 16 * 1024 * 1024
HEADERS_MESSAGE = (
    "Send the headers Idempotency-Key, X-Chunk-Index (0-based integer) and X-Final-Chunk "
    "(true/false), plus X-Record-Total on the final chunk."
)
RESOURCES_MESSAGE = (
    "X-Run-Resources must be the run's resources as one JSON object "
    "(docs/control-plane.md §6): {error}."
)
TOO_LARGE_MESSAGE = (
    "The chunk is {size} bytes; a chunk may hold at most {max} bytes ({max_mib} MiB). "
    "Send smaller chunks."
)
# X-Chunk-Index and X-Record-Total are stored in PostgreSQL `integer` columns
# (UploadChunk.index, UploadChunk.record_total, RunDevice.record_total): a larger value
# would fail in the database instead of being refused as a bad request.
HEADER_INT_MAX = 2**31 - 1
HEADER_RANGE_MESSAGE = (
    "{header} must be an integer from 0 to {max}; it was `{value}`. "
    "Number chunks from 0 and send the device's record count."
)


class CsvParser(BaseParser):
    media_type = "text/csv"

    def parse(self, stream, media_type=None, parser_context=None):  # type: ignore[no-untyped-def]
        return stream.read(CHUNK_MAX_BYTES + 1)


def _agent_run_device(request: Request, run_id: UUID) -> RunDevice:
    device = request.auth
    assert isinstance(device, Device)
    return device_run_part_get(device=device, run_id=run_id)


def _header_resources(request: Request) -> RunResources | None:
    """The final chunk's run resources (contract: iotsecbench_contract.resources); None
    without the header (benchmark runs, agents before it); ``chunk_format_invalid`` if the
    header is not a valid object."""
    value = request.headers.get(RESOURCES_HEADER)
    if value is None:
        return None
    try:
        return RunResources.from_header(value)
    except ResourcesError as exc:
        raise ChunkFormatError(RESOURCES_MESSAGE.format(error=exc)) from None


def _header_int(request: Request, header: str) -> str | None:
    """The header's value for the serializer, after refusing an integer outside
    0..HEADER_INT_MAX with `chunk_format_invalid` (non-integers are the serializer's)."""
    value = request.headers.get(header)
    if not value:
        return None
    try:
        number = int(value)
    except ValueError:
        return value
    if not 0 <= number <= HEADER_INT_MAX:
        raise ChunkFormatError(
            HEADER_RANGE_MESSAGE.format(header=header, max=HEADER_INT_MAX, value=value[:40])
        )
    return value


class _ChunkHeaders(serializers.Serializer[object]):
    idempotency_key = serializers.CharField(max_length=200)
    index = serializers.IntegerField(min_value=0, max_value=HEADER_INT_MAX)
    is_final = serializers.BooleanField()
    record_total = serializers.IntegerField(
        min_value=0, max_value=HEADER_INT_MAX, required=False, allow_null=True
    )

    def validate(self, attrs: dict[str, object]) -> dict[str, object]:
        if attrs["is_final"] and attrs.get("record_total") is None:
            raise serializers.ValidationError({"record_total": "Required on the final chunk."})
        return attrs


class AgentChunkUploadApi(APIView):
    """Base of the chunked CSV uploads (docs/control-plane.md §6, §7)."""

    stream = Stream.RECORDS
    authentication_classes = [DeviceTokenAuthentication]
    permission_classes = [IsDevice]
    parser_classes = [CsvParser]

    @classmethod
    def refuse_body_over_limit(cls, content_length: int) -> None:
        """Called by core.middleware.BodyLimitMiddleware before the body is read."""
        if content_length > CHUNK_MAX_BYTES:
            raise ChunkTooLarge(
                TOO_LARGE_MESSAGE.format(
                    size=content_length, max=CHUNK_MAX_BYTES, max_mib=CHUNK_MAX_BYTES // 2**20
                )
            )

    @extend_schema_serializer(component_name="ChunkReceipt")
    class OutputSerializer(serializers.Serializer[object]):
        chunk = serializers.IntegerField()
        records = serializers.IntegerField()
        duplicate = serializers.BooleanField()

    @extend_schema(
        request={"text/csv": {"type": "string"}},
        parameters=[
            OpenApiParameter("Idempotency-Key", str, OpenApiParameter.HEADER, required=True),
            OpenApiParameter("X-Chunk-Index", int, OpenApiParameter.HEADER, required=True),
            OpenApiParameter("X-Final-Chunk", bool, OpenApiParameter.HEADER, required=True),
            OpenApiParameter("X-Record-Total", int, OpenApiParameter.HEADER),
            OpenApiParameter(
                RESOURCES_HEADER,
                str,
                OpenApiParameter.HEADER,
                description="A messaging run's resources on this device (JSON object), on the "
                "final chunk: docs/control-plane.md §6.",
            ),
        ],
        responses={201: OutputSerializer, 200: OutputSerializer},
    )
    def post(self, request: Request, run_id: UUID) -> Response:
        run_device = _agent_run_device(request, run_id)
        headers = _ChunkHeaders(
            data={
                "idempotency_key": request.headers.get("Idempotency-Key"),
                "index": _header_int(request, "X-Chunk-Index"),
                "is_final": request.headers.get("X-Final-Chunk"),
                "record_total": _header_int(request, "X-Record-Total"),
            }
        )
        if not headers.is_valid():
            raise serializers.ValidationError(headers.errors)
        resources = _header_resources(request)
        body = request.data
        if not isinstance(body, bytes):
            raise ChunkFormatError("Send the records as `Content-Type: text/csv`.")
        chunk, created = chunk_receive(
            run_device=run_device,
            stream=self.stream,
            body=body,
            resources=resources if headers.validated_data["is_final"] else None,
            **headers.validated_data,
        )
        lines = body.rstrip(b"\r\n").count(b"\n") if created else chunk.records
        data = {"chunk": chunk.index, "records": lines, "duplicate": not created}
        return Response(data, status=status.HTTP_201_CREATED if created else status.HTTP_200_OK)


class AgentRecordsUploadApi(AgentChunkUploadApi):
    stream = Stream.RECORDS


class AgentSamplesUploadApi(AgentChunkUploadApi):
    stream = Stream.SAMPLES


class AgentRunFailApi(APIView):
    authentication_classes = [DeviceTokenAuthentication]
    permission_classes = [IsDevice]

    @extend_schema_serializer(component_name="AgentRunFailInput")
    class InputSerializer(serializers.Serializer[object]):
        message = serializers.CharField(max_length=2000)

    @extend_schema(operation_id="agent_run_fail", request=InputSerializer, responses={204: None})
    def post(self, request: Request, run_id: UUID) -> Response:
        run_device = _agent_run_device(request, run_id)
        serializer = self.InputSerializer(data=request.data)
        serializer.is_valid(raise_exception=True)
        run_device_fail(run_device=run_device, message=serializer.validated_data["message"])
        return Response(status=status.HTTP_204_NO_CONTENT)
