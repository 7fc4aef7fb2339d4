"""ASGI entry point: DJANGO_SETTINGS_MODULE, else production (or development with DEBUG=true)."""

from django.core.asgi import get_asgi_application

from gpuquote.env import set_default_settings_module

set_default_settings_module()

application = get_asgi_application()
