"""The GPU monitoring plan: what to watch on a configuration's GPUs, with
which tools, and when to raise an alert, in the customer's own numbers.

The pipeline is the one the vendors document: an exporter on each server publishes the GPU
metrics in Prometheus's text format (NVIDIA's dcgm-exporter, built on the Data Center GPU
Manager, at http://localhost:9400/metrics; AMD's Device Metrics Exporter at
http://localhost:5000/metrics), Prometheus collects them and checks the alert rules, Grafana
draws them and Alertmanager sends the alerts; ``nvidia-smi`` or ``amd-smi`` stays the quick look
on one server. Each ``Watch`` names the exporter's field, says what it is and when to alert, with
the number worked out for this GPU: power as a share of its TDP, memory as a share of its memory
(GB = 10^9 bytes). Every threshold is a named constant in ``exporters``, with its reason and
source. In managed hosting, ``host_watches`` says what the host watches and acts on for the
customer.

Data, not code: ``exporters.EXPORTERS`` holds each vendor's field names; a vendor missing from it
has no plan.
"""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass
from decimal import ROUND_HALF_UP, Decimal
from types import MappingProxyType

from ..assumptions.gpu_models import (
    AMD_SMI,
    AMD_THERMAL,
    NVIDIA,
    NVIDIA_THERMAL,
    ThermalLimits,
    gpu_architecture,
)
from ..i18n import Message, gettext_noop, ngettext_noop
from .exporters import (
    ALERT_MINUTES,
    ALERTMANAGER,
    AMD_EXPORTER_METRICS,
    ANY_NEW,
    DCGM_EXPORTER_METRICS,
    DCGM_FIELDS,
    EXPORTERS,
    IDLE_HOURS,
    IDLE_UTILISATION_PERCENT,
    MEMORY_ALERT_SHARE,
    NETWORK_LINKS_FIELD,
    NODE_EXPORTER,
    PAGE_RETIREMENT,
    POWER_ALERT_SHARE,
    SEEN_ON,
    THERMAL_MARGIN_C,
    VLLM_ENGINE_ARGS,
    WHAT,
    Exporter,
)


@dataclass(frozen=True, slots=True)
class StackStep:
    """One step of the monitoring pipeline: ``key`` is quick_look, exporter, fields,
    node_exporter, prometheus, dashboards or alerts."""

    key: str
    text: Message
    sources: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class Watch:
    """One thing to watch: ``metric`` is the exporter's field name; ``alert`` the rule in words,
    with the numbers filled in; ``threshold`` the number in the alert, in ``unit`` (None: no
    fixed number, either any new count or a limit the GPU reports itself)."""

    key: str
    metric: str
    what: Message
    alert: Message
    threshold: Decimal | None
    unit: str
    sources: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class MonitoringPlan:
    """The plan for one configuration: ``host_watches`` is what the host watches and acts on in
    managed hosting (empty on premises); the sources were read on ``seen_on``."""

    vendor: str
    stack: tuple[StackStep, ...]
    watches: tuple[Watch, ...]
    host_watches: tuple[Message, ...]
    seen_on: dt.date


def monitoring_plan(
    *,
    vendor: str,
    gpu_name: str,
    memory_gb: Decimal | int,
    tdp_w: int,
    gpus_per_server: int,
    servers: int,
    linked: bool,
    managed: bool,
    architecture: str | None = None,
) -> MonitoringPlan | None:
    """The monitoring plan for ``servers`` servers of ``gpus_per_server`` GPUs of one model
    (``vendor`` as the catalog names it; None: GPUQuote has no monitoring data for it), with
    the GPU's ``memory_gb`` (GB = 10^9 bytes) and ``tdp_w``; ``linked``: the GPUs of a server
    talk over NVLink or Infinity Fabric; ``managed``: the host runs the servers; ``architecture``
    (the catalog's name) picks the temperature limits of its record, else the vendor's."""
    exporter = EXPORTERS.get(vendor)
    if exporter is None:
        return None
    if servers < 1 or gpus_per_server < 1:
        raise ValueError("a monitoring plan needs at least one server and one GPU per server")
    if memory_gb <= 0 or tdp_w <= 0:
        raise ValueError("a GPU's memory and TDP are positive")
    gpu_links = linked and gpus_per_server > 1  # a lone GPU has no link to another
    server_links = servers > 1
    watches = [
        *_temperature_watches(exporter, _thermal_limits(vendor, architecture)),
        _memory_watch(exporter, Decimal(memory_gb)),
        _utilisation_watch(exporter),
        _power_watch(exporter, gpu_name, tdp_w),
        _count_watch(exporter, "ecc_errors", _ecc_sources(vendor)),
        _count_watch(exporter, exporter.error_key, exporter.error_sources),
    ]
    if gpu_links:
        watches.append(_count_watch(exporter, exporter.gpu_link_key, exporter.sources))
    if server_links:
        watches.append(_network_watch())
    stack = _stack(exporter, watches, gpus_per_server * servers, server_links, managed)
    host = _host_watches(exporter, gpu_links, server_links) if managed else ()
    return MonitoringPlan(vendor, stack, tuple(watches), host, SEEN_ON)


