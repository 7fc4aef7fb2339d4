"""Operations: health checks and the Celery heartbeat behind them, Prometheus metrics (web and
tasks), Sentry error reports, and gunicorn's hooks for multiprocess metrics. Not an app: the URLs
(``gpuquote.urls``), the settings and the Celery app (``gpuquote.celery``) wire them in."""
