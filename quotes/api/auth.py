"""Who is calling the API: a partner's key, or a signed-in staff member (session).

``ApiKeyAuthentication`` reads ``Authorization: Api-Key <key>`` (or ``Bearer <key>``). A partner
request carries a ``PartnerPrincipal`` as ``request.user``; ``request_partner`` gives the partner
whose data the request may touch, or None for staff, who see everything. Staff means a sales
role (``quotes.roles``), never ``is_staff`` alone. Throttles: one bucket
per key (``partner`` rate) and the anonymous rate per client IP for the public calculators;
wrong keys count against a budget per client IP (``API_KEY_FAILURE_RATE``). The client IP is
``gpuquote.core.client_ip`` (``NUM_PROXIES``) everywhere.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from django.conf import settings
from django.utils.translation import gettext_lazy as _
from drf_spectacular.extensions import OpenApiAuthenticationExtension
from rest_framework.authentication import BaseAuthentication, get_authorization_header
from rest_framework.exceptions import AuthenticationFailed, Throttled
from rest_framework.permissions import SAFE_METHODS, BasePermission
from rest_framework.request import Request
from rest_framework.throttling import SimpleRateThrottle

from gpuquote.core.client_ip import client_ip
from quotes.models import ApiKey, Partner
from quotes.partner_services import api_key_authenticate
from quotes.roles import may_change_partner_webhooks, sales_role

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


class ApiKeyFailureThrottle(SimpleRateThrottle):
    """``API_KEY_FAILURE_RATE`` wrong, expired or revoked keys per client address (guessing keys).
    Only failures count; over the budget every keyed request from the address is refused."""

    scope = "api_key_failure"

    def get_rate(self) -> str:
        return settings.API_KEY_FAILURE_RATE

    def get_cache_key(self, request: Request, view: Any) -> str:
        return self.cache_format % {"scope": self.scope, "ident": client_ip(request)}

    def over_budget(self, request: Request) -> bool:
        self.key = self.get_cache_key(request, None)
        self.history = self.cache.get(self.key, [])
        self.now = self.timer()
        while self.history and self.history[-1] <= self.now - self.duration:
            self.history.pop()
        return len(self.history) >= self.num_requests

    def failure_record(self) -> None:
        """After ``over_budget``: count one more failure."""
        self.throttle_success()


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


def request_partner(request: Request) -> Partner | None:
    user = request.user
    return user.partner if isinstance(user, PartnerPrincipal) else None


def is_sales_staff(user: Any) -> bool:
    """A signed-in member of the sales team (``quotes.roles``): ``is_staff`` alone is not."""
    return not isinstance(user, PartnerPrincipal) and sales_role(user) is not None


class IsPartnerOrSalesStaff(BasePermission):
    """Partners (their own data) and the sales team (everything)."""

    message = _("Call with a partner's API key, or sign in as a member of the sales team.")

    def has_permission(self, request: Request, view: Any) -> bool:
        return isinstance(request.user, PartnerPrincipal) or is_sales_staff(request.user)


class IsPartnerOrWebhookEditor(IsPartnerOrSalesStaff):
    """Webhooks: the partner changes its own; the sales team reads every partner's, and only the
    roles of ``quotes.roles.may_change_partner_webhooks`` (managers, the admin) change them."""

    def has_permission(self, request: Request, view: Any) -> bool:
        if not super().has_permission(request, view):
            return False
        if request.method in SAFE_METHODS or isinstance(request.user, PartnerPrincipal):
            return True
        if may_change_partner_webhooks(sales_role(request.user)):
            return True
        self.message = _("Only a sales manager may change a partner's webhooks.")
        return False


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

    def get_ident(self, request: Request) -> str:
        return client_ip(request)  # NUM_PROXIES: the same address as every per-address rule
