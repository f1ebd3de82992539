"""The catalogue: the security mechanisms and experiment kinds an experiment can ask for."""

from __future__ import annotations

from drf_spectacular.utils import extend_schema, extend_schema_serializer
from iotsecbench_contract.mechanisms import MECHANISMS
from rest_framework import serializers
from rest_framework.permissions import AllowAny
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from experiments.catalogue import MECHANISM_KINDS
from experiments.models import ExperimentKind


@extend_schema_serializer(component_name="MechanismInfo")
class MechanismInfoSerializer(serializers.Serializer[object]):
    name = serializers.CharField()
    label = serializers.CharField()  # type: ignore[assignment]  # a declared field, not Field.label
    family = serializers.CharField()
    kind = serializers.ChoiceField(choices=MECHANISM_KINDS)
    key_bits = serializers.IntegerField(allow_null=True)


@extend_schema_serializer(component_name="Choice")
class ChoiceSerializer(serializers.Serializer[object]):
    name = serializers.CharField()
    label = serializers.CharField()  # type: ignore[assignment]  # a declared field, not Field.label


@extend_schema_serializer(component_name="Catalogue")
class CatalogueSerializer(serializers.Serializer[object]):
    mechanisms = MechanismInfoSerializer(many=True)
    experiment_kinds = ChoiceSerializer(many=True)


# The contract's table as the API shows it: no key size (null) where there is no key.
_MECHANISMS = [
    {
        "name": m.name,
        "label": m.label,
        "family": m.family,
        "kind": m.kind,
        "key_bits": m.key_bits or None,
    }
    for m in MECHANISMS
]


class CatalogueApi(APIView):
    """What experiments can ask for: security mechanisms and experiment kinds. Public, as a
    shared page (sharing.apis) needs the mechanisms' labels and nothing in it is private."""

    authentication_classes: list[type] = []
    permission_classes = [AllowAny]

    @extend_schema(operation_id="catalogue", responses=CatalogueSerializer, auth=[])
    def get(self, request: Request) -> Response:
        kinds = [{"name": value, "label": label} for value, label in ExperimentKind.choices]
        data = {"mechanisms": _MECHANISMS, "experiment_kinds": kinds}
        return Response(CatalogueSerializer(data).data)
