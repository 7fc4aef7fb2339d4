"""How the builder lays a job out over servers: serving copies packed whole per server,
copies larger than a server only over NVLink-linked GPUs, dense servers for training over
several servers, mirrored data drives in production, M.2 sticks that only boot, a spare server
(N+1), the cluster's switches and cables priced with the servers, and upper tiers that never
offer a mostly idle baseboard.

Every expected figure is worked out by hand in the test from the catalog factory's prices
(tests/engine/catalog_factory.py, tests/engine/build/cluster_parts.py). The PCIe servers below hold
dual Xeon Silver 4410Y (2 x 1,000), 16 DIMMs (one per channel of 2 x 8: 16 x 16 GB at 80 or
16 x 32 GB at 150), 7.68 TB U.2 data drives at 900 (7,000 MB/s, 25 W) and, in production, a pair
of 480 GB M.2 boot sticks (2 x 120 = 240).
"""

from __future__ import annotations

from decimal import Decimal
from typing import Any

import pytest

from engine.build import rules
from engine.build.builder import (
    BuildResult,
    BuiltOption,
    Environment,
    GpuFit,
    ServerConfiguration,
    Tier,
    build_options,
    check_configuration,
)
from engine.build.cluster.single_points import single_points_of_failure
from engine.build.configuration import PartScope, usable_data_gb
from engine.build.parts import DriveFormFactor
from tests.engine import catalog_factory as make
from tests.engine.build import cluster_parts as net
from tests.engine.build.builder_cases import (
    check,
    fits,
    hgx_parts,
    lines,
    needs,
    pcie_parts,
    rendered,
)


def copies(**by_sku: tuple[int, float, int]) -> Any:
    """``gpus_for`` for serving: SKU ("_" for "-") -> (GPUs, GB per GPU, GPUs per copy)."""
    table = {
        sku.replace("_", "-"): GpuFit(gpus, memory, replica_gpus=replica)
        for sku, (gpus, memory, replica) in by_sku.items()
    }
    return lambda gpu: table.get(gpu.sku)


def per_server_gpus(option: BuiltOption) -> int:
    return next(p.quantity for p in option.parts if p.kind == "gpu")


def two_slot(**overrides: Any) -> Any:
    fields = {"sku": "CH-PCIE-2", "name": "2U 2-GPU PCIe", "gpu_slots": 2, "price": 8000}
    return make.pcie_chassis(**(fields | overrides))


def two_slot_nvlink(**overrides: Any) -> Any:
    fields = {
        "sku": "CH-PCIE-2-NVL",
        "name": "2U 2-GPU NVLink",
        "gpu_slots": 2,
        "nvlink_bridge": True,
        "price": 9000,
    }
    return make.pcie_chassis(**(fields | overrides))


def one_slot(**overrides: Any) -> Any:
    fields = {
        "sku": "CH-PCIE-1",
        "name": "1U 1-GPU PCIe",
        "gpu_slots": 1,
        "rack_units": 1,
        "price": 4000,
    }
    return make.pcie_chassis(**(fields | overrides))


def pcie_server(**overrides: Any) -> ServerConfiguration:
    """One production L40S server in the 4-slot chassis, to vary per test."""
    fields: dict[str, Any] = {
        "servers": 1,
        "chassis": make.pcie_chassis(),
        "gpu": make.l40s(),
        "gpu_count": 1,
        "cpu": make.xeon_4410y(),
        "cpu_count": 2,
        "dimm": make.dimm_gb(16, 80),
        "dimm_count": 16,
        "data_drive": make.drive(),
        "data_drive_count": 2,
        "boot_drive": make.boot_ssd(),
        "boot_drive_count": 2,
    }
    return ServerConfiguration(**(fields | overrides))


# --- (a) Serving: whole copies in every server ---------------------------------------------------

# Six L40S serving three copies of a model of 2 GPUs each (30 GB per GPU)
THREE_COPIES = copies(GPU_L40S=(6, 30.0, 2))


