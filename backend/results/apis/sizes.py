"""A messaging run's message, byte by byte."""

from __future__ import annotations

from uuid import UUID

from drf_spectacular.utils import extend_schema, extend_schema_serializer
from rest_framework import serializers
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from results.apis.common import messaging_run
from results.errors import RunHasNoDeliveredMessages
from results.services import run_sizes_compute
from results.services.size_model import COMPONENTS, Basis

NO_DELIVERED_MESSAGES_MESSAGE = (
    "Run {run_id} has no delivered message: there are no measured wire bytes to break down."
)


# --- message sizes ----------------------------------------------------------------------


@extend_schema_serializer(component_name="SizeComponent")
class SizeComponentSerializer(serializers.Serializer[object]):
    key = serializers.ChoiceField(choices=[key for key, _, _ in COMPONENTS])
    name = serializers.CharField()
    bytes = serializers.IntegerField()
    basis = serializers.ChoiceField(
        choices=[Basis.MEASURED, Basis.SPEC, Basis.ASSUMED],
        help_text="measured (from wire bytes), spec (computed from the run's parameters) or "
        "assumed (a documented constant per TCP segment or IP packet).",
    )


@extend_schema_serializer(component_name="SizeReferenceFrame")
class SizeReferenceFrameSerializer(serializers.Serializer[object]):
    protocol = serializers.CharField()
    stack = serializers.CharField()
    topic = serializers.CharField()
    message_bytes = serializers.IntegerField(help_text="The MQTT PUBLISH, without TLS.")
    socket_bytes = serializers.IntegerField(
        help_text="TCP payload: the PUBLISH, in TLS records over TLS (record overhead assumed)."
    )
    frame_bytes = serializers.IntegerField(
        help_text="Ethernet frames on the wire, as a packet capture counts them."
    )
    paper_frame_bytes = serializers.IntegerField(
        allow_null=True,
        help_text="The SRUP paper's figure for this protocol (Figure 13: 80 B plain MQTT, "
        "430 B SRUP), given when the run's message is the paper's (1 byte, QoS 1, MQTT 3.1.1).",
    )
    note = serializers.CharField()


@extend_schema_serializer(component_name="SizeBreakdown")
class SizeBreakdownSerializer(serializers.Serializer[object]):
    """One message of the run, byte by byte (docs/results.md, "Message sizes")."""

    run_id = serializers.UUIDField()
    mechanism = serializers.CharField(
        allow_null=True,
        help_text="An interleaved run's mechanism whose messages this breakdown is (their "
        "wire bytes, the model with that mechanism and the 1-byte index); null in any other "
        "run.",
    )
    protocol = serializers.CharField()
    mqtt_version = serializers.CharField()
    qos = serializers.IntegerField()
    transport = serializers.CharField(help_text="The spec's transport (an MQTT field).")
    security = serializers.CharField()
    srup_signature = serializers.CharField(allow_null=True)
    payload_size = serializers.IntegerField()
    messages = serializers.IntegerField(
        source="wire.messages", help_text="Delivered messages whose wire bytes were counted."
    )
    wire_bytes_median = serializers.IntegerField(
        source="wire.median",
        help_text="Measured bytes of a message at the agent's socket (the MQTT packet, in TLS "
        "records over TLS; the UDP payload of the CoAP request or MQTT-SN PUBLISH): the lower "
        "median over delivered messages.",
    )
    wire_bytes_min = serializers.IntegerField(source="wire.min")
    wire_bytes_max = serializers.IntegerField(source="wire.max")
    plaintext_bytes = serializers.IntegerField(
        help_text="The message the run's parameters describe, without TLS (and, for CoAP, "
        "without the token)."
    )
    residual_bytes = serializers.IntegerField(
        help_text="wire_bytes_median - plaintext_bytes: the TLS record overhead over TLS, "
        "the token for CoAP (0 to 8 bytes), otherwise 0 when the model is right."
    )
    model_agrees = serializers.BooleanField()
    warning = serializers.CharField(allow_null=True)
    segments = serializers.IntegerField(
        help_text="TCP segments, or IP packets of the UDP datagram, assumed for one message."
    )
    frame_bytes = serializers.IntegerField(help_text="Sum of the components.")
    components = SizeComponentSerializer(many=True)
    assumptions = serializers.ListField(child=serializers.CharField())
    reference_frames = SizeReferenceFrameSerializer(
        many=True,
        help_text="The SRUP paper's comparison beside this run, from the size model: SRUP's "
        "frame for an MQTT run's payload, the plain MQTT frame (topic test/d1) for a SRUP "
        "run's; empty for CoAP and MQTT-SN.",
    )


@extend_schema_serializer(component_name="RunSizes")
class RunSizesSerializer(SizeBreakdownSerializer):
    """One message of the run, byte by byte (docs/results.md, "Message sizes"); an
    interleaved run's first mechanism's, with every mechanism's in `mechanisms`."""

    mechanisms = SizeBreakdownSerializer(
        many=True,
        help_text="An interleaved run's breakdown per mechanism of its rotation, each judged "
        "(model_agrees) against that mechanism's own messages; [] in any other run.",
    )


class RunSizesApi(APIView):
    @extend_schema(operation_id="runs_sizes", responses=RunSizesSerializer)
    def get(self, request: Request, run_id: UUID) -> Response:
        run = messaging_run(request, run_id)
        sizes = run_sizes_compute(run=run)
        if sizes is None:
            raise RunHasNoDeliveredMessages(NO_DELIVERED_MESSAGES_MESSAGE.format(run_id=run.pk))
        return Response(RunSizesSerializer(sizes).data)
