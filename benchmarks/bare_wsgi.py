"""The bare view's WSGI application (DJANGO_SETTINGS_MODULE=benchmarks.bare_settings)."""

from django.core.wsgi import get_wsgi_application

application = get_wsgi_application()
