"""The application's own Prometheus metrics, defined once (docs/operations.md): counted where
the event happens, in the web process or the Celery worker that handles it, and exported by
``/metrics`` (web) or the worker's metrics port (``gpuquote.ops.task_metrics``). With several
processes per host, ``PROMETHEUS_MULTIPROC_DIR`` gathers them (prometheus-client's multiprocess
mode). What the database already knows (quotes by status, source staleness) is read at scrape
time instead (``gpuquote.ops.metrics``). Pure plumbing: no app import."""

from __future__ import annotations

from prometheus_client import Counter, Histogram

ANSWER_CACHE_LOOKUPS = Counter(
    "gpuquote_answer_cache_lookups_total",
    "Calculator answers asked for, by endpoint and where the answer came from: 'process' "
    "(this process's recent answers), 'shared' (the shared cache), 'computed' (a miss) or "
    "'uncached' (a request that is never cached, e.g. the browsable API).",
    ["endpoint", "result"],
)

WEBHOOK_ATTEMPTS = Counter(
    "gpuquote_webhook_attempts_total",
    "Webhook delivery attempts by outcome: 'succeeded', 'retrying' (a failed attempt that will "
    "be retried) or 'failed' (the last attempt failed: the delivery is given up).",
    ["outcome"],
)

PRICE_REFRESH_RUNS = Counter(
    "gpuquote_price_refresh_runs_total",
    "Finished price refresh runs, by source name and status (applied, applied_with_errors, "
    "rejected, failed, skipped, abandoned).",
    ["source", "status"],
)

CELERY_TASKS = Counter(
    "gpuquote_celery_tasks_total",
    "Celery tasks run, by task name and state: 'succeeded', 'failed' or 'retried'.",
    ["task", "state"],
)

CELERY_TASK_SECONDS = Histogram(
    "gpuquote_celery_task_duration_seconds",
    "How long each Celery task ran, by task name.",
    ["task"],
    buckets=(0.01, 0.05, 0.1, 0.5, 1, 5, 15, 60, 300, 900),
)

CACHE_ERRORS = Counter(
    "gpuquote_cache_errors_total",
    "Operations on the shared cache (Redis) that failed and were answered as an empty cache "
    "(gpuquote.core.cache.FailOpenRedisCache), by operation (get, set, add, incr, ...). While "
    "it grows, cached answers are recomputed and the request limits let requests through.",
    ["operation"],
)
