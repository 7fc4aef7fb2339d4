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

Money is exact (Decimal, ``engine.money``); a part without a price in the catalog's currency is not
offered. Ties go to the lower SKU. Missing parts never raise: the design names them in ``unmet``.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from ...i18n import Message, figure, gettext_noop
from ...money import Money
from ..parts import CableKind, CatalogSnapshot, SwitchSpec
from .lines import (
    EPSILON,
    IN_RACK_REACH_M,
    LINE_ROLE_LABELS,
    MANAGEMENT_SPEED_GBPS,
    ROW_REACH_M,
    SERVERS_IN_ONE_RACK,
    UPLINK_REACH_M,
    ClusterLine,
    LineKind,
    LineRole,
    cheapest_cabling,
    cheapest_part,
    cluster_line,
    offered,
    part_price,
    spread,
)


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
        power_w=math.ceil(power - EPSILON),
        rack_units=rack_units,
        unmet=tuple(unmet),
        explanation=explanation,
        server_links=server_links,
        uplinks=uplinks,
        management_links=management.cords,
    )


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
        key = (part_price(switch).amount * count, switch.sku)
        if chosen is None or key < best_key:
            chosen, best_key = (switch, count), key
    if chosen is None:
        unmet.append(Message(gettext_noop("No management switch is offered in the catalog.")))
        return _Management(lines=(), switches=0, cords=0, power_w=0.0, rack_units=0)
    switch, count = chosen
    lines = [cluster_line(LineKind.SWITCH, switch, count, LineRole.MANAGEMENT)]
    cords = endpoints + count  # one per endpoint, one uplink per management switch
    cord = cheapest_part(
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
