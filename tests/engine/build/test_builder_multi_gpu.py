"""The configuration builder for jobs spread over many GPUs: the HGX chassis for SXM cards,
several servers joined by a fabric, and NVLink between PCIe cards that share one model.

Every expected figure is worked out by hand in the test from the catalog factory's prices
(tests/engine/catalog_factory.py) so that a change in the rules shows up as a readable diff.
"""

from __future__ import annotations

from typing import Any

from engine.build import rules
from engine.build.builder import (
    GpuFit,
    ServerConfiguration,
    Tier,
    build_options,
    check_configuration,
)
from engine.build.configuration import PartScope
from tests.engine import catalog_factory as make
from tests.engine.build import cluster_parts as net
from tests.engine.build.builder_cases import (
    check,
    fits,
    hgx_catalog,
    hgx_needs,
    hgx_parts,
    lines,
    needs,
    pcie_parts,
    rendered,
)

# --- Training on SXM: the HGX chassis ------------------------------------------------------------


def test_training_on_eight_h100_sxm_picks_the_hgx_chassis():
    # Given an 8 x H100 SXM training job (the L40S cannot run it) in production
    result = build_options(hgx_needs(), hgx_catalog())

    # Then one server: the HGX baseboard, 2 x 16 cores (>= 4 per GPU), RAM >= 2 x 640 GB as
    # 24 x 64 GB (one per channel of 2 x 12), a boot mirror, and 20 TB at 10 GB/s mirrored:
    # 7.68 TB drives give 3,840 GB usable each, ceil(20,000 / 3,840) = 6 (even) for 5,400;
    # 15.36 TB ones 7,680 GB, ceil(20,000 / 7,680) = 3, rounded up to an even 4 for 6,800.
    # Comfort changes nothing here (6 x 7,000 MB/s >= 2 x 10,000), so balanced and performance
    # collapse into budget.
    assert result.unmet == ()
    [option] = result.options
    assert option.tier is Tier.BUDGET
    assert option.servers == 1
    assert lines(option) == [
        ("chassis", "CH-HGX-8", 1, "60000.00", ""),
        ("gpu", "GPU-H100-SXM", 8, "25000.00", ""),
        ("cpu", "CPU-EPYC-9124", 2, "1200.00", ""),
        ("memory", "DIMM-DDR5-64", 24, "300.00", ""),
        ("drive", "M2-480", 2, "120.00", "boot"),
        ("drive", "NVME-7.68", 6, "900.00", "data"),
    ]
    # 60,000 + 8 x 25,000 + 2 x 1,200 + 24 x 300 + 2 x 120 + 6 x 900
    assert option.totals.price == make.eur("275240.00")
    # 8 x 700 + 2 x 200 + 24 x 8 + 6 x 25 + 1,500 base = 7,842 W; x 1.25 = 9,802.5
    assert (option.totals.power_w, option.totals.power_sized_w) == (7842, 9803)
    assert (option.totals.gpus, option.totals.vram_gb, option.totals.ram_gb) == (8, 640.0, 1536)
    # Totals.storage_gb is the usable capacity: 6 x 7,680 GB mirrored in pairs = 23,040 GB; no
    # cluster parts for one server
    assert (option.totals.storage_gb, option.totals.rack_units) == (23040.0, 8)
    assert option.totals.cluster_power_w == 0
    assert check(option, rules.STORAGE_CAPACITY).detail.render() == (
        "23040 GB of usable data storage for the 20000 GB needed."
    )
    assert [c.rule for c in option.checks] == list(rules.RULE_ORDER)
    assert all(c.passed for c in option.checks)
    # 7.8 kW per server: the one caveat is the site (above an office circuit, a 3-phase feed)
    assert [c.rule for c in option.checks if c.warning] == [rules.SITE_POWER]
    assert check(option, rules.NVLINK).detail.render() == (
        "NVSwitch links the 8 GPUs at 900 GB/s each."
    )
    assert check(option, rules.POWER).detail.render() == (
        "7842 W at full load per server, 9803 W sized (×1.25, with 0 growth GPUs), within the "
        "10200 W allowed by 4 usable supplies of 3000 W and the chassis maximum of 10200 W."
    )


