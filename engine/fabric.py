"""What sits between the servers of a cluster: the network, designed and priced, and shared storage.

Compute fabric (``design_fabric``). Multi-node training sends each GPU's collective traffic
through its own adapter port ("rail-optimised": one port per GPU, NVIDIA DGX SuperPOD reference
architecture, https://docs.nvidia.com/dgx-superpod/reference-architecture-scalable-infrastructure-b200/latest/dgx-superpod-architecture.html,
read 2026-12-03). The endpoints are servers x ports per server:

- endpoints that fit the ports of one switch: one leaf switch, no spine;
- otherwise a non-blocking two-tier fat tree: each leaf gives half its ports to servers and half to
  spines, so ``leaves = ceil(endpoints / (radix / 2))``; every server link has an uplink
  (1:1, non-blocking), so ``spines = ceil(endpoints / radix)``. The SuperPOD table checks it:
  64 nodes x 8 GPUs = 512 endpoints on 64-port NDR switches -> 16 leaves, 8 spines, 512 node-leaf
  and 512 leaf-spine cables;
- beyond ``radix x radix / 2`` endpoints a two-tier tree runs out of spine ports: the design says
  so in ``unmet`` (a three-tier fabric is not designed here).

The switch model is the one giving the cheapest complete fabric among the catalog's switches of the
right kind (InfiniBand, or Ethernet for RoCE) whose ports run at the GPUs' port speed or faster; a
port faster than the link splits into several (``SwitchSpec.breakout``: a 64 x 800GbE switch
serves 128 x 400GbE). Each link is cabled with what the catalog sells, the cheapest way: a direct
cable (a copper DAC or an active optical cable, splitters counted per switch cage), or a fiber cord
with a transceiver at each end (twin-port switch transceivers carry two links each, counted per
switch, as the NVIDIA MMA4Z00-NS400 specification describes:
https://docs.nvidia.com/networking/display/mms4x00ns400/overview, read 2026-12-03). A copper DAC
reaches at most 3 m (NVIDIA MCP7Y00 ordering information, 1-3 m:
https://docs.nvidia.com/networking/display/mcp7y00nxxx800pub/ordering+information, read
2026-12-03), so the links' reach follows where the switches stand (``IN_RACK_REACH_M``,
``ROW_REACH_M``, ``UPLINK_REACH_M``).

Management network: a separate 1 GbE out-of-band network (the DGX BasePOD reference architecture
uses NVIDIA SN2201 switches for it: https://docs.nvidia.com/dgx-basepod/reference-architecture-infrastructure-foundation-enterprise-ai/latest/reference-architectures.html,
read 2026-12-03) connects each server's BMC and each fabric switch's management port (the QM97xx
manual lists its RJ45 management interface:
https://docs.nvidia.com/networking/display/QM97X0PUB/Interfaces, read 2026-12-03) with one Cat6
cord each; a management switch keeps one port for its uplink, which gets a cord too.

Production adds no requirement to the compute fabric: NVIDIA's production reference architectures
above run one (not duplicated) compute fabric; ``production`` is accepted so that the caller does
not need to know this.

Shared storage (``design_shared_storage``): the cheapest number of one storage-server model whose
usable capacity (after its own RAID or erasure coding) and network read rate together cover the
job's data and read rate; every data-parallel node reads the whole data set, so a shared tier is
sized once for the cluster, not split between servers.

Money is exact (Decimal, ``engine.money``); a part without a price in the catalog's currency is not
offered. Ties go to the lower SKU. Missing parts never raise: the design names them in ``unmet``.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from enum import StrEnum

from .i18n import Message, figure, gettext_noop
from .money import Money
from .parts import (
    Availability,
    CableEnds,
    CableKind,
    CableSpec,
    CatalogSnapshot,
    NicSpec,
    StorageServerSpec,
    SwitchSpec,
)

# --- Assumptions (GPUQuote's, with their basis) --------------------------------------------------

# Servers that share a rack with their switch: four 8U HGX servers and the switches fill a 42U rack.
# Up to this many servers on one switch, links stay in the rack and a 3 m copper cable reaches.
SERVERS_IN_ONE_RACK = 4
IN_RACK_REACH_M = 3.0
# Server racks on both sides of a network rack (the SuperPOD scalable-unit layout): server links
# and management cords run up to about 10 m; leaf-to-spine links cross the row, up to 30 m.
ROW_REACH_M = 10.0
UPLINK_REACH_M = 30.0
# A management port runs at 1 Gb/s (1000BASE-T).
MANAGEMENT_SPEED_GBPS = 1
# Float noise allowed when a need is an exact multiple of a part (300 TB on 150 TB servers: 2).
_EPSILON = 1e-9


class LineKind(StrEnum):
    SWITCH = "switch"
    CABLE = "cable"  # cables, fiber cords and transceivers
    STORAGE_SERVER = "storage_server"
    NIC = "nic"  # an adapter fitted in each GPU server for the storage network


class LineRole(StrEnum):
    LEAF = "leaf"
    SPINE = "spine"
    MANAGEMENT = "management"
    SERVER_LINK = "server_link"
    UPLINK = "uplink"
    MANAGEMENT_LINK = "management_link"
    SHARED_STORAGE = "shared_storage"
    STORAGE_SWITCH = "storage_switch"
    STORAGE_SPINE = "storage_spine"
    STORAGE_LINK = "storage_link"
    STORAGE_UPLINK = "storage_uplink"
    STORAGE_ADAPTER = "storage_adapter"


# Every role a cluster line carries: a server's own lines carry "", "boot" or "data".
CLUSTER_ROLES = frozenset(role.value for role in LineRole)

LINE_ROLE_LABELS = {
    LineRole.LEAF: Message(gettext_noop("leaf switch")),
    LineRole.SPINE: Message(gettext_noop("spine switch")),
    LineRole.MANAGEMENT: Message(gettext_noop("management switch")),
    LineRole.SERVER_LINK: Message(gettext_noop("server-to-leaf link")),
    LineRole.UPLINK: Message(gettext_noop("leaf-to-spine link")),
    LineRole.MANAGEMENT_LINK: Message(gettext_noop("management link")),
    LineRole.SHARED_STORAGE: Message(gettext_noop("shared storage")),
    LineRole.STORAGE_SWITCH: Message(gettext_noop("storage network switch")),
    LineRole.STORAGE_SPINE: Message(gettext_noop("storage network spine switch")),
    LineRole.STORAGE_LINK: Message(gettext_noop("storage network link")),
    LineRole.STORAGE_UPLINK: Message(gettext_noop("storage network uplink")),
    LineRole.STORAGE_ADAPTER: Message(gettext_noop("storage adapter, one in each GPU server")),
}


@dataclass(frozen=True, slots=True)
class ClusterLine:
    kind: str  # a LineKind: "switch" | "cable" | "storage_server" | "nic"
    sku: str
    name: str
    quantity: int  # for the whole cluster
    unit_price: Money
    role: str  # a LineRole
    availability: Availability = Availability.CURRENT
    lead_time_weeks: int | None = None

    @property
    def total(self) -> Money:
        return self.unit_price * self.quantity


@dataclass(frozen=True, slots=True)
class FabricDesign:
    lines: tuple[ClusterLine, ...]
    leaf_switches: int
    spine_switches: int
    management_switches: int
    links: int  # compute fabric: server links + uplinks
    price: Money  # every line
    power_w: int  # switches and powered cables/optics
    rack_units: int  # switches
    unmet: tuple[Message, ...]  # empty: complete
    explanation: Message  # one sentence with the figures
    server_links: int = 0
    uplinks: int = 0
    management_links: int = 0


@dataclass(frozen=True, slots=True)
class StorageDesign:
    lines: tuple[ClusterLine, ...]
    servers: int
    usable_tb: float
    read_mbs: float
    price: Money
    power_w: int
    rack_units: int
    unmet: tuple[Message, ...]
    explanation: Message
    managed_monthly_price: Money | None = None  # None: a server has no managed price
    ports: int = 0  # data ports of all the storage servers together
    port_speed_gbps: int = 0  # each


# --- Compute fabric and management network ------------------------------------------------------


def design_fabric(
    servers: int,
    ports_per_server: int,
    port_speed_gbps: int,
    infiniband: bool,
    catalog: CatalogSnapshot,
    production: bool,
    other_managed: int = 0,
) -> FabricDesign | None:
    """The cluster network for ``servers`` servers with ``ports_per_server`` fabric ports (one per
    GPU) of ``port_speed_gbps``; None for one server (no fabric). ``other_managed``: devices
    outside this fabric whose management port joins its management network too (storage servers
    and storage switches). See the module docstring."""
    del production  # no extra requirement (module docstring)
    if servers <= 1:
        return None
    if ports_per_server < 1 or port_speed_gbps < 1:
        raise ValueError("a fabric needs at least one port per server and a port speed")
    currency = catalog.currency
    fabric = "InfiniBand" if infiniband else "Ethernet (RoCE)"
    endpoints = servers * ports_per_server
    unmet: list[Message] = []

    compute = _best_compute_fabric(
        servers, endpoints, port_speed_gbps, infiniband, fabric, catalog, unmet
    )
    fabric_switches = 0 if compute is None else compute.leaves + compute.spines
    reach = _server_reach(servers, two_tier=compute is not None and compute.spines > 0)
    management = _management_network(
        servers + fabric_switches + other_managed, reach, catalog, currency, unmet
    )

    lines: list[ClusterLine] = []
    power = 0.0
    if compute is not None:
        lines += compute.lines
        power += compute.power_w
    lines += management.lines
    power += management.power_w
    price = sum((line.total for line in lines), Money.zero(currency))
    rack_units = (0 if compute is None else compute.rack_units) + management.rack_units
    leaves = 0 if compute is None else compute.leaves
    spines = 0 if compute is None else compute.spines
    server_links = 0 if compute is None else endpoints
    uplinks = 0 if compute is None else compute.uplinks
    explanation = Message(
        gettext_noop(
            "%(servers)s servers × %(ports)s ports of %(speed)s Gb/s %(fabric)s: %(leaves)s leaf "
            "and %(spines)s spine switches (%(switch)s, %(radix)s ports each), %(server_links)s "
            "server links and %(uplinks)s uplinks; %(management)s management switches with "
            "%(management_links)s cords."
        ),
        {
            "servers": servers,
            "ports": ports_per_server,
            "speed": port_speed_gbps,
            "fabric": fabric,
            "leaves": leaves,
            "spines": spines,
            "switch": "-" if compute is None else compute.switch.name,
            "radix": 0 if compute is None else compute.radix,
            "server_links": server_links,
            "uplinks": uplinks,
            "management": management.switches,
            "management_links": management.cords,
        },
    )
    return FabricDesign(
        lines=tuple(lines),
        leaf_switches=leaves,
        spine_switches=spines,
        management_switches=management.switches,
        links=server_links + uplinks,
        price=price,
        power_w=math.ceil(power - _EPSILON),
        rack_units=rack_units,
        unmet=tuple(unmet),
        explanation=explanation,
        server_links=server_links,
        uplinks=uplinks,
        management_links=management.cords,
    )


@dataclass(frozen=True, slots=True)
class Cabling:
    lines: tuple[ClusterLine, ...]
    price: Money
    power_w: float


@dataclass(frozen=True, slots=True)
class _ComputePlan:
    switch: SwitchSpec
    radix: int
    leaves: int
    spines: int
    uplinks: int
    lines: tuple[ClusterLine, ...]
    price: Money
    power_w: float
    rack_units: int
    missing: tuple[Message, ...]


@dataclass(frozen=True, slots=True)
class _Management:
    lines: tuple[ClusterLine, ...]
    switches: int
    cords: int
    power_w: float
    rack_units: int


def offered(price: Money | None, currency: str) -> bool:
    return price is not None and price.currency == currency


def _price(part: SwitchSpec | CableSpec | StorageServerSpec | NicSpec) -> Money:
    """The price of a part already filtered by ``_offered``."""
    if part.price is None:
        raise ValueError(f"{part.sku} has no price: it is not offered")
    return part.price


def cluster_line(
    kind: LineKind,
    part: SwitchSpec | CableSpec | StorageServerSpec | NicSpec,
    quantity: int,
    role: LineRole,
) -> ClusterLine:
    return ClusterLine(
        kind=kind.value,  # plain strings: lines travel through engine.codec
        sku=part.sku,
        name=part.name,
        quantity=quantity,
        unit_price=_price(part),
        role=role.value,
        availability=part.availability,
        lead_time_weeks=part.lead_time_weeks,
    )


def spread(total: int, groups: int) -> list[int]:
    """``total`` items over ``groups`` as evenly as possible (the first ones take the extra)."""
    base, extra = divmod(total, groups)
    return [base + 1 if i < extra else base for i in range(groups)]


def _per_cage(counts: Iterable[int], links: int) -> int:
    """Units carrying ``links`` links each, counted per switch (a cage is not shared by two)."""
    return sum(math.ceil(count / links) for count in counts)


def _server_reach(servers: int, two_tier: bool) -> float:
    """How far a server's cables run: in the switch's rack for a few servers on one switch,
    across the row otherwise."""
    in_rack = not two_tier and servers <= SERVERS_IN_ONE_RACK
    return IN_RACK_REACH_M if in_rack else ROW_REACH_M


def _best_compute_fabric(
    servers: int,
    endpoints: int,
    speed: int,
    infiniband: bool,
    fabric: str,
    catalog: CatalogSnapshot,
    unmet: list[Message],
) -> _ComputePlan | None:
    currency = catalog.currency
    switches = sorted(
        (
            switch
            for switch in catalog.switches
            if offered(switch.price, currency)
            and not switch.management
            and (switch.infiniband if infiniband else switch.ethernet)
            and switch.ports_at(speed) >= 2
        ),
        key=lambda switch: switch.sku,
    )
    if not switches:
        unmet.append(
            Message(
                gettext_noop(
                    "No %(fabric)s switch with ports of %(speed)s Gb/s or faster is offered in "
                    "the catalog."
                ),
                {"fabric": fabric, "speed": speed},
            )
        )
        return None
    plans = [
        plan
        for switch in switches
        if (plan := _compute_plan(switch, servers, endpoints, speed, infiniband, fabric, catalog))
        is not None
    ]
    if not plans:
        radix = max(switch.ports_at(speed) for switch in switches)
        unmet.append(
            Message(
                gettext_noop(
                    "%(endpoints)s fabric ports need more than two tiers of switches: the largest "
                    "%(fabric)s switch offered (%(radix)s ports of %(speed)s Gb/s) connects at "
                    "most %(limit)s in a non-blocking leaf/spine fabric; a three-tier fabric is "
                    "not designed here."
                ),
                {
                    "endpoints": endpoints,
                    "fabric": fabric,
                    "radix": radix,
                    "speed": speed,
                    "limit": radix * (radix // 2),
                },
            )
        )
        return None
    best = min(plans, key=lambda plan: (bool(plan.missing), plan.price.amount, plan.switch.sku))
    unmet.extend(best.missing)
    return best


def _compute_plan(
    switch: SwitchSpec,
    servers: int,
    endpoints: int,
    speed: int,
    infiniband: bool,
    fabric: str,
    catalog: CatalogSnapshot,
) -> _ComputePlan | None:
    """One switch model's fabric, or None when two tiers of it cannot connect the endpoints."""
    radix = switch.ports_at(speed)
    half = radix // 2
    if endpoints <= radix:
        leaves, spines = 1, 0
        down = [endpoints]
        up: list[int] = []
        spine_ports: list[int] = []
    elif endpoints <= radix * half:
        leaves = math.ceil(endpoints / half)
        spines = math.ceil(endpoints / radix)
        down = spread(endpoints, leaves)
        up = down  # 1:1, non-blocking
        spine_ports = spread(endpoints, spines)
    else:
        return None
    uplinks = sum(up)
    reach = _server_reach(servers, two_tier=spines > 0)
    missing: list[Message] = []
    lines = [cluster_line(LineKind.SWITCH, switch, leaves, LineRole.LEAF)]
    if spines:
        lines.append(cluster_line(LineKind.SWITCH, switch, spines, LineRole.SPINE))
    cabling = [
        cheapest_cabling(
            catalog, speed, infiniband, reach, down, [], LineRole.SERVER_LINK, adapter_end=True
        )
    ]
    if uplinks:
        cabling.append(
            cheapest_cabling(
                catalog,
                speed,
                infiniband,
                UPLINK_REACH_M,
                up,
                spine_ports,
                LineRole.UPLINK,
                adapter_end=False,
            )
        )
    for role, reach_m, found in zip(
        (LineRole.SERVER_LINK, LineRole.UPLINK), (reach, UPLINK_REACH_M), cabling, strict=False
    ):
        if found is None:
            missing.append(
                Message(
                    gettext_noop(
                        "No %(fabric)s cabling for the %(role)s at %(speed)s Gb/s over "
                        "%(reach)s m is offered in the catalog (a cable, or a fiber cord with a "
                        "transceiver for each end)."
                    ),
                    {
                        "fabric": fabric,
                        "role": LINE_ROLE_LABELS[role],
                        "speed": speed,
                        "reach": figure(reach_m),
                    },
                )
            )
        else:
            lines += found.lines
    price = sum((line.total for line in lines), Money.zero(catalog.currency))
    power = switch.power_w * (leaves + spines) + sum(c.power_w for c in cabling if c is not None)
    return _ComputePlan(
        switch=switch,
        radix=radix,
        leaves=leaves,
        spines=spines,
        uplinks=uplinks,
        lines=tuple(lines),
        price=price,
        power_w=power,
        rack_units=switch.rack_units * (leaves + spines),
        missing=tuple(missing),
    )