def test_serving_copies_of_two_gpus_are_packed_whole_per_server():
    catalog = make.snapshot(make.l40s(), make.pcie_chassis(), *pcie_parts())
    job = needs(THREE_COPIES, model_sharded=True, serving=True)

    result = build_options(job, catalog)

    # A 4-slot server holds whole copies: 2 or 4 GPUs, never 1 or 3. 2 x 3 would be cheapest
    # (2 x (12,000 + 3 x 8,000 + 2,000 + 16 x 32 GB 2,400 + 240 + 2 x 900) = 84,880) but splits
    # the second copy between the servers; 2 x 4 (100,880) costs more than 3 x 2.
    # 3 x 2: per server 12,000 + 2 x 8,000 + 2,000 + 16 x 80 (256 GB >= 2 x 96) + 240 + 2 x 900
    # (each server loads the whole 4 TB, mirrored) = 33,320; x 3 = 99,960. The tiers compare
    # GPU models at their cheapest build: with one model and reads already at twice the need
    # (2 x 7,000 >= 2 x 2,000 MB/s), balanced and performance are the same servers.
    assert [(o.tier, o.servers, per_server_gpus(o), o.totals.price) for o in result.options] == [
        (Tier.BUDGET, 3, 2, make.eur("99960.00")),
    ]
    assert [note.split(":")[0] for note in rendered(result.notes)] == [
        "No separate balanced option",
        "No separate performance option",
    ]
    budget = result.options[0]
    assert check(budget, rules.GPU_COUNT).detail.render() == (
        "3 x 2 = 6 GPUs cover the 6 L40S GPUs the job needs: 3 copies of the model on 2 GPUs "
        "each, every copy inside one server."
    )
    # Servers holding whole copies answer on their own: no fabric NIC, no cluster parts
    assert {p.kind for o in result.options for p in o.parts} == {
        "chassis",
        "gpu",
        "cpu",
        "memory",
        "drive",
    }
    assert check(budget, rules.INTERCONNECT).passed
    # The two GPUs of a copy talk over PCIe (the L40S has no NVLink): allowed for serving
    nvlink = check(budget, rules.NVLINK)
    assert (nvlink.passed, nvlink.warning) == (True, True)


@pytest.mark.parametrize(("servers", "per_server"), [(2, 3), (6, 1)])
def test_a_layout_splitting_a_copy_between_servers_fails_the_gpu_count(servers, per_server):
    job = needs(THREE_COPIES, model_sharded=True, serving=True)
    config = pcie_server(servers=servers, gpu_count=per_server, dimm=make.dimm_gb(32, 150))

    gpu_count = check(check_configuration(config, job), rules.GPU_COUNT)

    assert gpu_count.passed is False
    assert gpu_count.detail.render() == (
        f"{per_server} GPUs per server would split copies of the model (2 GPUs each) between "
        "servers, although one server holds a whole copy."
    )


# --- (b) A copy larger than a server ----------------------------------------------------------

# One copy of a model on 4 x A100 80GB PCIe (60 GB each), more than a 2-slot server holds
FOUR_GPU_COPY = copies(GPU_A100_80_PCIE=(4, 60.0, 4))


def large_copy_catalog(*chassis: Any) -> Any:
    return make.snapshot(
        make.a100_pcie(), *chassis, *pcie_parts(), make.nic(), *net.infiniband_parts()
    )


def test_a_copy_larger_than_a_server_spans_servers_over_nvlink_linked_pairs():
    catalog = large_copy_catalog(two_slot(), two_slot_nvlink())
    job = needs(FOUR_GPU_COPY, model_sharded=True, serving=True)

    [option] = build_options(job, catalog).options

    # 2 x 2 in the unbridged chassis would be 2,000 cheaper, but the pair in each server holds
    # part of one copy that also spans servers: it needs NVLink. 4 x 1 needs two more servers.
    # Per server: 9,000 + 2 x 15,000 + 2,000 + 16 x 150 (512 GB >= 2 x 160) + 240 + 2 x 900 +
    # 2 x ConnectX-7 2,000 (one port per GPU) = 49,440; x 2 = 98,880. The cluster: 4 ports on
    # one 64-port leaf 25,000, 2 splitter DACs 800, a management switch 4,000 and 2 + 1 + 1 = 4
    # Cat6 cords 20 = 29,820. Total 128,700.
    assert option.servers == 2
    assert lines(option)[0] == ("chassis", "CH-PCIE-2-NVL", 1, "9000.00", "")
    assert per_server_gpus(option) == 2
    assert option.totals.price == make.eur("128700.00")
    assert check(option, rules.NVLINK).detail.render() == (
        "NVLink links the GPUs of each model copy at 600 GB/s."
    )
    assert check(option, rules.GPU_COUNT).detail.render() == (
        "2 x 2 = 4 GPUs cover the 4 A100 80GB PCIe GPUs the job needs. One copy of the model "
        "needs 4 GPUs, more than a server holds: it runs as 2 pipeline stages, one per server, "
        "over the fabric."
    )
    assert check(option, rules.INTERCONNECT).detail.render() == (
        "2 x ConnectX-7 400G: 2 InfiniBand ports at 400 Gb/s for 2 GPUs (400 Gb/s needed per GPU)."
    )


