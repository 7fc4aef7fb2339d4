"""Schema components shared by both apps' endpoints (for the OpenAPI document only)."""

from __future__ import annotations

from rest_framework import serializers


class ErrorSchema(serializers.Serializer):
    """RFC 9457 problem details, plus ``errors`` naming every bad field (dotted paths)."""

    type = serializers.URLField(help_text="Identifies the kind of problem (see docs/api.md).")
    title = serializers.CharField()
    status = serializers.IntegerField()
    detail = serializers.CharField()
    message = serializers.CharField(help_text="Same as detail (kept for earlier clients).")
    # A declared field: the serializer's metaclass takes it out of the class body, so it never
    # replaces ``Serializer.errors`` (the property the stubs see).
    errors = serializers.DictField(  # type: ignore[assignment]
        child=serializers.ListField(child=serializers.CharField()),
        help_text="Field path -> messages; empty when the problem is not about fields.",
    )
