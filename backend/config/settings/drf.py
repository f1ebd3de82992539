"""Django REST framework and the OpenAPI schema (drf-spectacular)."""

REST_FRAMEWORK = {
    # Token first: its WWW-Authenticate header makes "not signed in" a 401, not a 403.
    # Personal API tokens (accounts.ApiToken, stored hashed), not DRF's plaintext authtoken.
    "DEFAULT_AUTHENTICATION_CLASSES": [
        "accounts.authentication.ApiTokenAuthentication",
        "rest_framework.authentication.SessionAuthentication",
    ],
    "DEFAULT_PERMISSION_CLASSES": ["rest_framework.permissions.IsAuthenticated"],
    "DEFAULT_RENDERER_CLASSES": ["rest_framework.renderers.JSONRenderer"],
    "DEFAULT_SCHEMA_CLASS": "drf_spectacular.openapi.AutoSchema",
    "EXCEPTION_HANDLER": "core.exception_handlers.api_exception_handler",
}

SPECTACULAR_SETTINGS = {
    "TITLE": "IoTSecBench API",
    "DESCRIPTION": (
        "Design IoT security benchmark experiments, run them on device agents and read the "
        "results. Users authenticate with a session cookie (the web UI) or "
        "`Authorization: Token <key>`; device agents with `Authorization: Device <token>`."
    ),
    "VERSION": "0.1.0",
    "SERVE_INCLUDE_SCHEMA": False,
    "SERVE_PERMISSIONS": ["rest_framework.permissions.IsAuthenticated"],
    "SWAGGER_UI_DIST": "SIDECAR",
    "SWAGGER_UI_FAVICON_HREF": "SIDECAR",
    "REDOC_DIST": "SIDECAR",
    "ENUM_NAME_OVERRIDES": {
        "RunStatusEnum": "experiments.models.RunStatus",
        "ExperimentKindEnum": "experiments.models.ExperimentKind",
        "BenchOperationEnum": "experiments.models.BenchOperation",
        "MechanismKindEnum": "experiments.catalogue.MECHANISM_KINDS",
        "MechanismEnum": "experiments.catalogue.MECHANISM_CHOICES",
        "ShareKindEnum": "sharing.models.ShareKind",
        "ShareStateEnum": "sharing.models.ShareState",
        "NetworkProfileKindEnum": "netprofiles.models.ProfileKind",
        "CellIntervalLevelEnum": "results.apis.experiment_results.CELL_LEVELS",
        "DifferenceIntervalLevelEnum": "results.apis.experiment_results.DIFFERENCE_LEVELS",
        "VerdictEnum": "results.services.experiment_results.VERDICT_CHOICES",
    },
    # Every error answers with this envelope (core/exception_handlers.py).
    "APPEND_COMPONENTS": {
        "schemas": {
            "ErrorEnvelope": {
                "type": "object",
                "properties": {
                    "message": {"type": "string"},
                    "code": {"type": "string"},
                    "extra": {"type": "object", "additionalProperties": {}},
                },
                "required": ["message", "code", "extra"],
            }
        }
    },
}
