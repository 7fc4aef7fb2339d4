"""What GPU monitoring reads: each vendor's exporter and its field names (``EXPORTERS``), the
sources they were read from, and every threshold an alert uses, each with its reason and source.
Data, not code: a vendor missing from ``EXPORTERS`` has no monitoring plan (``monitoring``).
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Mapping
from dataclasses import dataclass
from decimal import Decimal
from types import MappingProxyType

from ..assumptions.gpu_models import (
    AMD,
    AMD_SMI,
    AMD_THERMAL,
    NVIDIA,
    NVIDIA_THERMAL,
)
from ..i18n import Message, gettext_noop

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
# The rest of the pipeline, and the pages behind the rules of thumb.
PROMETHEUS_ALERTING_RULES = (
    "https://prometheus.io/docs/prometheus/latest/configuration/alerting_rules/"
)
ALERTMANAGER = "https://prometheus.io/docs/alerting/alertmanager/"
NODE_EXPORTER = "https://github.com/prometheus/node_exporter"
VLLM_ENGINE_ARGS = "https://docs.vllm.ai/en/latest/models/engine_args.html"

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
# Temperatures: each GPU architecture's record holds its limits and their source
# (``engine.assumptions.gpu_models.ThermalLimits``); these name the vendors' defaults.
# NVIDIA GPU temperature: 85 °C (Datadog's recommended DCGM monitor).
NVIDIA_GPU_TEMPERATURE_C = NVIDIA_THERMAL.gpu_c
# NVIDIA memory temperature: no fixed number; the GPU reports the memory's maximum operating
# temperature (DCGM_FI_DEV_MEM_MAX_OP_TEMP: above it, slowdown occurs, DCGM's field identifiers),
# and the rule compares the two.
NVIDIA_MEMORY_LIMIT_FIELD = "DCGM_FI_DEV_MEM_MAX_OP_TEMP"
# AMD: a CDNA 3 GPU slows down at a 100 °C hotspot and 105 °C memory (amd-smi's `static --limit`
# example); GPUQuote alerts ``THERMAL_MARGIN_C`` before, a rule of thumb.
AMD_SLOWDOWN_HOTSPOT_C = AMD_THERMAL.gpu_c
AMD_SLOWDOWN_MEMORY_C = AMD_THERMAL.memory_c
THERMAL_MARGIN_C = Decimal(10)


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
WHAT: Mapping[str, str] = MappingProxyType(
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
ANY_NEW: Mapping[str, str] = MappingProxyType(
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
