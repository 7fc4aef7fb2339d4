"""Who is calling the API, as both apps' endpoints see it: a partner's key or a sales session.

A partner request carries a ``PartnerPrincipal`` as ``request.user`` (set by the key
authentication, ``quotes.api.auth.ApiKeyAuthentication``, which owns the key model);
``request_partner`` gives the partner whose data the request may touch, or None for staff, who see
everything. Staff means a sales role (``gpuquote.core.roles``), never ``is_staff`` alone.
Throttles: one bucket per key (``partner`` rate) and the anonymous rate per client IP for the
public calculators; wrong keys count against a budget per client IP (``API_KEY_FAILURE_RATE``).
The client IP is ``gpuquote.core.client_ip`` (``NUM_PROXIES``) everywhere. They count in the
limits' cache (``gpuquote.core.cache``), which lets requests through while Redis fails.

Nothing here imports an app: the catalog's API uses these classes without depending on quotes.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from django.conf import settings
from django.utils.translation import gettext_lazy as _
from rest_framework.authentication import SessionAuthentication
from rest_framework.permissions import BasePermission
from rest_framework.request import Request
from rest_framework.throttling import SimpleRateThrottle

from gpuquote.core.cache import atomic, limits_cache
from gpuquote.core.client_ip import client_ip
from gpuquote.core.roles import sales_role


@dataclass(frozen=True, slots=True)
class PartnerPrincipal:
    """``request.user`` of a partner's request (not a Django user: partners never sign in).
    ``partner`` and ``api_key`` are the quotes app's ``Partner`` and ``ApiKey`` rows."""

    partner: Any
    api_key: Any
    is_authenticated: bool = True
    is_anonymous: bool = False
    is_staff: bool = False
    is_superuser: bool = False
    pk: None = None

    def __str__(self) -> str:
        return f"partner:{self.partner.pk}"


class SessionCookieAuthentication(SessionAuthentication):
    """DRF's session authentication (its CSRF check included), answering at once for a request
    without the session cookie: with no cookie there is no session, so no user. DRF would
    build the lazy user and read the empty session to learn the same (a tenth of a cached
    calculator answer's time), and the API's callers are partners and anonymous clients."""

    def authenticate(self, request: Request) -> tuple[Any, None] | None:
        if settings.SESSION_COOKIE_NAME not in request._request.COOKIES:
            return None
        return super().authenticate(request)


class LimitThrottle(SimpleRateThrottle):
    """DRF's throttle, counting in the limits' cache; its read and write of a client's history
    hold the cache's lock where it has one (embedded production's files), so that two processes
    cannot both write back the history they read and lose a request."""

    cache = limits_cache

    def allow_request(self, request: Request, view: Any) -> bool:
        with atomic(self.cache):
            return super().allow_request(request, view)


class ApiKeyFailureThrottle(LimitThrottle):
    """``API_KEY_FAILURE_RATE`` wrong, expired or revoked keys per client address (guessing keys).
    Only failures count; over the budget every keyed request from the address is refused."""

    scope = "api_key_failure"
    # Set by ``SimpleRateThrottle.__init__`` from ``get_rate()``, which always names a rate.
    num_requests: int
    duration: int

    def get_rate(self) -> str:
        return settings.API_KEY_FAILURE_RATE

    def get_cache_key(self, request: Request, view: Any) -> str:
        return self.cache_format % {"scope": self.scope, "ident": client_ip(request)}

    def over_budget(self, request: Request) -> bool:
        self.key = self.get_cache_key(request, None)
        self._history_read()
        return len(self.history) >= self.num_requests

    def failure_record(self) -> None:
        """After ``over_budget``: count one more failure (the history read again, under the
        cache's lock: other requests may have counted meanwhile)."""
        with atomic(self.cache):
            self._history_read()
            self.throttle_success()

    def _history_read(self) -> None:
        self.history = self.cache.get(self.key, [])
        self.now = self.timer()
        while self.history and self.history[-1] <= self.now - self.duration:
            self.history.pop()


def request_partner(request: Request) -> Any:
    """The partner of a keyed request, or None (staff)."""
    user = request.user
    return user.partner if isinstance(user, PartnerPrincipal) else None


def is_sales_staff(user: Any) -> bool:
    """A signed-in member of the sales team (``gpuquote.core.roles``): ``is_staff`` alone is not."""
    return not isinstance(user, PartnerPrincipal) and sales_role(user) is not None


class IsPartnerOrSalesStaff(BasePermission):
    """Partners (their own data) and the sales team (everything)."""

    message = _("Call with a partner's API key, or sign in as a member of the sales team.")

    def has_permission(self, request: Request, view: Any) -> bool:
        return isinstance(request.user, PartnerPrincipal) or is_sales_staff(request.user)


class PartnerKeyThrottle(LimitThrottle):
    """``API_PARTNER_RATE`` per key, whatever the endpoint."""

    scope = "partner"

    def get_cache_key(self, request: Request, view: Any) -> str | None:
        if not isinstance(request.user, PartnerPrincipal):
            return None
        return self.cache_format % {"scope": self.scope, "ident": request.user.api_key.pk}


class AnonymousThrottle(LimitThrottle):
    """``API_ANON_RATE`` per client address for requests without a key or session."""

    scope = "anon"

    def get_cache_key(self, request: Request, view: Any) -> str | None:
        if request.user is not None and request.user.is_authenticated:
            return None
        return self.cache_format % {"scope": self.scope, "ident": self.get_ident(request)}

    def get_ident(self, request: Request) -> str:
        return client_ip(request)  # NUM_PROXIES: the same address as every per-address rule
