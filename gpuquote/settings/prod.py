"""Production: DEBUG off, failing closed, secure cookies, HSTS and whitenoise's manifest.

The default profile (DJANGO_SETTINGS_MODULE and DEBUG unset; the Procfile names it). It refuses
to start without a strong SECRET_KEY, ALLOWED_HOSTS, DATABASE_URL and REDIS_URL, naming each one
missing, before anything else is read or created; then without the seller's legal details that
every quote prints (base.py checks their numbers; its demo company is for development only).
GPUQUOTE_EMBEDDED=1 is production on one machine: SQLite in var/, Celery eager, local-memory
cache, still a SECRET_KEY, ALLOWED_HOSTS and the seller's details. There, without REDIS_URL, the
request limits count in files under var/cache/limits/ that every process of the host shares.
"""

import os

from django.core.exceptions import ImproperlyConfigured

from gpuquote.env import DEVELOPMENT_SECRET_KEY as _DEVELOPMENT_KEY
from gpuquote.env import (
    env_bool,
    env_int,
    env_list,
    env_str,
    require_production_environment,
)

require_production_environment(
    embedded=env_bool("GPUQUOTE_EMBEDDED", default=False),
    development_key=_DEVELOPMENT_KEY,
)

# Printed on every quote; base.py would otherwise fill in its demo company (sample data).
SELLER_REQUIRED = (
    "SELLER_NAME",
    "SELLER_ADDRESS",
    "SELLER_SIREN",
    "SELLER_VAT_NUMBER",
    "SELLER_IBAN",  # the BIC is optional: an IBAN is enough for a SEPA transfer
)
_seller_missing = [name for name in SELLER_REQUIRED if not (env_str(name) or "").strip()]
if _seller_missing:
    raise ImproperlyConfigured(
        "Production settings (DEBUG is off) lack the seller's legal details printed on quotes: "
        + "; ".join(f"{name} is not set" for name in _seller_missing)
        + ". Set them (README, Settings)."
    )

from gpuquote.ops.sentry import sentry_init, traces_sample_rate  # noqa: E402
from gpuquote.settings.base import *  # noqa: E402, F403  (a settings profile: every name)
from gpuquote.settings.base import CACHES, LOG_LEVEL, REDIS_URL, STORAGES, VAR_DIR  # noqa: E402
from gpuquote.settings.logging import log_format, logging_config  # noqa: E402

DEBUG = False

SECRET_KEY = os.environ["SECRET_KEY"]  # set and strong: require_production_environment
ALLOWED_HOSTS = env_list("ALLOWED_HOSTS", [])

STORAGES = {
    **STORAGES,
    "staticfiles": {"BACKEND": "whitenoise.storage.CompressedManifestStaticFilesStorage"},
}

# Embedded production runs several gunicorn processes: a limit counted in each one's memory
# would allow that many times its rate. Without Redis the limits' counters live in files all of
# them share, each operation under one lock (gpuquote.core.cache.LockedFileCache).
if not REDIS_URL:
    CACHES = {
        **CACHES,
        "limits": {
            "BACKEND": "gpuquote.core.cache.LockedFileCache",
            "LOCATION": str(VAR_DIR / "cache" / "limits"),
            # Counters live a minute to an hour; expired ones go first when it fills.
            "OPTIONS": {"MAX_ENTRIES": 20_000},
        },
    }

# Production hardening (a load balancer terminates TLS in front).
SECURE_PROXY_SSL_HEADER = ("HTTP_X_FORWARDED_PROTO", "https")
SECURE_SSL_REDIRECT = env_bool("SECURE_SSL_REDIRECT", default=True)
SESSION_COOKIE_SECURE = True
CSRF_COOKIE_SECURE = True
SECURE_HSTS_SECONDS = env_int("SECURE_HSTS_SECONDS", 31_536_000)
SECURE_HSTS_INCLUDE_SUBDOMAINS = True
SECURE_HSTS_PRELOAD = True
SECURE_CONTENT_TYPE_NOSNIFF = True
SECURE_REFERRER_POLICY = "same-origin"
X_FRAME_OPTIONS = "DENY"

# Logs: one JSON object per line for the log pipeline, unless LOG_FORMAT=plain (docs/operations.md,
# "Logs and error reports").
LOG_FORMAT = log_format(env_str("LOG_FORMAT", "json"))
LOGGING = logging_config(json=LOG_FORMAT == "json", level=LOG_LEVEL)

# Error reports go to Sentry only when SENTRY_DSN is set; unset or empty, the SDK never starts.
SENTRY_DSN = env_str("SENTRY_DSN")
SENTRY_ENVIRONMENT = env_str("SENTRY_ENVIRONMENT", "production")
SENTRY_RELEASE = env_str("SENTRY_RELEASE")
SENTRY_TRACES_SAMPLE_RATE = traces_sample_rate(env_str("SENTRY_TRACES_SAMPLE_RATE"))
SENTRY_ENABLED = sentry_init(
    SENTRY_DSN,
    environment=SENTRY_ENVIRONMENT,
    release=SENTRY_RELEASE,
    traces_rate=SENTRY_TRACES_SAMPLE_RATE,
)
