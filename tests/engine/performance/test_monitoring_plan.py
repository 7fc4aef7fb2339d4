"""The GPU monitoring plan: each vendor's core watches, alerts in the GPU's
own numbers, link watches only where there are links, and the host's share in managed hosting."""

from __future__ import annotations

import json
from decimal import ROUND_HALF_UP, Decimal
from pathlib import Path

import pytest

from engine.i18n import Message
from engine.performance.exporters import NVIDIA_MEMORY_LIMIT_FIELD, SEEN_ON
from engine.performance.monitoring import MonitoringPlan, StackStep, Watch, monitoring_plan
from engine.performance.software import RECOMMENDED

CATALOG = Path(__file__).resolve().parents[3] / "catalog" / "data" / "catalog.json"
CORE_KEYS = {
    "NVIDIA": {
        "gpu_temperature",
        "memory_temperature",
        "memory_used",
        "utilisation",
        "power",
        "ecc_errors",
        "xid_errors",
    },
    "AMD": {
        "gpu_temperature",
        "memory_temperature",
        "memory_used",
        "utilisation",
        "power",
        "ecc_errors",
        "afid_errors",
    },
}
GPU_LINK_KEY = {"NVIDIA": "nvlink_errors", "AMD": "xgmi_errors"}
LINK_KEYS = {"nvlink_errors", "xgmi_errors", "network_links"}


def _plan(
    vendor: str = "NVIDIA",
    *,
    gpu_name: str = "H100 SXM",
    memory_gb: Decimal | int = 80,
    tdp_w: int = 700,
    gpus_per_server: int = 8,
    servers: int = 1,
    linked: bool = False,
    managed: bool = False,
) -> MonitoringPlan:
    plan = monitoring_plan(
        vendor=vendor,
        gpu_name=gpu_name,
        memory_gb=memory_gb,
        tdp_w=tdp_w,
        gpus_per_server=gpus_per_server,
        servers=servers,
        linked=linked,
        managed=managed,
    )
    assert plan is not None
    return plan


def _watch(plan: MonitoringPlan, key: str) -> Watch:
    return next(watch for watch in plan.watches if watch.key == key)


def _keys(plan: MonitoringPlan) -> set[str]:
    return {watch.key for watch in plan.watches}


def _catalog_gpus() -> list[tuple[str, int, int]]:
    """(vendor, memory in GB, TDP in W) of every GPU the seed catalog offers."""
    parts = json.loads(CATALOG.read_text())["parts"]
    found = {
        (part["vendor"], part["spec"]["memory_gb"], part["spec"]["tdp_w"])
        for part in parts
        if part["kind"] == "gpu"
    }
    return sorted(found)


@pytest.mark.parametrize("vendor", sorted(RECOMMENDED))
def test_every_recommended_vendor_gets_the_core_watches(vendor):
    plan = _plan(vendor)

    assert plan.vendor == vendor
    assert plan.seen_on == SEEN_ON
    assert _keys(plan) == CORE_KEYS[vendor]  # one server, no GPU links: nothing more
    assert len(plan.watches) == len(CORE_KEYS[vendor])  # each watch once
    assert [step.key for step in plan.stack][:2] == ["quick_look", "exporter"]
    assert [step.key for step in plan.stack][-3:] == ["prometheus", "dashboards", "alerts"]


def test_the_fields_are_each_exporters_own():
    nvidia = _plan("NVIDIA", linked=True)
    amd = _plan("AMD", linked=True)

    assert all(watch.metric.startswith("DCGM_FI_") for watch in nvidia.watches)
    assert _watch(nvidia, "gpu_temperature").metric == "DCGM_FI_DEV_GPU_TEMP"
    assert _watch(nvidia, "memory_used").metric == "DCGM_FI_DEV_FB_USED"
    assert _watch(nvidia, "ecc_errors").metric == "DCGM_FI_DEV_ECC_DBE_VOL_TOTAL"
    assert _watch(nvidia, "xid_errors").metric == "DCGM_FI_DEV_XID_ERRORS"
    assert {watch.metric for watch in amd.watches} == {
        "GPU_JUNCTION_TEMPERATURE",
        "GPU_MEMORY_TEMPERATURE",
        "GPU_USED_VRAM",
        "GPU_GFX_ACTIVITY",
        "GPU_POWER_USAGE",
        "GPU_ECC_UNCORRECT_TOTAL",
        "GPU_AFID_ERRORS",
        "GPU_ECC_UNCORRECT_XGMI_WAFL",
    }
    assert "localhost:9400/metrics" in nvidia.stack[1].text.render()
    assert "localhost:5000/metrics" in amd.stack[1].text.render()