def _threshold(value: Decimal) -> Decimal:
    """A threshold to one decimal (332.5 W), whole numbers without one (665 W)."""
    rounded = value.quantize(Decimal("0.1"), rounding=ROUND_HALF_UP)
    return Decimal(int(rounded)) if rounded == rounded.to_integral_value() else rounded


def _figure(value: Decimal) -> int | Decimal:
    """A number for a message parameter: an int when whole, so it reads 665, not 665.0."""
    return int(value) if value == value.to_integral_value() else value


def _percent(share: Decimal) -> int | Decimal:
    return _figure(share * 100)


def _thermal_limits(vendor: str, architecture: str | None) -> ThermalLimits:
    """The temperature limits of the GPU's architecture record, else its vendor's default."""
    found = gpu_architecture(architecture)
    if found is not None and found.vendor == vendor:
        return found.thermal
    return NVIDIA_THERMAL if vendor == NVIDIA else AMD_THERMAL


def _temperature_watches(exporter: Exporter, limits: ThermalLimits) -> tuple[Watch, Watch]:
    gpu_field = exporter.fields["gpu_temperature"]
    memory_field = exporter.fields["memory_temperature"]
    what_gpu = Message(WHAT["gpu_temperature"])
    what_memory = Message(WHAT["memory_temperature"])
    if not limits.slowdown:
        limit = limits.gpu_c
        plain = gettext_noop("Above %(limit)s °C for %(minutes)s minutes.")
        params = {"limit": _figure(limit), "minutes": ALERT_MINUTES}
        gpu = Watch(
            "gpu_temperature",
            gpu_field,
            what_gpu,
            Message(plain, MappingProxyType(params)),
            limit,
            "°C",
            (DCGM_FIELDS, limits.source),
        )
        memory = Watch(
            "memory_temperature",
            memory_field,
            what_memory,
            Message(
                gettext_noop(
                    "Above the limit the GPU reports for its memory: past it, the GPU slows "
                    "itself down."
                )
            ),
            None,
            "°C",
            (DCGM_FIELDS, DCGM_EXPORTER_METRICS),
        )
        return gpu, memory
    return (
        _margin_watch("gpu_temperature", gpu_field, what_gpu, limits.gpu_c),
        _margin_watch(
            "memory_temperature", memory_field, what_memory, limits.memory_c or limits.gpu_c
        ),
    )


def _margin_watch(key: str, metric: str, what: Message, slowdown_c: Decimal) -> Watch:
    """A temperature alert ``THERMAL_MARGIN_C`` below where the GPU slows itself down."""
    limit = slowdown_c - THERMAL_MARGIN_C
    alert = Message(
        gettext_noop(
            "Above %(limit)s °C for %(minutes)s minutes: %(margin)s °C before the GPU slows "
            "itself down."
        ),
        MappingProxyType(
            {
                "limit": _figure(limit),
                "minutes": ALERT_MINUTES,
                "margin": _figure(THERMAL_MARGIN_C),
            }
        ),
    )
    return Watch(key, metric, what, alert, limit, "°C", (AMD_EXPORTER_METRICS, AMD_SMI))


def _memory_watch(exporter: Exporter, memory_gb: Decimal) -> Watch:
    threshold = _threshold(memory_gb * MEMORY_ALERT_SHARE)
    alert = Message(
        gettext_noop(
            "Above %(threshold)s GB of %(memory)s GB (%(share)s %%) for %(minutes)s minutes: more "
            "work would run out of memory."
        ),
        MappingProxyType(
            {
                "threshold": _figure(threshold),
                "memory": _figure(memory_gb),
                "share": _percent(MEMORY_ALERT_SHARE),
                "minutes": ALERT_MINUTES,
            }
        ),
    )
    return Watch(
        "memory_used",
        exporter.fields["memory_used"],
        Message(WHAT["memory_used"]),
        alert,
        threshold,
        "GB",
        (exporter.field_list, VLLM_ENGINE_ARGS),
    )


def _utilisation_watch(exporter: Exporter) -> Watch:
    alert = Message(
        gettext_noop(
            "Below %(threshold)s %% on average over %(hours)s hours: the GPU is paid for but idle."
        ),
        MappingProxyType({"threshold": _figure(IDLE_UTILISATION_PERCENT), "hours": IDLE_HOURS}),
    )
    return Watch(
        "utilisation",
        exporter.fields["utilisation"],
        Message(WHAT["utilisation"]),
        alert,
        IDLE_UTILISATION_PERCENT,
        "%",
        (exporter.field_list,),
    )


def _power_watch(exporter: Exporter, gpu_name: str, tdp_w: int) -> Watch:
    threshold = _threshold(Decimal(tdp_w) * POWER_ALERT_SHARE)
    alert = Message(
        gettext_noop(
            "Above %(threshold)s W for %(minutes)s minutes (%(share)s %% of the %(gpu)s's "
            "%(tdp)s W): the GPU is held at its power limit."
        ),
        MappingProxyType(
            {
                "threshold": _figure(threshold),
                "minutes": ALERT_MINUTES,
                "share": _percent(POWER_ALERT_SHARE),
                "gpu": gpu_name,
                "tdp": tdp_w,
            }
        ),
    )
    return Watch(
        "power",
        exporter.fields["power"],
        Message(WHAT["power"]),
        alert,
        threshold,
        "W",
        (exporter.field_list,),
    )


