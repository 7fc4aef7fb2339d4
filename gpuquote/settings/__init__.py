"""Settings profiles (docs/settings.md): base (shared), dev, prod, test.

Which one runs: DJANGO_SETTINGS_MODULE when set (gpuquote.settings.dev / .prod / .test); otherwise
the entry points (manage.py, WSGI, ASGI, Celery) pick prod, or dev when DEBUG=true
(gpuquote.env.set_default_settings_module). Unset means production, which fails closed.

This package is not a profile: DJANGO_SETTINGS_MODULE=gpuquote.settings, the name from before the
profiles, is refused with the names to use instead.
"""

import os

from django.core.exceptions import ImproperlyConfigured

from gpuquote.env import LEGACY_SETTINGS_MODULE, SETTINGS_MODULE_VARIABLE

if os.environ.get(SETTINGS_MODULE_VARIABLE) == LEGACY_SETTINGS_MODULE:
    raise ImproperlyConfigured(
        f"{SETTINGS_MODULE_VARIABLE}={LEGACY_SETTINGS_MODULE} no longer names a settings profile: "
        "use gpuquote.settings.dev (development), gpuquote.settings.prod (production) or "
        f"gpuquote.settings.test, or leave {SETTINGS_MODULE_VARIABLE} unset (production; "
        "DEBUG=true for development)."
    )