def _fits_fabric(cable: CableSpec, infiniband: bool) -> bool:
    return cable.infiniband if infiniband else cable.ethernet


def _cheapest(options: Iterable[tuple[CableSpec, int]]) -> tuple[CableSpec, int] | None:
    """The option (part, units) with the lowest total, ties to the lower SKU."""
    best: tuple[CableSpec, int] | None = None
    best_key: tuple[object, ...] = ()
    for cable, units in options:
        key = (_price(cable).amount * units, cable.sku)
        if best is None or key < best_key:
            best, best_key = (cable, units), key
    return best


def cheapest_cabling(
    catalog: CatalogSnapshot,
    speed: int,
    infiniband: bool,
    reach_m: float,
    near: Sequence[int],
    far: Sequence[int],
    role: LineRole,
    *,
    adapter_end: bool,
) -> Cabling | None:
    """The cheapest cabling of the links between switches (``near`` links per switch) and either
    server adapters (``adapter_end``) or other switches (``far`` links per switch)."""
    currency = catalog.currency
    links = sum(near)
    for_sale = sorted(
        (c for c in catalog.cables if offered(c.price, currency) and _fits_fabric(c, infiniband)),
        key=lambda c: c.sku,
    )
    direct_ends = (
        {CableEnds.ANY, CableEnds.SWITCH_TO_ADAPTER}
        if adapter_end
        else {CableEnds.ANY, CableEnds.SWITCH_TO_SWITCH}
    )
    direct = _cheapest(
        (
            (c, _per_cage(near, c.links) if c.links > 1 else links)
            for c in for_sale
            if c.kind in {CableKind.DAC, CableKind.AOC}
            and c.speed_gbps == speed
            and c.length_m >= reach_m
            and c.ends in direct_ends
            and (c.links == 1 or c.ends is not CableEnds.ANY)
        ),
    )
    fiber = _cheapest(
        (
            (c, links)
            for c in for_sale
            if c.kind is CableKind.FIBER
            and c.speed_gbps >= speed
            and c.length_m >= reach_m
            and c.links == 1
        ),
    )
    modules = [c for c in for_sale if c.kind is CableKind.TRANSCEIVER and c.speed_gbps == speed]
    switch_end_cages = list(near) + list(far)
    switch_end = _cheapest(
        (
            (c, _per_cage(switch_end_cages, c.links))
            for c in modules
            if c.ends in {CableEnds.SWITCH, CableEnds.ANY}
        ),
    )
    adapter_side = (
        _cheapest(
            (
                (c, links)
                for c in modules
                if c.ends in {CableEnds.ADAPTER, CableEnds.ANY} and c.links == 1
            ),
        )
        if adapter_end
        else None
    )
    candidates: list[tuple[tuple[object, ...], Cabling]] = []
    if direct is not None:
        cable, units = direct
        candidates.append(_cabling_of([(cable, units)], role, currency))
    optics_complete = fiber is not None and switch_end is not None
    if adapter_end:
        optics_complete = optics_complete and adapter_side is not None
    if optics_complete:
        parts = [p for p in (fiber, switch_end, adapter_side) if p is not None]
        candidates.append(_cabling_of(parts, role, currency))
    if not candidates:
        return None
    return min(candidates, key=lambda candidate: candidate[0])[1]