def _ecc_sources(vendor: str) -> tuple[str, ...]:
    if vendor == NVIDIA:
        return (DCGM_FIELDS, PAGE_RETIREMENT)
    return (AMD_EXPORTER_METRICS,)


def _count_watch(exporter: Exporter, key: str, sources: tuple[str, ...]) -> Watch:
    """A watch on an error count or code: any new one alerts."""
    return Watch(
        key,
        exporter.fields[key],
        Message(WHAT[key]),
        Message(ANY_NEW[key]),
        None,
        "",
        sources,
    )


def _network_watch() -> Watch:
    return Watch(
        "network_links",
        NETWORK_LINKS_FIELD,
        Message(WHAT["network_links"]),
        Message(ANY_NEW["network_links"]),
        None,
        "",
        (NODE_EXPORTER,),
    )


def _stack(
    exporter: Exporter,
    watches: list[Watch],
    gpus: int,
    server_links: bool,
    managed: bool,
) -> tuple[StackStep, ...]:
    steps = [
        StackStep(
            "quick_look",
            Message(
                gettext_noop(
                    "%(tool)s on each server for a quick look at use, memory, temperature and "
                    "power."
                ),
                MappingProxyType({"tool": exporter.tool}),
            ),
            (exporter.tool_source,),
        ),
        StackStep(
            "exporter",
            Message(
                gettext_noop(
                    "%(exporter)s on each server publishes the GPU metrics for Prometheus at "
                    "%(endpoint)s."
                ),
                MappingProxyType({"exporter": exporter.name, "endpoint": exporter.endpoint}),
            ),
            exporter.sources,
        ),
    ]
    needed = [watch.metric for watch in watches]
    needed += [
        exporter.limit_fields[watch.key] for watch in watches if watch.key in exporter.limit_fields
    ]
    missing = [field for field in needed if field in exporter.off_by_default]
    if missing:
        steps.append(
            StackStep(
                "fields",
                Message(
                    gettext_noop(
                        "Add these fields to the exporter's list, which leaves them out: "
                        "%(fields)s."
                    ),
                    MappingProxyType({"fields": ", ".join(missing)}),
                ),
                exporter.sources,
            )
        )
    if server_links:
        steps.append(
            StackStep(
                "node_exporter",
                Message(
                    gettext_noop(
                        "Prometheus node_exporter on each server publishes the state of its "
                        "network links."
                    )
                ),
                (NODE_EXPORTER,),
            )
        )
    steps += [
        StackStep(
            "prometheus",
            Message.counted(
                ngettext_noop(
                    "Prometheus collects the GPU's metrics, keeps their history and checks the "
                    "alert rules below.",
                    "Prometheus collects the metrics of all %(gpus)s GPUs, keeps their history "
                    "and checks the alert rules below.",
                ),
                "gpus",
                gpus=gpus,
            ),
            exporter.prometheus_sources,
        ),
        StackStep("dashboards", exporter.dashboards, exporter.dashboard_sources),
        StackStep("alerts", _alert_routing(managed), (ALERTMANAGER,)),
    ]
    return tuple(steps)


def _alert_routing(managed: bool) -> Message:
    if managed:
        return Message(
            gettext_noop(
                "Alertmanager sends the alerts to the host's on-call staff, and a copy to you."
            )
        )
    return Message(
        gettext_noop("Alertmanager sends the alerts to your team by e-mail, chat or pager.")
    )


def _host_watches(exporter: Exporter, gpu_links: bool, server_links: bool) -> tuple[Message, ...]:
    """What the host watches and acts on in managed hosting."""
    watched = [
        Message(
            gettext_noop(
                "The servers' hardware (fans, power supplies, disks), read from each server's "
                "management controller."
            )
        ),
        Message(
            gettext_noop(
                "Memory (ECC) and driver (%(codes)s) errors: the host checks the GPU and replaces "
                "the faulty part."
            ),
            MappingProxyType({"codes": exporter.error_codes}),
        ),
        Message(
            gettext_noop(
                "Power and cooling: the host keeps each GPU under its temperature and power limits."
            )
        ),
    ]
    if gpu_links:
        watched.append(
            Message(
                gettext_noop(
                    "The %(links)s links between the GPUs: the host has the board serviced if "
                    "errors keep coming."
                ),
                MappingProxyType({"links": exporter.gpu_links}),
            )
        )
    if server_links:
        watched.append(
            Message(
                gettext_noop(
                    "The network links between the servers: the host replaces a failing cable or "
                    "transceiver."
                )
            )
        )
    watched.append(
        Message(
            gettext_noop(
                "The alerts reach the host's on-call staff, who act within your service tier's "
                "times."
            )
        )
    )
    return tuple(watched)