def test_two_servers_when_the_job_needs_sixteen_sxm_gpus():
    # Given 16 x H100 SXM, 96 cores and 40 TB for the whole job, 400 Gb/s per GPU between nodes,
    # and the cluster parts of an NDR InfiniBand fabric (tests/engine/build/cluster_parts.py)
    catalog = make.snapshot(
        make.h100_sxm(),
        make.chassis(),
        *hgx_parts(),
        make.nic(),  # 1 x 400G InfiniBand/RoCE, 2,000
        make.nic(sku="NIC-2x200", name="2 x 200G", speed_gbps=200, ports=2, price=1500),
        make.nic(
            sku="NIC-ETH",
            name="100G Ethernet",
            speed_gbps=100,
            infiniband=False,
            roce=False,
            price=300,
        ),
        *net.infiniband_parts(),
    )
    job = hgx_needs(gpus_for=fits(GPU_H100_SXM=(16, 60.0)), cpu_cores_min=96, storage_gb=40000.0)

    [option] = build_options(job, catalog).options

    # Then 2 identical servers, each with 8 x 400G ports (the 200G and Ethernet cards do not
    # qualify), 2 x 32 cores for its 48-core share, and half the storage, 20 TB mirrored.
    # 6 x 7.68 TB (6 x 7,680 / 2 = 23,040 GB usable, 5,400) would be cheapest, but 8 x 700 +
    # 2 x 280 + 24 x 8 + 6 x 25 + 8 x 25 + 1,500 = 8,202 W x 1.25 = 10,252.5 W is above the
    # chassis' 10,200 W: 4 x 15.36 TB (4 x 15,360 / 2 = 30,720 GB usable, 6,800, 100 W) fit.
    assert option.servers == 2
    assert lines(option) == [
        ("chassis", "CH-HGX-8", 1, "60000.00", ""),
        ("gpu", "GPU-H100-SXM", 8, "25000.00", ""),
        ("cpu", "CPU-EPYC-9354", 2, "3000.00", ""),
        ("memory", "DIMM-DDR5-64", 24, "300.00", ""),
        ("drive", "M2-480", 2, "120.00", "boot"),
        ("drive", "NVME-15.36", 4, "1700.00", "data"),
        ("nic", "NIC-CX7-400", 8, "2000.00", ""),
        # The cluster: 2 x 8 = 16 ports fit one 64-port leaf (no spine); the two servers share
        # its rack, so 3 m 1:2 splitter DACs, 16 / 2 = 8 (3,200, cheaper than 16 fibers with
        # optics); a 48-port management switch for 2 BMCs + 1 switch, with 3 + 1 uplink = 4 Cat6
        # cords of 3 m
        ("switch", "SW-IB-64", 1, "25000.00", "leaf"),
        ("cable", "DAC-NDR-3M", 8, "400.00", "server_link"),
        ("switch", "SW-MGMT-48", 1, "4000.00", "management"),
        ("cable", "CAT6-3M", 4, "5.00", "management_link"),
    ]
    assert [p.scope for p in option.parts[-4:]] == [PartScope.CLUSTER] * 4
    assert {p.scope for p in option.parts[:-4]} == {PartScope.SERVER}
    # per server 60,000 + 200,000 + 6,000 + 7,200 + 240 + 6,800 + 16,000 = 296,240, x 2 =
    # 592,480; the cluster 25,000 + 3,200 + 4,000 + 20 = 32,220
    assert option.totals.price == make.eur("624700.00")
    assert option.totals.gpus == 16
    # 2 x 8 U servers, a 1 U leaf and a 1 U management switch
    assert option.totals.rack_units == 18
    # 750 W leaf + 8 x 0.1 W DACs + 100 W management switch = 850.8 W, rounded up
    assert option.totals.cluster_power_w == 851
    assert check(option, rules.INTERCONNECT).detail.render() == (
        "8 x ConnectX-7 400G: 8 InfiniBand ports at 400 Gb/s for 8 GPUs (400 Gb/s needed per GPU)."
    )
    assert check(option, rules.CPU_CORES).detail.render() == (
        "64 cores per server for the 48 needed (at least 8, 4 per GPU, 48 as the job's share)."
    )
    assert check(option, rules.STORAGE_CAPACITY).detail.render() == (
        "30720 GB of usable data storage per server for the 20000 GB needed (40000 GB over 2 "
        "servers)."
    )
    # 8 x 700 + 2 x 280 + 24 x 8 + 4 x 25 + 8 x 25 + 1,500 = 8,152 W; x 1.25 = 10,190: just
    # within the chassis' 10,200 W
    assert (option.totals.power_w, option.totals.power_sized_w) == (8152, 10190)


