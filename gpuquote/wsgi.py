"""WSGI entry point (gunicorn gpuquote.wsgi): DJANGO_SETTINGS_MODULE, else production (or
development with DEBUG=true)."""

from django.core.wsgi import get_wsgi_application

from gpuquote.env import set_default_settings_module

set_default_settings_module()

application = get_wsgi_application()