def test_the_power_alert_follows_the_gpus_tdp():
    h100 = _watch(_plan(gpu_name="H100 SXM", tdp_w=700), "power")
    l40s = _watch(_plan(gpu_name="L40S", memory_gb=48, tdp_w=350), "power")

    assert (h100.threshold, h100.unit) == (Decimal(665), "W")
    assert l40s.threshold == Decimal("332.5")
    assert h100.alert.render() == (
        "Above 665 W for 5 minutes (95 % of the H100 SXM's 700 W): the GPU is held at its "
        "power limit."
    )
    assert "Above 332.5 W" in l40s.alert.render()
    assert "the L40S's 350 W" in l40s.alert.render()


def test_the_memory_alert_follows_the_gpus_memory():
    eighty = _watch(_plan(memory_gb=80), "memory_used")
    forty_eight = _watch(_plan(memory_gb=48), "memory_used")
    mi300x = _watch(_plan("AMD", memory_gb=Decimal(192)), "memory_used")

    assert (eighty.threshold, eighty.unit) == (Decimal(76), "GB")
    assert forty_eight.threshold == Decimal("45.6")
    assert mi300x.threshold == Decimal("182.4")
    assert "Above 76 GB of 80 GB (95 %) for 5 minutes" in eighty.alert.render()
    assert "Above 45.6 GB of 48 GB (95 %)" in forty_eight.alert.render()


def _tenths(value: Decimal) -> Decimal:
    return value.quantize(Decimal("0.1"), rounding=ROUND_HALF_UP)


@pytest.mark.parametrize(("vendor", "memory_gb", "tdp_w"), _catalog_gpus())
def test_every_catalog_gpu_gets_its_own_numbers(vendor, memory_gb, tdp_w):
    plan = _plan(vendor, gpu_name="GPU", memory_gb=memory_gb, tdp_w=tdp_w)

    power = _watch(plan, "power")
    memory = _watch(plan, "memory_used")
    assert power.threshold == _tenths(Decimal(tdp_w) * Decimal("0.95"))
    assert memory.threshold == _tenths(Decimal(memory_gb) * Decimal("0.95"))
    assert f"{tdp_w} W" in power.alert.render()
    assert f"of {memory_gb} GB" in memory.alert.render()


def test_temperature_alerts_name_their_limits():
    nvidia = _plan("NVIDIA")
    amd = _plan("AMD")

    assert _watch(nvidia, "gpu_temperature").threshold == Decimal(85)
    assert _watch(nvidia, "gpu_temperature").alert.render() == "Above 85 °C for 5 minutes."
    # NVIDIA's memory limit differs per model: the rule compares with the one the GPU reports.
    assert _watch(nvidia, "memory_temperature").threshold is None
    assert "limit the GPU reports" in _watch(nvidia, "memory_temperature").alert.render()
    assert _watch(amd, "gpu_temperature").threshold == Decimal(90)  # 10 °C below 100 °C
    assert _watch(amd, "memory_temperature").threshold == Decimal(95)  # 10 °C below 105 °C
    assert "Above 95 °C for 5 minutes" in _watch(amd, "memory_temperature").alert.render()
    for plan in (nvidia, amd):
        assert _watch(plan, "gpu_temperature").unit == "°C"
        assert _watch(plan, "memory_temperature").unit == "°C"


@pytest.mark.parametrize("vendor", sorted(RECOMMENDED))
def test_error_counts_alert_on_any_new_one(vendor):
    plan = _plan(vendor, servers=2, linked=True)

    counts = [watch for watch in plan.watches if watch.threshold is None and watch.unit == ""]
    assert {watch.key for watch in counts} == {
        "ecc_errors",
        "xid_errors" if vendor == "NVIDIA" else "afid_errors",
        GPU_LINK_KEY[vendor],
        "network_links",
    }
    assert all(watch.alert.render().startswith("Any ") for watch in counts)


