"""Properties of the builder over small random catalogs.

The central one: the ``budget`` option is the true cheapest configuration. A brute force walks every
configuration of the model (every chassis, GPU, per-server GPU count with ``ceil(job / count)``
servers, CPU and CPU count, DIMM and DIMM count, data drive and count, boot drives none/one/two,
NICs none or up to one per GPU), asks ``configuration_feasible`` (the same rules as
``check_configuration``) and keeps the lowest price. It only skips a branch whose partial price
already reaches the best found: prices are never negative, so nothing cheaper hides there.
Parts that cannot be bought new count only when no configuration of current parts exists: the
brute force first walks the current parts alone, then, if nothing passes, every part.
"""

from __future__ import annotations

import math
from collections.abc import Iterator, Sequence
from decimal import Decimal
from typing import Any

import pytest
from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st

from engine.build.builder import (
    BuildNeeds,
    Environment,
    GpuFit,
    ServerConfiguration,
    Tier,
    build_options,
    check_configuration,
    configuration_feasible,
)
from engine.build.cluster.fabric import design_fabric
from engine.build.cluster.shared_storage import design_shared_storage
from engine.build.cluster.storage_network import design_storage_network
from engine.build.configuration import shared_storage_needed
from engine.build.parts import (
    Availability,
    CatalogSnapshot,
    Cooling,
    DriveFormFactor,
    DriveKind,
    FormFactor,
    GpuClass,
)
from engine.money import Money
from tests.engine import catalog_factory as make
from tests.engine.build.cluster_parts import (
    ethernet_switch,
    infiniband_parts,
    network_snapshot,
    splitter_dac,
    storage_server,
)

# The brute force makes each example cost up to a few hundred ms: 100 examples per run here (a
# 1,500-example run passed when the builder was written). Raise it locally when changing the search.
PROPERTY_SETTINGS = settings(
    max_examples=100,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)

# --- Strategies ----------------------------------------------------------------------------------
# Each catalog holds one "tame" part of every kind (drawn from values that work together, so that
# many catalogs have a solution) and up to two "wild" ones (any value, so that every rule gets to
# reject something). Prices have cents; a wild part may have no price.

offered_prices = st.integers(min_value=0, max_value=400_000).map(
    lambda cents: make.eur(Decimal(cents) / 100)
)


def _price(draw: st.DrawFn, tame: bool) -> Money | None:
    if not tame and draw(st.integers(min_value=0, max_value=9)) == 0:
        return None
    return draw(offered_prices)


def _pick(draw: st.DrawFn, tame: bool, tame_values: list[Any], wild_values: list[Any]) -> Any:
    return draw(st.sampled_from(tame_values if tame else tame_values + wild_values))


def _availability(draw: st.DrawFn, tame: bool) -> Availability:
    return _pick(
        draw, tame, [Availability.CURRENT], [Availability.END_OF_LIFE, Availability.REFURBISHED]
    )


@st.composite
def gpus(draw: st.DrawFn, index: int, tame: bool) -> Any:
    gpu_class = _pick(draw, tame, [GpuClass.DATACENTER], [GpuClass.WORKSTATION, GpuClass.CONSUMER])
    return make.gpu(
        sku=f"GPU-{index}",
        name=f"GPU {index}",
        memory_gb=_pick(draw, tame, [24.0, 48.0, 80.0], [12.0, 16.0]),
        memory_bandwidth_gbs=draw(st.sampled_from([800.0, 1000.0, 2000.0, 3350.0])),
        bf16_tflops=draw(st.sampled_from([100.0, 165.0, 362.0, 989.0])),
        tdp_w=_pick(draw, tame, [150, 300, 450, 700], [1200]),
        form_factor=_pick(draw, tame, [FormFactor.PCIE, FormFactor.PCIE, FormFactor.SXM], []),
        nvlink_gbs=draw(st.sampled_from([None, 600.0])),
        ecc=True if tame else draw(st.booleans()),
        gpu_class=gpu_class,
        price=_price(draw, tame),
        architecture=_pick(draw, tame, ["Hopper", "Ada Lovelace"], ["Ampere", "Volta"]),
        baseboard=_pick(draw, tame, ["HGX-A"], ["HGX-B", ""]),
        availability=_availability(draw, tame),
    )


