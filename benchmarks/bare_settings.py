"""The load benchmark's baseline: a bare Django project (SecurityMiddleware and CommonMiddleware,
one view returning a small JSON), served by gunicorn the same way as GPUQuote. Its req/s is what
Django itself costs on this machine; the calculators are measured as a ratio of it."""

import os

SECRET_KEY = os.environ.get("SECRET_KEY", "bare-view-benchmark-only")
DEBUG = False
ALLOWED_HOSTS = ["127.0.0.1"]
INSTALLED_APPS: list[str] = []
MIDDLEWARE = [
    "django.middleware.security.SecurityMiddleware",
    "django.middleware.common.CommonMiddleware",
]
ROOT_URLCONF = "benchmarks.bare_urls"
DATABASES: dict = {}
USE_TZ = True
