"""The storage network: how the GPU servers of a training cluster reach its shared storage tier.

NVIDIA's DGX BasePOD reference architecture runs storage traffic on its own Ethernet network, apart
from the compute fabric (whose ports carry the GPUs' collectives, one per GPU) and from the
management network: each DGX has its own storage adapters cabled to storage switches, as are the
storage servers (https://docs.nvidia.com/dgx-basepod/reference-architecture-infrastructure-foundation-enterprise-ai/latest/reference-architectures.html,
read 2026-12-03). NFS and parallel filesystems read over RDMA there, so the adapters are RoCE
capable.

The design (``design_storage_network``), for ``gpu_servers`` servers and a storage tier already
chosen (``engine.build.cluster.fabric.design_shared_storage``):

- every GPU server gets the storage ports that carry its share of the job's read rate (at least
  one), on the cheapest RoCE adapter of the catalog that the design can cable;
- every storage server connects all its data ports, at their own speed;
- ports of different speeds share a switch by bandwidth: a switch offering ``ports_at(s)`` ports
  at the slowest speed ``s`` takes an endpoint of speed ``k x s`` as ``k`` of them (a 64 x 800GbE
  switch: 256 x 200GbE or 128 x 400GbE);
- endpoints that fit one switch share it; more make a non-blocking leaf/spine network, as the
  compute fabric does (``engine.build.cluster.fabric``), its uplinks at the fastest endpoint speed;
- storage servers stand next to the storage switches (a 3 m reach), GPU servers as far as their
  compute fabric's links run (``engine.build.cluster.fabric``: in the rack for up to four servers
  on one switch, across the row otherwise).

The adapter is a cluster line (``LineRole.STORAGE_ADAPTER``, one or more per GPU server): dense
GPU servers keep PCIe slots for it beside their compute adapters (a DGX H100 has two dual-port
storage adapters besides its eight compute ones, DGX H100 user guide). The management ports of the
storage switches and servers join the compute fabric's management network (``other_managed`` of
``engine.build.cluster.fabric.design_fabric``).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from ...i18n import Message, figure, gettext_noop
from ...money import Money
from ..parts import CatalogSnapshot, NicSpec, SwitchSpec
from .fabric import FabricDesign
from .lines import (
    IN_RACK_REACH_M,
    LINE_ROLE_LABELS,
    ROW_REACH_M,
    SERVERS_IN_ONE_RACK,
    UPLINK_REACH_M,
    Cabling,
    ClusterLine,
    LineKind,
    LineRole,
    cheapest_cabling,
    cluster_line,
    offered,
    spread,
)
from .shared_storage import StorageDesign

# MB/s of data one Gb/s of line rate carries (1 Gb/s = 125 MB/s), kept at 80 % for protocol
# overhead: the planning figure the catalog's storage servers use for their own read rates.
MBS_PER_GBPS = 125 * 0.8


@dataclass(frozen=True, slots=True)
class _Candidate:
    price: Money
    lines: tuple[ClusterLine, ...]
    power_w: float
    rack_units: int
    switch: SwitchSpec
    adapter: NicSpec
    ports_per_server: int
    leaves: int
    spines: int
    client_links: int
    uplinks: int
    missing: tuple[Message, ...]


def design_storage_network(
    gpu_servers: int, storage: StorageDesign | None, read_mbs: float, catalog: CatalogSnapshot
) -> FabricDesign | None:
    """The cheapest complete storage network joining ``gpu_servers`` GPU servers reading
    ``read_mbs`` MB/s together to the ``storage`` tier; None when there is nothing to join."""
    if storage is None or storage.servers < 1 or gpu_servers < 2:
        return None
    if read_mbs < 0:
        raise ValueError("read_mbs cannot be negative")
    currency = catalog.currency
    per_server_gbps = read_mbs / gpu_servers / MBS_PER_GBPS
    adapters = sorted(
        (nic for nic in catalog.nics if nic.roce and offered(nic.price, currency)),
        key=lambda nic: nic.sku,
    )
    switches = sorted(
        (
            s
            for s in catalog.switches
            if s.ethernet and not s.management and offered(s.price, currency)
        ),
        key=lambda s: s.sku,
    )
    candidates = [
        candidate
        for adapter in adapters
        for switch in switches
        if (
            candidate := _candidate(gpu_servers, storage, per_server_gbps, adapter, switch, catalog)
        )
        is not None
    ]
    complete = [c for c in candidates if not c.missing]
    if not complete:
        missing = (
            min(candidates, key=lambda c: (len(c.missing), c.price.amount)).missing
            if candidates
            else (
                Message(
                    gettext_noop(
                        "No RoCE adapter and Ethernet switch offered in the catalog can join the "
                        "GPU servers to the shared storage (%(speed)s Gb/s storage ports)."
                    ),
                    {"speed": storage.port_speed_gbps},
                ),
            )
        )
        return _incomplete(gpu_servers, missing, currency)
    best = min(complete, key=lambda c: (c.price.amount, c.adapter.sku, c.switch.sku))
    return FabricDesign(
        lines=best.lines,
        leaf_switches=best.leaves,
        spine_switches=best.spines,
        management_switches=0,
        links=best.client_links + storage.ports + best.uplinks,
        price=best.price,
        power_w=math.ceil(best.power_w - 1e-9),
        rack_units=best.rack_units,
        unmet=(),
        explanation=Message(
            gettext_noop(
                "Storage network: %(servers)s GPU servers with %(ports)s × %(speed)s Gb/s "
                "(%(adapter)s) and %(storage_ports)s storage ports of %(storage_speed)s Gb/s on "
                "%(switches)s %(switch)s switches, apart from the compute fabric."
            ),
            {
                "servers": gpu_servers,
                "ports": best.ports_per_server,
                "speed": best.adapter.speed_gbps,
                "adapter": best.adapter.name,
                "storage_ports": storage.ports,
                "storage_speed": storage.port_speed_gbps,
                "switches": best.leaves + best.spines,
                "switch": best.switch.name,
            },
        ),
        server_links=best.client_links + storage.ports,
        uplinks=best.uplinks,
    )


def _candidate(
    gpu_servers: int,
    storage: StorageDesign,
    per_server_gbps: float,
    adapter: NicSpec,
    switch: SwitchSpec,
    catalog: CatalogSnapshot,
) -> _Candidate | None:
    """The network on this adapter and switch model, or None when the switch cannot take both
    speeds or two tiers of it cannot join the endpoints."""
    client_speed, storage_speed = adapter.speed_gbps, storage.port_speed_gbps
    base = min(client_speed, storage_speed)
    radix = switch.ports_at(base)
    if base < 1 or radix < 2 or not switch.ports_at(max(client_speed, storage_speed)):
        return None
    ports_per_server = max(1, math.ceil(per_server_gbps / client_speed - 1e-9))
    client_links = gpu_servers * ports_per_server
    units = client_links * math.ceil(client_speed / base) + storage.ports * math.ceil(
        storage_speed / base
    )
    if units <= radix:
        leaves, spines = 1, 0
    elif units <= radix * (radix // 2):
        leaves, spines = math.ceil(units / (radix // 2)), math.ceil(units / radix)
    else:
        return None
    currency = catalog.currency
    cards = gpu_servers * math.ceil(ports_per_server / adapter.ports)
    lines = [cluster_line(LineKind.SWITCH, switch, leaves, LineRole.STORAGE_SWITCH)]
    if spines:
        lines.append(cluster_line(LineKind.SWITCH, switch, spines, LineRole.STORAGE_SPINE))
    lines.append(cluster_line(LineKind.NIC, adapter, cards, LineRole.STORAGE_ADAPTER))
    in_rack = leaves == 1 and gpu_servers <= SERVERS_IN_ONE_RACK
    groups = [
        (
            client_speed,
            client_links,
            IN_RACK_REACH_M if in_rack else ROW_REACH_M,
            LineRole.STORAGE_LINK,
        ),
        (storage_speed, storage.ports, IN_RACK_REACH_M, LineRole.STORAGE_LINK),
    ]
    found: list[Cabling | None] = [
        cheapest_cabling(
            catalog,
            speed,
            False,
            reach,
            spread(links, leaves),
            [],
            role,
            adapter_end=True,
        )
        for speed, links, reach, role in groups
    ]
    uplinks = 0
    if spines:
        uplink_speed = max(client_speed, storage_speed)
        per_leaf = [math.ceil(u * base / uplink_speed) for u in spread(units, leaves)]
        uplinks = sum(per_leaf)
        groups.append((uplink_speed, uplinks, UPLINK_REACH_M, LineRole.STORAGE_UPLINK))
        found.append(
            cheapest_cabling(
                catalog,
                uplink_speed,
                False,
                UPLINK_REACH_M,
                per_leaf,
                spread(uplinks, spines),
                LineRole.STORAGE_UPLINK,
                adapter_end=False,
            )
        )
    missing = []
    for (speed, _links, reach, role), cabling in zip(groups, found, strict=True):
        if cabling is None:
            missing.append(
                Message(
                    gettext_noop(
                        "No Ethernet cabling for the %(role)s at %(speed)s Gb/s over %(reach)s m "
                        "is offered in the catalog (a cable, or a fiber cord with a transceiver "
                        "for each end)."
                    ),
                    {
                        "role": LINE_ROLE_LABELS[role],
                        "speed": speed,
                        "reach": figure(reach),
                    },
                )
            )
        else:
            lines += cabling.lines
    price = sum((line.total for line in lines), Money.zero(currency))
    power = (
        switch.power_w * (leaves + spines)
        + adapter.power_w * cards
        + sum(c.power_w for c in found if c is not None)
    )
    return _Candidate(
        price=price,
        lines=tuple(lines),
        power_w=power,
        rack_units=switch.rack_units * (leaves + spines),
        switch=switch,
        adapter=adapter,
        ports_per_server=ports_per_server,
        leaves=leaves,
        spines=spines,
        client_links=client_links,
        uplinks=uplinks,
        missing=tuple(missing),
    )


def _incomplete(gpu_servers: int, missing: tuple[Message, ...], currency: str) -> FabricDesign:
    return FabricDesign(
        lines=(),
        leaf_switches=0,
        spine_switches=0,
        management_switches=0,
        links=0,
        price=Money.zero(currency),
        power_w=0,
        rack_units=0,
        unmet=missing,
        explanation=Message(
            gettext_noop("Storage network for %(servers)s GPU servers: not designed."),
            {"servers": gpu_servers},
        ),
    )