@st.composite
def chassis_specs(draw: st.DrawFn, index: int, tame: bool) -> Any:
    psu_count = draw(st.integers(min_value=2, max_value=4))
    return make.chassis(
        sku=f"CH-{index}",
        name=f"Chassis {index}",
        gpu_slots=draw(st.integers(min_value=1, max_value=4)),
        gpu_form_factors=_pick(
            draw,
            tame,
            [frozenset({FormFactor.PCIE, FormFactor.SXM})],
            [frozenset({FormFactor.PCIE}), frozenset({FormFactor.SXM})],
        ),
        max_gpu_tdp_w=_pick(draw, tame, [700], [300, 450, 1200]),
        nvswitch=draw(st.booleans()),
        nvlink_bridge=draw(st.booleans()),
        pcie_switches=draw(st.booleans()),
        cpu_sockets=draw(st.integers(min_value=1, max_value=2)),
        cpu_socket_type=_pick(draw, tame, ["A"], ["B"]),
        dimm_slots=draw(st.integers(min_value=1, max_value=6)),
        ddr_generation=_pick(draw, tame, [5], [4]),
        nvme_bays=draw(st.integers(min_value=1, max_value=3)),
        psu_count=psu_count,
        psu_w=_pick(draw, tame, [3000], [800, 1600]),
        psu_redundant=_pick(draw, tame, [1], list(range(psu_count))),
        cooling=_pick(draw, tame, [Cooling.AIR], [Cooling.LIQUID]),
        max_system_power_w=_pick(draw, tame, [6000, 10000], [1500, 3000]),
        base_power_w=draw(st.sampled_from([100, 300, 800])),
        rack_units=draw(st.sampled_from([1, 2, 4])),
        price=_price(draw, tame),
        baseboards=_pick(
            draw,
            tame,
            [frozenset({"HGX-A"}), frozenset({"HGX-A", "HGX-B"})],
            [frozenset(), frozenset({"HGX-B"})],
        ),
        availability=_availability(draw, tame),
        rack_mount=_pick(draw, tame, [True], [False]),
        registered_memory=_pick(draw, tame, [True], [False]),
        m2_slots=draw(st.integers(min_value=0, max_value=2)),
    )


@st.composite
def cpus(draw: st.DrawFn, index: int, tame: bool) -> Any:
    return make.cpu(
        sku=f"CPU-{index}",
        name=f"CPU {index}",
        socket=_pick(draw, tame, ["A"], ["B"]),
        cores=_pick(draw, tame, [8, 16, 32], [4]),
        tdp_w=draw(st.sampled_from([65, 150, 300])),
        memory_channels=draw(st.integers(min_value=1, max_value=2)),
        max_memory_gb=_pick(draw, tame, [1024], [64, 256]),
        pcie_lanes=_pick(draw, tame, [128], [16, 48]),
        server_grade=True if tame else draw(st.booleans()),
        price=_price(draw, tame),
        availability=_availability(draw, tame),
    )


@st.composite
def dimms(draw: st.DrawFn, index: int, tame: bool) -> Any:
    return make.dimm(
        sku=f"DIMM-{index}",
        name=f"DIMM {index}",
        capacity_gb=_pick(draw, tame, [64, 128, 256], [8, 16, 32]),
        ddr_generation=_pick(draw, tame, [5], [4]),
        ecc=True if tame else draw(st.booleans()),
        registered=True if tame else draw(st.booleans()),
        power_w=draw(st.sampled_from([1.5, 3.0, 4.5])),
        price=_price(draw, tame),
        availability=_availability(draw, tame),
    )


@st.composite
def drives(draw: st.DrawFn, index: int, tame: bool) -> Any:
    return make.drive(
        sku=f"DRIVE-{index}",
        name=f"Drive {index}",
        kind=_pick(draw, tame, [DriveKind.NVME], [DriveKind.SATA_SSD, DriveKind.HDD]),
        capacity_tb=_pick(draw, tame, [0.48, 1.92, 3.84, 7.68], [0.24]),
        read_mbs=_pick(draw, tame, [3000, 7000], [500]),
        form_factor=_pick(draw, tame, [DriveFormFactor.U2], [DriveFormFactor.M2]),
        power_w=draw(st.sampled_from([2.5, 8.0, 12.5])),
        price=_price(draw, tame),
        availability=_availability(draw, tame),
    )


