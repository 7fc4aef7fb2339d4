"""Shared storage for a cluster (``design_shared_storage``): the cheapest number of one
storage-server model whose usable capacity (after its own RAID or erasure coding) and network read
rate together
cover the job's data and read rate; every data-parallel node reads the whole data set, so a shared
tier is sized once for the cluster, not split between servers.

Money is exact (Decimal, ``engine.money``); a part without a price in the catalog's currency is not
offered. Ties go to the lower SKU. Missing parts never raise: the design names them in ``unmet``.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from ...i18n import Message, figure, gettext_noop
from ...money import Money
from ..parts import CatalogSnapshot, StorageServerSpec
from .lines import EPSILON, ClusterLine, LineKind, LineRole, cluster_line, offered, part_price


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
            math.ceil(need_tb / server.usable_tb - EPSILON),
            math.ceil(read_mbs / server.read_mbs - EPSILON),
        )
        key = (part_price(server).amount * count, server.sku)
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
        power_w=math.ceil(server.power_w * count - EPSILON),
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