@pytest.mark.parametrize("vendor", sorted(RECOMMENDED))
def test_link_watches_appear_only_where_there_are_links(vendor):
    alone = _plan(vendor)
    linked = _plan(vendor, linked=True)
    lone_gpu = _plan(vendor, gpus_per_server=1, linked=True)
    cluster = _plan(vendor, servers=4)

    assert _keys(alone) & LINK_KEYS == set()
    assert _keys(linked) & LINK_KEYS == {GPU_LINK_KEY[vendor]}
    assert _keys(lone_gpu) & LINK_KEYS == set()  # one GPU has no GPU to link to
    assert _keys(cluster) & LINK_KEYS == {"network_links"}
    assert _watch(cluster, "network_links").metric == "node_network_carrier_changes_total"
    assert "node_exporter" in [step.key for step in cluster.stack]
    assert "node_exporter" not in [step.key for step in linked.stack]


def test_the_fields_nvidias_exporter_leaves_out_are_listed_to_add():
    alone = next(step for step in _plan("NVIDIA").stack if step.key == "fields")
    linked = next(step for step in _plan("NVIDIA", linked=True).stack if step.key == "fields")

    assert "DCGM_FI_DEV_ECC_DBE_VOL_TOTAL" in alone.text.render()
    assert NVIDIA_MEMORY_LIMIT_FIELD in alone.text.render()
    assert "NVLINK" not in alone.text.render()
    assert "DCGM_FI_DEV_NVLINK_CRC_FLIT_ERROR_COUNT_TOTAL" in linked.text.render()
    # AMD's exporter publishes every field the plan uses as shipped.
    assert "fields" not in [step.key for step in _plan("AMD", linked=True).stack]


def test_prometheus_counts_every_gpu_of_every_server():
    one = next(step for step in _plan(gpus_per_server=1).stack if step.key == "prometheus")
    many = next(step for step in _plan(servers=2).stack if step.key == "prometheus")

    assert one.text.render().startswith("Prometheus collects the GPU's metrics")
    assert "all 16 GPUs" in many.text.render()


@pytest.mark.parametrize("vendor", sorted(RECOMMENDED))
def test_the_host_watches_only_in_managed_hosting(vendor):
    on_premises = _plan(vendor, servers=2, linked=True)
    managed = _plan(vendor, managed=True)
    managed_cluster = _plan(vendor, servers=2, linked=True, managed=True)

    assert on_premises.host_watches == ()
    assert managed.host_watches
    words = [message.render() for message in managed_cluster.host_watches]
    assert len(managed_cluster.host_watches) == len(managed.host_watches) + 2  # both link kinds
    assert any("network links between the servers" in text for text in words)
    assert any("replaces the faulty part" in text for text in words)
    assert "your team" in on_premises.stack[-1].text.render()
    assert "on-call staff" in managed.stack[-1].text.render()


def test_an_unknown_vendor_has_no_plan():
    plan = monitoring_plan(
        vendor="Intel",
        gpu_name="Gaudi 3",
        memory_gb=128,
        tdp_w=900,
        gpus_per_server=8,
        servers=1,
        linked=True,
        managed=False,
    )

    assert plan is None


@pytest.mark.parametrize(
    ("figures", "reason"),
    [
        ({"servers": 0}, "at least one server"),
        ({"gpus_per_server": 0}, "at least one server"),
        ({"memory_gb": 0}, "are positive"),
        ({"tdp_w": -1}, "are positive"),
    ],
)
def test_impossible_figures_are_refused(figures, reason):
    with pytest.raises(ValueError, match=reason):
        _plan(**figures)


def _every_plan() -> list[MonitoringPlan]:
    return [
        _plan(vendor, servers=servers, linked=linked, managed=managed)
        for vendor in sorted(RECOMMENDED)
        for servers in (1, 3)
        for linked in (False, True)
        for managed in (False, True)
    ]


def test_every_watch_and_step_has_a_web_source():
    for plan in _every_plan():
        items: list[Watch | StackStep] = [*plan.watches, *plan.stack]
        for item in items:
            assert item.sources, item
            assert all(source.startswith(("https://", "http://")) for source in item.sources)


def test_every_message_renders():
    seen: set[str] = set()
    for plan in _every_plan():
        messages: list[Message] = [
            *(watch.what for watch in plan.watches),
            *(watch.alert for watch in plan.watches),
            *(step.text for step in plan.stack),
            *plan.host_watches,
        ]
        for message in messages:
            text = message.render()  # a missing parameter raises KeyError
            assert text
            assert "%(" not in text
            assert "%%" not in text
            assert text.endswith(".")
            seen.add(message.template)
    assert len(seen) > 25  # the matrix went through every kind of message
