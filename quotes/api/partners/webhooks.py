"""Partner webhooks over the API: register, list, change, delete, ping, and see the deliveries.

A partner's key sees and changes only that partner's webhooks (another partner's id is a 404,
as if it did not exist); the sales team sees all of them but cannot register one, because a
webhook belongs to a partner. Sales managers and the admin may change, delete or ping any
partner's webhook (support); sales reps only read them (``gpuquote.core.roles``). The signing
secret is returned once, in the answer to the POST.
"""

from __future__ import annotations

from typing import Any

from django.core.exceptions import ValidationError
from django.db.models import QuerySet
from django.shortcuts import get_object_or_404
from django.utils.translation import gettext as _
from drf_spectacular.utils import OpenApiParameter, OpenApiResponse, extend_schema
from rest_framework import generics, serializers, status
from rest_framework.exceptions import PermissionDenied
from rest_framework.request import Request
from rest_framework.response import Response

from gpuquote.api.errors import InputError
from gpuquote.api.fields import SingleLineCharField
from gpuquote.api.parsers import LimitedJSONParser
from quotes.api import schemas
from quotes.api.auth import IsPartnerOrWebhookEditor, request_partner
from quotes.api.calculators import BAD_REQUEST, THROTTLED
from quotes.api.inputs import validated
from quotes.models import WEBHOOK_EVENTS, Webhook, WebhookAttempt, WebhookDelivery
from quotes.partners.webhooks.delivery import attempt_error_public
from quotes.partners.webhooks.events import webhook_ping
from quotes.partners.webhooks.registration import webhook_create, webhook_delete, webhook_update
from quotes.partners.webhooks.selectors import webhook_deliveries_queryset, webhook_queryset

UNAUTHENTICATED = OpenApiResponse(
    schemas.ErrorSchema, description="No API key (or staff session), or an unusable key."
)
NOT_FOUND = OpenApiResponse(
    schemas.ErrorSchema, description="No such webhook among the caller's own."
)
BAD_PAGE = OpenApiResponse(schemas.ErrorSchema, description="No such page.")
WEBHOOK_ID = OpenApiParameter(
    "webhook_id", int, OpenApiParameter.PATH, description="The webhook's id."
)


# --- Request and response shapes ----------------------------------------------------------------


class WebhookCreateInput(serializers.Serializer):
    url = SingleLineCharField(
        max_length=500,
        help_text="Where events are POSTed: https:// (http:// only on development servers).",
    )
    events = serializers.ListField(
        child=serializers.ChoiceField(choices=WEBHOOK_EVENTS),
        required=False,
        allow_empty=False,
        help_text="The events to receive; default: all of them.",
    )


class WebhookUpdateInput(serializers.Serializer):
    url = SingleLineCharField(max_length=500, required=False)
    events = serializers.ListField(
        child=serializers.ChoiceField(choices=WEBHOOK_EVENTS), required=False, allow_empty=False
    )
    is_active = serializers.BooleanField(
        required=False, help_text="An inactive webhook receives nothing."
    )


class WebhookOutput(serializers.ModelSerializer):
    partner = serializers.CharField(source="partner.name", read_only=True)
    events = serializers.ListField(child=serializers.ChoiceField(choices=WEBHOOK_EVENTS))

    class Meta:
        model = Webhook
        fields = ["id", "partner", "url", "events", "is_active", "created_at"]
        read_only_fields = fields


class WebhookCreatedOutput(WebhookOutput):
    secret = serializers.CharField(
        read_only=True,
        help_text="Verifies the GPUQuote-Signature header. Shown only here: store it now.",
    )

    class Meta(WebhookOutput.Meta):
        fields = [*WebhookOutput.Meta.fields, "secret"]
        read_only_fields = fields


class _PublicAttemptError(serializers.CharField):
    def to_representation(self, value: Any) -> str:
        return attempt_error_public(str(value))


class WebhookAttemptOutput(serializers.ModelSerializer):
    error = _PublicAttemptError(
        read_only=True,
        help_text='"" when the receiver answered (see response_status); "unreachable" when no '
        "HTTP answer came (the cause is not disclosed).",
    )

    duration_ms = serializers.IntegerField(
        read_only=True,
        allow_null=True,
        help_text="How long the receiver took to answer; null when no HTTP answer came (how "
        "long a failed connection took is not disclosed either).",
    )

    class Meta:
        model = WebhookAttempt
        fields = ["number", "attempted_at", "response_status", "error", "duration_ms"]
        read_only_fields = fields

    def to_representation(self, instance: WebhookAttempt) -> dict[str, Any]:
        data = super().to_representation(instance)
        if instance.response_status is None:
            # The time a connection took to fail would tell a refused port from a filtered one
            # (a timing port scanner); the operator still sees it in the admin and the logs.
            data["duration_ms"] = None
        return data


class WebhookDeliveryOutput(serializers.ModelSerializer):
    payload = serializers.JSONField(help_text="The JSON body sent (and signed).")
    attempts = WebhookAttemptOutput(many=True, read_only=True)

    class Meta:
        model = WebhookDelivery
        fields = [
            "id",
            "event_id",
            "event_type",
            "status",
            "attempt_count",
            "created_at",
            "delivered_at",
            "payload",
            "attempts",
        ]
        read_only_fields = fields


def _service_errors(exc: ValidationError) -> InputError:
    return InputError({field: list(messages) for field, messages in exc.message_dict.items()})


# --- Views --------------------------------------------------------------------------------------