def test_two_servers_without_switches_in_the_catalog_are_unmet():
    # The same 16-GPU job with the NIC but no switch or cable to join the two servers
    catalog = make.snapshot(make.h100_sxm(), make.chassis(), *hgx_parts(), make.nic())
    job = hgx_needs(gpus_for=fits(GPU_H100_SXM=(16, 60.0)))

    result = build_options(job, catalog)

    assert result.options == ()
    assert rendered(result.unmet) == [
        "2 x HGX H100 8-GPU with 8 x H100 SXM: the catalog lacks the switches, cables or storage "
        "servers to connect them; add them to build a cluster."
    ]


def test_budget_below_the_cheapest_configuration_is_unmet_with_both_figures():
    result = build_options(hgx_needs(budget=make.eur(50000)), hgx_catalog())

    assert result.options == ()
    assert rendered(result.unmet) == [
        "The budget of 50000.00 EUR is below the cheapest configuration that passes every rule, "
        "275240.00 EUR: 1 x HGX H100 8-GPU with 8 x H100 SXM each."
    ]


def test_no_chassis_for_sxm_gpus_is_unmet_and_says_what_to_add():
    catalog = make.snapshot(make.h100_sxm(), make.pcie_chassis(), *pcie_parts())

    result = build_options(hgx_needs(), catalog)

    assert result.options == ()
    assert rendered(result.unmet) == [
        "No chassis takes SXM GPUs such as the H100 SXM: add a chassis with SXM slots."
    ]


def test_multi_node_without_a_fabric_nic_is_unmet():
    catalog = make.snapshot(make.h100_sxm(), make.chassis(), *hgx_parts())
    job = hgx_needs(gpus_for=fits(GPU_H100_SXM=(16, 60.0)))

    result = build_options(job, catalog)

    assert result.options == ()
    assert rendered(result.unmet) == [
        "2 servers of 8 x H100 SXM need an InfiniBand or RoCE port of 400 Gb/s per GPU, and the "
        "catalog offers no such NIC: add one."
    ]


def test_a_job_too_large_for_the_usable_memory_names_the_gpu_size_that_would_fit():
    # 75 GB per GPU on an 80 GB card: only 72 GB (90 %) are usable
    job = hgx_needs(gpus_for=fits(GPU_H100_SXM=(1, 75.0)))

    result = build_options(job, hgx_catalog())

    assert result.options == ()
    assert rendered(result.unmet) == [
        "The job cannot run on the L40S (48 GB) at any GPU count: it needs GPUs with more memory.",
        "On 1 x H100 SXM the job needs 75 GB per GPU, more than the 72 GB usable: a GPU of at "
        "least 84 GB would fit.",
    ]


# --- Sharing a model over two PCIe cards: NVLink ------------------------------------------------


def nvl_chassis(**overrides: Any) -> Any:
    fields = {"sku": "CH-PCIE-4-NVL", "name": "2U 4-GPU NVLink", "nvlink_bridge": True}
    return make.pcie_chassis(**(fields | {"price": 14000} | overrides))


def nvlink_catalog(*chassis: Any) -> Any:
    return make.snapshot(make.a100_pcie(), make.l40s(), *chassis, *pcie_parts())


# A 70B model in 16-bit: 140 GB of weights, ~70 GB per GPU on two 80 GB cards, or four L40S
# (which have no NVLink at all). As a training job (``serving`` False) the two GPUs exchange
# data at every step over NVLink.
SEVENTY_B = fits(GPU_A100_80_PCIE=(2, 70.0), GPU_L40S=(4, 40.0))


def seventy_b_serving(gpu: Any) -> GpuFit | None:
    """The same model served: one copy spans the 2 A100s (tensor parallel)."""
    return {"GPU-A100-80-PCIE": GpuFit(2, 70.0, replica_gpus=2)}.get(gpu.sku)