def test_an_unlinked_pair_holding_part_of_a_copy_that_spans_servers_fails_nvlink():
    job = needs(FOUR_GPU_COPY, model_sharded=True, serving=True)
    config = pcie_server(
        servers=2,
        chassis=two_slot(),
        gpu=make.a100_pcie(),
        gpu_count=2,
        dimm=make.dimm_gb(32, 150),
        nic=make.nic(),
        nic_count=2,
    )
    bridged = ServerConfiguration(**{**_fields(config), "chassis": two_slot_nvlink()})

    unlinked = check_configuration(config, job)

    assert [c.rule for c in unlinked if not c.passed] == [rules.NVLINK]
    assert check(unlinked, rules.NVLINK).detail.render() == (
        "One copy of the model spans servers: the 2 GPUs of each server need NVLink or NVSwitch "
        "between them, which the A100 80GB PCIe in the 2U 2-GPU PCIe lack."
    )
    assert all(c.passed for c in check_configuration(bridged, job))


def _fields(config: ServerConfiguration) -> dict[str, Any]:
    return {name: getattr(config, name) for name in ServerConfiguration.__slots__}


# --- (c) Training over several servers: dense servers only --------------------------------------

# Eight L40S training data-parallel (each GPU a whole model, 30 GB)
EIGHT_FOR_TRAINING = fits(GPU_L40S=(8, 30.0))


def training_catalog(*chassis: Any) -> Any:
    return make.snapshot(make.l40s(), *chassis, *pcie_parts(), make.nic(), *net.infiniband_parts())


def test_training_over_servers_picks_dense_servers_over_cheaper_one_gpu_servers():
    # A dear 4-slot chassis (40,000) next to a 1-slot one (4,000)
    catalog = training_catalog(one_slot(), make.pcie_chassis(price=40000))

    [option] = build_options(needs(EIGHT_FOR_TRAINING), catalog).options

    # 8 x 1 would cost less: per 1U server 4,000 + 8,000 + 2,000 + 16 x 80 + 240 + 2 x 900 (its
    # 500 GB share, mirrored) + 2,000 = 19,320, x 8 = 154,560; the cluster: 8 ports on one leaf
    # 25,000, across the row (8 servers fill two racks) on 10 m fibers 800 + 4 twin switch
    # optics 6,000 + 8 adapter optics 7,200, a management switch 4,000 and 8 + 1 + 1 = 10 Cat6
    # cords of 10 m 100: 43,100. 197,660 in all. But training over 1-GPU servers (or 4 servers
    # of 2, 3 of 3) is sparse; 2 x 4 is the dense layout: 2 x (40,000 + 32,000 + 2,000 +
    # 2,400 + 240 + 1,800 + 8,000) = 172,880 + the cluster of the next test, 30,620 = 203,500.
    assert (option.servers, per_server_gpus(option)) == (2, 4)
    assert lines(option)[0] == ("chassis", "CH-PCIE-4", 1, "40000.00", "")
    assert option.totals.price == make.eur("203500.00")
    assert check(option, rules.GPU_COUNT).detail.render() == (
        "2 x 4 = 8 GPUs cover the 8 L40S GPUs the job needs."
    )