class WebhookListView(generics.ListAPIView):
    permission_classes = [IsPartnerOrWebhookEditor]
    serializer_class = WebhookOutput
    # A webhook is registered in JSON, as every partner request is: no form or multipart body
    # (a malformed one answered an undocumented 415).
    parser_classes = [LimitedJSONParser]

    def get_queryset(self) -> QuerySet[Webhook]:
        return webhook_queryset(partner=request_partner(self.request))

    @extend_schema(
        operation_id="webhooks_list",
        summary="The caller's webhooks (all of them for the sales staff), newest first.",
        responses={
            200: WebhookOutput(many=True),
            400: BAD_PAGE,
            401: UNAUTHENTICATED,
            429: THROTTLED,
        },
    )
    def get(self, request: Request, *args: Any, **kwargs: Any) -> Response:
        return super().get(request, *args, **kwargs)

    @extend_schema(
        operation_id="webhooks_create",
        summary="Register a webhook; the answer carries its signing secret, shown only once.",
        request=WebhookCreateInput,
        responses={
            201: WebhookCreatedOutput,
            400: BAD_REQUEST,
            401: UNAUTHENTICATED,
            403: OpenApiResponse(
                schemas.ErrorSchema, description="Not a partner's key (staff cannot register)."
            ),
            429: THROTTLED,
        },
    )
    def post(self, request: Request) -> Response:
        partner = request_partner(request)
        if partner is None:
            raise PermissionDenied(
                _("Register webhooks with a partner's API key: a webhook belongs to a partner.")
            )
        data = validated(WebhookCreateInput, request.data)
        try:
            webhook = webhook_create(partner=partner, url=data["url"], events=data.get("events"))
        except ValidationError as exc:
            raise _service_errors(exc) from exc
        return Response(WebhookCreatedOutput(webhook).data, status=status.HTTP_201_CREATED)


class WebhookDetailView(generics.GenericAPIView):
    permission_classes = [IsPartnerOrWebhookEditor]
    serializer_class = WebhookOutput
    lookup_url_kwarg = "webhook_id"

    def get_queryset(self) -> QuerySet[Webhook]:
        return webhook_queryset(partner=request_partner(self.request))

    @extend_schema(
        operation_id="webhooks_retrieve",
        summary="One webhook (never its secret).",
        parameters=[WEBHOOK_ID],
        responses={200: WebhookOutput, 401: UNAUTHENTICATED, 404: NOT_FOUND, 429: THROTTLED},
    )
    def get(self, request: Request, webhook_id: int) -> Response:
        return Response(WebhookOutput(self.get_object()).data)

    @extend_schema(
        operation_id="webhooks_partial_update",
        summary="Change the URL, the events or whether the webhook is active.",
        parameters=[WEBHOOK_ID],
        request=WebhookUpdateInput,
        responses={
            200: WebhookOutput,
            400: BAD_REQUEST,
            401: UNAUTHENTICATED,
            404: NOT_FOUND,
            429: THROTTLED,
        },
    )
    def patch(self, request: Request, webhook_id: int) -> Response:
        webhook = self.get_object()
        data = validated(WebhookUpdateInput, request.data)
        try:
            webhook = webhook_update(webhook=webhook, **data)
        except ValidationError as exc:
            raise _service_errors(exc) from exc
        return Response(WebhookOutput(webhook).data)

    @extend_schema(
        operation_id="webhooks_destroy",
        summary="Delete the webhook, with its deliveries.",
        parameters=[WEBHOOK_ID],
        responses={204: None, 401: UNAUTHENTICATED, 404: NOT_FOUND, 429: THROTTLED},
    )
    def delete(self, request: Request, webhook_id: int) -> Response:
        webhook_delete(webhook=self.get_object())
        return Response(status=status.HTTP_204_NO_CONTENT)


class WebhookDeliveryListView(generics.ListAPIView):
    permission_classes = [IsPartnerOrWebhookEditor]
    serializer_class = WebhookDeliveryOutput

    def get_queryset(self) -> QuerySet[WebhookDelivery]:
        if getattr(self, "swagger_fake_view", False):  # schema generation: no request
            return WebhookDelivery.objects.none()
        webhook = get_object_or_404(
            webhook_queryset(partner=request_partner(self.request)), pk=self.kwargs["webhook_id"]
        )
        return webhook_deliveries_queryset(webhook=webhook)

    @extend_schema(
        operation_id="webhooks_deliveries_list",
        summary="The webhook's deliveries, newest first, each with its attempts.",
        parameters=[WEBHOOK_ID],
        responses={
            200: WebhookDeliveryOutput(many=True),
            400: BAD_PAGE,
            401: UNAUTHENTICATED,
            404: NOT_FOUND,
            429: THROTTLED,
        },
    )
    def get(self, request: Request, *args: Any, **kwargs: Any) -> Response:
        return super().get(request, *args, **kwargs)


class WebhookPingView(generics.GenericAPIView):
    permission_classes = [IsPartnerOrWebhookEditor]
    serializer_class = WebhookDeliveryOutput

    def get_queryset(self) -> QuerySet[Webhook]:
        return webhook_queryset(partner=request_partner(self.request))

    @extend_schema(
        operation_id="webhooks_ping",
        summary="Send a webhook.ping test event to this webhook only; it is delivered shortly.",
        parameters=[WEBHOOK_ID],
        request=None,
        responses={
            202: WebhookDeliveryOutput,
            400: OpenApiResponse(schemas.ErrorSchema, description="The webhook is inactive."),
            401: UNAUTHENTICATED,
            404: NOT_FOUND,
            429: THROTTLED,
        },
    )
    def post(self, request: Request, webhook_id: int) -> Response:
        webhook = get_object_or_404(self.get_queryset(), pk=webhook_id)
        try:
            delivery = webhook_ping(webhook=webhook)
        except ValidationError as exc:
            raise _service_errors(exc) from exc
        return Response(WebhookDeliveryOutput(delivery).data, status=status.HTTP_202_ACCEPTED)
