"""The Celery application: configured from Django settings (CELERY_* names)."""

import os

from celery import Celery

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "gpuquote.settings")

app = Celery("gpuquote")
app.config_from_object("django.conf:settings", namespace="CELERY")
app.autodiscover_tasks()
