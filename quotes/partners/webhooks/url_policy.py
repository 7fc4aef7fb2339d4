"""Which receiver URLs a partner may register: http(s) only (https only in production), and the
host must resolve to public addresses only (``gpuquote.core.outbound``; each delivery checks
again, ``quotes.partners.webhooks.delivery``)."""

from __future__ import annotations

from django.conf import settings
from django.core.exceptions import ValidationError
from django.core.validators import URLValidator
from django.utils.translation import gettext as _

from gpuquote.core.outbound import outbound_url_errors


def webhook_url_errors(url: str) -> list[str]:
    """Why a receiver URL is refused: http(s) only (in production https only), and its host
    must resolve, now, to public addresses only (``gpuquote.core.outbound``; each delivery
    checks again). Private hosts: only those in ``OUTBOUND_ALLOW_PRIVATE_HOSTS``."""
    production = not settings.DEBUG
    schemes = ["https"] if production else ["http", "https"]
    try:
        URLValidator(schemes=schemes)(url)
    except ValidationError:
        if production and url.lower().startswith("http://"):
            return [_("Use an https:// URL: webhooks are sent over TLS only.")]
        return [_("Enter a valid http:// or https:// URL.")]
    return outbound_url_errors(url, https_only=production)


def webhook_url_clean(url: str) -> str:
    """The URL without surrounding blanks; ``ValidationError`` on ``url`` when it is refused."""
    url = url.strip()
    errors = webhook_url_errors(url)
    if errors:
        raise ValidationError({"url": errors})
    return url
