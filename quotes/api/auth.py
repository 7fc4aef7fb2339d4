"""Partner API keys: the authentication that turns ``Authorization: Api-Key <key>`` (or
``Bearer <key>``) into a ``PartnerPrincipal``, and the webhook editors' permission.

The principal, the permission shared with the catalog's API, and the throttles live in
``gpuquote.api.auth`` (no app import there); they are re-exported here, where the settings and
the partner endpoints name them.
"""

from __future__ import annotations

from typing import Any

from django.utils.translation import gettext_lazy as _
from drf_spectacular.authentication import SessionScheme
from drf_spectacular.extensions import OpenApiAuthenticationExtension
from rest_framework.authentication import BaseAuthentication, get_authorization_header
from rest_framework.exceptions import AuthenticationFailed, Throttled
from rest_framework.permissions import SAFE_METHODS
from rest_framework.request import Request

from gpuquote.api.auth import AnonymousThrottle as AnonymousThrottle
from gpuquote.api.auth import ApiKeyFailureThrottle as ApiKeyFailureThrottle
from gpuquote.api.auth import IsPartnerOrSalesStaff as IsPartnerOrSalesStaff
from gpuquote.api.auth import PartnerKeyThrottle as PartnerKeyThrottle
from gpuquote.api.auth import PartnerPrincipal as PartnerPrincipal
from gpuquote.api.auth import is_sales_staff as is_sales_staff
from gpuquote.api.auth import request_partner as request_partner
from gpuquote.core.roles import may_change_partner_webhooks, sales_role
from quotes.models import ApiKey
from quotes.partners.keys import api_key_authenticate

SCHEMES = ("api-key", "bearer")


class ApiKeyAuthentication(BaseAuthentication):
    def authenticate(self, request: Request) -> tuple[PartnerPrincipal, ApiKey] | None:
        header = get_authorization_header(request).decode("latin-1")
        scheme, _space, token = header.partition(" ")
        if scheme.lower() not in SCHEMES:
            return None  # no key: anonymous, or session auth decides
        failures = ApiKeyFailureThrottle()
        if failures.over_budget(request):  # before the key is looked at
            raise Throttled(wait=failures.wait())
        key = api_key_authenticate(token.strip())
        if key is None:
            failures.failure_record()
            raise AuthenticationFailed(_("The API key is unknown, expired or revoked."))
        return PartnerPrincipal(partner=key.partner, api_key=key), key

    def authenticate_header(self, request: Request) -> str:
        return 'Api-Key realm="GPUQuote API"'  # makes refusals 401, not 403


class ApiKeyScheme(OpenApiAuthenticationExtension):
    target_class = "quotes.api.auth.ApiKeyAuthentication"
    name = "ApiKey"

    def get_security_definition(self, auto_schema: Any) -> dict[str, str]:
        return {
            "type": "apiKey",
            "in": "header",
            "name": "Authorization",
            "description": "`Api-Key <key>` or `Bearer <key>`; keys are issued in the admin.",
        }


class SessionCookieScheme(SessionScheme):
    """The schema's ``cookieAuth``, as for DRF's own session authentication."""

    target_class = "gpuquote.api.auth.SessionCookieAuthentication"


class IsPartnerOrWebhookEditor(IsPartnerOrSalesStaff):
    """Webhooks: the partner changes its own; the sales team reads every partner's, and only
    the roles of ``gpuquote.core.roles.may_change_partner_webhooks`` (managers, the admin)
    change them."""

    def has_permission(self, request: Request, view: Any) -> bool:
        if not super().has_permission(request, view):
            return False
        if request.method in SAFE_METHODS or isinstance(request.user, PartnerPrincipal):
            return True
        if may_change_partner_webhooks(sales_role(request.user)):
            return True
        self.message = _("Only a sales manager may change a partner's webhooks.")
        return False
