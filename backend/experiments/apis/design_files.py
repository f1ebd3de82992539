"""The papers' presets and design files: export, import and their JSON Schema."""

from __future__ import annotations

from uuid import UUID

from django.http import HttpResponse
from django.utils.text import slugify
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import extend_schema, extend_schema_serializer
from rest_framework import serializers, status
from rest_framework.parsers import MultiPartParser
from rest_framework.permissions import AllowAny
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from accounts.selectors import workspace_for_user
from experiments import design_file
from experiments.apis.experiments import (
    ExperimentInputSerializer,
    ExperimentOutputSerializer,
    _visible_profiles,
)
from experiments.presets import preset_design, presets
from experiments.selectors import experiment_get
from experiments.services.designs import experiment_create

DESIGN_FILE_NOT_TEXT = "The file is not UTF-8 text; export a design as YAML and upload that."


@extend_schema_serializer(component_name="Preset")
class PresetSerializer(serializers.Serializer[object]):
    slug = serializers.CharField()
    title = serializers.CharField()
    paper = serializers.CharField(help_text="The paper the design reproduces.")
    source_url = serializers.CharField(allow_blank=True)
    tables = serializers.CharField(help_text="The tables and sections the design comes from.")
    devices = serializers.IntegerField(help_text="How many devices the paper used.")
    cells = serializers.IntegerField(
        help_text="How many cells (runs per repeat) the design expands to."
    )
    notes = serializers.ListField(child=serializers.CharField())
    as_in_paper = serializers.ListField(
        child=serializers.CharField(), help_text="The notes on what is as in the paper."
    )
    differs_here = serializers.ListField(
        child=serializers.CharField(),
        help_text="The notes on what differs here from the paper, each saying why.",
    )
    design = serializers.DictField(
        help_text="The experiment input (as POST /api/experiments/ takes it) without "
        "device_ids: pick the devices, then create."
    )


class PresetsApi(APIView):
    """The four papers' designs, each with the paper, its tables and what differs here."""

    @extend_schema(operation_id="presets_list", responses=PresetSerializer(many=True))
    def get(self, request: Request) -> Response:
        workspace = workspace_for_user(user=request.user)
        body = [{**vars(p), "design": preset_design(p, workspace=workspace)} for p in presets()]
        return Response(PresetSerializer(body, many=True).data)


class ExperimentDesignFileApi(APIView):
    """The experiment's design as a YAML file (docs/experiment-design.md)."""

    @extend_schema(
        operation_id="experiments_design_file",
        responses={(200, "application/yaml"): OpenApiTypes.STR},
    )
    def get(self, request: Request, experiment_id: UUID) -> HttpResponse:
        workspace = workspace_for_user(user=request.user)
        experiment = experiment_get(workspace=workspace, experiment_id=experiment_id)
        text = design_file.dump(design_file.from_experiment(experiment))
        response = HttpResponse(text, content_type="application/yaml; charset=utf-8")
        filename = slugify(experiment.name)[:80] or "experiment"
        response["Content-Disposition"] = f'attachment; filename="{filename}.yaml"'
        return response


@extend_schema_serializer(component_name="DesignFileUpload")
class DesignFileUploadSerializer(serializers.Serializer[object]):
    file = serializers.FileField(help_text="A design file (YAML), as exported.")


class ExperimentImportApi(APIView):
    """Create an experiment from a design file: checked against the published schema, then
    by the same rules as the form. Errors name the line or the path of the bad value."""

    parser_classes = [MultiPartParser]

    @extend_schema(
        operation_id="experiments_import",
        request={"multipart/form-data": DesignFileUploadSerializer},
        responses={201: ExperimentOutputSerializer},
    )
    def post(self, request: Request) -> Response:
        upload = DesignFileUploadSerializer(data=request.data)
        upload.is_valid(raise_exception=True)
        raw = upload.validated_data["file"].read(design_file.MAX_FILE_BYTES + 1)
        workspace = workspace_for_user(user=request.user)
        try:
            text = raw.decode("utf-8")
            data = design_file.to_input(design_file.load(text), workspace=workspace)
        except UnicodeDecodeError:
            raise serializers.ValidationError({"file": [DESIGN_FILE_NOT_TEXT]}) from None
        except design_file.DesignFileError as exc:
            raise serializers.ValidationError({exc.field: exc.messages}) from None
        serializer = ExperimentInputSerializer(data=data)
        serializer.is_valid(raise_exception=True)
        validated = dict(serializer.validated_data)
        profile = _visible_profiles(workspace, validated)
        validated.pop("matrix")
        experiment = experiment_create(
            workspace=workspace, user=request.user, network_profile=profile, **validated
        )
        return Response(ExperimentOutputSerializer(experiment).data, status=status.HTTP_201_CREATED)


class DesignSchemaApi(APIView):
    """The JSON Schema of design files (public: nothing in it is private)."""

    authentication_classes: list[type] = []
    permission_classes = [AllowAny]

    @extend_schema(operation_id="experiments_design_schema", responses=OpenApiTypes.OBJECT, auth=[])
    def get(self, request: Request) -> Response:
        return Response(design_file.schema())
