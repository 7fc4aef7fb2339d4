"""The client's address, read the same way everywhere: DRF's throttles, django-axes (login
lockout) and django-ratelimit (HTML pages).

``NUM_PROXIES`` (setting, from the environment) says how many proxies in front of the app append
to ``X-Forwarded-For``. 0, the default, trusts no header: the address is ``REMOTE_ADDR``, the
socket's peer. With N proxies the address is the N-th entry from the right, the one the
outermost proxy saw (DRF's rule); the entries to its left are the client's own claims and are
never used. A value that is not an IP address falls back to ``REMOTE_ADDR``.
"""

from __future__ import annotations

import ipaddress

from django.conf import settings
from django.http import HttpRequest


def _valid(address: str) -> bool:
    try:
        ipaddress.ip_address(address)
    except ValueError:
        return False
    return True


def client_ip(request: HttpRequest) -> str:
    """The address that throttles, lockouts and rate limits count against."""
    remote_addr = request.META.get("REMOTE_ADDR", "")
    num_proxies = settings.NUM_PROXIES
    forwarded = request.META.get("HTTP_X_FORWARDED_FOR")
    if num_proxies <= 0 or not forwarded:
        return remote_addr
    addresses = [entry.strip() for entry in forwarded.split(",")]
    chosen = addresses[-min(num_proxies, len(addresses))]
    return chosen if _valid(chosen) else remote_addr
