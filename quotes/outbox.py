"""The transactional outbox lives in ``gpuquote.core.outbox`` (the catalog enqueues through it
too); its ``OutboxJob`` table stays in this app. Re-exported for the quotes code and its tests."""

from gpuquote.core.outbox import OUTBOX_KEEP as OUTBOX_KEEP
from gpuquote.core.outbox import OUTBOX_RETRY_AFTER_S as OUTBOX_RETRY_AFTER_S
from gpuquote.core.outbox import outbox_job_dispatch as outbox_job_dispatch
from gpuquote.core.outbox import outbox_job_enqueue as outbox_job_enqueue
from gpuquote.core.outbox import outbox_jobs_redispatch as outbox_jobs_redispatch
