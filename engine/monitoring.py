"""The GPU monitoring plan (issue 18, point 2): what to watch on a configuration's GPUs, with
which tools, and when to raise an alert, in the customer's own numbers.

The pipeline is the one the vendors document: an exporter on each server publishes the GPU
metrics in Prometheus's text format (NVIDIA's dcgm-exporter, built on the Data Center GPU
Manager, at http://localhost:9400/metrics; AMD's Device Metrics Exporter at
http://localhost:5000/metrics), Prometheus collects them and checks the alert rules, Grafana
draws them and Alertmanager sends the alerts; ``nvidia-smi`` or ``amd-smi`` stays the quick look
on one server. Each ``Watch`` names the exporter's field, says what it is and when to alert, with
the number worked out for this GPU: power as a share of its TDP, memory as a share of its memory
(GB = 10^9 bytes). Every threshold is a named constant below, with its reason and source. In
managed hosting, ``host_watches`` says what the host watches and acts on for the customer.

Data, not code: ``EXPORTERS`` holds each vendor's field names; a vendor missing from it has no plan.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Mapping
from dataclasses import dataclass
from decimal import ROUND_HALF_UP, Decimal
from types import MappingProxyType

from .i18n import Message, gettext_noop, ngettext_noop
from .software import AMD, NVIDIA

# When the sources below were read.
SEEN_ON = dt.date(2026, 12, 4)

# NVIDIA: the exporter's shipped field list and its documentation, the field definitions, the
# Xid catalog (what each driver error code means and what to do), page retirement (Xid 48 is an
# uncorrectable double-bit ECC error), the Prometheus set-up and the exporter's Grafana dashboard.
DCGM_EXPORTER_METRICS = (
    "https://docs.nvidia.com/datacenter/dcgm/latest/reference/dcgm-exporter-metrics.html"
)
DCGM_EXPORTER_COUNTERS = (
    "https://github.com/NVIDIA/dcgm-exporter/blob/main/etc/default-counters.csv"
)
DCGM_EXPORTER_INSTALL = (
    "https://docs.nvidia.com/datacenter/dcgm/latest/installation/install-dcgm-exporter.html"
)
DCGM_FIELDS = "https://docs.nvidia.com/datacenter/dcgm/latest/reference/field-identifiers.html"
DCGM_PROMETHEUS = (
    "https://docs.nvidia.com/datacenter/dcgm/latest/learn/getting-started-for-system-"
    "administrators/configure-prometheus-for-dcgm-exporter.html"
)
DCGM_DASHBOARD = (
    "https://github.com/NVIDIA/dcgm-exporter/blob/main/grafana/dcgm-exporter-dashboard.json"
)
XID_CATALOG = "https://docs.nvidia.com/deploy/xid-errors/analyzing-xid-catalog.html"
PAGE_RETIREMENT = "https://docs.nvidia.com/deploy/dynamic-page-retirement/visibility.html"
NVIDIA_SMI = "https://manpages.ubuntu.com/nvidia-smi"
# AMD: the exporter's documentation and metric list, its Prometheus and Grafana set-up, the AFID
# event list its GPU_AFID_ERRORS field points to, and the amd-smi tool (its `static --limit`
# example for a CDNA 3 GPU gives the temperatures where the GPU slows down).
AMD_EXPORTER = "https://instinct.docs.amd.com/projects/device-metrics-exporter/en/latest/"
AMD_EXPORTER_METRICS = (
    "https://github.com/ROCm/device-metrics-exporter/blob/main/docs/configuration/metricslist.md"
)
AMD_EXPORTER_GRAFANA = (
    "https://instinct.docs.amd.com/projects/device-metrics-exporter/en/latest/integrations/"
    "prometheus-grafana.html"
)
AMD_AFID_LIST = "https://docs.amd.com/r/en-US/AMD_Field_ID_70122_v1.0/AFID-Event-List"
AMD_SMI = "https://rocm.docs.amd.com/projects/amdsmi/en/docs-6.4.2/how-to/amdsmi-cli-tool.html"
# The rest of the pipeline, and the pages behind the rules of thumb.
PROMETHEUS_ALERTING_RULES = (
    "https://prometheus.io/docs/prometheus/latest/configuration/alerting_rules/"
)
ALERTMANAGER = "https://prometheus.io/docs/alerting/alertmanager/"
NODE_EXPORTER = "https://github.com/prometheus/node_exporter"
VLLM_ENGINE_ARGS = "https://docs.vllm.ai/en/latest/models/engine_args.html"
DATADOG_DCGM_TEMPERATURE = (
    "https://github.com/DataDog/integrations-core/blob/master/dcgm/assets/monitors/"
    "gpu_temperature.json"
)

# --- Thresholds: every number an alert uses ------------------------------------------------------
# A reading must hold this long before it alerts, so that a short peak does not page anyone
# (Prometheus's `for` clause; Datadog's recommended DCGM temperature monitor averages 5 minutes).
ALERT_MINUTES = 5
# Power: a GPU drawing 95 % of its TDP for minutes is held at its power limit, where it slows
# itself down; GPUQuote's rule of thumb on the GPU's own TDP.
POWER_ALERT_SHARE = Decimal("0.95")
# Memory: vLLM takes 90 % of the GPU's memory by default (--gpu-memory-utilization 0.9, vLLM's
# engine arguments), so 95 % stays quiet on a normal vLLM server; above it, a bigger batch or a
# longer text runs out of memory. GPUQuote's rule of thumb on the GPU's own memory.
MEMORY_ALERT_SHARE = Decimal("0.95")
# Use: a GPU below 10 % over a whole day is paid for but idle; GPUQuote's rule of thumb.
IDLE_UTILISATION_PERCENT = Decimal(10)
IDLE_HOURS = 24
# NVIDIA GPU temperature: 85 °C, Datadog's recommended DCGM monitor (a rule of thumb: each NVIDIA
# model reports its own slowdown temperature, which the catalog does not hold).
NVIDIA_GPU_TEMPERATURE_C = Decimal(85)
# NVIDIA memory temperature: no fixed number; the GPU reports the memory's maximum operating
# temperature (DCGM_FI_DEV_MEM_MAX_OP_TEMP: above it, slowdown occurs, DCGM's field identifiers),
# and the rule compares the two.
NVIDIA_MEMORY_LIMIT_FIELD = "DCGM_FI_DEV_MEM_MAX_OP_TEMP"
# AMD: a CDNA 3 GPU slows down at a 100 °C hotspot and 105 °C memory (amd-smi's `static --limit`
# example, an MI300A); GPUQuote alerts 10 °C before, a rule of thumb.
AMD_SLOWDOWN_HOTSPOT_C = Decimal(100)
AMD_SLOWDOWN_MEMORY_C = Decimal(105)
THERMAL_MARGIN_C = Decimal(10)


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


@dataclass(frozen=True, slots=True)
class Exporter:
    """A vendor's tools: ``fields`` maps a watch key to the exporter's field name;
    ``limit_fields`` the field a watch's rule compares with, when the GPU reports its own limit;
    ``off_by_default`` names the fields the exporter's shipped list leaves out; ``field_list``
    is the page listing the fields and ``sources`` all the exporter's pages; ``error_codes``
    and ``gpu_links`` are the vendor's names for the driver's error codes and the GPU links."""

    tool: str
    tool_source: str
    name: str
    endpoint: str
    fields: Mapping[str, str]
    limit_fields: Mapping[str, str]
    off_by_default: frozenset[str]
    field_list: str
    sources: tuple[str, ...]
    prometheus_sources: tuple[str, ...]
    dashboards: Message
    dashboard_sources: tuple[str, ...]
    error_key: str
    error_codes: str
    error_sources: tuple[str, ...]
    gpu_link_key: str
    gpu_links: str


EXPORTERS: Mapping[str, Exporter] = MappingProxyType(
    {
        NVIDIA: Exporter(
            tool="nvidia-smi",
            tool_source=NVIDIA_SMI,
            name="dcgm-exporter (NVIDIA DCGM)",
            endpoint="http://localhost:9400/metrics",
            fields=MappingProxyType(
                {
                    "gpu_temperature": "DCGM_FI_DEV_GPU_TEMP",
                    "memory_temperature": "DCGM_FI_DEV_MEMORY_TEMP",
                    "memory_used": "DCGM_FI_DEV_FB_USED",  # in MiB (2^20 bytes)
                    "utilisation": "DCGM_FI_DEV_GPU_UTIL",
                    "power": "DCGM_FI_DEV_POWER_USAGE",
                    "ecc_errors": "DCGM_FI_DEV_ECC_DBE_VOL_TOTAL",
                    "xid_errors": "DCGM_FI_DEV_XID_ERRORS",  # the last Xid code seen
                    "nvlink_errors": "DCGM_FI_DEV_NVLINK_CRC_FLIT_ERROR_COUNT_TOTAL",
                }
            ),
            limit_fields=MappingProxyType({"memory_temperature": NVIDIA_MEMORY_LIMIT_FIELD}),
            # Commented out in (or missing from) the shipped default-counters.csv.
            off_by_default=frozenset(
                {
                    "DCGM_FI_DEV_ECC_DBE_VOL_TOTAL",
                    "DCGM_FI_DEV_NVLINK_CRC_FLIT_ERROR_COUNT_TOTAL",
                    NVIDIA_MEMORY_LIMIT_FIELD,
                }
            ),
            field_list=DCGM_EXPORTER_METRICS,
            sources=(DCGM_EXPORTER_METRICS, DCGM_EXPORTER_COUNTERS, DCGM_FIELDS),
            prometheus_sources=(DCGM_PROMETHEUS, PROMETHEUS_ALERTING_RULES),
            dashboards=Message(
                gettext_noop(
                    "Grafana draws the metrics on dashboards; NVIDIA publishes one for "
                    "dcgm-exporter."
                )
            ),
            dashboard_sources=(DCGM_DASHBOARD, DCGM_EXPORTER_INSTALL),
            error_key="xid_errors",
            error_codes="Xid",
            error_sources=(XID_CATALOG, DCGM_EXPORTER_COUNTERS),
            gpu_link_key="nvlink_errors",
            gpu_links="NVLink",
        ),
        AMD: Exporter(
            tool="amd-smi",
            tool_source=AMD_SMI,
            name="AMD Device Metrics Exporter",
            endpoint="http://localhost:5000/metrics",
            fields=MappingProxyType(
                {
                    "gpu_temperature": "GPU_JUNCTION_TEMPERATURE",  # the hotspot, MI300 series
                    "memory_temperature": "GPU_MEMORY_TEMPERATURE",
                    "memory_used": "GPU_USED_VRAM",  # in MB
                    "utilisation": "GPU_GFX_ACTIVITY",
                    "power": "GPU_POWER_USAGE",
                    "ecc_errors": "GPU_ECC_UNCORRECT_TOTAL",
                    "afid_errors": "GPU_AFID_ERRORS",  # the last RAS events' AFID codes
                    "xgmi_errors": "GPU_ECC_UNCORRECT_XGMI_WAFL",
                }
            ),
            limit_fields=MappingProxyType({}),
            off_by_default=frozenset(),
            field_list=AMD_EXPORTER_METRICS,
            sources=(AMD_EXPORTER_METRICS, AMD_EXPORTER),
            prometheus_sources=(AMD_EXPORTER_GRAFANA, PROMETHEUS_ALERTING_RULES),
            dashboards=Message(
                gettext_noop(
                    "Grafana draws the metrics on dashboards; AMD documents the set-up with its "
                    "exporter."
                )
            ),
            dashboard_sources=(AMD_EXPORTER_GRAFANA,),
            error_key="afid_errors",
            error_codes="AFID",
            error_sources=(AMD_AFID_LIST, AMD_EXPORTER_METRICS),
            gpu_link_key="xgmi_errors",
            gpu_links="Infinity Fabric (xGMI)",
        ),
    }
)

# What each watch is, in one plain sentence.
_WHAT: Mapping[str, str] = MappingProxyType(
    {
        "gpu_temperature": gettext_noop("How hot the GPU chip runs."),
        "memory_temperature": gettext_noop("How hot the GPU's memory runs."),
        "memory_used": gettext_noop("How much of the GPU's memory is in use."),
        "utilisation": gettext_noop("How busy the GPU is."),
        "power": gettext_noop("How much power the GPU draws."),
        "ecc_errors": gettext_noop("Memory errors the GPU could not correct."),
        "xid_errors": gettext_noop("Errors the NVIDIA driver reports, each with an Xid code."),
        "afid_errors": gettext_noop(
            "Hardware errors the AMD driver reports, each with an AFID code."
        ),
        "nvlink_errors": gettext_noop("Transmission errors on the NVLink links between the GPUs."),
        "xgmi_errors": gettext_noop("Errors on the Infinity Fabric (xGMI) links between the GPUs."),
        "network_links": gettext_noop("How often a server's network link drops."),
    }
)

# The alert of a watch that counts errors: any new one.
_ANY_NEW: Mapping[str, str] = MappingProxyType(
    {
        "ecc_errors": gettext_noop(
            "Any new error: reset the GPU, and replace it if errors return."
        ),
        "xid_errors": gettext_noop(
            "Any new code: NVIDIA's Xid catalog says what to do (restart the job, reset the GPU "
            "or call support)."
        ),
        "afid_errors": gettext_noop(
            "Any new code: AMD's AFID list says what the event means and what to do."
        ),
        "nvlink_errors": gettext_noop("Any new error: have the link or the board checked."),
        "xgmi_errors": gettext_noop("Any new error: have the link or the board checked."),
        "network_links": gettext_noop("Any drop: check the cable and the transceiver."),
    }
)

NETWORK_LINKS_FIELD = "node_network_carrier_changes_total"  # node_exporter's netclass collector


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
) -> MonitoringPlan | None:
    """The monitoring plan for ``servers`` servers of ``gpus_per_server`` GPUs of one model
    (``vendor`` as the catalog names it; None: GPUQuote has no monitoring data for it), with
    the GPU's ``memory_gb`` (GB = 10^9 bytes) and ``tdp_w``; ``linked``: the GPUs of a server
    talk over NVLink or Infinity Fabric; ``managed``: the host runs the servers."""
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
        *_temperature_watches(vendor, exporter),
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


def _temperature_watches(vendor: str, exporter: Exporter) -> tuple[Watch, Watch]:
    gpu_field = exporter.fields["gpu_temperature"]
    memory_field = exporter.fields["memory_temperature"]
    what_gpu = Message(_WHAT["gpu_temperature"])
    what_memory = Message(_WHAT["memory_temperature"])
    if vendor == NVIDIA:
        limit = NVIDIA_GPU_TEMPERATURE_C
        plain = gettext_noop("Above %(limit)s °C for %(minutes)s minutes.")
        params = {"limit": _figure(limit), "minutes": ALERT_MINUTES}
        gpu = Watch(
            "gpu_temperature",
            gpu_field,
            what_gpu,
            Message(plain, MappingProxyType(params)),
            limit,
            "°C",
            (DCGM_FIELDS, DATADOG_DCGM_TEMPERATURE),
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
        _margin_watch("gpu_temperature", gpu_field, what_gpu, AMD_SLOWDOWN_HOTSPOT_C),
        _margin_watch("memory_temperature", memory_field, what_memory, AMD_SLOWDOWN_MEMORY_C),
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
        Message(_WHAT["memory_used"]),
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
        Message(_WHAT["utilisation"]),
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
        Message(_WHAT["power"]),
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
        Message(_WHAT[key]),
        Message(_ANY_NEW[key]),
        None,
        "",
        sources,
    )


def _network_watch() -> Watch:
    return Watch(
        "network_links",
        NETWORK_LINKS_FIELD,
        Message(_WHAT["network_links"]),
        Message(_ANY_NEW["network_links"]),
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
