"""The transactional outbox's table (``gpuquote.core.outbox`` writes and queues its rows; it
names the model by the ``OUTBOX_JOB_MODEL`` setting and imports no app)."""

from __future__ import annotations

from django.db import models
from django.db.models import Q
from django.utils.translation import gettext_lazy as _


class OutboxJob(models.Model):
    """A Celery task to queue once the transaction that wrote this row has committed (the
    transactional outbox of ``gpuquote.core.outbox``): the job survives a broker outage and is
    queued again by the periodic re-dispatch until the broker took it."""

    task = models.CharField(_("task"), max_length=200)
    args = models.JSONField(_("arguments"), default=list, blank=True)
    kwargs = models.JSONField(_("keyword arguments"), default=dict, blank=True)
    created_at = models.DateTimeField(_("created at"), auto_now_add=True)
    dispatched_at = models.DateTimeField(_("queued at"), null=True, blank=True)
    attempts = models.PositiveIntegerField(_("failed queuing attempts"), default=0)
    last_error = models.CharField(_("last error"), max_length=500, blank=True)

    class Meta:
        ordering = ["created_at", "id"]
        verbose_name = _("outbox job")
        verbose_name_plural = _("outbox jobs")
        constraints = [
            models.CheckConstraint(condition=~Q(task=""), name="%(app_label)s_%(class)s_task_named")
        ]
        indexes = [
            models.Index(
                fields=["created_at"],
                condition=Q(dispatched_at__isnull=True),
                name="%(app_label)s_%(class)s_pending",
            )
        ]

    def __str__(self) -> str:
        state = "queued" if self.dispatched_at else "pending"
        return f"{self.task}{tuple(self.args)} ({state})"