def test_training_with_only_one_gpu_servers_is_unmet_and_a_sparse_layout_fails():
    result = build_options(needs(EIGHT_FOR_TRAINING), training_catalog(one_slot()))
    sparse = pcie_server(servers=8, chassis=one_slot(), nic=make.nic(), nic_count=1)

    assert result.options == ()
    assert rendered(result.unmet) == [
        "Training the job on L40S GPUs spreads it over servers, and no chassis holds them as a "
        "dense training server does (a power of two, at least 4 per server): add a 4- or 8-GPU "
        "chassis."
    ]
    gpu_count = check(check_configuration(sparse, needs(EIGHT_FOR_TRAINING)), rules.GPU_COUNT)
    assert gpu_count.passed is False
    assert gpu_count.detail.render() == (
        "Training over 8 servers of 1 GPUs: a job spread over servers runs on dense servers of "
        "4 or 8 GPUs (a power of two, at least 4), so that gradients cross the network once per "
        "server and parallel groups split evenly."
    )


def six_slot() -> Any:
    return make.pcie_chassis(
        sku="CH-PCIE-6",
        name="4U 6-GPU PCIe",
        gpu_slots=6,
        price=20000,
        pcie_switches=True,
        psu_count=4,
        psu_w=3000,
        psu_redundant=2,
        max_system_power_w=6000,
    )


def test_training_over_servers_takes_a_power_of_two_gpus_per_server_not_six():
    catalog = training_catalog(six_slot(), make.pcie_chassis(price=40000))
    sixteen = needs(fits(GPU_L40S=(16, 30.0)))

    [option] = build_options(sixteen, catalog).options
    # Control: the six-slot chassis does hold six L40S when one server does the job.
    [single] = build_options(needs(fits(GPU_L40S=(6, 30.0))), catalog).options
    three_by_six = pcie_server(
        servers=3, chassis=six_slot(), gpu_count=6, nic=make.nic(), nic_count=6
    )

    assert (single.servers, per_server_gpus(single)) == (1, 6)
    # 3 x 6 would buy 18 GPUs for a 16-GPU job; 4 x 4 is exactly the job.
    assert (option.servers, per_server_gpus(option), option.totals.gpus) == (4, 4, 16)
    gpu_count = check(check_configuration(three_by_six, sixteen), rules.GPU_COUNT)
    assert gpu_count.passed is False
    assert "3 servers of 6 GPUs" in gpu_count.detail.render()


# --- (d) Production mirrors data drives; (e) M.2 sticks only boot -------------------------------

# One L40S with 10 TB of data
TEN_TB = fits(GPU_L40S=(1, 30.0))


def test_production_mirrors_the_data_drives_and_an_experiment_does_not():
    catalog = make.snapshot(make.l40s(), make.pcie_chassis(), *pcie_parts())

    production = build_options(needs(TEN_TB, storage_gb=10000.0), catalog).options[0]
    experiment = build_options(
        needs(TEN_TB, storage_gb=10000.0, environment=Environment.EXPERIMENT), catalog
    ).options[0]

    # Production: 7,680 / 2 = 3,840 GB usable per drive, ceil(10,000 / 3,840) = 3, rounded up
    # to an even 4: 15,360 GB usable of 30,720 raw. 12,000 + 8,000 + 2,000 + 16 x 80 + 240 +
    # 4 x 900 = 27,120.
    assert ("drive", "NVME-7.68", 4, "900.00", "data") in lines(production)
    assert production.totals.price == make.eur("27120.00")
    assert check(production, rules.STORAGE_NVME).detail.render() == (
        "4 x 7.68 TB NVMe U.2 (NVMe) in the 8 NVMe bays, mirrored in pairs (RAID 1/10)."
    )
    assert check(production, rules.STORAGE_CAPACITY).detail.render() == (
        "15360 GB of usable data storage for the 10000 GB needed."
    )
    # Experiment: ceil(10,000 / 7,680) = 2 drives, not mirrored, no boot pair:
    # 12,000 + 8,000 + 2,000 + 16 x 80 + 2 x 900 = 25,080
    assert ("drive", "NVME-7.68", 2, "900.00", "data") in lines(experiment)
    assert experiment.totals.price == make.eur("25080.00")
    assert check(experiment, rules.STORAGE_CAPACITY).detail.render() == (
        "15360 GB of usable data storage for the 10000 GB needed."
    )


