"""What makes the design API strict (issue #19): a field it does not know is a 400 naming
that field, not silently dropped, and a bounded integer's error says the allowed range."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from rest_framework import serializers

UNKNOWN_FIELD = "Unknown field. Known fields: {known}."
OUT_OF_RANGE = "Must be an integer from {minimum} to {maximum}."


def unknown_field_errors(data: object, known: list[str]) -> dict[str, list[str]]:
    """``{field: [UNKNOWN_FIELD]}`` for every key of ``data`` not in ``known``."""
    if not isinstance(data, Mapping):
        return {}
    message = UNKNOWN_FIELD.format(known=", ".join(known))
    return {str(key): [message] for key in data if key not in known}


class StrictSerializer(serializers.Serializer[object]):
    """A serializer that answers every unknown field of its input with a field error, along
    with the errors of the known fields (one 400 lists everything to fix)."""

    def to_internal_value(self, data: Any) -> Any:
        unknown = unknown_field_errors(data, list(self.fields))
        try:
            value = super().to_internal_value(data)
        except serializers.ValidationError as exc:
            if unknown and isinstance(exc.detail, Mapping):
                raise serializers.ValidationError({**unknown, **exc.detail}) from None
            raise
        if unknown:
            raise serializers.ValidationError(unknown)
        return value


def bounded_int(minimum: int, maximum: int, **kwargs: Any) -> serializers.IntegerField:
    """An integer field whose range error names both ends (OUT_OF_RANGE)."""
    message = OUT_OF_RANGE.format(minimum=minimum, maximum=maximum)
    return serializers.IntegerField(
        min_value=minimum,
        max_value=maximum,
        error_messages={"min_value": message, "max_value": message},
        **kwargs,
    )
