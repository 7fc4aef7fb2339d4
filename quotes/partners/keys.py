"""Partner API keys: issue (the raw key is returned once), revoke, authenticate.

Only the key's SHA-256 is stored (``gpuquote.api.signing``); ``last_used_at`` is written at most
once a minute per key so that authentication does not turn every read into a write.
"""

from __future__ import annotations

import datetime as dt
from typing import Any

from django.db import transaction
from django.utils import timezone

from gpuquote.api.signing import key_matches, key_new, key_prefix
from quotes.models import ApiKey, Partner

LAST_USED_RESOLUTION = dt.timedelta(minutes=1)


def api_key_secret_assign(key: ApiKey) -> str:
    """Give an unsaved key its prefix and hash; returns the raw key (show it once)."""
    new = key_new()
    key.prefix, key.key_hash = new.prefix, new.hash
    return new.raw


@transaction.atomic
def api_key_issue(
    *, partner: Partner, name: str, expires_at: dt.datetime | None = None, user: Any = None
) -> tuple[ApiKey, str]:
    """A new key for the partner and its raw value (show it once; it cannot be recovered)."""
    key = ApiKey(
        partner=partner,
        name=name,
        expires_at=expires_at,
        created_by=user if getattr(user, "is_authenticated", False) else None,
    )
    raw = api_key_secret_assign(key)
    key.save()
    return key, raw


def api_key_revoke(*, key: ApiKey) -> ApiKey:
    if key.revoked_at is None:
        key.revoked_at = timezone.now()
        key.save(update_fields=["revoked_at"])
    return key


def api_key_authenticate(raw: str, *, now: dt.datetime | None = None) -> ApiKey | None:
    """The usable key this raw value is, or None (unknown, wrong secret, expired, revoked,
    partner inactive: the caller cannot tell which, on purpose)."""
    prefix = key_prefix(raw)
    if prefix is None:
        return None
    key = ApiKey.objects.select_related("partner").filter(prefix=prefix).first()
    if key is None or not key_matches(raw, key.key_hash):
        return None
    now = now or timezone.now()
    if not key.usable(now):
        return None
    if key.last_used_at is None or now - key.last_used_at >= LAST_USED_RESOLUTION:
        ApiKey.objects.filter(pk=key.pk).update(last_used_at=now)
        key.last_used_at = now
    return key