def test_an_odd_number_of_data_drives_fails_in_production_only():
    job = needs(TEN_TB, storage_gb=1000.0)
    three = pcie_server(data_drive_count=3)

    production = check_configuration(three, job)
    experiment = check_configuration(
        three, needs(TEN_TB, storage_gb=1000.0, environment=Environment.EXPERIMENT)
    )

    assert [c.rule for c in production if not c.passed] == [rules.STORAGE_NVME]
    assert check(production, rules.STORAGE_NVME).detail.render() == (
        "3 data drives: production mirrors its data (RAID 1/10), so an even number of at least two."
    )
    assert all(c.passed for c in experiment)
    # 3 x 7,680 GB raw; mirrored, half of it
    assert usable_data_gb(make.drive(), 3, production=True) == 11520.0
    assert usable_data_gb(make.drive(), 3, production=False) == 23040.0


def test_an_m2_stick_is_never_a_data_drive():
    # A 3.84 TB M.2 stick far cheaper per TB than the U.2 drive
    stick = make.boot_ssd(sku="M2-3.84", name="3.84 TB NVMe M.2", capacity_tb=3.84, price=200)
    catalog = make.snapshot(make.l40s(), make.pcie_chassis(), *pcie_parts(), stick)

    [option] = build_options(needs(TEN_TB), catalog).options
    only_sticks = build_options(
        needs(TEN_TB),
        make.snapshot(
            make.l40s(),
            make.pcie_chassis(),
            *[p for p in pcie_parts() if p.sku != "NVME-7.68"],
            stick,
        ),
    )

    # Data on 2 x 7.68 TB U.2; the cheapest SSD of 240 GB or more, the 480 GB stick, boots
    data = [p for p in option.parts if p.role == "data"]
    boot = [p for p in option.parts if p.role == "boot"]
    assert [(p.sku, p.quantity) for p in data] == [("NVME-7.68", 2)]
    assert [(p.sku, p.quantity) for p in boot] == [("M2-480", 2)]
    assert only_sticks.options == ()
    assert rendered(only_sticks.unmet) == [
        "No set of NVMe drives gives 4000 GB and 6000 MB/s within the 8 NVMe bays of the 2U "
        "4-GPU PCIe: add larger or faster NVMe drives."
    ]
    # 2 x 3.84 TB hold the 1 TB of this job even mirrored: only the form factor fails
    on_m2 = check_configuration(pcie_server(data_drive=stick), needs(TEN_TB, storage_gb=1000.0))
    assert [c.rule for c in on_m2 if not c.passed] == [rules.STORAGE_NVME]
    assert check(on_m2, rules.STORAGE_NVME).detail.render() == (
        "The 3.84 TB NVMe M.2 is an M.2 boot device; data needs U.2, U.3, E1.S or E3.S drives in "
        "the front bays, which can be swapped while the server runs."
    )
    assert stick.form_factor is DriveFormFactor.M2


def test_boot_drives_never_take_front_bays_beyond_the_chassis():
    # A 960 GB U.2 drive cheaper than the M.2 stick, in a chassis with 2 front bays
    u2 = make.drive(sku="U2-0.96", name="960 GB NVMe U.2", capacity_tb=0.96, price=100)
    catalog = make.snapshot(make.l40s(), make.pcie_chassis(nvme_bays=2), *pcie_parts(), u2)

    [option] = build_options(needs(TEN_TB), catalog).options

    # The 2 data drives fill the 2 bays: the boot pair must be M.2 sticks on the board
    in_bays = sum(
        p.quantity for p in option.parts if p.kind == "drive" and p.sku in {"U2-0.96", "NVME-7.68"}
    )
    assert in_bays <= 2


# --- (f) A spare server (N+1) ---------------------------------------------------------------------

# One L40S holding one copy of a model that must stay up
ONE_COPY = copies(GPU_L40S=(1, 30.0, 1))


