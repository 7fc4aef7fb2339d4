"""The Content-Security-Policy header with the site's policy built once per process.

django-csp builds the policy string from the settings on every response. For a response that
nothing changes (no nonce used by the page, no ``csp_update``/``csp_replace``/``csp_exempt``
decorator) the string is always the same, and building it took a fifth of the time of the
cheapest view (``/livez``). This middleware keeps the library: such a response gets
the policy the library itself built, once; any other goes through django-csp unchanged.
"""

from __future__ import annotations

from functools import cache
from typing import Any

from csp.constants import HEADER, HEADER_REPORT_ONLY
from csp.middleware import CheckableLazyObject, CSPMiddleware
from csp.utils import build_policy
from django.conf import settings
from django.core.signals import setting_changed
from django.dispatch import receiver
from django.http import HttpRequest, HttpResponseBase

# What django-csp's decorators set on a response to change its policy.
_RESPONSE_POLICY = (
    "_csp_config",
    "_csp_update",
    "_csp_replace",
    "_csp_exempt",
    "_csp_config_ro",
    "_csp_update_ro",
    "_csp_replace_ro",
    "_csp_exempt_ro",
)


class SitePolicyCSPMiddleware(CSPMiddleware):
    def process_response(
        self, request: HttpRequest, response: HttpResponseBase
    ) -> HttpResponseBase:
        changed = getattr(request, "_csp_nonce", None) is not None or any(
            hasattr(response, name) for name in _RESPONSE_POLICY
        )
        if changed or settings.DEBUG:  # DEBUG: the library leaves its error pages alone
            return super().process_response(request, response)
        for header, policy, excluded in _site_policies():
            if policy and header not in response and not request.path_info.startswith(excluded):
                response[header] = policy
        # As the library does: a nonce asked for after the header is written is an error.
        request.csp_nonce = CheckableLazyObject(self._csp_nonce_post_response)  # type: ignore[attr-defined]
        return response


@cache
def _site_policies() -> tuple[tuple[str, str, tuple[str, ...]], ...]:
    """(header, the policy django-csp builds from the settings, the paths it leaves out)."""
    policies = []
    for header, name, report_only in (
        (HEADER, "CONTENT_SECURITY_POLICY", False),
        (HEADER_REPORT_ONLY, "CONTENT_SECURITY_POLICY_REPORT_ONLY", True),
    ):
        configured: dict[str, Any] = getattr(settings, name, None) or {}
        excluded = tuple(configured.get("EXCLUDE_URL_PREFIXES") or ())
        policies.append((header, build_policy(report_only=report_only), excluded))
    return tuple(policies)


@receiver(setting_changed)
def _policies_forget(*, setting: str, **_kwargs: Any) -> None:
    if setting.startswith("CONTENT_SECURITY_POLICY"):
        _site_policies.cache_clear()
