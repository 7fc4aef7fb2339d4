"""What a cluster is made of between its servers: the lines (switches, cables, storage servers,
adapters) with their roles, where the racks put them (the reach of each link) and how a link is
cabled the cheapest way with what the catalog sells (see ``fabric`` for the method and sources).
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from enum import StrEnum

from ...i18n import Message, gettext_noop
from ...money import Money
from ..parts import (
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
EPSILON = 1e-9


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
class Cabling:
    lines: tuple[ClusterLine, ...]
    price: Money
    power_w: float


def offered(price: Money | None, currency: str) -> bool:
    return price is not None and price.currency == currency


def part_price(part: SwitchSpec | CableSpec | StorageServerSpec | NicSpec) -> Money:
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
        kind=kind.value,  # plain strings: lines travel through engine.advice.codec
        sku=part.sku,
        name=part.name,
        quantity=quantity,
        unit_price=part_price(part),
        role=role.value,
        availability=part.availability,
        lead_time_weeks=part.lead_time_weeks,
    )


def spread(total: int, groups: int) -> list[int]:
    """``total`` items over ``groups`` as evenly as possible (the first ones take the extra)."""
    base, extra = divmod(total, groups)
    return [base + 1 if i < extra else base for i in range(groups)]


def per_cage(counts: Iterable[int], links: int) -> int:
    """Units carrying ``links`` links each, counted per switch (a cage is not shared by two)."""
    return sum(math.ceil(count / links) for count in counts)


def _fits_fabric(cable: CableSpec, infiniband: bool) -> bool:
    return cable.infiniband if infiniband else cable.ethernet


def cheapest_part(options: Iterable[tuple[CableSpec, int]]) -> tuple[CableSpec, int] | None:
    """The option (part, units) with the lowest total, ties to the lower SKU."""
    best: tuple[CableSpec, int] | None = None
    best_key: tuple[object, ...] = ()
    for cable, units in options:
        key = (part_price(cable).amount * units, cable.sku)
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
    direct = cheapest_part(
        (
            (c, per_cage(near, c.links) if c.links > 1 else links)
            for c in for_sale
            if c.kind in {CableKind.DAC, CableKind.AOC}
            and c.speed_gbps == speed
            and c.length_m >= reach_m
            and c.ends in direct_ends
            and (c.links == 1 or c.ends is not CableEnds.ANY)
        ),
    )
    fiber = cheapest_part(
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
    switch_end = cheapest_part(
        (
            (c, per_cage(switch_end_cages, c.links))
            for c in modules
            if c.ends in {CableEnds.SWITCH, CableEnds.ANY}
        ),
    )
    adapter_side = (
        cheapest_part(
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
        candidates.append(cabling_of([(cable, units)], role, currency))
    optics_complete = fiber is not None and switch_end is not None
    if adapter_end:
        optics_complete = optics_complete and adapter_side is not None
    if optics_complete:
        parts = [p for p in (fiber, switch_end, adapter_side) if p is not None]
        candidates.append(cabling_of(parts, role, currency))
    if not candidates:
        return None
    return min(candidates, key=lambda candidate: candidate[0])[1]


def cabling_of(
    parts: Sequence[tuple[CableSpec, int]], role: LineRole, currency: str
) -> tuple[tuple[object, ...], Cabling]:
    lines = tuple(cluster_line(LineKind.CABLE, part, units, role) for part, units in parts)
    price = sum((line.total for line in lines), Money.zero(currency))
    power = sum(part.power_w * units for part, units in parts)
    key = (price.amount, tuple(part.sku for part, _ in parts))
    return key, Cabling(lines=lines, price=price, power_w=power)
