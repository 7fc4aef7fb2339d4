"""What every profile shares, read from the environment (see docs/settings.md).

Not a settings module of its own: dev, prod and test import it and add DEBUG, SECRET_KEY,
ALLOWED_HOSTS, the static-files storage, the API renderers and (prod) the security headers.
DATABASE_URL and REDIS_URL are read here for every profile; without them the embedded defaults
apply (SQLite in var/, Celery eager, local-memory cache), which prod refuses unless
GPUQUOTE_EMBEDDED=1.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from datetime import timedelta
from pathlib import Path
from typing import Any

import dj_database_url
from csp.constants import NONE, SELF
from django.core.exceptions import ImproperlyConfigured
from django.utils.translation import gettext_lazy as _
from django_guid.integrations import CeleryIntegration
from stdnum import bic, iban
from stdnum.fr import siren, siret, tva

from engine.performance.results import Verdict
from engine.workload import Precision
from gpuquote.env import env_bool, env_int, env_list, env_networks, env_str
from gpuquote.settings.logging import log_format, log_level, logging_config

BASE_DIR = Path(__file__).resolve().parent.parent.parent
VAR_DIR = Path(env_str("GPUQUOTE_VAR_DIR") or BASE_DIR / "var")

# A single-machine deployment (SQLite, tasks in-process) says so explicitly; production without
# it refuses to start without DATABASE_URL and REDIS_URL.
GPUQUOTE_EMBEDDED = env_bool("GPUQUOTE_EMBEDDED", default=False)

CSRF_TRUSTED_ORIGINS = env_list("CSRF_TRUSTED_ORIGINS", [])

INSTALLED_APPS = [
    "django.contrib.admin",
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "django.contrib.sessions",
    "django.contrib.messages",
    "whitenoise.runserver_nostatic",
    "django.contrib.staticfiles",
    "rest_framework",
    "drf_spectacular",
    "drf_spectacular_sidecar",
    "django_celery_beat",
    "django_countries",  # ISO 3166 country codes and their names (French included)
    "axes",
    "health_check",  # /healthz and /readyz (gpuquote.ops.health)
    "django_prometheus",  # /metrics (gpuquote.ops.metrics)
    "django_guid",  # a request id in every log line, carried into Celery tasks
    "catalog",
    "quotes",
]

MIDDLEWARE = [
    "django.middleware.security.SecurityMiddleware",
    "gpuquote.core.request_id.RequestIdMiddleware",  # the request id, before anything logs
    "gpuquote.core.csp.SitePolicyCSPMiddleware",  # django-csp, the site policy built once
    "whitenoise.middleware.WhiteNoiseMiddleware",
    "django.contrib.sessions.middleware.SessionMiddleware",
    "django.middleware.locale.LocaleMiddleware",
    "django.middleware.common.CommonMiddleware",
    # Before the CSRF middleware, which reads a form's body: an oversized one is never read.
    "gpuquote.core.form_body.FormBodyLimitMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    "django.contrib.messages.middleware.MessageMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
    "axes.middleware.AxesMiddleware",  # turns a lockout into the lockout page
    # django-prometheus: request rate, latency and status per view (/metrics). Its "before"
    # middleware (the same figures, middlewares included) is left out: ~10 µs a request more.
    "django_prometheus.middleware.PrometheusAfterMiddleware",
]

ROOT_URLCONF = "gpuquote.urls"
WSGI_APPLICATION = "gpuquote.wsgi.application"
ASGI_APPLICATION = "gpuquote.asgi.application"

TEMPLATES = [
    {
        "BACKEND": "django.template.backends.django.DjangoTemplates",
        "DIRS": [BASE_DIR / "templates"],
        "APP_DIRS": True,
        "OPTIONS": {
            "context_processors": [
                "django.template.context_processors.request",
                "django.template.context_processors.i18n",
                "django.contrib.auth.context_processors.auth",
                "django.contrib.messages.context_processors.messages",
            ],
        },
    },
]

# Database: DATABASE_URL (postgres://user@host:5432/name) or SQLite under var/.
_default_sqlite = f"sqlite:///{VAR_DIR / 'gpuquote.sqlite3'}"
DATABASES = {
    "default": dj_database_url.parse(
        env_str("DATABASE_URL") or _default_sqlite,
        conn_max_age=env_int("DB_CONN_MAX_AGE", 60),
        conn_health_checks=True,
    )
}
if DATABASES["default"]["ENGINE"] == "django.db.backends.sqlite3":
    VAR_DIR.mkdir(parents=True, exist_ok=True)
    # Several processes and threads share the file: each transaction takes the write lock at
    # BEGIN (IMMEDIATE), waiting up to `timeout` seconds for it, instead of upgrading a read lock
    # mid-transaction, which SQLite refuses at once with "database is locked".
    DATABASES["default"]["OPTIONS"] = {"timeout": 20, "transaction_mode": "IMMEDIATE"}
DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"

# Redis: the Celery broker, result backend and shared cache when REDIS_URL is set. The cache
# answers as an empty one while Redis fails (gpuquote.core.cache: logged, counted, never a 500).
# "limits" holds the request limits' counters (API throttles, HTML rate limits): the same store
# as "default" here (local memory: the same LOCATION shares it); embedded production keeps them
# in files shared by its processes instead (prod.py).
REDIS_URL = env_str("REDIS_URL")
_cache: dict[str, Any]
if REDIS_URL:
    _cache = {
        "BACKEND": "gpuquote.core.cache.FailOpenRedisCache",
        "LOCATION": REDIS_URL,
        "KEY_PREFIX": "gpuquote",
    }
else:
    _cache = {"BACKEND": "django.core.cache.backends.locmem.LocMemCache", "LOCATION": "gpuquote"}
CACHES = {"default": _cache, "limits": dict(_cache)}

CELERY_BROKER_URL = REDIS_URL or "memory://"
CELERY_RESULT_BACKEND = REDIS_URL or "cache+memory://"
# Embedded default only: without a broker, tasks run in-process when called.
CELERY_TASK_ALWAYS_EAGER = not REDIS_URL
CELERY_TASK_EAGER_PROPAGATES = True
CELERY_TASK_ACKS_LATE = False  # opted into per task, only where the task is idempotent
CELERY_WORKER_PREFETCH_MULTIPLIER = 1
# Redis broker: a message a worker took but never acknowledged (acks_late, the worker died) is
# given to another worker after this long. Longer than any retry countdown (webhooks wait up to
# 1 h), or a waiting retry would be handed out twice.
CELERY_BROKER_TRANSPORT_OPTIONS = {"visibility_timeout": 2 * 60 * 60}
CELERY_TASK_TIME_LIMIT = 15 * 60
# Webhook attempts have their own queue (and worker: Procfile "webhooks"), so a slow partner
# never delays e-mails or price refreshes on the default "celery" queue.
CELERY_TASK_ROUTES = {"quotes.deliver_webhook": {"queue": "webhooks"}}
# Embedded mode (tasks in-process): these tasks never run in the request that queues them; their
# outbox jobs wait for the drain process (`manage.py drain_outbox`, started by `make run` and by
# gunicorn; gpuquote.core.outbox). Webhook deliveries: a partner's receiver may take seconds.
EMBEDDED_BACKGROUND_TASKS = env_list("EMBEDDED_BACKGROUND_TASKS", ["quotes.deliver_webhook"])
CELERY_BEAT_SCHEDULER = "django_celery_beat.schedulers:DatabaseScheduler"
CELERY_TIMEZONE = "UTC"

AUTH_PASSWORD_VALIDATORS = [
    {"NAME": "django.contrib.auth.password_validation.UserAttributeSimilarityValidator"},
    {
        "NAME": "django.contrib.auth.password_validation.MinimumLengthValidator",
        "OPTIONS": {"min_length": 12},
    },
    {"NAME": "django.contrib.auth.password_validation.CommonPasswordValidator"},
    {"NAME": "django.contrib.auth.password_validation.NumericPasswordValidator"},
]

# Brute-force protection (django-axes) on every password login (/staff/login/, /admin/login/):
# after AXES_FAILURE_LIMIT failures one user name from one address (gpuquote.core.client_ip) is
# locked out for AXES_COOLOFF_MINUTES; an admin unlocks under Admin > Axes or with the
# axes_reset_* commands. A success clears the earlier failures.
AUTHENTICATION_BACKENDS = [
    "axes.backends.AxesStandaloneBackend",  # first: refuses a locked-out login before checking
    "django.contrib.auth.backends.ModelBackend",
]
AXES_FAILURE_LIMIT = env_int("AXES_FAILURE_LIMIT", 5)
AXES_COOLOFF_TIME = timedelta(minutes=env_int("AXES_COOLOFF_MINUTES", 60))
AXES_LOCKOUT_PARAMETERS = [["username", "ip_address"]]
# ... and one address is locked out, whatever the user name, after this many failures within
# the cool-off (password spraying: one password tried on many user names).
AXES_HANDLER = "gpuquote.core.lockout.AddressLimitedHandler"
AXES_ADDRESS_FAILURE_LIMIT = env_int("AXES_ADDRESS_FAILURE_LIMIT", 20)
AXES_RESET_ON_SUCCESS = env_bool("AXES_RESET_ON_SUCCESS", default=True)
AXES_CLIENT_IP_CALLABLE = "gpuquote.core.client_ip.client_ip"
AXES_LOCKOUT_CALLABLE = "gpuquote.core.lockout.lockout_response"
AXES_VERBOSE = False  # lockouts are still logged; not its start-up banner on every command

LANGUAGE_CODE = "en"
LANGUAGES = [("en", _("English")), ("fr", _("French"))]
# Day-month dates and a 24-hour clock in English too (gpuquote/formats/en/formats.py).
FORMAT_MODULE_PATH = ["gpuquote.formats"]
LOCALE_PATHS = [BASE_DIR / "locale"]
TIME_ZONE = "Europe/Paris"
USE_I18N = True
USE_TZ = True

STATIC_URL = "static/"
STATIC_ROOT = VAR_DIR / "staticfiles"
STATIC_ROOT.mkdir(parents=True, exist_ok=True)  # whitenoise expects it even before collectstatic
STATICFILES_DIRS = [BASE_DIR / "static"]
# "staticfiles" is the profile's: plain files in dev, whitenoise's manifest in prod.
STORAGES = {"default": {"BACKEND": "django.core.files.storage.FileSystemStorage"}}

# E-mail: console backend by default; SMTP (or any backend) from the environment.
EMAIL_BACKEND = env_str("EMAIL_BACKEND", "django.core.mail.backends.console.EmailBackend")
EMAIL_HOST = env_str("EMAIL_HOST", "localhost")
EMAIL_PORT = env_int("EMAIL_PORT", 25)
EMAIL_HOST_USER = env_str("EMAIL_HOST_USER", "")
EMAIL_HOST_PASSWORD = env_str("EMAIL_HOST_PASSWORD", "")
EMAIL_USE_TLS = env_bool("EMAIL_USE_TLS", default=False)
DEFAULT_FROM_EMAIL = env_str("DEFAULT_FROM_EMAIL", "GPUQuote <quotes@localhost>")
SERVER_EMAIL = DEFAULT_FROM_EMAIL

# How many proxies (load balancers) in front of the app append to X-Forwarded-For: 0 trusts no
# header (REMOTE_ADDR is the client). gpuquote.core.client_ip reads it for every per-address
# rule (API throttles, login lockout, HTML rate limits).
NUM_PROXIES = env_int("NUM_PROXIES", 0)
RATELIMIT_IP_META_KEY = "gpuquote.core.client_ip.client_ip"  # django-ratelimit's key="ip"
# Wrong, expired or revoked API keys allowed per client address; over it every keyed request
# from that address is a 429 until the window passes (quotes.api.auth.ApiKeyFailureThrottle).
API_KEY_FAILURE_RATE = env_str("API_KEY_FAILURE_RATE", "20/minute")

# API request bodies (bytes), refused with a 413 before parsing: a view names its entry with a
# ``body_limit`` class attribute (gpuquote.api.parsers). The calculators take small bodies.
API_BODY_LIMITS = {
    "calculator": env_int("API_CALCULATOR_BODY_BYTES", 65_536),
    "default": env_int("API_BODY_BYTES", 262_144),
}
# JSON bodies: keys plus array items in all, and the longest array, refused while parsing.
API_JSON_MAX_NODES = env_int("API_JSON_MAX_NODES", 5_000)
API_JSON_MAX_ARRAY = env_int("API_JSON_MAX_ARRAY", 1_000)

REST_FRAMEWORK = {
    "NUM_PROXIES": NUM_PROXIES,
    "DEFAULT_SCHEMA_CLASS": "drf_spectacular.openapi.AutoSchema",
    "DEFAULT_AUTHENTICATION_CLASSES": [
        "quotes.api.auth.ApiKeyAuthentication",
        "gpuquote.api.auth.SessionCookieAuthentication",  # DRF's, none without the cookie
    ],
    "DEFAULT_PERMISSION_CLASSES": ["rest_framework.permissions.AllowAny"],
    "DEFAULT_THROTTLE_CLASSES": [
        "quotes.api.auth.AnonymousThrottle",
        "quotes.api.auth.PartnerKeyThrottle",
    ],
    # Per client address without a key / per API key; shared by every host through the limits'
    # cache (Redis when REDIS_URL is set; files in var/ in embedded production).
    "DEFAULT_THROTTLE_RATES": {
        "anon": env_str("API_ANON_RATE", "120/minute"),
        "partner": env_str("API_PARTNER_RATE", "600/minute"),
    },
    "DEFAULT_PAGINATION_CLASS": "gpuquote.api.pagination.Pagination",
    "EXCEPTION_HANDLER": "gpuquote.api.errors.problem_exception_handler",
    # JSON bodies: size, depth, key count and lone surrogates refused before validation.
    "DEFAULT_PARSER_CLASSES": [
        "gpuquote.api.parsers.LimitedJSONParser",
        "gpuquote.api.parsers.LimitedFormParser",
        "gpuquote.api.parsers.LimitedMultiPartParser",
    ],
    # dev adds the browsable API.
    "DEFAULT_RENDERER_CLASSES": ["rest_framework.renderers.JSONRenderer"],
    "COERCE_DECIMAL_TO_STRING": True,
    # DRF's negotiation, with no parsing for the Accept headers every client sends.
    "DEFAULT_CONTENT_NEGOTIATION_CLASS": "gpuquote.api.negotiation.JsonFirstNegotiation",
}
SPECTACULAR_SETTINGS = {
    "TITLE": "GPUQuote API",
    "DESCRIPTION": "Sizing, balanced GPU server configurations and TCO. Memory in GB = 10^9 bytes.",
    "VERSION": "1.0.0",
    "SERVE_INCLUDE_SCHEMA": False,
    "SWAGGER_UI_DIST": "SIDECAR",
    "SWAGGER_UI_FAVICON_HREF": "SIDECAR",
    "REDOC_DIST": "SIDECAR",
    "COMPONENT_SPLIT_REQUEST": True,
    "POSTPROCESSING_HOOKS": [
        "drf_spectacular.hooks.postprocess_schema_enums",
        "gpuquote.api.schema_hooks.problem_media_type_for_errors",
    ],
    # The same precisions name both the weights and the KV cache: one schema component. The
    # same verdicts (good/fair/poor) judge the decode speed and the time to first token.
    "ENUM_NAME_OVERRIDES": {
        "PrecisionEnum": [p.value for p in Precision],
        "VerdictEnum": [v.value for v in Verdict],
    },
}

# Rate limits on the anonymous HTML endpoints (django-ratelimit), per client address (the API's
# NUM_PROXIES rule, gpuquote.core.client_ip), counted in the limits' cache (Redis in production).
# While that cache fails, a limit lets the request through (logged and counted by the cache).
RATELIMIT_USE_CACHE = "limits"
RATELIMIT_FAIL_OPEN = True
WIZARD_RATE = env_str("WIZARD_RATE", "60/m")  # wizard step posts
QUOTE_REQUEST_RATE = env_str("QUOTE_REQUEST_RATE", "10/h")  # quote requests on a result
CHECKLIST_PDF_RATE = env_str("CHECKLIST_PDF_RATE", "30/m")  # checklist PDF downloads
CHECKLIST_PDF_CACHE_SECONDS = env_int("CHECKLIST_PDF_CACHE_SECONDS", 7 * 24 * 60 * 60)
# The calculators' answers (sizing, configurations, TCO), kept in the shared cache under a hash of
# the request and the version of the data they were computed from; 0 turns the cache off.
ANSWER_CACHE_SECONDS = env_int("ANSWER_CACHE_SECONDS", 60 * 60)
# How long a process trusts the data version it last read (milliseconds, 0: read it on every
# request): a price or assumption change reaches every process's answers within this time.
DATA_VERSION_MS = env_int("DATA_VERSION_MS", 1000)
QUOTE_PDF_RATE = env_str("QUOTE_PDF_RATE", "30/m")  # quote PDFs from the customer's link
QUOTE_PDF_CACHE_SECONDS = env_int("QUOTE_PDF_CACHE_SECONDS", 7 * 24 * 60 * 60)
# The public HTML forms (wizard, result page, customer's quote page): a larger body is refused
# with a 413 before it is read (gpuquote.core.form_body).
FORM_BODY_BYTES = env_int("FORM_BODY_BYTES", 65_536)

# Content-Security-Policy (django-csp) on every response: scripts, styles, fonts and fetches from
# the site's own files only, never inline; images also as data: URLs; no plugins, no framing,
# forms post to the site only. The API documentation viewers alone get a narrow relaxation
# (gpuquote/urls.py).
CONTENT_SECURITY_POLICY = {
    "DIRECTIVES": {
        "default-src": [SELF],
        "script-src": [SELF],
        "style-src": [SELF],
        "img-src": [SELF, "data:"],
        "object-src": [NONE],
        "base-uri": [SELF],
        "form-action": [SELF],
        "frame-ancestors": [NONE],
    },
}

# The load balancer's health checks may come over plain HTTP: answered, never redirected.
SECURE_REDIRECT_EXEMPT = [r"^healthz$", r"^readyz$", r"^livez$"]

# Logs (docs/operations.md): stderr, plain text here, JSON lines in production
# (LOG_FORMAT=json|plain); each line carries the request id (DJANGO_GUID below).
LOG_LEVEL = log_level(env_str("LOG_LEVEL", "INFO"))
LOG_FORMAT = log_format(env_str("LOG_FORMAT", "plain"))
LOGGING = logging_config(json=LOG_FORMAT == "json", level=LOG_LEVEL)

# A request id for every request (gpuquote.core.request_id: a plain-UUID X-Request-ID is kept,
# anything else replaced; returned in the response). django-guid holds it for the log filter and
# passes it in the headers of the Celery tasks the request enqueues (its Celery integration).
DJANGO_GUID = {
    "GUID_HEADER_NAME": "X-Request-ID",
    "INTEGRATIONS": [CeleryIntegration()],
}

LOGIN_URL = "admin:login"

# Outbound HTTP (webhooks, price feeds; gpuquote.core.outbound): only public addresses are
# called. Private hosts allowed anyway (an internal supplier), as host names or networks:
# "prices.internal,10.20.0.0/16". Empty by default.
OUTBOUND_ALLOW_PRIVATE_HOSTS = env_list("OUTBOUND_ALLOW_PRIVATE_HOSTS", [])

# Price feeds (docs/price-feeds.md): fetch limits, safety thresholds, staleness, retries.
PRICE_FEED_FETCH_TIMEOUT_SECONDS = env_int("PRICE_FEED_FETCH_TIMEOUT_SECONDS", 30)
PRICE_FEED_FETCH_DEADLINE_SECONDS = env_int("PRICE_FEED_FETCH_DEADLINE_SECONDS", 300)
PRICE_FEED_MAX_BYTES = env_int("PRICE_FEED_MAX_BYTES", 50 * 1024 * 1024)
# File sources are confined to this directory (symlinks and ".." out of it are refused). The
# default is the committed sample feeds only; point it at a dedicated feeds directory.
PRICE_FEED_FILE_ROOT = Path(
    env_str("PRICE_FEED_FILE_ROOT") or BASE_DIR / "catalog" / "feeds" / "samples"
)
PRICE_FEED_MAX_ERROR_PCT = env_int("PRICE_FEED_MAX_ERROR_PCT", 10)
PRICE_FEED_MAX_REPORTED_ERRORS = env_int("PRICE_FEED_MAX_REPORTED_ERRORS", 1000)
PRICE_QUARANTINE_CHANGE_PCT = env_int("PRICE_QUARANTINE_CHANGE_PCT", 40)
PRICE_STALE_DAYS = env_int("PRICE_STALE_DAYS", 60)
# A source is stale when a run its schedule made due has not succeeded within this long (retries
# with backoff included): catalog.selectors.source_health, /metrics, the admin.
PRICE_SOURCE_STALE_GRACE_MINUTES = env_int("PRICE_SOURCE_STALE_GRACE_MINUTES", 120)
PRICE_FEED_LOCK_SECONDS = env_int("PRICE_FEED_LOCK_SECONDS", 20 * 60)
PRICE_FEED_MAX_RETRIES = env_int("PRICE_FEED_MAX_RETRIES", 5)
PRICE_FEED_RETRY_BACKOFF_SECONDS = env_int("PRICE_FEED_RETRY_BACKOFF_SECONDS", 30)
PRICE_FEED_RETRY_BACKOFF_MAX_SECONDS = env_int("PRICE_FEED_RETRY_BACKOFF_MAX_SECONDS", 30 * 60)
# What one feed file may cost to read (catalog.feeds.types.FeedLimits; docs/price-feeds.md): past
# a cap the run fails, naming it, and nothing is applied. Rows per run (the ECB's full history has
# about 200 000 rates); a ZIP's CSV files inflated, in all, and inflated per compressed byte;
# XML nesting and elements; JSON-stat cells (product of the sizes) and characters per JSON number.
PRICE_FEED_MAX_ROWS = env_int("PRICE_FEED_MAX_ROWS", 300_000)
PRICE_FEED_MAX_INFLATED_BYTES = env_int("PRICE_FEED_MAX_INFLATED_BYTES", 50 * 1024 * 1024)
PRICE_FEED_MAX_COMPRESSION_RATIO = env_int("PRICE_FEED_MAX_COMPRESSION_RATIO", 100)
PRICE_FEED_XML_MAX_DEPTH = env_int("PRICE_FEED_XML_MAX_DEPTH", 8)
PRICE_FEED_XML_MAX_NODES = env_int("PRICE_FEED_XML_MAX_NODES", 500_000)
PRICE_FEED_JSONSTAT_MAX_CELLS = env_int("PRICE_FEED_JSONSTAT_MAX_CELLS", 1_000_000)
PRICE_FEED_JSON_MAX_NUMBER_CHARS = env_int("PRICE_FEED_JSON_MAX_NUMBER_CHARS", 40)

# Sales quotes: the discount a sales rep may grant without a manager (percent, over the whole
# contract), how long a quote is valid, and who hears about the customers' answers.
# A decimal string (quotes.sales.selectors reads it as Decimal), e.g. "10" or "12.5".
QUOTE_DISCOUNT_APPROVAL_THRESHOLD_PCT = env_str("QUOTE_DISCOUNT_APPROVAL_THRESHOLD_PCT", "10")
# How far (in percent, a decimal string) a rate staff type may be from the day's reference rate
# before the quote needs a sales manager's approval.
QUOTE_EXCHANGE_RATE_TOLERANCE_PCT = env_str("QUOTE_EXCHANGE_RATE_TOLERANCE_PCT", "2")
QUOTE_VALIDITY_DAYS = env_int("QUOTE_VALIDITY_DAYS", 30)
# The longest a quote may stay open, in days from today, before a sales manager must approve it:
# a quote freezes its catalog prices and exchange rate, and GPU prices and rates move within a
# quarter (the catalog calls a price stale after PRICE_STALE_DAYS = 60); 90 days is one quarter.
QUOTE_VALIDITY_MAX_DAYS = env_int("QUOTE_VALIDITY_MAX_DAYS", 90)
if not 1 <= QUOTE_VALIDITY_DAYS <= QUOTE_VALIDITY_MAX_DAYS:
    raise ImproperlyConfigured(
        f"QUOTE_VALIDITY_DAYS must be 1 to QUOTE_VALIDITY_MAX_DAYS ({QUOTE_VALIDITY_MAX_DAYS}) days"
    )
SALES_NOTIFICATION_EMAIL = env_str("SALES_NOTIFICATION_EMAIL", "sales@localhost")
QUOTE_PAYMENT_TERMS_DAYS = env_int("QUOTE_PAYMENT_TERMS_DAYS", 30)

# Retention (docs/operations.md): how long the daily purges keep what would otherwise grow
# without end. A partner may replay a POST with its Idempotency-Key within this many hours.
IDEMPOTENCY_RETENTION_HOURS = env_int("IDEMPOTENCY_RETENTION_HOURS", 24)
# Finished webhook deliveries (and their attempts) stay this long for support questions.
# One webhook attempt, whole (connect, TLS, request, answer), in seconds; each read also has
# its own 10 s timeout. A receiver that drips its answer is cut off here.
# Ports a webhook or feed URL on a public host may use (hosts in OUTBOUND_ALLOW_PRIVATE_HOSTS
# are exempt): port 0, 25 (mail) and the like are refused at registration and at delivery.
OUTBOUND_ALLOWED_PORTS = env_list("OUTBOUND_ALLOWED_PORTS", ["443", "80", "8443"])
WEBHOOK_DELIVERY_DEADLINE_S = env_int("WEBHOOK_DELIVERY_DEADLINE_S", 15)
WEBHOOK_DELIVERY_RETENTION_DAYS = env_int("WEBHOOK_DELIVERY_RETENTION_DAYS", 90)
# Finished price refresh runs; the latest run of each source is always kept (admin, staleness).
PRICE_REFRESH_RUN_RETENTION_DAYS = env_int("PRICE_REFRESH_RUN_RETENTION_DAYS", 180)
# Wizard results nobody asked a quote for; the customer's result link stops working after this.
ABANDONED_RESULT_RETENTION_DAYS = env_int("ABANDONED_RESULT_RETENTION_DAYS", 90)

# The seller's legal details, printed on every quote: name, address, SIREN/SIRET and VAT number
# (French commercial law), and the bank account the customer pays by transfer. Without
# SELLER_NAME the embedded defaults below describe a demo company, SAMPLE DATA that the quote
# PDF marks as such; production refuses to start without the real ones (prod.py). Every number
# is checked here with python-stdnum, in every profile, so a typo stops the start, not a quote.
_SELLER_SAMPLE = {
    "SELLER_NAME": "GPUQuote Demo SAS",
    "SELLER_ADDRESS": "1 rue de l'Exemple, 75001 Paris, France",
    "SELLER_SIREN": "999999998",
    "SELLER_SIRET": "99999999800019",
    "SELLER_VAT_NUMBER": "FR11999999998",
    "SELLER_IBAN": "FR7699999000010000000000115",
    "SELLER_BIC": "GPUQFRPPXXX",
}
SELLER_IS_SAMPLE = not env_str("SELLER_NAME", "").strip()


def _seller(name: str) -> str:
    value = env_str(name, "").strip()
    return value or (_SELLER_SAMPLE[name] if SELLER_IS_SAMPLE else "")


def _seller_number(name: str, what: str, is_valid: Callable[[str], bool]) -> str:
    """The variable's value without spaces, dots or dashes, upper case; ImproperlyConfigured
    naming it when python-stdnum finds the number malformed or its check digits wrong."""
    value = _seller(name)
    if value and not is_valid(value):
        raise ImproperlyConfigured(f"{name} is not a valid {what}: {value!r}")
    return re.sub(r"[\s.-]", "", value).upper()


SELLER_NAME = _seller("SELLER_NAME")
SELLER_ADDRESS = _seller("SELLER_ADDRESS")
SELLER_SIREN = _seller_number("SELLER_SIREN", "SIREN (9 digits)", siren.is_valid)
SELLER_SIRET = _seller_number("SELLER_SIRET", "SIRET (14 digits)", siret.is_valid)
SELLER_VAT_NUMBER = _seller_number("SELLER_VAT_NUMBER", "French VAT number", tva.is_valid)
SELLER_IBAN = _seller_number("SELLER_IBAN", "IBAN", iban.is_valid)
SELLER_BIC = _seller_number("SELLER_BIC", "BIC (8 or 11 characters)", bic.is_valid)
if SELLER_SIRET and SELLER_SIREN and not SELLER_SIRET.startswith(SELLER_SIREN):
    raise ImproperlyConfigured("SELLER_SIRET is not an establishment of SELLER_SIREN")
if SELLER_VAT_NUMBER and SELLER_SIREN and not SELLER_VAT_NUMBER.endswith(SELLER_SIREN):
    raise ImproperlyConfigured("SELLER_VAT_NUMBER is not the VAT number of SELLER_SIREN")

# /metrics (gpuquote.ops.metrics): readable with "Authorization: Bearer <METRICS_TOKEN>" or from an
# address in METRICS_ALLOWED_NETWORKS ("10.0.0.0/8,192.168.1.5"); neither: no /metrics (404),
# except the loopback in development. A Celery worker exports its task metrics on
# WORKER_METRICS_PORT (unset: not exported), bound to WORKER_METRICS_ADDRESS.
METRICS_TOKEN = env_str("METRICS_TOKEN") or ""
if METRICS_TOKEN and len(METRICS_TOKEN) < 24:
    raise ImproperlyConfigured("METRICS_TOKEN must be at least 24 characters (or unset)")
METRICS_ALLOWED_NETWORKS = env_networks("METRICS_ALLOWED_NETWORKS")
WORKER_METRICS_PORT = env_int("WORKER_METRICS_PORT", 0)
if not 0 <= WORKER_METRICS_PORT <= 65535:
    raise ImproperlyConfigured("WORKER_METRICS_PORT must be a TCP port (1-65535) or 0 (off)")
WORKER_METRICS_ADDRESS = env_str("WORKER_METRICS_ADDRESS") or "127.0.0.1"

# /healthz (gpuquote.ops.health): beat sent its heartbeat, and a worker ran one, within this long.
HEALTH_HEARTBEAT_MAX_AGE_SECONDS = env_int("HEALTH_HEARTBEAT_MAX_AGE_SECONDS", 60)
if not 20 <= HEALTH_HEARTBEAT_MAX_AGE_SECONDS <= 24 * 60 * 60:
    raise ImproperlyConfigured("HEALTH_HEARTBEAT_MAX_AGE_SECONDS must be 20 to 86400 seconds")

# Every periodic task, in one list (django_celery_beat copies it into its database schedule).
CELERY_BEAT_SCHEDULE = {
    # /healthz: beat sent a heartbeat and a worker ran it within a minute (gpuquote.ops.heartbeat).
    "gpuquote-heartbeat": {
        "task": "gpuquote.heartbeat",
        "schedule": HEALTH_HEARTBEAT_MAX_AGE_SECONDS / 4,  # a late one or two do not fail it
        "options": {"expires": HEALTH_HEARTBEAT_MAX_AGE_SECONDS},  # never a backlog of them
    },
    "quotes-expire-daily": {
        "task": "quotes.expire_quotes",
        "schedule": 24 * 60 * 60,  # seconds: once a day; the task is idempotent
    },
    "quotes-outbox-redispatch": {
        "task": "quotes.outbox_redispatch",
        # seconds: after-commit jobs a broker outage kept back (gpuquote.core.outbox)
        "schedule": 60,
    },
    # Retention purges (docs/operations.md): daily, each idempotent and bounded per chunk.
    "quotes-purge-idempotency-records-daily": {
        "task": "quotes.purge_idempotency_records",
        "schedule": 24 * 60 * 60,
    },
    "quotes-purge-webhook-deliveries-daily": {
        "task": "quotes.purge_webhook_deliveries",
        "schedule": 24 * 60 * 60,
    },
    "quotes-purge-abandoned-results-daily": {
        "task": "quotes.purge_abandoned_results",
        "schedule": 24 * 60 * 60,
    },
    "catalog-purge-price-refresh-runs-daily": {
        "task": "catalog.purge_price_refresh_runs",
        "schedule": 24 * 60 * 60,
    },
}

# The site's public address, prefixed to the links in e-mails (the customer's private quote link).
SITE_URL = env_str("SITE_URL", "http://127.0.0.1:8000")