@st.composite
def nics(draw: st.DrawFn, index: int, tame: bool) -> Any:
    return make.nic(
        sku=f"NIC-{index}",
        name=f"NIC {index}",
        speed_gbps=_pick(draw, tame, [200, 400], [25, 100]),
        ports=draw(st.integers(min_value=1, max_value=2)),
        infiniband=draw(st.booleans()),
        roce=True if tame else draw(st.booleans()),
        pcie_lanes=draw(st.sampled_from([8, 16])),
        power_w=draw(st.sampled_from([10.0, 20.5])),
        price=_price(draw, tame),
        availability=_availability(draw, tame),
    )


def _several(part: Any, wild_max: int) -> st.SearchStrategy[tuple[Any, ...]]:
    return st.integers(min_value=0, max_value=wild_max).flatmap(
        lambda n: st.tuples(part(0, True), *(part(i, False) for i in range(1, n + 1)))
    )


@st.composite
def catalogs(draw: st.DrawFn, wild: int = 2) -> CatalogSnapshot:
    # The cluster's parts: none (no multi-server build can be networked), or a complete NDR
    # InfiniBand set with a shared storage server and, maybe, what its storage network needs (an
    # Ethernet switch and 200G cabling for the storage server's ports).
    cluster = None
    if draw(st.booleans()):
        storage_network = (
            (ethernet_switch(), splitter_dac(sku="DAC-200-3M", speed_gbps=200, links=4))
            if draw(st.booleans())
            else ()
        )
        cluster = network_snapshot(*infiniband_parts(), *storage_network, storage_server())
    return CatalogSnapshot(
        currency=make.CURRENCY,
        switches=cluster.switches if cluster else (),
        cables=cluster.cables if cluster else (),
        storage_servers=cluster.storage_servers if cluster else (),
        gpus=draw(_several(gpus, wild)),
        chassis=draw(_several(chassis_specs, wild)),
        cpus=draw(_several(cpus, wild)),
        memory=draw(_several(dimms, wild)),
        drives=draw(_several(drives, wild)),
        nics=draw(_several(nics, max(1, wild - 1))),
    )


