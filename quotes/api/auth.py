"""Who is calling the API: a partner's key, or a signed-in staff member (session).

``ApiKeyAuthentication`` reads ``Authorization: Api-Key <key>`` (or ``Bearer <key>``). A partner
request carries a ``PartnerPrincipal`` as ``request.user``; ``request_partner`` gives the partner
whose data the request may touch, or None for staff, who see everything. Throttles: one bucket
per key (``partner`` rate) and the anonymous rate per client IP for the public calculators.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from django.utils.translation import gettext_lazy as _
from drf_spectacular.extensions import OpenApiAuthenticationExtension
from rest_framework.authentication import BaseAuthentication, get_authorization_header
from rest_framework.exceptions import AuthenticationFailed
from rest_framework.permissions import BasePermission
from rest_framework.request import Request
from rest_framework.throttling import SimpleRateThrottle

from quotes.models import ApiKey, Partner
from quotes.partner_services import api_key_authenticate

SCHEMES = ("api-key", "bearer")


@dataclass(frozen=True, slots=True)
class PartnerPrincipal:
    """``request.user`` of a partner's request (not a Django user: partners never sign in)."""

    partner: Partner
    api_key: ApiKey
    is_authenticated: bool = True
    is_anonymous: bool = False
    is_staff: bool = False
    is_superuser: bool = False
    pk: None = None

    def __str__(self) -> str:
        return f"partner:{self.partner.pk}"


class ApiKeyAuthentication(BaseAuthentication):
    def authenticate(self, request: Request) -> tuple[PartnerPrincipal, ApiKey] | None:
        header = get_authorization_header(request).decode("latin-1")
        scheme, _space, token = header.partition(" ")
        if scheme.lower() not in SCHEMES:
            return None  # no key: anonymous, or session auth decides
        key = api_key_authenticate(token.strip())
        if key is None:
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


def request_partner(request: Request) -> Partner | None:
    user = request.user
    return user.partner if isinstance(user, PartnerPrincipal) else None


def is_sales_staff(user: Any) -> bool:
    if isinstance(user, PartnerPrincipal) or not getattr(user, "is_authenticated", False):
        return False
    from quotes.quote_services import MANAGER_GROUP, REP_GROUP

    return user.is_staff or user.groups.filter(name__in=(REP_GROUP, MANAGER_GROUP)).exists()


class IsPartnerOrSalesStaff(BasePermission):
    """Partners (their own data) and the sales team (everything)."""

    def has_permission(self, request: Request, view: Any) -> bool:
        return isinstance(request.user, PartnerPrincipal) or is_sales_staff(request.user)


class PartnerKeyThrottle(SimpleRateThrottle):
    """``API_PARTNER_RATE`` per key, whatever the endpoint."""

    scope = "partner"

    def get_cache_key(self, request: Request, view: Any) -> str | None:
        if not isinstance(request.auth, ApiKey):
            return None
        return self.cache_format % {"scope": self.scope, "ident": request.auth.pk}


class AnonymousThrottle(SimpleRateThrottle):
    """``API_ANON_RATE`` per client address for requests without a key or session."""

    scope = "anon"

    def get_cache_key(self, request: Request, view: Any) -> str | None:
        if request.user is not None and request.user.is_authenticated:
            return None
        return self.cache_format % {"scope": self.scope, "ident": self.get_ident(request)}