def test_a_spare_server_adds_one_server_and_the_availability_check_states_it():
    catalog = make.snapshot(make.l40s(), make.pcie_chassis(), *pcie_parts())

    alone = build_options(needs(ONE_COPY, serving=True), catalog).options[0]
    spared = build_options(needs(ONE_COPY, serving=True, spare_servers=1), catalog).options[0]

    # Per server 12,000 + 8,000 + 2,000 + 16 x 80 + 240 + 2 x 900 = 25,320; the spare is a
    # second identical server (each loads the whole 4 TB), 50,640, and needs no fabric
    assert (alone.servers, alone.totals.price) == (1, make.eur("25320.00"))
    assert (spared.servers, spared.totals.price) == (2, make.eur("50640.00"))
    assert spared.totals.gpus == 2
    assert not any(p.kind == "nic" for p in spared.parts)
    # Without a service tier a failed server is back in 72 h (next business day over a weekend,
    # the default tier's promise): down 1.4 faults x 72 h = 100.8 h a year, 1 - 100.8 / 8,760
    # = 98.849 %; with a spare the service is down only when both are:
    # 1 - (100.8 / 8,760)^2 = 99.98676 %, rounded down (never more than it is) 99.986
    assert check(alone, rules.AVAILABILITY).detail.render() == (
        "No spare server, as the service need not run around the clock: expected availability "
        "98.849 % (1 server up, a failed one back within 72 h)."
    )
    availability = check(spared, rules.AVAILABILITY)
    assert (availability.passed, availability.warning) == (True, False)
    assert availability.detail.render() == (
        "1 server carries the load and 1 spare takes over when it fails: expected availability "
        "99.986 % (one server alone: 98.849 %; a failed server back within 72 h). Redundant "
        "power supplies and mirrored system disks keep each server up through their own faults."
    )
    # The GPU count is judged on the working server, not the spare
    assert check(spared, rules.GPU_COUNT).detail.render() == (
        "1 x 1 = 1 GPUs cover the 1 L40S GPU the job needs."
    )


def test_the_availability_check_uses_the_service_tiers_repair_time():
    catalog = make.snapshot(make.l40s(), make.pcie_chassis(), *pcie_parts())
    job = needs(ONE_COPY, serving=True, spare_servers=1, repair_hours=4)

    spared = build_options(job, catalog).options[0]

    # A 4 h replacement (the 24x7 tier): down 1.4 x 4 = 5.6 h a year, 1 - 5.6 / 8,760 =
    # 99.936 %; both servers down (5.6 / 8,760)^2 = 4.1e-7: 99.99996 %, quoted 99.999 (rounded
    # down: never 100 %)
    params = check(spared, rules.AVAILABILITY).detail.params
    assert (params["hours"], params["single"], params["availability"]) == (
        4,
        Decimal("99.936"),
        Decimal("99.999"),
    )


def test_a_service_asking_for_a_spare_fails_availability_on_one_server():
    job = needs(ONE_COPY, serving=True, spare_servers=1)

    checks = check_configuration(pcie_server(), job)

    assert [c.rule for c in checks if not c.passed] == [rules.AVAILABILITY]
    assert check(checks, rules.AVAILABILITY).detail.render() == (
        "The service must stay up, but 1 server leaves no spare: add one so that the service "
        "survives a server failing."
    )


# --- (g) The cluster's switches, cables and shared storage -------------------------------------