def _fit_by_memory(job_gb: float, slack: float, most: int, replica: int = 1) -> Any:
    """A job needing ``job_gb`` in total, split evenly; ``slack`` > 1 makes some fits too tight;
    ``replica``: GPUs per model copy when serving (the count is whole copies)."""

    def gpus_for(gpu: Any) -> GpuFit | None:
        count = max(1, math.ceil(job_gb / (gpu.memory_gb * 0.9)))
        count = -(-count // replica) * replica
        if count > most:
            return None
        return GpuFit(gpus=count, memory_per_gpu_gb=job_gb / count * slack, replica_gpus=replica)

    return gpus_for


@st.composite
def needs_for(draw: st.DrawFn, with_budget: bool = False) -> BuildNeeds:
    budget = None
    if with_budget and draw(st.booleans()):
        budget = make.eur(draw(st.integers(min_value=0, max_value=200_000)))
    serving = draw(st.booleans())
    return BuildNeeds(
        gpus_for=_fit_by_memory(
            job_gb=draw(st.sampled_from([10.0, 30.0, 60.0, 100.0, 150.0])),
            slack=draw(st.sampled_from([1.0, 1.0, 1.0, 1.2])),
            most=draw(st.integers(min_value=2, max_value=8)),
            replica=draw(st.sampled_from([1, 1, 2, 4])) if serving else 1,
        ),
        serving=serving,
        spare_servers=draw(st.sampled_from([0, 0, 1])) if serving else 0,
        environment=draw(st.sampled_from(list(Environment))),
        model_sharded=draw(st.booleans()),
        large_project=draw(st.sampled_from([False, False, True])),
        storage_gb=draw(st.sampled_from([0.0, 500.0, 2000.0, 5000.0])),
        storage_read_mbs=draw(st.sampled_from([0.0, 2000.0, 9000.0])),
        cpu_cores_min=draw(st.sampled_from([0, 0, 16, 40])),
        interconnect_gbps_per_gpu=draw(st.sampled_from([0, 100, 400])),
        budget=budget,
        growth_gpus=draw(st.sampled_from([0, 0, 1])),
        precision=draw(st.sampled_from(["", "bf16", "bf16", "fp8"])),
        # Training over several servers with a local copy: the shared tier and its network.
        local_storage_gb=None if serving else draw(st.sampled_from([None, 300.0])),
    )


# --- Brute force ---------------------------------------------------------------------------------


def _offered(parts: Sequence[Any]) -> list[Any]:
    return sorted((p for p in parts if p.price is not None), key=lambda p: (p.price.amount, p.sku))


def _counted(parts: Sequence[Any], counts: range) -> Iterator[tuple[Any, int]]:
    for part in parts:
        for count in counts:
            yield part, count


def brute_force_cheapest(needs: BuildNeeds, catalog: CatalogSnapshot) -> Decimal | None:
    """The cheapest valid configuration of current parts, else of every part."""
    current = CatalogSnapshot(
        currency=catalog.currency,
        # The cluster's parts are designed outside the search, as the builder does.
        switches=catalog.switches,
        cables=catalog.cables,
        storage_servers=catalog.storage_servers,
        **{
            kind: tuple(p for p in getattr(catalog, kind) if p.availability is Availability.CURRENT)
            for kind in ("gpus", "cpus", "memory", "drives", "nics", "chassis")
        },
    )
    found = _brute_force(needs, current)
    return found if found is not None else _brute_force(needs, catalog)


def _brute_force(needs: BuildNeeds, catalog: CatalogSnapshot) -> Decimal | None:
    best: Decimal | None = None

    def worse(servers: int, amount: Decimal) -> bool:
        return best is not None and servers * amount >= best

    all_drives = _offered(catalog.drives)
    for chassis in _offered(catalog.chassis):
        for gpu in _offered(catalog.gpus):
            fit = needs.gpus_for(gpu)
            if fit is None:
                continue
            for per_server in range(1, chassis.gpu_slots + 1):
                servers = -(-fit.gpus // per_server) + needs.spare_servers
                gpu_cost = chassis.price.amount + per_server * gpu.price.amount
                if worse(servers, gpu_cost):
                    continue
                for cpu, cpu_count in _counted(
                    _offered(catalog.cpus), range(1, chassis.cpu_sockets + 1)
                ):
                    cpu_cost = gpu_cost + cpu_count * cpu.price.amount
                    if worse(servers, cpu_cost):
                        continue
                    for dimm, dimm_count in _counted(
                        _offered(catalog.memory), range(1, chassis.dimm_slots + 1)
                    ):
                        dimm_cost = cpu_cost + dimm_count * dimm.price.amount
                        if worse(servers, dimm_cost):
                            continue
                        slots = max(chassis.nvme_bays, chassis.m2_slots)  # M.2: towers
                        for data, data_count in _counted(all_drives, range(1, slots + 1)):
                            data_cost = dimm_cost + data_count * data.price.amount
                            if worse(servers, data_cost):
                                continue
                            boots = [(None, 0), *_counted(all_drives, range(1, 3))]
                            for boot, boot_count in boots:
                                boot_cost = data_cost + (
                                    boot_count * boot.price.amount if boot else 0
                                )
                                if worse(servers, boot_cost):
                                    continue
                                cards = [
                                    (None, 0),
                                    *_counted(_offered(catalog.nics), range(1, per_server + 1)),
                                ]
                                for nic, nic_count in cards:
                                    total = boot_cost + (nic_count * nic.price.amount if nic else 0)
                                    if worse(servers, total):
                                        continue
                                    config = ServerConfiguration(
                                        servers=servers,
                                        chassis=chassis,
                                        gpu=gpu,
                                        gpu_count=per_server,
                                        cpu=cpu,
                                        cpu_count=cpu_count,
                                        dimm=dimm,
                                        dimm_count=dimm_count,
                                        data_drive=data,
                                        data_drive_count=data_count,
                                        boot_drive=boot,
                                        boot_drive_count=boot_count,
                                        nic=nic,
                                        nic_count=nic_count,
                                    )
                                    if not configuration_feasible(config, needs):
                                        continue
                                    shared = _cluster_cost(needs, catalog, config)
                                    if shared is not None and not worse(
                                        1, servers * total + shared
                                    ):
                                        best = servers * total + shared
    return best


def _cluster_cost(
    needs: BuildNeeds, catalog: CatalogSnapshot, config: ServerConfiguration
) -> Decimal | None:
    """What the servers share (fabric for their NICs, shared storage and its network), as the
    search prices it (engine.build.cluster.fabric, engine.build.cluster.storage_network); None when
    the catalog cannot build it."""
    designs: list[Any] = []
    other_managed = 0
    if shared_storage_needed(needs, config.servers):
        storage = design_shared_storage(needs.storage_gb, needs.storage_read_mbs, catalog)
        designs.append(storage)
        if storage is not None and not storage.unmet:
            network = design_storage_network(
                config.servers, storage, needs.storage_read_mbs, catalog
            )
            designs.append(network)
            if network is not None:
                other_managed = storage.servers + network.leaf_switches + network.spine_switches
    if config.nic is not None:
        designs.append(
            design_fabric(
                config.servers,
                config.gpu_count,
                config.nic.speed_gbps,
                config.nic.infiniband,
                catalog,
                needs.environment is Environment.PRODUCTION,
                other_managed,
            )
        )
    cost = Decimal(0)
    for design in designs:
        if design is None:
            continue
        if design.unmet:
            return None
        cost += design.price.amount
    return cost


def _total(option: Any) -> Decimal:
    return option.totals.price.amount


# --- Properties ----------------------------------------------------------------------------------


# A brute force over every build (about half a minute): CI runs it, `make test` skips it locally.
@pytest.mark.slow
@PROPERTY_SETTINGS
@given(catalog=catalogs(), needs=needs_for())
def test_budget_option_is_the_true_cheapest(catalog, needs):
    # Given a small random catalog and job, when the builder runs
    result = build_options(needs, catalog)
    expected = brute_force_cheapest(needs, catalog)

    # then its budget option costs exactly the brute-force minimum, or neither finds one
    event("feasible" if expected is not None else "infeasible")
    if expected is None:
        assert result.options == ()
        assert result.unmet != ()
    else:
        assert result.unmet == ()
        budget = result.options[0]
        event("networked cluster" if budget.servers > 1 else "one server")
        assert budget.tier is Tier.BUDGET
        assert _total(budget) == expected.quantize(Decimal("0.01"))


@PROPERTY_SETTINGS
@given(catalog=catalogs(wild=5), needs=needs_for(with_budget=True))
def test_options_pass_every_rule_and_respect_the_budget(catalog, needs):
    result = build_options(needs, catalog)
    event(f"{len(result.options)} options")

    assert (result.options == ()) != (result.unmet == ())
    tiers = [option.tier for option in result.options]
    assert tiers == sorted(tiers, key=[Tier.BUDGET, Tier.BALANCED, Tier.PERFORMANCE].index)
    assert len({(o.servers, o.parts) for o in result.options}) == len(result.options)
    for option in result.options:
        if needs.budget is not None:
            assert option.totals.price.amount <= needs.budget.amount
        assert all(check.passed for check in option.checks)
        assert [c.rule for c in option.checks] == [
            c.rule for c in check_configuration(_configuration(option, catalog), needs)
        ]
    if result.options:
        cheapest = min(_total(option) for option in result.options)
        assert _total(result.options[0]) == cheapest
        speeds = [_tflops(option, catalog) for option in result.options]
        if result.options[-1].tier is Tier.PERFORMANCE:
            assert speeds[-1] == max(speeds)


def _tflops(option: Any, catalog: CatalogSnapshot) -> float:
    line = next(p for p in option.parts if p.kind == "gpu")
    gpu = next(g for g in catalog.gpus if g.sku == line.sku)
    return option.totals.gpus * gpu.bf16_tflops


def _configuration(option: Any, catalog: CatalogSnapshot) -> ServerConfiguration:
    """Rebuild the configuration from the part lines, as a staff screen would."""
    parts: tuple[Any, ...] = (
        *catalog.gpus,
        *catalog.cpus,
        *catalog.memory,
        *catalog.drives,
        *catalog.nics,
        *catalog.chassis,
    )
    by_sku = {p.sku: p for p in parts}
    lines = {(p.kind, p.role): p for p in option.parts}
    boot = lines.get(("drive", "boot"))
    nic = lines.get(("nic", ""))
    return ServerConfiguration(
        servers=option.servers,
        chassis=by_sku[lines[("chassis", "")].sku],
        gpu=by_sku[lines[("gpu", "")].sku],
        gpu_count=lines[("gpu", "")].quantity,
        cpu=by_sku[lines[("cpu", "")].sku],
        cpu_count=lines[("cpu", "")].quantity,
        dimm=by_sku[lines[("memory", "")].sku],
        dimm_count=lines[("memory", "")].quantity,
        data_drive=by_sku[lines[("drive", "data")].sku],
        data_drive_count=lines[("drive", "data")].quantity,
        boot_drive=by_sku[boot.sku] if boot else None,
        boot_drive_count=boot.quantity if boot else 0,
        nic=by_sku[nic.sku] if nic else None,
        nic_count=nic.quantity if nic else 0,
    )
