"""``GET /metrics``: Prometheus metrics (docs/operations.md, "Metrics").

Who may read them: a caller sending ``Authorization: Bearer <METRICS_TOKEN>``, or one whose
address (the TCP peer: a scraper calls each host directly, not through the load balancer) is in
``METRICS_ALLOWED_NETWORKS``. With neither setting, the endpoint does not exist (404), except in
development, where the loopback may read it.

What: django-prometheus's request metrics (rate, latency and status per view), prometheus-client's
process metrics, the counters of ``gpuquote.core.metrics`` (answer cache, webhook attempts, price
refresh runs, Celery tasks run in-process) and, read from the database at each scrape, quotes by
status, pending webhook deliveries and each price source's last success and staleness."""

from __future__ import annotations

import hmac
import ipaddress
from collections.abc import Iterator

from django.conf import settings
from django.db.models import Count
from django.http import Http404, HttpRequest, HttpResponse
from django.utils import timezone
from django.views.decorators.http import require_GET
from prometheus_client import CONTENT_TYPE_LATEST, CollectorRegistry, generate_latest
from prometheus_client.core import GaugeMetricFamily
from prometheus_client.registry import Collector

from catalog.selectors.source_health import price_sources_health
from engine.commerce.workflow import QuoteStatus
from gpuquote.core.choices import values_of
from gpuquote.ops.task_metrics import metrics_registry
from quotes.models import DeliveryStatus, Quote, WebhookDelivery

LOOPBACK = (ipaddress.ip_network("127.0.0.0/8"), ipaddress.ip_network("::1/128"))


class DatabaseCollector(Collector):
    """What the database knows, read when Prometheus scrapes (3 small queries)."""

    def collect(self) -> Iterator[GaugeMetricFamily]:
        quotes = GaugeMetricFamily(
            "gpuquote_quotes", "Quotes (every revision) by status.", labels=["status"]
        )
        counts = dict(Quote.objects.values_list("status").annotate(n=Count("id")))
        for status in values_of(QuoteStatus):
            quotes.add_metric([status], counts.get(status, 0))
        yield quotes

        yield GaugeMetricFamily(
            "gpuquote_webhook_deliveries_pending",
            "Webhook deliveries not yet succeeded or given up.",
            value=WebhookDelivery.objects.filter(status=DeliveryStatus.PENDING).count(),
        )

        last = GaugeMetricFamily(
            "gpuquote_price_source_last_success_timestamp_seconds",
            "When each price source last applied its feed (Unix time; absent: never).",
            labels=["source", "kind"],
        )
        stale = GaugeMetricFamily(
            "gpuquote_price_source_stale",
            "1 when an enabled price source has not succeeded within its schedule plus "
            "PRICE_SOURCE_STALE_GRACE_MINUTES.",
            labels=["source", "kind"],
        )
        for health in price_sources_health(timezone.now()):
            labels = [health.name, health.kind]
            if health.last_success_at is not None:
                last.add_metric(labels, health.last_success_at.timestamp())
            stale.add_metric(labels, int(health.stale))
        yield last
        yield stale


def _allowed(request: HttpRequest) -> bool:
    token = settings.METRICS_TOKEN
    if token:
        sent = request.headers.get("Authorization", "")
        if hmac.compare_digest(sent.encode(), f"Bearer {token}".encode()):
            return True
    try:
        peer = ipaddress.ip_address(request.META.get("REMOTE_ADDR", ""))
    except ValueError:
        return False
    networks = settings.METRICS_ALLOWED_NETWORKS or (LOOPBACK if settings.DEBUG else ())
    return any(peer in network for network in networks)


@require_GET
def metrics(request: HttpRequest) -> HttpResponse:
    if not (settings.METRICS_TOKEN or settings.METRICS_ALLOWED_NETWORKS or settings.DEBUG):
        raise Http404
    if not _allowed(request):
        response = HttpResponse("Forbidden: a metrics token or an allowed address is needed.\n")
        response.status_code = 403
        response["Content-Type"] = "text/plain; charset=utf-8"
        response["WWW-Authenticate"] = 'Bearer realm="metrics"'
        return response
    registry = CollectorRegistry()
    registry.register(metrics_registry())  # a registry is a collector of its metrics
    registry.register(DatabaseCollector())
    return HttpResponse(generate_latest(registry), content_type=CONTENT_TYPE_LATEST)