def _cabling_of(
    parts: Sequence[tuple[CableSpec, int]], role: LineRole, currency: str
) -> tuple[tuple[object, ...], Cabling]:
    lines = tuple(cluster_line(LineKind.CABLE, part, units, role) for part, units in parts)
    price = sum((line.total for line in lines), Money.zero(currency))
    power = sum(part.power_w * units for part, units in parts)
    key = (price.amount, tuple(part.sku for part, _ in parts))
    return key, Cabling(lines=lines, price=price, power_w=power)


def _management_network(
    endpoints: int,
    reach_m: float,
    catalog: CatalogSnapshot,
    currency: str,
    unmet: list[Message],
) -> _Management:
    """One management switch per (ports - 1) endpoints, a Cat6 cord per endpoint and uplink."""
    switches = [
        s for s in catalog.switches if s.management and offered(s.price, currency) and s.ports >= 2
    ]
    chosen: tuple[SwitchSpec, int] | None = None
    best_key: tuple[object, ...] = ()
    for switch in switches:
        count = math.ceil(endpoints / (switch.ports - 1))
        key = (_price(switch).amount * count, switch.sku)
        if chosen is None or key < best_key:
            chosen, best_key = (switch, count), key
    if chosen is None:
        unmet.append(Message(gettext_noop("No management switch is offered in the catalog.")))
        return _Management(lines=(), switches=0, cords=0, power_w=0.0, rack_units=0)
    switch, count = chosen
    lines = [cluster_line(LineKind.SWITCH, switch, count, LineRole.MANAGEMENT)]
    cords = endpoints + count  # one per endpoint, one uplink per management switch
    cord = _cheapest(
        (
            (c, cords)
            for c in sorted(catalog.cables, key=lambda c: c.sku)
            if c.kind is CableKind.COPPER
            and c.ethernet
            and offered(c.price, currency)
            and c.speed_gbps >= MANAGEMENT_SPEED_GBPS
            and c.length_m >= reach_m
        ),
    )
    power = switch.power_w * count
    if cord is None:
        unmet.append(
            Message(
                gettext_noop(
                    "No Cat6 management cord of %(reach)s m or longer is offered in the catalog."
                ),
                {"reach": figure(reach_m)},
            )
        )
        cords = 0
    else:
        cable, units = cord
        lines.append(cluster_line(LineKind.CABLE, cable, units, LineRole.MANAGEMENT_LINK))
        power += cable.power_w * units
    return _Management(
        lines=tuple(lines),
        switches=count,
        cords=cords,
        power_w=power,
        rack_units=switch.rack_units * count,
    )


