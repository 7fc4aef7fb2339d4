#!/usr/bin/env python
"""Django's command-line utility for administrative tasks.

The profile: DJANGO_SETTINGS_MODULE, else production, or development with DEBUG=true. The
Makefile's development targets (`make run`, `make lint`, `make migrations-check`, ...) name the
development profile themselves.
"""

import sys


def main() -> None:
    from gpuquote.env import set_default_settings_module

    set_default_settings_module()
    from django.conf import settings
    from django.core.management import execute_from_command_line

    # A settings error is raised here, naming what is missing, before Django's command runner
    # could set it aside and fail later on something else (which varies from run to run).
    settings.INSTALLED_APPS  # noqa: B018  (reading it loads the settings)

    execute_from_command_line(sys.argv)


if __name__ == "__main__":
    main()
