"""The Celery application: configured from Django settings (CELERY_* names)."""

from celery import Celery

from gpuquote.env import set_default_settings_module

# DJANGO_SETTINGS_MODULE, else production (or development with DEBUG=true).
set_default_settings_module()

app = Celery("gpuquote")
app.config_from_object("django.conf:settings", namespace="CELERY")
app.autodiscover_tasks()
