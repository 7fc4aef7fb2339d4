#!/usr/bin/env python
"""Django's command-line utility for administrative tasks.

The profile: DJANGO_SETTINGS_MODULE, else production, or development with DEBUG=true (or, DEBUG
unset, for a command that touches source files only, such as makemigrations).
"""

import sys


def main() -> None:
    from gpuquote.env import set_default_settings_module

    set_default_settings_module()
    from django.core.management import execute_from_command_line

    execute_from_command_line(sys.argv)


if __name__ == "__main__":
    main()
