"""The cheapest parts around a number of GPUs in one chassis (branch and bound)."""

from __future__ import annotations

from collections.abc import Sequence

from .. import rules
from ..configuration import ServerNeeds, needs_fabric, server_needs, servers_for
from ..parts import ChassisSpec
from .explain import explain_combination, explain_memory, explain_parts
from .records import INF, NO_PARTS, ChassisItem, CpuSet, FittingGpu, PartSet, Plan, PricedNics
from .state import SearchState


def solve_server(
    search: SearchState,
    chassis: ChassisItem,
    model: FittingGpu,
    per_server: int,
    bound: float,
    comfort: bool,
) -> Plan | None:
    """The cheapest plan of ``per_server`` GPUs of the model in this chassis under ``bound``."""
    spec, gpu = chassis.spec, model.gpu
    servers = servers_for(model.fit.gpus, per_server, search.needs)
    fixed = chassis.cost + per_server * model.cost + search.boot_cost
    if servers * fixed >= bound:  # the GPUs, chassis and boot mirror alone reach the bound
        return None
    server = server_needs(search.needs, gpu, per_server, servers)
    read_mbs = server.read_mbs * (2 if comfort else 1)
    workstation = rules.workstation_cpu_allowed(spec, production=search.production)
    cpus = search.candidates.cpu_sets(
        spec.cpu_socket_type, spec.cpu_sockets, server.cores, workstation
    )
    m2_slots = spec.m2_slots if rules.m2_data_allowed(spec, production=search.production) else 0
    drives = search.candidates.drive_sets(server.storage_gb, read_mbs, spec.nvme_bays, m2_slots)
    fabric = needs_fabric(search.needs, model.fit, per_server, servers)
    nics = search.candidates.nic_sets(per_server) if fabric else (NO_PARTS,)
    diagnose = bound == INF
    if not cpus or not drives or not nics:
        if diagnose:
            explain_parts(search, chassis, model, per_server, servers, server, cpus, drives, nics)
        return None
    ram_floor = search.candidates.ram_floor(
        server.ram_gb, spec.ddr_generation, spec.registered_memory
    )
    if ram_floor is None:
        if diagnose:
            explain_memory(search, chassis, model, server)
        return None
    # A lower bound without the cluster first: designing a fabric costs more than this test.
    if servers * (fixed + cpus[0].cost + ram_floor + drives[0].cost + nics[0].cost) >= bound:
        return None
    priced = search.candidates.priced_nics(servers, per_server, nics)
    if not priced:
        if diagnose:
            explain_combination(search, chassis, model, per_server, servers, "network")
        return None
    if servers * (fixed + cpus[0].cost + ram_floor + drives[0].cost) + priced[0].extra >= bound:
        return None
    power_left = (
        chassis.load_budget_mw[search.production]
        - chassis.base_mw
        - gpu.tdp_w * 1000 * (per_server + search.needs.growth_gpus)
    )
    if power_left < 0:  # the GPUs and the base alone exceed the supplies
        if diagnose:
            explain_combination(search, chassis, model, per_server, servers, "power")
        return None
    found, no_memory, short_of = _cheapest_parts(
        search,
        spec,
        server,
        (servers, per_server),
        fixed,
        power_left,
        bound,
        comfort,
        (cpus, drives, priced),
    )
    if found is None:
        if diagnose:
            if no_memory and not short_of:
                explain_memory(search, chassis, model, server)
            else:
                explain_combination(search, chassis, model, per_server, servers, short_of)
        return None
    total, cpu, dimms, disks, nic = found
    return Plan(
        cluster=nic.cluster,
        total=total,
        servers=servers,
        per_server=per_server,
        chassis=chassis,
        model=model,
        cpus=cpu,
        memory=dimms,
        drives=disks,
        nics=nic.parts,
        boot=search.boot,
    )


_Found = tuple[int, CpuSet, PartSet, PartSet, PricedNics]


def _cheapest_parts(
    search: SearchState,
    spec: ChassisSpec,
    server: ServerNeeds,
    layout: tuple[int, int],
    fixed: int,
    power_left: int,
    bound: float,
    comfort: bool,
    candidates: tuple[Sequence[CpuSet], Sequence[PartSet], Sequence[PricedNics]],
) -> tuple[_Found | None, bool, str]:
    """Branch and bound over CPUs, memory, drives and NICs (cheapest first) under ``bound``.

    Returns the cheapest combination that fits the power and PCIe lanes left, whether no CPU had
    any memory set, and what fell short first ("power" or "lanes"; "" if nothing did)."""
    cpus, drives, nics = candidates
    servers, _per_server = layout
    switched = spec.pcie_switches
    drive_cost = drives[0].cost
    extra = nics[0].extra  # all servers' NICs and the cluster, cheapest
    drive_power = min(d.power_mw for d in drives)
    nic_power = min(n.parts.power_mw for n in nics)
    drive_lanes = min(d.lanes for d in drives)
    nic_lanes = min(n.parts.lanes for n in nics)
    max_dpc = rules.DIMMS_PER_CHANNEL_PREFERRED if comfort else spec.dimm_slots
    found: _Found | None = None
    no_memory = True
    short_of = ""
    for cpu in cpus:
        cost_cpu = fixed + cpu.cost
        if servers * (cost_cpu + drive_cost) + extra >= bound:
            break
        if cpu.power_mw + drive_power + nic_power > power_left:
            short_of = short_of or "power"
            continue
        lanes_left = INF if switched else cpu.lanes - server.gpu_lanes
        if drive_lanes + nic_lanes > lanes_left:
            short_of = short_of or "lanes"
            continue
        memory = search.candidates.memory_sets(
            spec.ddr_generation,
            cpu,
            spec.dimm_slots,
            server.ram_gb,
            max_dpc,
            spec.registered_memory,
        )
        if memory:
            no_memory = False
        for dimms in memory:
            cost_memory = cost_cpu + dimms.cost
            if servers * (cost_memory + drive_cost) + extra >= bound:
                break
            power_memory = cpu.power_mw + dimms.power_mw
            if power_memory + drive_power + nic_power > power_left:
                short_of = short_of or "power"
                continue
            for disks in drives:
                cost_drives = cost_memory + disks.cost
                if servers * cost_drives + extra >= bound:
                    break
                power_drives = power_memory + disks.power_mw
                if power_drives + nic_power > power_left:
                    short_of = short_of or "power"
                    continue
                if disks.lanes + nic_lanes > lanes_left:
                    short_of = short_of or "lanes"
                    continue
                for nic in nics:  # cheapest first, the cluster's fabric and storage included
                    total = servers * cost_drives + nic.extra
                    if total >= bound:
                        break
                    cards = nic.parts
                    if power_drives + cards.power_mw > power_left:
                        short_of = short_of or "power"
                        continue
                    if disks.lanes + cards.lanes > lanes_left:
                        short_of = short_of or "lanes"
                        continue
                    found, bound = (total, cpu, dimms, disks, nic), total
                    break
    return found, no_memory, short_of