# --- Shared storage ------------------------------------------------------------------------------


def design_shared_storage(
    storage_gb: float, read_mbs: float, catalog: CatalogSnapshot
) -> StorageDesign | None:
    """The cheapest count of one storage-server model covering ``storage_gb`` (GB = 10^9 bytes)
    and ``read_mbs`` together; None when there is no data to hold."""
    if storage_gb <= 0:
        return None
    if read_mbs < 0:
        raise ValueError("read_mbs cannot be negative")
    currency = catalog.currency
    need_tb = storage_gb / 1000
    best: tuple[StorageServerSpec, int] | None = None
    best_key: tuple[object, ...] = ()
    for server in sorted(catalog.storage_servers, key=lambda s: s.sku):
        if not offered(server.price, currency) or server.usable_tb <= 0 or server.read_mbs <= 0:
            continue
        count = max(
            1,
            math.ceil(need_tb / server.usable_tb - _EPSILON),
            math.ceil(read_mbs / server.read_mbs - _EPSILON),
        )
        key = (_price(server).amount * count, server.sku)
        if best is None or key < best_key:
            best, best_key = (server, count), key
    if best is None:
        return StorageDesign(
            lines=(),
            servers=0,
            usable_tb=0.0,
            read_mbs=0.0,
            price=Money.zero(currency),
            power_w=0,
            rack_units=0,
            unmet=(Message(gettext_noop("No storage server is offered in the catalog.")),),
            explanation=Message(
                gettext_noop(
                    "%(tb)s TB of shared data at %(read)s MB/s: no storage server to hold it."
                ),
                {"tb": round(need_tb, 1), "read": round(read_mbs)},
            ),
        )
    server, count = best
    line = cluster_line(LineKind.STORAGE_SERVER, server, count, LineRole.SHARED_STORAGE)
    managed = (
        server.managed_monthly_price * count
        if server.managed_monthly_price is not None
        and server.managed_monthly_price.currency == currency
        else None
    )
    usable_tb = server.usable_tb * count
    total_read = float(server.read_mbs * count)
    return StorageDesign(
        lines=(line,),
        servers=count,
        usable_tb=usable_tb,
        read_mbs=total_read,
        price=line.total,
        power_w=math.ceil(server.power_w * count - _EPSILON),
        rack_units=server.rack_units * count,
        unmet=(),
        explanation=Message(
            gettext_noop(
                "%(tb)s TB of shared data at %(read)s MB/s: %(count)s × %(name)s (%(unit_tb)s TB "
                "usable and %(unit_read)s MB/s each), %(total_tb)s TB and %(total_read)s MB/s in "
                "all."
            ),
            {
                "tb": round(need_tb, 1),
                "read": round(read_mbs),
                "count": count,
                "name": server.name,
                "unit_tb": figure(server.usable_tb),
                "unit_read": server.read_mbs,
                "total_tb": figure(usable_tb),
                "total_read": round(total_read),
            },
        ),
        managed_monthly_price=managed,
        ports=server.ports * count,
        port_speed_gbps=server.port_speed_gbps,
    )
