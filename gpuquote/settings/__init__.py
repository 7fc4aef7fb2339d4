"""Settings profiles (docs/settings.md): base (shared), dev, prod, test.

Which one runs: DJANGO_SETTINGS_MODULE when set (gpuquote.settings.dev / .prod / .test); otherwise
the entry points (manage.py, WSGI, ASGI, Celery) pick prod, or dev when DEBUG=true
(gpuquote.env.set_default_settings_module). Unset means production, which fails closed.

DJANGO_SETTINGS_MODULE=gpuquote.settings, the name from before the profiles, still works and means
the same as leaving it unset: this package then is the profile DEBUG picks.
"""

import os

from gpuquote.env import DEVELOPMENT_SETTINGS, SETTINGS_MODULE_VARIABLE, default_settings_module

if os.environ.get(SETTINGS_MODULE_VARIABLE) == __name__:
    if default_settings_module() == DEVELOPMENT_SETTINGS:
        from gpuquote.settings.dev import *  # noqa: F403
    else:
        from gpuquote.settings.prod import *  # noqa: F403