def test_a_two_server_training_option_lists_its_cluster_parts_and_prices_them():
    catalog = training_catalog(make.pcie_chassis())

    [option] = build_options(needs(EIGHT_FOR_TRAINING), catalog).options

    assert lines(option) == [
        # Per server: 12,000 + 4 x 8,000 + 2,000 + 16 x 32 GB (512 GB >= 2 x 192) 2,400 + 240 +
        # 2 x 900 (its 2 TB share, mirrored) + 4 x 2,000 (a 400G port per GPU) = 58,440
        ("chassis", "CH-PCIE-4", 1, "12000.00", ""),
        ("gpu", "GPU-L40S", 4, "8000.00", ""),
        ("cpu", "CPU-XEON-4410Y", 2, "1000.00", ""),
        ("memory", "DIMM-DDR5-32", 16, "150.00", ""),
        ("drive", "M2-480", 2, "120.00", "boot"),
        ("drive", "NVME-7.68", 2, "900.00", "data"),
        ("nic", "NIC-CX7-400", 4, "2000.00", ""),
        # For the cluster: 2 x 4 = 8 ports on one 64-port leaf; 8 / 2 = 4 splitter DACs of 3 m
        # (1,600, against 8 fibers 800 + 4 twin switch optics 6,000 + 8 adapter optics 7,200);
        # a management switch for 2 BMCs + 1 leaf and 3 + 1 = 4 Cat6 cords of 3 m
        ("switch", "SW-IB-64", 1, "25000.00", "leaf"),
        ("cable", "DAC-NDR-3M", 4, "400.00", "server_link"),
        ("switch", "SW-MGMT-48", 1, "4000.00", "management"),
        ("cable", "CAT6-3M", 4, "5.00", "management_link"),
    ]
    assert [p.scope for p in option.parts] == [PartScope.SERVER] * 7 + [PartScope.CLUSTER] * 4
    assert [p.total_quantity(option.servers) for p in option.parts[-4:]] == [1, 4, 1, 4]
    # 2 x 58,440 + 25,000 + 1,600 + 4,000 + 20 = 147,500
    assert option.totals.price == make.eur("147500.00")
    # 2 x 2 U + 1 U leaf + 1 U management switch
    assert option.totals.rack_units == 6
    # 750 + 4 x 0.1 + 100 = 850.4 W, rounded up
    assert option.totals.cluster_power_w == 851
    assert rendered(option.notes) == [
        "2 servers × 4 ports of 400 Gb/s InfiniBand: 1 leaf and 0 spine switches (NDR switch "
        "64 x 400G, 64 ports each), 8 server links and 0 uplinks; 1 management switches with 4 "
        "cords."
    ]


def test_training_with_a_local_copy_adds_a_shared_storage_server_and_its_network():
    storage_network = (
        net.ethernet_switch(),
        net.splitter_dac(sku="DAC-200-3M", speed_gbps=200, links=4, price=500),
    )
    catalog = training_catalog(make.pcie_chassis(), net.storage_server(), *storage_network)
    job = needs(EIGHT_FOR_TRAINING, storage_gb=100000.0, local_storage_gb=3000.0)

    [option] = build_options(job, catalog).options

    # Each server keeps 3 TB locally (2 x 7.68 TB mirrored, 7,680 GB usable); the whole 100 TB
    # at 6,000 MB/s lives on one 150 TB NFS server, 50,000. Its network: one 800GbE switch
    # 40,000, a 400G adapter in each server 2 x 2,000, their two links on one splitter DAC 400
    # and the NFS server's two 200G ports on one 1:4 DAC 500: 44,900. The storage switch and
    # server join the management network: 2 more 3 m cords, 10. 147,500 + 50,000 + 44,910.
    assert ("drive", "NVME-7.68", 2, "900.00", "data") in lines(option)
    assert ("storage_server", "NFS-150", 1, "50000.00", "shared_storage") in lines(option)
    assert ("switch", "SW-ETH-800", 1, "40000.00", "storage_switch") in lines(option)
    assert ("nic", "NIC-CX7-400", 2, "2000.00", "storage_adapter") in lines(option)
    assert ("cable", "CAT6-3M", 6, "5.00", "management_link") in lines(option)
    assert option.totals.price == make.eur("242410.00")
    # 6 U as above + 2 U + the 2 U switch; 851 W as above + 800 W + 1,000 + 2 x 25 + 2 x 0.1
    # (1,051 rounded up)
    assert (option.totals.rack_units, option.totals.cluster_power_w) == (10, 2702)
    assert check(option, rules.STORAGE_CAPACITY).detail.render() == (
        "7680 GB of usable data storage per server keeps a local copy of the 3000 GB every "
        "server reads; the whole 100000 GB, checkpoints included, lives on the shared storage "
        "tier."
    )


def test_training_with_shared_storage_the_catalog_cannot_network_is_not_offered():
    catalog = training_catalog(make.pcie_chassis(), net.storage_server())  # no Ethernet switch
    job = needs(EIGHT_FOR_TRAINING, storage_gb=100000.0, local_storage_gb=3000.0)

    assert build_options(job, catalog).options == ()


# --- (h) Upper tiers without a mostly idle baseboard ----------------------------------------------


