"""pytest's settings (pyproject.toml): the development profile whatever the caller's shell says.

DEBUG is forced on before the settings module reads it; DATABASE_URL and REDIS_URL are still read
from the environment (CI runs the suite on PostgreSQL and Redis). tests/test_settings.py checks
the production profile itself in fresh interpreters on ``gpuquote.settings``.
"""

import os

os.environ["DEBUG"] = "true"

from gpuquote.settings import *  # noqa: F403  (a settings profile: every name)
