"""pytest's settings (pyproject.toml): the development profile whatever the caller's shell says.

DEBUG=true is also put in the environment, for the processes the tests start (gunicorn, Celery
workers, manage.py), which inherit DJANGO_SETTINGS_MODULE from pytest. DATABASE_URL and REDIS_URL
are still read from the environment (CI runs the suite on PostgreSQL and Redis).
tests/gpuquote/settings/test_settings.py checks the other profiles in fresh interpreters.
"""

import os

os.environ["DEBUG"] = "true"

from gpuquote.settings.dev import *  # noqa: F403  (a settings profile: every name)

# Tests create users and sign them in: the profile's PBKDF2 (1,000,000 iterations, 0.5-1 s a
# password on a CI machine) cost minutes a run. Test-only; every other profile keeps PBKDF2.
PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]
