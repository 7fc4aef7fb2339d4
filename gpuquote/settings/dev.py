"""Development: DEBUG on, the committed development key, the embedded defaults.

Selected by DJANGO_SETTINGS_MODULE=gpuquote.settings.dev (the Makefile's development targets) or,
with DJANGO_SETTINGS_MODULE unset, by DEBUG=true. No variable is required: SQLite in var/, Celery
eager and a local-memory cache unless DATABASE_URL / REDIS_URL say otherwise (base).
"""

from gpuquote.env import DEVELOPMENT_SECRET_KEY as _DEVELOPMENT_KEY
from gpuquote.env import env_list, env_str
from gpuquote.settings.base import *  # noqa: F403  (a settings profile: every name)
from gpuquote.settings.base import REST_FRAMEWORK, STORAGES

DEBUG = True

# A development key only in development: production refuses to start without its own.
SECRET_KEY = env_str("SECRET_KEY") or _DEVELOPMENT_KEY

ALLOWED_HOSTS = env_list("ALLOWED_HOSTS", ["127.0.0.1", "localhost"])

STORAGES = {
    **STORAGES,
    "staticfiles": {"BACKEND": "django.contrib.staticfiles.storage.StaticFilesStorage"},
}

REST_FRAMEWORK = {
    **REST_FRAMEWORK,
    "DEFAULT_RENDERER_CLASSES": [
        "rest_framework.renderers.JSONRenderer",
        "rest_framework.renderers.BrowsableAPIRenderer",
    ],
}