def test_upper_tiers_never_offer_an_idle_8_gpu_baseboard_and_say_why_they_are_missing():
    catalog = make.snapshot(make.h100_sxm(), make.chassis(), *hgx_parts())

    result: BuildResult = build_options(needs(fits(GPU_H100_SXM=(1, 60.0))), catalog)

    # The cheapest build of a 1-GPU job here is a whole HGX baseboard: 60,000 + 8 x 25,000 +
    # 2 x 16 cores (32 >= 4 x 8) 2,400 + 24 x 64 GB (1,536 GB >= 2 x 640) 7,200 + 240 +
    # 2 x 7.68 TB 1,800 = 271,640. Budget may offer it; an upper tier may not (7 idle GPUs
    # for 1 used), so there is none.
    [budget] = result.options
    assert (budget.tier, budget.totals.gpus, budget.totals.price) == (
        Tier.BUDGET,
        8,
        make.eur("271640.00"),
    )
    assert rendered(result.notes) == [
        "No balanced option: no other build does this job better within 1.5 times the budget "
        "option's price without leaving more GPUs idle than it uses.",
        "No performance option: no other build does this job better within 3 times the budget "
        "option's price without leaving more GPUs idle than it uses.",
    ]


def test_a_budget_large_enough_for_a_baseboard_still_gets_no_idle_baseboard_tier():
    # One H100 NVL (94 GB) or the HGX board can run the 1-GPU job; the budget covers both
    catalog = make.snapshot(
        make.h100_sxm(),
        make.h100_nvl(),
        make.chassis(),
        make.pcie_chassis(),
        *hgx_parts(),
        make.xeon_4410y(),
        make.dimm_gb(16, 80),
    )
    job = needs(fits(GPU_H100_SXM=(1, 60.0), GPU_H100_NVL=(1, 60.0)), budget=make.eur(400000))

    result = build_options(job, catalog)

    # 12,000 + 28,000 + 2,000 + 16 x 80 + 240 + 2 x 900 = 45,320; its two drives already read
    # twice the 6,000 MB/s, so no comfort build differs, and the 8 x 989 TFLOPS of the
    # 271,640 HGX build would leave 7 of 8 GPUs idle
    assert [(o.tier, o.totals.gpus, o.totals.price) for o in result.options] == [
        (Tier.BUDGET, 1, make.eur("45320.00"))
    ]
    assert [note.render().split(":")[0] for note in result.notes] == [
        "No separate balanced option",
        "No separate performance option",
    ]


# --- (g) Single points of failure -----------------------------------------------------------------


def test_a_cluster_names_its_one_storage_server_and_its_one_switches_as_single_points():
    storage_network = (
        net.ethernet_switch(),
        net.splitter_dac(sku="DAC-200-3M", speed_gbps=200, links=4, price=500),
    )
    fabric = training_catalog(make.pcie_chassis())
    stored = training_catalog(make.pcie_chassis(), net.storage_server(), *storage_network)
    with_storage = needs(EIGHT_FOR_TRAINING, storage_gb=100000.0, local_storage_gb=3000.0)

    [linked] = build_options(needs(EIGHT_FOR_TRAINING), fabric).options
    [sharing] = build_options(with_storage, stored).options

    # Two servers on one leaf switch: the leaf stops both; the management switch does not
    assert [(p.role, p.name) for p in single_points_of_failure(linked)] == [
        ("leaf", "NDR switch 64 x 400G")
    ]
    # The same leaf, and one NFS server on one storage switch: either stops every server
    # reading its data
    roles = [p.role for p in single_points_of_failure(sharing)]
    assert roles == ["leaf", "shared_storage", "storage_switch"]
    assert single_points_of_failure(sharing)[1].label.render() == (
        "the one shared storage server (NFS) all GPU servers read from"
    )


def test_one_server_is_its_own_single_point_and_a_spare_removes_it():
    catalog = make.snapshot(make.l40s(), make.pcie_chassis(), *pcie_parts())

    alone = build_options(needs(ONE_COPY, serving=True), catalog).options[0]
    spared = build_options(needs(ONE_COPY, serving=True, spare_servers=1), catalog).options[0]

    assert [(p.role, p.label.render()) for p in single_points_of_failure(alone)] == [
        ("server", "the one GPU server: no spare takes over when it fails")
    ]
    # Two servers that each hold a whole copy share no switch nor storage in the quote
    assert single_points_of_failure(spared) == ()