def test_a_model_shared_by_two_80gb_cards_in_training_needs_an_nvlink_bridge():
    catalog = nvlink_catalog(make.pcie_chassis(), nvl_chassis())

    result = build_options(needs(SEVENTY_B, model_sharded=True), catalog)

    # Then both A100s sit in the bridged chassis (one card per server would spread training
    # over sparse 1-GPU servers; the four L40S have no NVLink)
    [budget] = result.options
    assert lines(budget) == [
        ("chassis", "CH-PCIE-4-NVL", 1, "14000.00", ""),
        ("gpu", "GPU-A100-80-PCIE", 2, "15000.00", ""),
        ("cpu", "CPU-XEON-4410Y", 2, "1000.00", ""),
        ("memory", "DIMM-DDR5-32", 16, "150.00", ""),
        ("drive", "M2-480", 2, "120.00", "boot"),
        ("drive", "NVME-7.68", 2, "900.00", "data"),
    ]
    # 14,000 + 2 x 15,000 + 2 x 1,000 + 16 x 150 (512 GB >= 2 x 160) + 2 x 120 + 2 x 900: the
    # 4 TB mirrored need two 7.68 TB drives, which already read 14,000 >= 2 x 6,000 MB/s, so
    # the balanced comfort build is the same servers and is left out
    assert budget.totals.price == make.eur("50440.00")
    assert check(budget, rules.NVLINK).detail.render() == (
        "An NVLink bridge joins the 2 GPUs at 600 GB/s."
    )
    assert rendered(result.notes)[0] == (
        "No separate balanced option: the budget option already gives the most computing power "
        "per euro within 1.5 times its price."
    )


def test_seventy_b_inference_split_over_two_pcie_cards_runs_over_pcie_with_a_warning():
    catalog = make.snapshot(make.a100_pcie(), make.pcie_chassis(), nvl_chassis(), *pcie_parts())
    job = needs(seventy_b_serving, model_sharded=True, serving=True)

    [budget] = build_options(job, catalog).options

    # Serving may split a copy inside one server over PCIe: the cheaper chassis without bridges,
    # 12,000 + 2 x 15,000 + 2 x 1,000 + 16 x 150 + 2 x 120 + 2 x 900
    assert [p.sku for p in budget.parts if p.kind == "chassis"] == ["CH-PCIE-4"]
    assert budget.totals.price == make.eur("48440.00")
    nvlink = check(budget, rules.NVLINK)
    assert (nvlink.passed, nvlink.warning) == (True, True)
    assert nvlink.detail.render() == (
        "The GPUs of one model copy exchange activations over PCIe: this works for serving "
        "(tensor-parallel inference), with more latency per token than NVLink."
    )
    assert check(budget, rules.GPU_COUNT).detail.render() == (
        "1 x 2 = 2 GPUs cover the 2 A100 80GB PCIe GPUs the job needs: 1 copies of the model on "
        "2 GPUs each, every copy inside one server."
    )


def test_the_same_cards_in_a_chassis_without_bridges_fail_the_nvlink_check():
    config = ServerConfiguration(
        servers=1,
        chassis=make.pcie_chassis(),
        gpu=make.a100_pcie(),
        gpu_count=2,
        cpu=make.xeon_4410y(),
        cpu_count=2,
        dimm=make.dimm_gb(32, 150),
        dimm_count=16,
        data_drive=make.drive(),
        data_drive_count=2,  # production mirrors its data: 7,680 GB usable for 4,000
        boot_drive=make.boot_ssd(),
        boot_drive_count=2,
    )

    checks = check_configuration(config, needs(SEVENTY_B, model_sharded=True))
    served = check_configuration(config, needs(seventy_b_serving, model_sharded=True, serving=True))

    assert [c.rule for c in checks if not c.passed] == [rules.NVLINK]
    assert check(checks, rules.NVLINK).detail.render() == (
        "The 2U 4-GPU PCIe has neither NVSwitch nor NVLink bridges to link 2 GPUs that share one "
        "model."
    )
    # Serving the model from the same server passes, with the PCIe caveat
    assert all(c.passed for c in served)
    assert check(served, rules.NVLINK).warning is True


def test_without_any_nvlink_chassis_the_unmet_reasons_name_nvlink():
    result = build_options(
        needs(SEVENTY_B, model_sharded=True), nvlink_catalog(make.pcie_chassis())
    )

    assert result.options == ()
    assert (
        "2 x A100 80GB PCIe in one server share the model and need NVLink (NVSwitch, or a bridge "
        "for 2 cards), which no chassis offers for them: add such a chassis."
    ) in rendered(result.unmet)
